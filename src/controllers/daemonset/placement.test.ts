import { describe, it } from 'node:test';
import type { KubeObject } from '../../client/types.js';
import assert from '../../testing/assert.js';
import { PerKeyBackoff } from './backoff.js';
import {
  addDaemonPodTolerations,
  nodeShouldRunDaemonPod,
  replaceNodeNameAffinity,
  targetNodeName,
} from './placement.js';
import { planRollingUpdate } from './rolling.js';

const node = (name: string, labels: Record<string, string> = {}, taints: unknown[] = []): KubeObject => ({
  metadata: { name, labels },
  spec: { taints },
});
const ds = (spec: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): KubeObject => ({
  metadata: { name: 'd', namespace: 'n', uid: 'u' },
  spec: { template: { metadata: { labels: { app: 'd' } }, spec: { containers: [], ...spec } }, ...extra },
});

describe('daemon pod placement', () => {
  it('adds the daemon tolerations, network-unavailable only for hostNetwork, replacing equal ones', () => {
    const spec: Record<string, unknown> = {
      tolerations: [
        { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 5 },
      ],
    };
    addDaemonPodTolerations(spec);
    const tolerations = spec.tolerations as { key: string; tolerationSeconds?: number }[];
    assert.equal(tolerations.length, 6);
    assert.equal(tolerations[0]?.tolerationSeconds, undefined, 'the daemon toleration replaced the user one');
    const host: Record<string, unknown> = { hostNetwork: true };
    addDaemonPodTolerations(host);
    assert.ok((host.tolerations as { key: string }[]).some((t) => t.key === 'node.kubernetes.io/network-unavailable'));
  });

  it('decides shouldRun and shouldContinueRunning from selectors, affinity and taints', () => {
    assert.deepEqual(nodeShouldRunDaemonPod(node('a'), ds()), [true, true]);
    assert.deepEqual(nodeShouldRunDaemonPod(node('a'), ds({ nodeSelector: { x: 'y' } })), [false, false]);
    assert.deepEqual(nodeShouldRunDaemonPod(node('a', { x: 'y' }), ds({ nodeSelector: { x: 'y' } })), [true, true]);
    assert.deepEqual(nodeShouldRunDaemonPod(node('a'), ds({ nodeName: 'b' })), [false, false]);
    const affinity = {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['z1'] }] }],
        },
      },
    };
    assert.deepEqual(nodeShouldRunDaemonPod(node('a', { zone: 'z2' }), ds({ affinity })), [false, false]);
    assert.deepEqual(nodeShouldRunDaemonPod(node('a', { zone: 'z1' }), ds({ affinity })), [true, true]);
    const noSchedule = node('a', {}, [{ key: 'k', effect: 'NoSchedule' }]);
    assert.deepEqual(nodeShouldRunDaemonPod(noSchedule, ds()), [false, true], 'NoSchedule keeps running pods');
    const noExecute = node('a', {}, [{ key: 'k', effect: 'NoExecute' }]);
    assert.deepEqual(nodeShouldRunDaemonPod(noExecute, ds()), [false, false], 'NoExecute evicts');
    const tolerated = ds({ tolerations: [{ key: 'k', operator: 'Exists' }] });
    assert.deepEqual(nodeShouldRunDaemonPod(noExecute, tolerated), [true, true]);
    const notReady = node('a', {}, [{ key: 'node.kubernetes.io/not-ready', effect: 'NoExecute' }]);
    assert.deepEqual(nodeShouldRunDaemonPod(notReady, ds()), [true, true], 'daemon pods tolerate not-ready NoExecute');
    const unschedulable = node('a', {}, [{ key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' }]);
    assert.deepEqual(nodeShouldRunDaemonPod(unschedulable, ds()), [true, true], 'and cordoned nodes');
  });

  it('pins a pod to its node, replacing the template’s required terms, and reads the node back', () => {
    const affinity = replaceNodeNameAffinity(
      {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['z1'] }] }],
          },
          preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, preference: {} }],
        },
      },
      'n1',
    );
    assert.deepEqual(affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms, [
      { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n1'] }] },
    ]);
    assert.equal(affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution.length, 1, 'preferred kept');
    assert.equal(targetNodeName({ metadata: {}, spec: { affinity } }), 'n1');
    assert.equal(targetNodeName({ metadata: {}, spec: { nodeName: 'n2', affinity } }), 'n2', 'bound wins');
    assert.equal(targetNodeName({ metadata: {}, spec: {} }), undefined);
  });
});

describe('daemon set rolling update plan', () => {
  const ready = {
    status: { conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2020-01-01T00:00:00Z' }] },
  };
  const pod = (name: string, nodeName: string, hash: string): KubeObject => ({
    metadata: { name, labels: { 'controller-revision-hash': hash }, creationTimestamp: '2020-01-01T00:00:00Z' },
    spec: { nodeName },
    ...ready,
  });
  const nodes = ['a', 'b', 'c', 'd'].map((n) => node(n));
  const mapOf = (pods: KubeObject[]) => new Map(pods.map((p) => [p.spec.nodeName as string, [p]]));
  const now = Date.parse('2021-01-01T00:00:00Z');

  it('deletes at most maxUnavailable old available pods, and unavailable old pods at once', () => {
    const d = ds({}, { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 2 } } });
    const pods = ['a', 'b', 'c', 'd'].map((n) => pod(`p-${n}`, n, 'old'));
    const plan = planRollingUpdate(d, nodes, mapOf(pods), 'new', now);
    assert.equal(plan.podsToDelete.length, 2);
    assert.deepEqual(plan.nodesToCreate, []);
    const unready = { ...pod('p-d', 'd', 'old'), status: {} };
    const plan2 = planRollingUpdate(d, nodes, mapOf([...pods.slice(0, 3), unready]), 'new', now);
    assert.ok(plan2.podsToDelete.includes('p-d'), 'the unavailable old pod goes');
    assert.equal(plan2.podsToDelete.length, 3, 'plus two within the budget');
  });

  it('surges new pods beside old ones and retires old ones whose new pod is available', () => {
    const d = ds({}, { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } } });
    const pods = new Map<string, KubeObject[]>([
      ['a', [pod('old-a', 'a', 'old'), pod('new-a', 'a', 'new')]],
      ['b', [pod('old-b', 'b', 'old')]],
      ['c', [pod('old-c', 'c', 'old')]],
      ['d', [pod('new-d', 'd', 'new')]],
    ]);
    const plan = planRollingUpdate(d, nodes, pods, 'new', now);
    assert.deepEqual(plan.podsToDelete, ['old-a']);
    assert.equal(plan.nodesToCreate.length, 1, 'one surge pod at a time');
  });

  it('backs off per key: 1 s, doubling, up to the cap', () => {
    const b = new PerKeyBackoff(1000, 4000);
    assert.equal(b.isInBackOffSinceUpdate('k', 0), false);
    b.next('k', 0);
    assert.equal(b.isInBackOffSinceUpdate('k', 500), true);
    assert.equal(b.isInBackOffSinceUpdate('k', 1000), false);
    b.next('k', 1000);
    b.next('k', 3000);
    b.next('k', 7000);
    assert.equal(b.get('k'), 4000, 'capped');
    b.next('k', 7000 + 8001);
    assert.equal(b.get('k'), 1000, 'starts over after twice the cap');
  });
});
