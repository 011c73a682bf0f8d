import { describe, it } from 'node:test';
import { SharedInformerFactory } from '../../../client/cache/factory.js';
import type { KubeObject, ListerWatcher } from '../../../client/types.js';
import assert from '../../../testing/assert.js';
import { newNodeInfo } from '../../framework/node-info.js';
import { Code, CycleState, type Node, type NodeInfo, type Pod, QueueingHint } from '../../framework/types.js';
import { FakeFramework, makeNode, makePod, type PodSpec } from '../defaultpreemption/testing.js';
import { ERR_REASON_CONSTRAINTS_NOT_MATCH, ERR_REASON_NODE_LABEL_NOT_MATCH } from './filtering.js';
import { factory, type PodTopologySpread, parseArgs } from './index.js';

const ZONE = 'topology.kubernetes.io/zone';
const HOST = 'kubernetes.io/hostname';
const NAME = 'PodTopologySpread';

function infos(nodes: Node[], pods: Pod[]): NodeInfo[] {
  return nodes.map((n) => newNodeInfo(n, ...pods.filter((p) => p.spec.nodeName === n.metadata.name)));
}

const zonedNodes = (zones: string[], extra: Parameters<typeof makeNode>[1] = {}) =>
  zones.map((z, i) => makeNode(`n${i + 1}`, { ...extra, labels: { [ZONE]: z, ...(extra.labels ?? {}) } }));

/** count pods labelled app=web on each node. */
function webPods(counts: Record<string, number>, spec: PodSpec = {}): Pod[] {
  const out: Pod[] = [];
  for (const [node, n] of Object.entries(counts)) {
    for (let i = 0; i < n; i++)
      out.push(makePod(`web-${node}-${i}`, { labels: { app: 'web' }, nodeName: node, ...spec }));
  }
  return out;
}

const constraint = (extra: Record<string, unknown> = {}) => ({
  maxSkew: 1,
  topologyKey: ZONE,
  whenUnsatisfiable: 'DoNotSchedule',
  labelSelector: { matchLabels: { app: 'web' } },
  ...extra,
});

function framework(
  nodes: NodeInfo[],
  opts: { informers?: SharedInformerFactory; args?: Record<string, unknown> } = {},
) {
  return new FakeFramework({
    nodes,
    plugins: [{ factory, ...(opts.args ? { args: opts.args } : {}) }],
    ...(opts.informers ? { informers: opts.informers } : {}),
  });
}

function verdicts(fw: FakeFramework, pod: Pod): Record<string, string> {
  const { statuses, feasible } = fw.schedule(pod);
  const out: Record<string, string> = {};
  for (const n of feasible) out[n] = '';
  for (const [n, s] of statuses) out[n] = s.message();
  return out;
}

const NOT = ERR_REASON_CONSTRAINTS_NOT_MATCH;
const incoming = (extra: Record<string, unknown> = {}, spec: PodSpec = {}) =>
  makePod('web-new', { labels: { app: 'web' }, topologySpreadConstraints: [constraint(extra)], ...spec });

