import { describe, it } from 'node:test';
import { SharedInformerFactory } from '../../../client/cache/factory.js';
import type { KubeObject, ListerWatcher } from '../../../client/types.js';
import assert from '../../../testing/assert.js';
import { newNodeInfo, newPodInfo } from '../../framework/node-info.js';
import { Code, CycleState, type Node, type NodeInfo, type Pod, QueueingHint } from '../../framework/types.js';
import { FakeFramework, makeNode, makePod } from '../defaultpreemption/testing.js';
import {
  ERR_REASON_AFFINITY_RULES_NOT_MATCH,
  ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH,
  ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH,
} from './filtering.js';
import {
  factory,
  type InterPodAffinity,
  isSchedulableAfterNodeChange,
  isSchedulableAfterPodChange,
  parseArgs,
} from './index.js';

const ZONE = 'topology.kubernetes.io/zone';
const HOST = 'kubernetes.io/hostname';

const required = (labels: Record<string, string>, topologyKey: string, extra: Record<string, unknown> = {}) => ({
  requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: labels }, topologyKey, ...extra }],
});
const preferred = (weight: number, labels: Record<string, string>, topologyKey: string) => ({
  preferredDuringSchedulingIgnoredDuringExecution: [
    { weight, podAffinityTerm: { labelSelector: { matchLabels: labels }, topologyKey } },
  ],
});

/** Three nodes: n1 and n2 in zone a, n3 in zone b, with the given pods bound by nodeName. */
function cluster(pods: Pod[], extraNodes: Node[] = []): NodeInfo[] {
  const nodes = [
    makeNode('n1', { labels: { [ZONE]: 'a' } }),
    makeNode('n2', { labels: { [ZONE]: 'a' } }),
    makeNode('n3', { labels: { [ZONE]: 'b' } }),
    ...extraNodes,
  ];
  return nodes.map((n) => newNodeInfo(n, ...pods.filter((p) => p.spec.nodeName === n.metadata.name)));
}

const idleLw: ListerWatcher = {
  list: async () => ({ metadata: {}, items: [] }),
  watch: async () => {
    throw new Error('not started');
  },
};

function namespaceInformers(namespaces: Record<string, Record<string, string>>): SharedInformerFactory {
  const factory = new SharedInformerFactory();
  const informer = factory.forResource('namespaces.v1', idleLw);
  for (const [name, labels] of Object.entries(namespaces)) {
    informer.getIndexer().add({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } } as KubeObject);
  }
  return factory;
}

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

/** node name → '' when it passes, else the reason. */
function verdicts(fw: FakeFramework, pod: Pod): Record<string, string> {
  const { statuses, feasible } = fw.schedule(pod);
  const out: Record<string, string> = {};
  for (const n of feasible) out[n] = '';
  for (const [n, s] of statuses) out[n] = s.message();
  return out;
}

