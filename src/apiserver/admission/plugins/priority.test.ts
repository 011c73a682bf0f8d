import { describe, it } from 'node:test';
import { StatusError } from '../../../api/status-error.js';
import assert from '../../../testing/assert.js';
import type { KubeObject } from '../../registry/object.js';
import { attributesFor } from '../attributes.js';
import type { AdmissionAttributes } from '../types.js';
import { type PriorityClassSource, priority } from './priority.js';

const PODS = { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true };
const PCS = {
  group: 'scheduling.k8s.io',
  version: 'v1',
  resource: 'priorityclasses',
  kind: 'PriorityClass',
  namespaced: false,
};

function pc(name: string, value: number, extra: Record<string, unknown> = {}): KubeObject {
  return { metadata: { name }, value, preemptionPolicy: 'PreemptLowerPriority', ...extra };
}

function source(classes: KubeObject[]): PriorityClassSource {
  return {
    get: async (name) => classes.find((c) => c.metadata.name === name),
    list: async () => classes,
  };
}

const SYSTEM = [pc('system-cluster-critical', 2_000_000_000), pc('system-node-critical', 2_000_001_000)];

function podCreate(spec: Record<string, unknown>, namespace = 'default'): AdmissionAttributes {
  return attributesFor(PODS, {
    operation: 'CREATE',
    object: { metadata: { name: 'web', namespace }, spec: { containers: [{ name: 'c', image: 'i' }], ...spec } },
    namespace,
    name: 'web',
  });
}

async function refusal(p: Promise<void>): Promise<string> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof StatusError);
    assert.equal(err.code, 403);
    assert.equal(err.reason, 'Forbidden');
    return err.message;
  }
  assert.fail('admission did not refuse');
}

describe('Priority admission', () => {
  it('resolves a class name into priority and preemptionPolicy', async () => {
    const plugin = priority(source([...SYSTEM, pc('batch', 100, { preemptionPolicy: 'Never' })]));
    const a = podCreate({ priorityClassName: 'system-cluster-critical' }, 'kube-system');
    await plugin.admit?.(a);
    assert.equal((a.object!.spec as Record<string, unknown>).priority, 2_000_000_000);
    const b = podCreate({ priorityClassName: 'batch' });
    await plugin.admit?.(b);
    const spec = b.object!.spec as Record<string, unknown>;
    assert.equal(spec.priority, 100);
    assert.equal(spec.preemptionPolicy, 'Never');
  });

  it('allows the system classes in any namespace, as upstream since 1.17', async () => {
    const plugin = priority(source(SYSTEM));
    const a = podCreate({ priorityClassName: 'system-node-critical' }, 'default');
    await plugin.admit?.(a);
    assert.equal((a.object!.spec as Record<string, unknown>).priority, 2_000_001_000);
  });

  it('refuses an unknown class with upstream message', async () => {
    const plugin = priority(source(SYSTEM));
    assert.equal(
      await refusal(Promise.resolve(plugin.admit?.(podCreate({ priorityClassName: 'foo' })))),
      'pods "web" is forbidden: no PriorityClass with name foo was found',
    );
  });

  it('gives pods without a class the lowest global default, else priority 0', async () => {
    const none = priority(source(SYSTEM));
    const a = podCreate({});
    await none.admit?.(a);
    const spec = a.object!.spec as Record<string, unknown>;
    assert.equal(spec.priority, 0);
    assert.equal(spec.preemptionPolicy, 'PreemptLowerPriority');
    assert.equal(spec.priorityClassName, undefined);
    const withDefaults = priority(
      source([
        ...SYSTEM,
        pc('high-default', 500, { globalDefault: true }),
        pc('low-default', 10, { globalDefault: true, preemptionPolicy: 'Never' }),
      ]),
    );
    const b = podCreate({});
    await withDefaults.admit?.(b);
    const bspec = b.object!.spec as Record<string, unknown>;
    assert.equal(bspec.priorityClassName, 'low-default');
    assert.equal(bspec.priority, 10);
    assert.equal(bspec.preemptionPolicy, 'Never');
  });

  it('refuses a pod whose own priority or preemptionPolicy disagrees with its class', async () => {
    const plugin = priority(source([...SYSTEM, pc('batch', 100)]));
    assert.equal(
      await refusal(Promise.resolve(plugin.admit?.(podCreate({ priorityClassName: 'batch', priority: 7 })))),
      'pods "web" is forbidden: the integer value of priority (7) must not be provided in pod spec; priority admission controller computed 100 from the given PriorityClass name',
    );
    assert.equal(
      await refusal(
        Promise.resolve(plugin.admit?.(podCreate({ priorityClassName: 'batch', preemptionPolicy: 'Never' }))),
      ),
      'pods "web" is forbidden: the string value of PreemptionPolicy (Never) must not be provided in pod spec; priority admission controller computed PreemptLowerPriority from the given PriorityClass name',
    );
    const agreeing = podCreate({ priorityClassName: 'batch', priority: 100 });
    await plugin.admit?.(agreeing);
    assert.equal((agreeing.object!.spec as Record<string, unknown>).priority, 100);
  });

  it('keeps the stored priority when an update leaves it out, and ignores subresources', async () => {
    const plugin = priority(source(SYSTEM));
    const update = attributesFor(PODS, {
      operation: 'UPDATE',
      object: { metadata: { name: 'web' }, spec: { containers: [] } },
      oldObject: { metadata: { name: 'web' }, spec: { priority: 5, preemptionPolicy: 'Never', containers: [] } },
      namespace: 'default',
      name: 'web',
    });
    await plugin.admit?.(update);
    assert.deepEqual(update.object!.spec, { containers: [], priority: 5, preemptionPolicy: 'Never' });
    const status = attributesFor(PODS, {
      operation: 'CREATE',
      object: { metadata: { name: 'web' }, spec: { priorityClassName: 'missing' } },
      subresource: 'binding',
      namespace: 'default',
      name: 'web',
    });
    await plugin.admit?.(status);
  });

  it('allows only one global default PriorityClass', async () => {
    const plugin = priority(source([...SYSTEM, pc('first', 10, { globalDefault: true })]));
    const create = attributesFor(PCS, {
      operation: 'CREATE',
      object: pc('second', 20, { globalDefault: true }),
      namespace: '',
      name: 'second',
    });
    assert.equal(
      await refusal(Promise.resolve(plugin.validate?.(create))),
      'priorityclasses.scheduling.k8s.io "second" is forbidden: PriorityClass first is already marked as default. Only one default can exist',
    );
    const sameClass = attributesFor(PCS, {
      operation: 'UPDATE',
      object: pc('first', 10, { globalDefault: true, description: 'changed' }),
      oldObject: pc('first', 10, { globalDefault: true }),
      namespace: '',
      name: 'first',
    });
    await plugin.validate?.(sameClass);
    const notDefault = attributesFor(PCS, {
      operation: 'CREATE',
      object: pc('third', 30),
      namespace: '',
      name: 'third',
    });
    await plugin.validate?.(notDefault);
  });
});
