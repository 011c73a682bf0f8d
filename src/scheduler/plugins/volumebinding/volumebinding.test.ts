import { describe, it } from 'node:test';
import assert from '../../../testing/assert.js';
import { realClock } from '../../../util/clock.js';
import { silentLogger } from '../../../util/logger.js';
import { Code, CycleState, type Handle, type Pod } from '../../framework/types.js';
import {
  ERR_REASON_BIND_CONFLICT,
  ERR_REASON_NODE_CONFLICT,
  ERR_REASON_PV_NOT_EXIST,
  findPodVolumes,
  getPodVolumeClaims,
  type Obj,
  podClaimsError,
  type VolumeSources,
} from './binder.js';
import { factory } from './index.js';

const node = (name: string, labels: Record<string, string> = {}) => ({
  metadata: { name, labels: { 'kubernetes.io/hostname': name, ...labels } },
});
const onNode = (n: string) => ({
  required: {
    nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [n] }] }],
  },
});
const claim = (name: string, cls: string, extra: Record<string, unknown> = {}): Obj => ({
  metadata: { name, namespace: 'default', uid: `uid-${name}`, ...extra },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, storageClassName: cls },
});
const bound = (name: string, pv: string): Obj => {
  const c = claim(name, 'manual', { annotations: { 'pv.kubernetes.io/bind-completed': 'yes' } });
  c.spec.volumeName = pv;
  return c;
};
const volume = (name: string, cls: string, affinityNode?: string): Obj => ({
  metadata: { name },
  spec: {
    capacity: { storage: '2Gi' },
    accessModes: ['ReadWriteOnce'],
    storageClassName: cls,
    ...(affinityNode ? { nodeAffinity: onNode(affinityNode) } : {}),
  },
  status: { phase: 'Available' },
});
const classes: Record<string, Obj> = {
  wffc: {
    metadata: { name: 'wffc' },
    provisioner: 'wheelhouse.dev/sim-local',
    volumeBindingMode: 'WaitForFirstConsumer',
  } as Obj,
  local: {
    metadata: { name: 'local' },
    provisioner: 'kubernetes.io/no-provisioner',
    volumeBindingMode: 'WaitForFirstConsumer',
  } as Obj,
  zoned: {
    metadata: { name: 'zoned' },
    provisioner: 'example.com/p',
    volumeBindingMode: 'WaitForFirstConsumer',
    allowedTopologies: [{ matchLabelExpressions: [{ key: 'zone', values: ['a'] }] }],
  } as Obj,
  immediate: { metadata: { name: 'immediate' }, provisioner: 'example.com/p' } as Obj,
};

function sources(claims: Obj[], volumes: Obj[]): VolumeSources {
  return {
    claim: (ns, n) => claims.find((c) => c.metadata.namespace === ns && c.metadata.name === n),
    volume: (n) => volumes.find((v) => v.metadata.name === n),
    volumes: () => volumes,
    storageClass: (n) => classes[n],
  };
}
const pod = (...claimNames: string[]): Pod => ({
  metadata: { name: 'p', namespace: 'default', uid: 'pod-uid' },
  spec: {
    containers: [],
    volumes: claimNames.map((c, i) => ({ name: `v${i}`, persistentVolumeClaim: { claimName: c } })),
  },
});

