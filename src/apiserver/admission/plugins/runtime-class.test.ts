import { after, before, describe, it } from 'node:test';
import {
  type AdmissionTestCluster,
  admissionTestCluster,
  refusalMessage as refusal,
  runPlugin,
} from '../../../testing/admission-registry.js';
import assert from '../../../testing/assert.js';
import type { KubeObject } from '../../registry/object.js';
import { ClusterReader } from './cluster-reader.js';
import { runtimeClass } from './runtime-class.js';

type Rec = Record<string, unknown>;
const pod = (spec: Rec): KubeObject => ({
  metadata: { name: 'p', namespace: 'default' },
  spec: { containers: [{ name: 'c', image: 'i' }], ...spec },
});

describe('RuntimeClass admission', () => {
  let cluster: AdmissionTestCluster;
  let plugin: ReturnType<typeof runtimeClass>;
  const create = (p: KubeObject) =>
    runPlugin(plugin, cluster.attrs('', 'v1', 'pods', { operation: 'CREATE', object: p }));
  const toleration = { key: 'sandbox', operator: 'Exists', effect: 'NoSchedule' };

  before(async () => {
    cluster = admissionTestCluster();
    await cluster.put('node.k8s.io', 'v1', 'runtimeclasses', {
      metadata: { name: 'gvisor' },
      handler: 'runsc',
      overhead: { podFixed: { cpu: '250m', memory: '120Mi' } },
      scheduling: { nodeSelector: { sandbox: 'gvisor' }, tolerations: [toleration] },
    });
    await cluster.put('node.k8s.io', 'v1', 'runtimeclasses', { metadata: { name: 'plain' }, handler: 'runc' });
    await cluster.settle();
    plugin = runtimeClass(new ClusterReader(cluster.registry));
  });
  after(() => cluster.close());

  it('sets the overhead and adds the scheduling constraints of the class', async () => {
    const p = pod({ runtimeClassName: 'gvisor', nodeSelector: { zone: 'a' }, tolerations: [toleration] });
    await create(p);
    const spec = p.spec as Rec;
    assert.deepEqual(spec.overhead, { cpu: '250m', memory: '120Mi' });
    assert.deepEqual(spec.nodeSelector, { zone: 'a', sandbox: 'gvisor' });
    assert.deepEqual(spec.tolerations, [toleration]);
  });

  it('refuses unknown classes, conflicting node selectors and overheads the class does not define', async () => {
    assert.equal(
      await refusal(create(pod({ runtimeClassName: 'kata' }))),
      'pods "p" is forbidden: pod rejected: RuntimeClass "kata" not found',
    );
    assert.equal(
      await refusal(create(pod({ runtimeClassName: 'gvisor', nodeSelector: { sandbox: 'kata' } }))),
      'pods "p" is forbidden: conflict: runtimeClass.scheduling.nodeSelector[sandbox] = gvisor; pod.spec.nodeSelector[sandbox] = kata',
    );
    assert.equal(
      await refusal(create(pod({ runtimeClassName: 'gvisor', overhead: { cpu: '1' } }))),
      "pods \"p\" is forbidden: pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead",
    );
    assert.equal(
      await refusal(create(pod({ runtimeClassName: 'plain', overhead: { cpu: '1' } }))),
      'pods "p" is forbidden: pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead',
    );
    await create(pod({ runtimeClassName: 'gvisor', overhead: { cpu: '0.25', memory: '120Mi' } }));
  });
});