describe('InterPodAffinity filter', () => {
  it('required affinity: nodes in a zone with a matching pod; others are unresolvable', () => {
    const db = makePod('db', { labels: { app: 'db' }, nodeName: 'n1' });
    const fw = framework(cluster([db]));
    const pod = makePod('web', { labels: { app: 'web' }, affinity: { podAffinity: required({ app: 'db' }, ZONE) } });
    assert.deepEqual(verdicts(fw, pod), { n1: '', n2: '', n3: ERR_REASON_AFFINITY_RULES_NOT_MATCH });
    const { statuses } = fw.schedule(pod);
    assert.equal(statuses.get('n3')?.code, Code.UnschedulableAndUnresolvable);
    assert.equal(statuses.get('n3')?.plugin, 'InterPodAffinity');
  });

  it('required affinity: a node without the topology label never fits', () => {
    const db = makePod('db', { labels: { app: 'db' }, nodeName: 'n1' });
    const nozone = makeNode('n4');
    const fw = framework(cluster([db], [nozone]));
    const pod = makePod('web', { affinity: { podAffinity: required({ app: 'db' }, ZONE) } });
    assert.equal(verdicts(fw, pod).n4, ERR_REASON_AFFINITY_RULES_NOT_MATCH);
  });

  it('the first pod of a group with affinity to itself may go to any node with the key', () => {
    const nozone = makeNode('n4');
    const fw = framework(cluster([], [nozone]));
    const self = makePod('web-0', {
      labels: { app: 'web' },
      affinity: { podAffinity: required({ app: 'web' }, ZONE) },
    });
    assert.deepEqual(verdicts(fw, self), { n1: '', n2: '', n3: '', n4: ERR_REASON_AFFINITY_RULES_NOT_MATCH });
    // Not matching its own terms, it has nowhere to go.
    const other = makePod('web-1', { labels: { app: 'x' }, affinity: { podAffinity: required({ app: 'web' }, ZONE) } });
    assert.deepEqual(Object.values(verdicts(fw, other)), Array(4).fill(ERR_REASON_AFFINITY_RULES_NOT_MATCH));
  });

  it('once a matching pod exists somewhere, self-affinity no longer lets the pod go anywhere', () => {
    const web = makePod('web-0', { labels: { app: 'web' }, nodeName: 'n3' });
    const fw = framework(cluster([web]));
    const pod = makePod('web-1', { labels: { app: 'web' }, affinity: { podAffinity: required({ app: 'web' }, ZONE) } });
    assert.deepEqual(verdicts(fw, pod), {
      n1: ERR_REASON_AFFINITY_RULES_NOT_MATCH,
      n2: ERR_REASON_AFFINITY_RULES_NOT_MATCH,
      n3: '',
    });
  });

  it('required anti-affinity of the incoming pod rejects nodes in the matching domain (Unschedulable)', () => {
    const web = makePod('web-0', { labels: { app: 'web' }, nodeName: 'n1' });
    const fw = framework(cluster([web]));
    const pod = makePod('web-1', {
      labels: { app: 'web' },
      affinity: { podAntiAffinity: required({ app: 'web' }, HOST) },
    });
    assert.deepEqual(verdicts(fw, pod), { n1: ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH, n2: '', n3: '' });
    assert.equal(fw.schedule(pod).statuses.get('n1')?.code, Code.Unschedulable);
    const zonal = makePod('web-2', {
      labels: { app: 'web' },
      affinity: { podAntiAffinity: required({ app: 'web' }, ZONE) },
    });
    assert.deepEqual(verdicts(fw, zonal), {
      n1: ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH,
      n2: ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH,
      n3: '',
    });
  });

  it("symmetry: an existing pod's anti-affinity rejects the incoming pod in its domain", () => {
    const guard = makePod('guard', {
      labels: { app: 'guard' },
      nodeName: 'n1',
      affinity: { podAntiAffinity: required({ app: 'web' }, ZONE) },
    });
    const fw = framework(cluster([guard]));
    const web = makePod('web', { labels: { app: 'web' } });
    assert.deepEqual(verdicts(fw, web), {
      n1: ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH,
      n2: ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH,
      n3: '',
    });
    // A pod the term does not select is not affected; and the existing pod's term only covers its namespace.
    assert.deepEqual(verdicts(fw, makePod('db', { labels: { app: 'db' } })), { n1: '', n2: '', n3: '' });
    assert.deepEqual(verdicts(fw, makePod('web', { namespace: 'other', labels: { app: 'web' } })), {
      n1: '',
      n2: '',
      n3: '',
    });
  });

  it('a term covers the pod’s own namespace by default, or the namespaces it lists', () => {
    const db = makePod('db', { namespace: 'data', labels: { app: 'db' }, nodeName: 'n3' });
    const fw = framework(cluster([db]));
    const sameNs = makePod('web', { labels: { app: 'web' }, affinity: { podAffinity: required({ app: 'db' }, ZONE) } });
    // No db in "default": nothing matches anywhere, and the pod does not match its own term.
    assert.deepEqual(Object.values(verdicts(fw, sameNs)), Array(3).fill(ERR_REASON_AFFINITY_RULES_NOT_MATCH));
    const listed = makePod('web', {
      labels: { app: 'web' },
      affinity: { podAffinity: required({ app: 'db' }, ZONE, { namespaces: ['data'] }) },
    });
    assert.deepEqual(verdicts(fw, listed), {
      n1: ERR_REASON_AFFINITY_RULES_NOT_MATCH,
      n2: ERR_REASON_AFFINITY_RULES_NOT_MATCH,
      n3: '',
    });
  });

  it('namespaceSelector selects namespaces by their labels; an empty one selects all', () => {
    const informers = namespaceInformers({ default: {}, 'team-a': { team: 'a' }, 'team-b': { team: 'b' } });
    const dbA = makePod('db', { namespace: 'team-a', labels: { app: 'db' }, nodeName: 'n1' });
    const dbB = makePod('db', { namespace: 'team-b', labels: { app: 'db' }, nodeName: 'n3' });
    const fw = framework(cluster([dbA, dbB]), { informers });
    const teamA = makePod('web', {
      affinity: {
        podAntiAffinity: required({ app: 'db' }, ZONE, { namespaceSelector: { matchLabels: { team: 'a' } } }),
      },
    });
    assert.deepEqual(verdicts(fw, teamA), {
      n1: ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH,
      n2: ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH,
      n3: '',
    });
    const all = makePod('web', {
      affinity: { podAntiAffinity: required({ app: 'db' }, ZONE, { namespaceSelector: {} }) },
    });
    assert.deepEqual(Object.values(verdicts(fw, all)), Array(3).fill(ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH));
  });

  it("an existing pod's namespaceSelector is matched against the incoming pod's namespace labels", () => {
    const informers = namespaceInformers({ 'team-a': { team: 'a' }, 'team-b': { team: 'b' } });
    const guard = makePod('guard', {
      namespace: 'ops',
      nodeName: 'n3',
      affinity: {
        podAntiAffinity: required({ app: 'web' }, ZONE, { namespaceSelector: { matchLabels: { team: 'a' } } }),
      },
    });
    const fw = framework(cluster([guard]), { informers });
    const inA = makePod('web', { namespace: 'team-a', labels: { app: 'web' } });
    const inB = makePod('web', { namespace: 'team-b', labels: { app: 'web' } });
    assert.equal(verdicts(fw, inA).n3, ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH);
    assert.equal(verdicts(fw, inB).n3, '');
  });

  it('matchLabelKeys and mismatchLabelKeys fold the pod’s label values into the selector', () => {
    const v1 = makePod('web-v1', { labels: { app: 'web', version: 'v1' }, nodeName: 'n1' });
    const v2 = makePod('web-v2', { labels: { app: 'web', version: 'v2' }, nodeName: 'n3' });
    const fw = framework(cluster([v1, v2]));
    const withKeys = (key: 'matchLabelKeys' | 'mismatchLabelKeys') =>
      makePod('web-new', {
        labels: { app: 'web', version: 'v2' },
        affinity: { podAntiAffinity: required({ app: 'web' }, ZONE, { [key]: ['version'] }) },
      });
    assert.deepEqual(verdicts(fw, withKeys('matchLabelKeys')), {
      n1: '',
      n2: '',
      n3: ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH,
    });
    assert.deepEqual(verdicts(fw, withKeys('mismatchLabelKeys')), {
      n1: ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH,
      n2: ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH,
      n3: '',
    });
    // A selector the apiserver already extended is not extended twice (same answer).
    const folded = makePod('web-new', {
      labels: { app: 'web', version: 'v2' },
      affinity: {
        podAntiAffinity: required({ app: 'web' }, ZONE, {
          matchLabelKeys: ['version'],
          labelSelector: {
            matchLabels: { app: 'web' },
            matchExpressions: [{ key: 'version', operator: 'In', values: ['v2'] }],
          },
        }),
      },
    });
    assert.deepEqual(verdicts(fw, folded), { n1: '', n2: '', n3: ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH });
  });

  it('PreFilter skips pods with nothing to check; a bad selector is unresolvable', () => {
    const fw = framework(cluster([makePod('a', { labels: { app: 'a' }, nodeName: 'n1' })]));
    const state = new CycleState();
    const pl = fw.plugin<InterPodAffinity>('InterPodAffinity');
    assert.equal(pl.preFilter(state, makePod('plain'), fw.nodes).status.code, Code.Skip);
    const bad = makePod('bad', {
      affinity: {
        podAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: [
            { labelSelector: { matchExpressions: [{ key: 'a', operator: 'Bogus' }] }, topologyKey: ZONE },
          ],
        },
      },
    });
    const s = pl.preFilter(new CycleState(), bad, fw.nodes).status;
    assert.equal(s.code, Code.UnschedulableAndUnresolvable);
    assert.match(s.message(), /^parsing pod: /);
  });

  it('AddPod/RemovePod keep the counts right on cloned states (preemption what-ifs)', () => {
    const guardPod = makePod('guard', {
      nodeName: 'n1',
      affinity: { podAntiAffinity: required({ app: 'web' }, HOST) },
    });
    const blocker = makePod('web-0', { labels: { app: 'web' }, nodeName: 'n2' });
    const nodes = cluster([guardPod, blocker]);
    const fw = framework(nodes);
    const pod = makePod('web-1', {
      labels: { app: 'web' },
      affinity: { podAntiAffinity: required({ app: 'web' }, HOST) },
    });
    const { state, statuses } = fw.schedule(pod);
    assert.equal(statuses.get('n1')?.message(), ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH);
    assert.equal(statuses.get('n2')?.message(), ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH);

    const n1 = nodes[0] as NodeInfo;
    const n2 = nodes[1] as NodeInfo;
    const copy = state.clone();
    const guardInfo = n1.pods[0]!;
    const blockerInfo = n2.pods[0]!;
    assert.ok(fw.handle.runPreFilterExtensionRemovePod(copy, pod, guardInfo, n1).isSuccess());
    assert.ok(fw.handle.runPreFilterExtensionRemovePod(copy, pod, blockerInfo, n2).isSuccess());
    assert.ok(fw.runFilter(copy, pod, n1).isSuccess());
    assert.ok(fw.runFilter(copy, pod, n2).isSuccess());
    // The original state is untouched.
    assert.equal(fw.runFilter(state, pod, n1).message(), ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH);
    // Adding back a pod counts it again.
    assert.ok(fw.handle.runPreFilterExtensionAddPod(copy, pod, blockerInfo, n2).isSuccess());
    assert.equal(fw.runFilter(copy, pod, n2).message(), ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH);
    // Adding a pod that matches an affinity term on a node makes its domain feasible.
    const lonely = makePod('lonely', { affinity: { podAffinity: required({ app: 'db' }, ZONE) } });
    const r = fw.schedule(lonely);
    assert.equal(r.feasible.length, 0);
    const dbInfo = newPodInfo(makePod('db', { labels: { app: 'db' }, nodeName: 'n3' }));
    const st = r.state.clone();
    fw.handle.runPreFilterExtensionAddPod(st, lonely, dbInfo, nodes[2] as NodeInfo);
    assert.ok(fw.runFilter(st, lonely, nodes[2] as NodeInfo).isSuccess());
    assert.equal(fw.runFilter(st, lonely, n1).message(), ERR_REASON_AFFINITY_RULES_NOT_MATCH);
  });
});