describe('PodTopologySpread filter', () => {
  it('zones with 2/1/0 matching pods and maxSkew 1: only the empty zone fits', () => {
    const fw = framework(infos(zonedNodes(['a', 'b', 'c']), webPods({ n1: 2, n2: 1 })));
    assert.deepEqual(verdicts(fw, incoming()), { n1: NOT, n2: NOT, n3: '' });
    const { statuses } = fw.schedule(incoming());
    assert.equal(statuses.get('n1')?.code, Code.Unschedulable);
    // maxSkew 2 lets zone b in too.
    assert.deepEqual(verdicts(fw, incoming({ maxSkew: 2 })), { n1: NOT, n2: '', n3: '' });
  });

  it('a pod its own selector does not match adds nothing to the skew', () => {
    const fw = framework(infos(zonedNodes(['a', 'b', 'c']), webPods({ n1: 2, n2: 1 })));
    const other = makePod('db', { labels: { app: 'db' }, topologySpreadConstraints: [constraint()] });
    assert.deepEqual(verdicts(fw, other), { n1: NOT, n2: '', n3: '' });
  });

  it('a node without the topology key is rejected as unresolvable (missing required label)', () => {
    const nodes = [...zonedNodes(['a', 'b']), makeNode('n9')];
    const fw = framework(infos(nodes, []));
    const { statuses } = fw.schedule(incoming());
    assert.equal(statuses.get('n9')?.message(), ERR_REASON_NODE_LABEL_NOT_MATCH);
    assert.equal(statuses.get('n9')?.code, Code.UnschedulableAndUnresolvable);
  });

  it('pods of other namespaces and terminating pods are not counted', () => {
    const others = webPods({ n1: 3 }, { namespace: 'other' });
    const terminating = webPods({ n2: 3 }, { deletionTimestamp: '2025-01-01T00:00:00Z' });
    const fw = framework(infos(zonedNodes(['a', 'b', 'c']), [...others, ...terminating]));
    assert.deepEqual(verdicts(fw, incoming()), { n1: '', n2: '', n3: '' });
  });

  it('minDomains: with fewer domains than minDomains the global minimum is 0', () => {
    const fw = framework(infos(zonedNodes(['a', 'b']), webPods({ n1: 1, n2: 1 })));
    assert.deepEqual(verdicts(fw, incoming()), { n1: '', n2: '' });
    assert.deepEqual(verdicts(fw, incoming({ minDomains: 3 })), { n1: NOT, n2: NOT });
    assert.deepEqual(verdicts(fw, incoming({ minDomains: 2 })), { n1: '', n2: '' });
  });

  it('nodeAffinityPolicy: Honor (default) counts only nodes the pod may go to; Ignore counts all', () => {
    const nodes = [
      makeNode('n1', { labels: { [ZONE]: 'a', disk: 'ssd' } }),
      makeNode('n2', { labels: { [ZONE]: 'b', disk: 'ssd' } }),
      makeNode('n3', { labels: { [ZONE]: 'c' } }),
    ];
    const fw = framework(infos(nodes, webPods({ n1: 1, n2: 1 })));
    const spec = { nodeSelector: { disk: 'ssd' } };
    assert.deepEqual(verdicts(fw, incoming({}, spec)), { n1: '', n2: '', n3: '' });
    assert.deepEqual(verdicts(fw, incoming({ nodeAffinityPolicy: 'Ignore' }, spec)), { n1: NOT, n2: NOT, n3: '' });
  });

  it('nodeTaintsPolicy: Ignore (default) counts tainted nodes; Honor leaves out untolerated ones', () => {
    const nodes = [
      makeNode('n1', { labels: { [ZONE]: 'a' } }),
      makeNode('n2', { labels: { [ZONE]: 'b' } }),
      makeNode('n3', { labels: { [ZONE]: 'c' }, taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }] }),
    ];
    const fw = framework(infos(nodes, webPods({ n1: 1, n2: 1 })));
    assert.deepEqual(verdicts(fw, incoming()), { n1: NOT, n2: NOT, n3: '' });
    assert.deepEqual(verdicts(fw, incoming({ nodeTaintsPolicy: 'Honor' })), { n1: '', n2: '', n3: '' });
    // A pod tolerating the taint counts the node again.
    const tolerating = incoming(
      { nodeTaintsPolicy: 'Honor' },
      { tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'gpu', effect: 'NoSchedule' }] },
    );
    assert.deepEqual(verdicts(fw, tolerating), { n1: NOT, n2: NOT, n3: '' });
  });

  it('matchLabelKeys narrows the selector to pods with the same values', () => {
    const v1 = webPods({ n1: 2 }, { labels: { app: 'web', rev: '1' } });
    const v2 = webPods({ n2: 2 }, { labels: { app: 'web', rev: '2' } });
    const fw = framework(infos(zonedNodes(['a', 'b']), [...v1, ...v2]));
    const pod = makePod('web-new', {
      labels: { app: 'web', rev: '2' },
      topologySpreadConstraints: [constraint({ matchLabelKeys: ['rev'] })],
    });
    // Only rev=2 pods count: zone a 0, zone b 2.
    assert.deepEqual(verdicts(fw, pod), { n1: '', n2: NOT });
  });

  it('AddPod/RemovePod update the counts of a cloned state', () => {
    const pods = webPods({ n1: 2, n2: 1 });
    const nodes = infos(zonedNodes(['a', 'b', 'c']), pods);
    const fw = framework(nodes);
    const pod = incoming();
    const { state } = fw.schedule(pod);
    const copy = state.clone();
    const [n1, n2] = nodes as [NodeInfo, NodeInfo];
    // Remove one pod from zone a and one from zone b: counts 1/0/0 → zone a skew 2, b and c fine.
    fw.handle.runPreFilterExtensionRemovePod(copy, pod, n1.pods[0]!, n1);
    fw.handle.runPreFilterExtensionRemovePod(copy, pod, n2.pods[0]!, n2);
    assert.equal(fw.runFilter(copy, pod, n1).message(), NOT);
    assert.ok(fw.runFilter(copy, pod, n2).isSuccess());
    // The original is untouched.
    assert.equal(fw.runFilter(state, pod, n2).message(), NOT);
    // A pod of another namespace changes nothing.
    const foreign = { pod: makePod('x', { namespace: 'other', labels: { app: 'web' } }), cache: new Map() };
    fw.handle.runPreFilterExtensionAddPod(copy, pod, foreign, n2);
    assert.ok(fw.runFilter(copy, pod, n2).isSuccess());
  });

  it('PreFilter skips pods without hard constraints', () => {
    const fw = framework(infos(zonedNodes(['a']), []));
    const pl = fw.plugin<PodTopologySpread>(NAME);
    const soft = makePod('p', { topologySpreadConstraints: [constraint({ whenUnsatisfiable: 'ScheduleAnyway' })] });
    assert.equal(pl.preFilter(new CycleState(), soft, fw.nodes).status.code, Code.Skip);
    assert.equal(pl.preFilter(new CycleState(), makePod('q'), fw.nodes).status.code, Code.Skip);
  });
});

