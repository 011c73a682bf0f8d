import { after, before, describe, it } from 'node:test';
import type { KubeObject } from '../../client/types.js';
import type { ControllerManager } from '../../controllers/manager.js';
import { type ControlPlane, startControlPlane } from '../../index.js';
import { startSimNodes } from '../../kubelet/sim-nodes.js';
import assert from '../../testing/assert.js';
import { eventually, runControllers } from '../../testing/controllers.js';
import { CONTROLLER_REVISION_HASH_LABEL_KEY } from '../history/hash.js';
import { nodeLifecycleController } from '../nodelifecycle/index.js';
import { taintEvictionController } from '../tainteviction/index.js';
import { daemonSetController } from './index.js';

const ns = 'ds';

function dsManifest(name: string, extra: Record<string, unknown> = {}, templateSpec: Record<string, unknown> = {}) {
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name },
    spec: {
      selector: { matchLabels: { app: name } },
      template: {
        // Simulated containers stop at once when their pod is deleted.
        metadata: { labels: { app: name }, annotations: { 'sim.wheelhouse.dev/stop-seconds': '0' } },
        spec: { containers: [{ name: 'agent', image: 'agent:1' }], ...templateSpec },
      },
      ...extra,
    },
  };
}

describe('daemonset controller', () => {
  let cp: ControlPlane;
  let manager: ControllerManager;

  before(async () => {
    cp = await startControlPlane({ storage: 'memory', scheduler: true, nodes: 3 });
    manager = await runControllers(cp, [daemonSetController, nodeLifecycleController, taintEvictionController]);
    await cp.client.namespaces().create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  });
  after(async () => {
    await manager?.stop();
    await cp?.stop();
  });

  const client = () => cp.client;
  const livePods = async (name: string) =>
    (
      await client()
        .pods(ns)
        .list({ labelSelector: `app=${name}` })
    ).items.filter((p) => !p.metadata.deletionTimestamp);
  const nodesOf = (pods: KubeObject[]) => pods.map((p) => p.spec?.nodeName ?? '').sort();
  const getDs = (name: string) => client().daemonSets(ns).get(name);
  const isRunning = (p: KubeObject) => p.status?.phase === 'Running';
  const allNodes = async () => (await client().nodes().list()).items.map((n) => n.metadata.name ?? '').sort();

  /** Waits for the DaemonSet to be fully rolled out over `count` nodes. */
  const rolledOut = (name: string, count: number) =>
    eventually(
      async () => {
        const ds = await getDs(name);
        const s = ds.status ?? {};
        assert.equal(s.observedGeneration, ds.metadata.generation, 'the status has seen the spec');
        assert.equal(s.desiredNumberScheduled, count, 'desiredNumberScheduled');
        assert.equal(s.currentNumberScheduled, count, 'currentNumberScheduled');
        assert.equal(s.updatedNumberScheduled, count, 'updatedNumberScheduled');
        assert.equal(s.numberAvailable, count, 'numberAvailable');
        assert.equal(s.numberReady, count, 'numberReady');
        // omitempty in apps/v1: left out at zero, as upstream's encoding leaves it; the others are always there.
        assert.equal('numberUnavailable' in s, false, 'numberUnavailable omitted at zero');
        assert.equal(s.numberMisscheduled, 0, 'numberMisscheduled');
        const pods = await livePods(name);
        assert.equal(pods.length, count, 'one live pod per node');
        return ds;
      },
      { timeoutMs: 30_000 },
    );

  it('runs one pod on each node, pinned by node affinity, with the daemon tolerations, and records a revision', async () => {
    await client().daemonSets(ns).create(dsManifest('agent'));
    const ds = await rolledOut('agent', 3);
    const pods = await livePods('agent');
    assert.deepEqual(nodesOf(pods), await allNodes(), 'a pod on every node');
    for (const pod of pods) {
      const terms = pod.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms;
      assert.deepEqual(
        terms,
        [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [pod.spec.nodeName] }] }],
        'required node affinity names the pod’s node',
      );
      const keys = pod.spec.tolerations.map((t: { key: string; effect: string }) => `${t.key}:${t.effect}`);
      for (const k of [
        'node.kubernetes.io/not-ready:NoExecute',
        'node.kubernetes.io/unreachable:NoExecute',
        'node.kubernetes.io/disk-pressure:NoSchedule',
        'node.kubernetes.io/memory-pressure:NoSchedule',
        'node.kubernetes.io/pid-pressure:NoSchedule',
        'node.kubernetes.io/unschedulable:NoSchedule',
      ]) {
        assert.ok(keys.includes(k), `toleration ${k}`);
      }
      assert.ok(!keys.includes('node.kubernetes.io/network-unavailable:NoSchedule'), 'not a hostNetwork pod');
      assert.equal(pod.metadata.labels?.['pod-template-generation'], '1', 'the template generation label');
      assert.equal(pod.metadata.ownerReferences?.[0]?.uid, ds.metadata.uid, 'owned by the DaemonSet');
    }
    const revisions = (await client().controllerRevisions(ns).list()).items.filter(
      (r) => r.metadata.ownerReferences?.[0]?.uid === ds.metadata.uid,
    );
    assert.equal(revisions.length, 1, 'one revision');
    const rev = revisions[0] as KubeObject;
    assert.equal(rev.revision, 1);
    const hash = rev.metadata.labels?.[CONTROLLER_REVISION_HASH_LABEL_KEY];
    assert.equal(rev.metadata.name, `agent-${hash}`, 'named <ds>-<hash>');
    assert.ok(
      pods.every((p) => p.metadata.labels?.[CONTROLLER_REVISION_HASH_LABEL_KEY] === hash),
      'pods carry the hash',
    );
    assert.equal(rev.data.spec.template.$patch, 'replace', 'the data is a replacing template patch');
    assert.equal(rev.data.spec.template.spec.containers[0].image, 'agent:1');
    const events = (await client().events(ns).list()).items.filter(
      (e) => e.involvedObject?.name === 'agent' && e.reason === 'SuccessfulCreate',
    );
    assert.ok(events.length > 0, 'SuccessfulCreate events');
    assert.match(String(events[0]?.message), /^Created pod: agent-/);
  });

  it('follows nodeSelector as nodes are labelled and unlabelled', async () => {
    await client()
      .daemonSets(ns)
      .create(dsManifest('picky', {}, { nodeSelector: { role: 'edge' } }));
    const [first, second] = await allNodes();
    await client()
      .nodes()
      .patch(first as string, 'merge', { metadata: { labels: { role: 'edge' } } });
    await rolledOut('picky', 1);
    assert.deepEqual(nodesOf(await livePods('picky')), [first]);
    await client()
      .nodes()
      .patch(second as string, 'merge', { metadata: { labels: { role: 'edge' } } });
    await rolledOut('picky', 2);
    await client()
      .nodes()
      .patch(first as string, 'merge', { metadata: { labels: { role: null } } });
    await rolledOut('picky', 1);
    assert.deepEqual(nodesOf(await livePods('picky')), [second], 'the pod left the unlabelled node');
  });

  it('keeps pods on NoSchedule taints, loses them to NoExecute taints and does not put them back', async () => {
    const [, , third] = await allNodes();
    await client()
      .nodes()
      .patch(third as string, 'merge', { spec: { taints: [{ key: 'maint', value: 'x', effect: 'NoSchedule' }] } });
    // The pod stays: NoSchedule keeps new pods away, not running ones. The node is no longer desired, and its pod
    // counts as misscheduled (so the set never reads as rolled out on two nodes).
    await eventually(
      async () => {
        const s = (await getDs('agent')).status;
        assert.equal(s.desiredNumberScheduled, 2, 'desired excludes the NoSchedule node');
        assert.equal(s.numberMisscheduled, 1, 'its pod counts as misscheduled');
        assert.ok(nodesOf(await livePods('agent')).includes(third as string), 'the pod still runs there');
      },
      { timeoutMs: 15_000 },
    );
    await client()
      .nodes()
      .patch(third as string, 'merge', { spec: { taints: [{ key: 'maint', value: 'x', effect: 'NoExecute' }] } });
    await eventually(
      async () => {
        assert.ok(!nodesOf(await livePods('agent')).includes(third as string), 'evicted from the NoExecute node');
        const s = (await getDs('agent')).status;
        assert.equal(s.numberMisscheduled, 0, 'nothing misscheduled');
      },
      { timeoutMs: 20_000 },
    );
    await new Promise((r) => setTimeout(r, 1500));
    assert.ok(!nodesOf(await livePods('agent')).includes(third as string), 'not recreated on the tainted node');
    await client()
      .nodes()
      .patch(third as string, 'merge', { spec: { taints: null } });
    await rolledOut('agent', 3);
  });

  it('deletes a failed daemon pod with a FailedDaemonPod event and replaces it', async () => {
    const [pod] = await livePods('agent');
    assert.ok(pod);
    await client()
      .pods(ns)
      .patch(pod.metadata.name ?? '', 'merge', { status: { phase: 'Failed' } }, { subresource: 'status' });
    await eventually(
      async () => {
        const events = (await client().events(ns).list()).items.filter(
          (e) => e.involvedObject?.name === 'agent' && e.reason === 'FailedDaemonPod',
        );
        assert.ok(
          events.some(
            (e) =>
              e.message ===
              `Found failed daemon pod ${ns}/${pod.metadata.name} on node ${pod.spec.nodeName}, will try to kill it`,
          ),
          'FailedDaemonPod event',
        );
        const pods = await livePods('agent');
        assert.ok(!pods.some((p) => p.metadata.name === pod.metadata.name), 'the failed pod is gone');
        assert.ok(
          pods.some((p) => p.spec.nodeName === pod.spec.nodeName && isRunning(p)),
          'a replacement runs on its node',
        );
      },
      { timeoutMs: 20_000 },
    );
    await rolledOut('agent', 3);
  });

  it('rolls an image change out, keeps history, and rolls back to an old revision', async () => {
    await client()
      .daemonSets(ns)
      .patch('agent', 'strategic', {
        spec: { template: { spec: { containers: [{ name: 'agent', image: 'agent:2' }] } } },
      });
    await rolledOut('agent', 3);
    assert.ok(
      (await livePods('agent')).every((p) => p.spec.containers[0].image === 'agent:2'),
      'every pod runs the new image',
    );
    const owned = async () =>
      (await client().controllerRevisions(ns).list()).items
        .filter((r) => r.metadata.ownerReferences?.[0]?.name === 'agent')
        .sort((a, b) => a.revision - b.revision);
    assert.deepEqual(
      (await owned()).map((r) => [r.revision, r.data.spec.template.spec.containers[0].image]),
      [
        [1, 'agent:1'],
        [2, 'agent:2'],
      ],
    );
    // A rollback applies revision 1's data: the old revision becomes revision 3, no new one is made.
    const first = (await owned())[0] as KubeObject;
    await client().daemonSets(ns).patch('agent', 'strategic', first.data);
    await rolledOut('agent', 3);
    assert.deepEqual(
      (await owned()).map((r) => [r.revision, r.data.spec.template.spec.containers[0].image]),
      [
        [2, 'agent:2'],
        [3, 'agent:1'],
      ],
    );
    assert.ok((await livePods('agent')).every((p) => p.spec.containers[0].image === 'agent:1'));
  });

  it('surges with maxSurge, one new pod beside each old one until it is available', async () => {
    await client()
      .daemonSets(ns)
      .create(
        dsManifest('surge', {
          updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
        }),
      );
    await rolledOut('surge', 3);
    await client()
      .daemonSets(ns)
      .patch('surge', 'strategic', {
        spec: { template: { spec: { containers: [{ name: 'agent', image: 'agent:2' }] } } },
      });
    let maxLive = 0;
    await eventually(
      async () => {
        const pods = await livePods('surge');
        maxLive = Math.max(maxLive, pods.length);
        assert.ok(pods.length <= 4, 'never more than one surge pod');
        await rolledOut('surge', 3);
      },
      { timeoutMs: 30_000, intervalMs: 10 },
    );
    assert.ok((await livePods('surge')).every((p) => p.spec.containers[0].image === 'agent:2'));
  });

  it('leaves old pods alone with OnDelete until they are deleted', async () => {
    await client()
      .daemonSets(ns)
      .create(dsManifest('ondelete', { updateStrategy: { type: 'OnDelete' } }));
    await rolledOut('ondelete', 3);
    await client()
      .daemonSets(ns)
      .patch('ondelete', 'strategic', {
        spec: { template: { spec: { containers: [{ name: 'agent', image: 'agent:2' }] } } },
      });
    await eventually(
      async () => {
        const ds = await getDs('ondelete');
        assert.equal(ds.status.observedGeneration, ds.metadata.generation, 'observed');
        assert.equal(ds.status.updatedNumberScheduled, undefined, 'nothing updated (omitted at zero)');
      },
      { timeoutMs: 15_000 },
    );
    const [victim] = await livePods('ondelete');
    await client()
      .pods(ns)
      .delete(victim?.metadata.name ?? '');
    await eventually(
      async () => {
        const ds = await getDs('ondelete');
        assert.equal(ds.status.updatedNumberScheduled, 1, 'the replacement is of the new revision');
        assert.equal(ds.status.numberAvailable, 3, 'all available again');
      },
      { timeoutMs: 20_000 },
    );
  });

  it('gives a node added later its pod', async () => {
    const extra = await startSimNodes({ client: cp.client, nodes: ['extra-1'] });
    try {
      await eventually(
        async () => {
          const pods = await livePods('agent');
          assert.ok(
            pods.some((p) => p.spec.nodeName === 'extra-1' && isRunning(p)),
            'a pod runs on the new node',
          );
        },
        { timeoutMs: 30_000 },
      );
      await rolledOut('agent', 4);
    } finally {
      await extra.stop().catch(() => {});
      await client()
        .nodes()
        .delete('extra-1')
        .catch(() => {});
    }
  });
});