describe('InterPodAffinity score', () => {
  it('preferred affinity scores the domains with matching pods highest', () => {
    const db = makePod('db', { labels: { app: 'db' }, nodeName: 'n1' });
    const fw = framework(cluster([db]));
    const pod = makePod('web', { affinity: { podAffinity: preferred(5, { app: 'db' }, ZONE) } });
    assert.deepEqual(fw.scores('InterPodAffinity', pod), [
      { name: 'n1', score: 100 },
      { name: 'n2', score: 100 },
      { name: 'n3', score: 0 },
    ]);
  });

  it('preferred anti-affinity scores those domains lowest', () => {
    const db = makePod('db', { labels: { app: 'db' }, nodeName: 'n1' });
    const fw = framework(cluster([db]));
    const pod = makePod('web', { affinity: { podAntiAffinity: preferred(5, { app: 'db' }, HOST) } });
    assert.deepEqual(
      fw.scores('InterPodAffinity', pod).map((s) => s.score),
      [0, 100, 100],
    );
  });

  it('scores are scaled between the lowest and highest sums', () => {
    const db = makePod('db', { labels: { app: 'db' }, nodeName: 'n1' });
    const cache = makePod('cache', { labels: { app: 'cache' }, nodeName: 'n2' });
    const fw = framework(cluster([db, cache]));
    const pod = makePod('web', {
      affinity: {
        podAffinity: preferred(5, { app: 'db' }, HOST),
        podAntiAffinity: preferred(3, { app: 'cache' }, HOST),
      },
    });
    // Raw sums: n1 5, n2 −3, n3 0 → (x − (−3)) / 8 × 100, truncated.
    assert.deepEqual(
      fw.scores('InterPodAffinity', pod).map((s) => s.score),
      [100, 0, 37],
    );
  });

  it("symmetry: existing pods' preferred terms and required affinity (hardPodAffinityWeight) count", () => {
    const likesWeb = makePod('fan', {
      nodeName: 'n1',
      affinity: { podAffinity: preferred(10, { app: 'web' }, HOST) },
    });
    const dislikesWeb = makePod('hater', {
      nodeName: 'n2',
      affinity: { podAntiAffinity: preferred(10, { app: 'web' }, HOST) },
    });
    const needsWeb = makePod('needy', {
      nodeName: 'n3',
      affinity: { podAffinity: required({ app: 'web' }, HOST) },
    });
    const web = makePod('web', { labels: { app: 'web' } });
    // Raw: n1 10, n2 −10, n3 1 (hardPodAffinityWeight 1).
    const fw = framework(cluster([likesWeb, dislikesWeb, needsWeb]));
    assert.deepEqual(
      fw.scores('InterPodAffinity', web).map((s) => s.score),
      [100, 0, 55],
    );
    const heavy = framework(cluster([likesWeb, dislikesWeb, needsWeb]), { args: { hardPodAffinityWeight: 10 } });
    assert.deepEqual(
      heavy.scores('InterPodAffinity', web).map((s) => s.score),
      [100, 0, 100],
    );
    const none = framework(cluster([needsWeb]), { args: { hardPodAffinityWeight: 0 } });
    assert.deepEqual(
      none.scores('InterPodAffinity', web).map((s) => s.score),
      [0, 0, 0],
    );
  });

  it('ignorePreferredTermsOfExistingPods skips scoring for pods without preferred terms', () => {
    const likesWeb = makePod('fan', { nodeName: 'n1', affinity: { podAffinity: preferred(10, { app: 'web' }, HOST) } });
    const fw = framework(cluster([likesWeb]), { args: { ignorePreferredTermsOfExistingPods: true } });
    const web = makePod('web', { labels: { app: 'web' } });
    const pl = fw.plugin<InterPodAffinity>('InterPodAffinity');
    assert.equal(pl.preScore(new CycleState(), web, fw.nodes).code, Code.Skip);
  });

  it('validates and defaults its args', () => {
    assert.deepEqual(parseArgs(undefined), { hardPodAffinityWeight: 1, ignorePreferredTermsOfExistingPods: false });
    assert.throws(() => parseArgs({ hardPodAffinityWeight: 101 }), /not in valid range \[0, 100\]/);
  });
});