describe('PodTopologySpread score', () => {
  const soft = (extra: Record<string, unknown> = {}) => incoming({ whenUnsatisfiable: 'ScheduleAnyway', ...extra });

  it('fewer matching pods in the domain scores higher (zones 2/1/0)', () => {
    const fw = framework(infos(zonedNodes(['a', 'b', 'c']), webPods({ n1: 2, n2: 1 })));
    // Raw: count × ln(3 + 2) rounded: 3, 2, 0 → 100 × (3 + 0 − x) / 3.
    assert.deepEqual(
      fw.scores(NAME, soft()).map((s) => s.score),
      [0, 33, 100],
    );
  });

  it('hostname constraints count per node; maxSkew softens the differences', () => {
    const nodes = [makeNode('n1'), makeNode('n2'), makeNode('n3')];
    const fw = framework(infos(nodes, webPods({ n1: 2, n2: 1 })));
    const pod = soft({ topologyKey: HOST });
    // weight ln(5) = 1.609: raw 3, 2, 0.
    assert.deepEqual(
      fw.scores(NAME, pod).map((s) => s.score),
      [0, 33, 100],
    );
    // maxSkew 3 adds 2 to every raw score: 5, 4, 2 → 100 × (7 − x) / 5.
    assert.deepEqual(
      fw.scores(NAME, soft({ topologyKey: HOST, maxSkew: 3 })).map((s) => s.score),
      [40, 60, 100],
    );
  });

  it('nodes without the topology key score 0', () => {
    const nodes = [...zonedNodes(['a', 'b']), makeNode('n9')];
    const fw = framework(infos(nodes, webPods({ n1: 1 })));
    const scores = fw.scores(NAME, soft());
    assert.deepEqual(
      scores.map((s) => [s.name, s.score]),
      [
        ['n1', 0],
        ['n2', 100],
        ['n9', 0],
      ],
    );
  });

  it('when no node has matching pods every node scores 100', () => {
    const fw = framework(infos(zonedNodes(['a', 'b']), []));
    assert.deepEqual(
      fw.scores(NAME, soft()).map((s) => s.score),
      [100, 100],
    );
  });
});

const idleLw: ListerWatcher = {
  list: async () => ({ metadata: {}, items: [] }),
  watch: async () => {
    throw new Error('not started');
  },
};

function workloadInformers(objects: { key: string; obj: KubeObject }[]): SharedInformerFactory {
  const f = new SharedInformerFactory();
  for (const key of ['services.v1', 'replicationcontrollers.v1', 'replicasets.v1.apps', 'statefulsets.v1.apps']) {
    f.forResource(key, idleLw);
  }
  for (const { key, obj } of objects) f.get(key)?.getIndexer().add(obj);
  return f;
}