describe('VolumeBinding binder', () => {
  it('names missing and deleting claims as upstream', () => {
    const src = sources([claim('going', 'wffc', { deletionTimestamp: '2026-01-01T00:00:00Z' })], []);
    assert.equal(podClaimsError(pod('x'), src), 'persistentvolumeclaim "x" not found');
    assert.equal(podClaimsError(pod('going'), src), 'persistentvolumeclaim "going" is being deleted');
  });

  it('sorts claims into bound, delayed and immediate', () => {
    const src = sources([bound('b', 'pv-b'), claim('d', 'wffc'), claim('i', 'immediate')], [volume('pv-b', 'manual')]);
    const c = getPodVolumeClaims(pod('b', 'd', 'i'), src);
    assert.deepEqual(
      [c.bound, c.unboundDelayBinding, c.unboundImmediate].map((l) => l.map((x) => x.metadata.name)),
      [['b'], ['d'], ['i']],
    );
  });

  it('rejects nodes a bound volume cannot reach, and reports missing volumes', () => {
    const src = sources([bound('b', 'pv-b'), bound('lost', 'nope')], [volume('pv-b', 'manual', 'node-1')]);
    const claims = getPodVolumeClaims(pod('b'), src);
    assert.deepEqual(findPodVolumes(claims, node('node-1'), src).reasons, []);
    assert.deepEqual(findPodVolumes(claims, node('node-2'), src).reasons, [ERR_REASON_NODE_CONFLICT]);
    const missing = getPodVolumeClaims(pod('lost'), src);
    assert.deepEqual(findPodVolumes(missing, node('node-1'), src).reasons, [ERR_REASON_PV_NOT_EXIST]);
  });

  it('matches delayed claims to local volumes of the node, or provisions where the class allows', () => {
    const src = sources(
      [claim('l', 'local'), claim('w', 'wffc'), claim('z', 'zoned')],
      [volume('pv-n1', 'local', 'node-1')],
    );
    const local = getPodVolumeClaims(pod('l'), src);
    const n1 = findPodVolumes(local, node('node-1'), src);
    assert.deepEqual(
      n1.volumes.staticBindings.map((b) => b.pv.metadata.name),
      ['pv-n1'],
    );
    assert.deepEqual(findPodVolumes(local, node('node-2'), src).reasons, [ERR_REASON_BIND_CONFLICT]);
    const provisioned = findPodVolumes(getPodVolumeClaims(pod('w'), src), node('node-2'), src);
    assert.deepEqual(
      provisioned.volumes.dynamicProvisions.map((c) => c.metadata.name),
      ['w'],
    );
    const zoned = getPodVolumeClaims(pod('z'), src);
    assert.deepEqual(findPodVolumes(zoned, node('node-1', { zone: 'b' }), src).reasons, [ERR_REASON_BIND_CONFLICT]);
    assert.deepEqual(findPodVolumes(zoned, node('node-1', { zone: 'a' }), src).reasons, []);
  });

  it('a claim already given a node is only satisfiable there', () => {
    const src = sources([claim('w', 'wffc', { annotations: { 'volume.kubernetes.io/selected-node': 'node-3' } })], []);
    const c = getPodVolumeClaims(pod('w'), src);
    assert.deepEqual(findPodVolumes(c, node('node-1'), src).reasons, [ERR_REASON_BIND_CONFLICT]);
    assert.deepEqual(findPodVolumes(c, node('node-3'), src).reasons, []);
  });
});

describe('VolumeBinding plugin', () => {
  const handle = { clock: realClock, logger: silentLogger } as unknown as Handle;
  it('skips pods without claims and rejects a pod whose claim is missing', () => {
    const pl = factory(undefined, handle) as unknown as {
      preFilter(s: CycleState, p: Pod): { status: { code: Code; message(): string } };
      filter(s: CycleState, p: Pod, n: unknown): { code: Code };
    };
    const plain: Pod = {
      metadata: { name: 'web', namespace: 'default' },
      spec: { containers: [], volumes: [{ name: 'tmp', emptyDir: {} }] },
    };
    assert.equal(pl.preFilter(new CycleState(), plain).status.code, Code.Skip);
    const s = pl.preFilter(new CycleState(), pod('data')).status;
    assert.equal(s.code, Code.UnschedulableAndUnresolvable);
    assert.equal(s.message(), 'persistentvolumeclaim "data" not found');
  });
  it('refuses a negative bindTimeoutSeconds', () => {
    assert.throws(() => factory({ bindTimeoutSeconds: -1 }, handle), /invalid BindTimeoutSeconds/);
  });
});