describe('InterPodAffinity queueing hints', () => {
  const pod = makePod('web', {
    labels: { app: 'web' },
    affinity: { podAffinity: required({ app: 'db' }, ZONE), podAntiAffinity: required({ app: 'cache' }, HOST) },
  });
  it('pods', () => {
    const db = makePod('db', { labels: { app: 'db' }, nodeName: 'n1' });
    const cache = makePod('cache', { labels: { app: 'cache' }, nodeName: 'n1' });
    assert.equal(isSchedulableAfterPodChange(pod, undefined, db), QueueingHint.Queue);
    assert.equal(isSchedulableAfterPodChange(pod, undefined, cache), QueueingHint.Skip);
    assert.equal(isSchedulableAfterPodChange(pod, cache, undefined), QueueingHint.Queue);
    assert.equal(
      isSchedulableAfterPodChange(pod, undefined, makePod('u', { labels: { app: 'db' } })),
      QueueingHint.Skip,
    );
  });
  it('nodes', () => {
    const old = makeNode('n9');
    const zoned = makeNode('n9', { labels: { [ZONE]: 'c' } });
    assert.equal(isSchedulableAfterNodeChange(pod, undefined, zoned), QueueingHint.Queue);
    assert.equal(isSchedulableAfterNodeChange(pod, old, zoned), QueueingHint.Queue);
    const onlyAffinity = makePod('p', { affinity: { podAffinity: required({ app: 'db' }, ZONE) } });
    assert.equal(isSchedulableAfterNodeChange(onlyAffinity, undefined, old), QueueingHint.Skip);
  });
});
