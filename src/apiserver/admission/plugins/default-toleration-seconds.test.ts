import { describe, it } from 'node:test';
import assert from '../../../testing/assert.js';
import { attributesFor } from '../attributes.js';
import type { AdmissionAttributes } from '../types.js';
import { defaultTolerationSeconds } from './default-toleration-seconds.js';

const PODS = { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true };

function pod(tolerations?: unknown[], subresource = ''): AdmissionAttributes {
  return attributesFor(PODS, {
    operation: 'CREATE',
    object: { metadata: { name: 'web' }, spec: { containers: [], ...(tolerations ? { tolerations } : {}) } },
    subresource,
    namespace: 'default',
    name: 'web',
  });
}

const tolerationsOf = (a: AdmissionAttributes) => (a.object!.spec as { tolerations?: unknown[] }).tolerations;

describe('DefaultTolerationSeconds', () => {
  it('adds not-ready and unreachable NoExecute tolerations with the configured seconds', async () => {
    const plugin = defaultTolerationSeconds({ notReadySeconds: 30, unreachableSeconds: 60 });
    const a = pod();
    await plugin.admit?.(a);
    assert.deepEqual(tolerationsOf(a), [
      { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 30 },
      { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 60 },
    ]);
    // Admitting again (an update) adds nothing more.
    await plugin.admit?.(a);
    assert.equal(tolerationsOf(a)?.length, 2);
  });

  it('defaults to 300 seconds', async () => {
    const a = pod();
    await defaultTolerationSeconds().admit?.(a);
    assert.deepEqual(
      tolerationsOf(a)?.map((t) => (t as { tolerationSeconds: number }).tolerationSeconds),
      [300, 300],
    );
  });

  it('leaves a pod alone that already tolerates the taints (a key or effect left empty matches all)', async () => {
    const plugin = defaultTolerationSeconds();
    const own = { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 5 };
    const a = pod([own]);
    await plugin.admit?.(a);
    assert.deepEqual(tolerationsOf(a), [
      own,
      { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
    ]);
    const everything = pod([{ operator: 'Exists' }]);
    await plugin.admit?.(everything);
    assert.deepEqual(tolerationsOf(everything), [{ operator: 'Exists' }]);
    const anyEffect = pod([{ key: 'node.kubernetes.io/unreachable', operator: 'Exists' }]);
    await plugin.admit?.(anyEffect);
    assert.equal(tolerationsOf(anyEffect)?.length, 2);
    // A NoSchedule toleration does not cover NoExecute.
    const noSchedule = pod([{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoSchedule' }]);
    await plugin.admit?.(noSchedule);
    assert.equal(tolerationsOf(noSchedule)?.length, 3);
  });

  it('ignores subresources and other resources', async () => {
    const plugin = defaultTolerationSeconds();
    const status = pod(undefined, 'status');
    await plugin.admit?.(status);
    assert.equal(tolerationsOf(status), undefined);
    assert.equal(plugin.handles?.('DELETE'), false);
  });
});