describe('PodTopologySpread cluster default constraints', () => {
  const rs: KubeObject = {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: { name: 'web-abc', namespace: 'default', uid: 'rs-uid' },
    spec: { selector: { matchLabels: { app: 'web', 'pod-template-hash': 'abc' } } },
  };
  const owned = (name: string, nodeName?: string) =>
    makePod(name, {
      labels: { app: 'web', 'pod-template-hash': 'abc' },
      ...(nodeName ? { nodeName } : {}),
      ownerReferences: [
        { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-abc', uid: 'rs-uid', controller: true },
      ],
    });

  it('System defaults (hostname maxSkew 3, zone maxSkew 5) spread a ReplicaSet’s pods', () => {
    const informers = workloadInformers([{ key: 'replicasets.v1.apps', obj: rs }]);
    const fw = framework(infos(zonedNodes(['a', 'a', 'b']), [owned('web-1', 'n1')]), { informers });
    // hostname weight ln(5), zone weight ln(4): raw n1 9, n2 7, n3 6 → 100 × (15 − x) / 9.
    assert.deepEqual(
      fw.scores(NAME, owned('web-2')).map((s) => s.score),
      [66, 88, 100],
    );
    // The defaults are soft: Filter has nothing to do.
    const pl = fw.plugin<PodTopologySpread>(NAME);
    assert.equal(pl.preFilter(new CycleState(), owned('web-2'), fw.nodes).status.code, Code.Skip);
  });

  it('System defaults score nodes without a zone by hostname only', () => {
    const informers = workloadInformers([{ key: 'replicasets.v1.apps', obj: rs }]);
    const nodes = [makeNode('n1'), makeNode('n2')];
    const fw = framework(infos(nodes, [owned('web-1', 'n1')]), { informers });
    const scores = fw.scores(NAME, owned('web-2')).map((s) => s.score);
    assert.ok((scores[0] ?? 0) < (scores[1] ?? 0));
  });

  it('a Service selecting the pod gives its selector; an unowned, unselected pod gets no defaults', () => {
    const svc: KubeObject = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web', namespace: 'default' },
      spec: { selector: { app: 'web' } },
    };
    const informers = workloadInformers([{ key: 'services.v1', obj: svc }]);
    const fw = framework(infos(zonedNodes(['a', 'b']), webPods({ n1: 2 })), { informers });
    assert.deepEqual(
      // Raw (hostname maxSkew 3 and zone maxSkew 5, both weights ln 4): n1 12, n2 6 → 100 × (18 − x) / 12.
      fw.scores(NAME, makePod('web-new', { labels: { app: 'web' } })).map((s) => s.score),
      [50, 100],
    );
    const pl = fw.plugin<PodTopologySpread>(NAME);
    assert.equal(pl.preScore(new CycleState(), makePod('lonely', { labels: { app: 'x' } }), fw.nodes).code, Code.Skip);
  });

  it('a pod with constraints of its own gets no defaults; List defaulting uses the given constraints', () => {
    const informers = workloadInformers([{ key: 'replicasets.v1.apps', obj: rs }]);
    const fw = framework(infos(zonedNodes(['a', 'b']), []), { informers });
    const pl = fw.plugin<PodTopologySpread>(NAME);
    const withOwn = owned('web-2');
    withOwn.spec.topologySpreadConstraints = [constraint()];
    assert.equal(pl.preScore(new CycleState(), withOwn, fw.nodes).code, Code.Skip);

    const listFw = framework(
      infos(zonedNodes(['a', 'b', 'c']), [owned('w1', 'n1'), owned('w2', 'n1'), owned('w3', 'n2')]),
      {
        informers,
        args: {
          defaultingType: 'List',
          defaultConstraints: [{ maxSkew: 1, topologyKey: ZONE, whenUnsatisfiable: 'DoNotSchedule' }],
        },
      },
    );
    assert.deepEqual(verdicts(listFw, owned('w4')), { n1: NOT, n2: NOT, n3: '' });
  });

  it('validates its args', () => {
    assert.deepEqual(parseArgs(undefined), { defaultConstraints: [], defaultingType: 'System' });
    assert.throws(
      () => parseArgs({ defaultingType: 'System', defaultConstraints: [constraint()] }),
      /when .defaultConstraints are not empty/,
    );
    assert.throws(
      () => parseArgs({ defaultingType: 'List', defaultConstraints: [constraint()] }),
      /must not define a selector/,
    );
  });
});

describe('PodTopologySpread queueing hints', () => {
  const fw = framework(infos(zonedNodes(['a']), []));
  const pl = fw.plugin<PodTopologySpread>(NAME);
  const pod = incoming();
  it('pods', () => {
    const web = makePod('w', { labels: { app: 'web' }, nodeName: 'n1' });
    const db = makePod('d', { labels: { app: 'db' }, nodeName: 'n1' });
    assert.equal(pl.isSchedulableAfterPodChange(pod, undefined, web), QueueingHint.Queue);
    assert.equal(pl.isSchedulableAfterPodChange(pod, web, undefined), QueueingHint.Queue);
    assert.equal(pl.isSchedulableAfterPodChange(pod, undefined, db), QueueingHint.Skip);
    assert.equal(pl.isSchedulableAfterPodChange(pod, db, web), QueueingHint.Queue);
    assert.equal(
      pl.isSchedulableAfterPodChange(
        pod,
        undefined,
        makePod('o', { namespace: 'x', labels: { app: 'web' }, nodeName: 'n1' }),
      ),
      QueueingHint.Skip,
    );
  });
  it('nodes', () => {
    assert.equal(
      pl.isSchedulableAfterNodeChange(pod, undefined, makeNode('n5', { labels: { [ZONE]: 'z' } })),
      QueueingHint.Queue,
    );
    assert.equal(pl.isSchedulableAfterNodeChange(pod, undefined, makeNode('n5')), QueueingHint.Skip);
    assert.equal(
      pl.isSchedulableAfterNodeChange(
        pod,
        makeNode('n5', { labels: { [ZONE]: 'a' } }),
        makeNode('n5', { labels: { [ZONE]: 'b' } }),
      ),
      QueueingHint.Queue,
    );
  });
});
