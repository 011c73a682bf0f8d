import { describe, it } from 'node:test';
import { SharedInformerFactory } from '../../../client/cache/factory.js';
import type { KubeClient } from '../../../client/rest.js';
import type { KubeObject, ListerWatcher } from '../../../client/types.js';
import assert from '../../../testing/assert.js';
import { newNodeInfo, newPodInfo } from '../../framework/node-info.js';
import { Code, CycleState, type NodeInfo, type NodeToStatus, type Pod, Status } from '../../framework/types.js';
import { factory as interPodAffinityFactory } from '../interpodaffinity/index.js';
import { fitFactory } from '../noderesources/index.js';
import { factory as podTopologySpreadFactory } from '../podtopologyspread/index.js';
import { calculateNumCandidates, pickOneNodeForPreemption } from './candidates.js';
import { DefaultPreemption, parseArgs } from './index.js';
import { FakeFramework, makeNode, makePod, type PodSpec } from './testing.js';

interface Call {
  verb: 'patch' | 'delete';
  namespace: string;
  name: string;
  body?: unknown;
  subresource?: string;
}

function fakeClient(calls: Call[]): KubeClient {
  return {
    pods: (ns = '') => ({
      patch: async (name: string, _type: string, body: unknown, opts?: { subresource?: string }) => {
        calls.push({
          verb: 'patch',
          namespace: ns,
          name,
          body,
          ...(opts?.subresource ? { subresource: opts.subresource } : {}),
        });
        return {};
      },
      delete: async (name: string) => {
        calls.push({ verb: 'delete', namespace: ns, name });
        return {};
      },
    }),
  } as unknown as KubeClient;
}

const idleLw: ListerWatcher = {
  list: async () => ({ metadata: {}, items: [] }),
  watch: async () => {
    throw new Error('not started');
  },
};

function pdbInformers(pdbs: KubeObject[]): SharedInformerFactory {
  const f = new SharedInformerFactory();
  const inf = f.forResource('poddisruptionbudgets.v1.policy', idleLw);
  for (const pdb of pdbs) inf.getIndexer().add(pdb);
  return f;
}

interface Setup {
  nodes: NodeInfo[];
  pdbs?: KubeObject[];
  async?: boolean;
  args?: Record<string, unknown>;
  nominated?: Map<string, ReturnType<typeof newPodInfo>[]>;
}

function setup(s: Setup) {
  const calls: Call[] = [];
  const fw = new FakeFramework({
    nodes: s.nodes,
    client: fakeClient(calls),
    informers: pdbInformers(s.pdbs ?? []),
    ...(s.nominated ? { nominated: s.nominated } : {}),
    plugins: [
      { factory: fitFactory },
      {
        factory: (args, h) => new DefaultPreemption(parseArgs(args), h, { async: s.async ?? false, random: () => 0 }),
        ...(s.args ? { args: s.args } : {}),
      },
    ],
  });
  const pl = fw.plugin<DefaultPreemption>('DefaultPreemption');
  const preempt = async (pod: Pod, statuses?: NodeToStatus) => {
    const r = fw.schedule(pod);
    return pl.postFilter(r.state, pod, statuses ?? r.statuses);
  };
  return { fw, pl, calls, preempt };
}

const running = (name: string, nodeName: string, priority: number, cpu: string, extra: PodSpec = {}) =>
  makePod(name, { nodeName, priority, cpu, startTime: '2025-01-01T00:00:00Z', ...extra });

const deleted = (calls: Call[]) => calls.filter((c) => c.verb === 'delete').map((c) => c.name);

describe('DefaultPreemption victims', () => {
  it('evicts the fewest, lowest-priority pods that make room', async () => {
    const node = makeNode('n1', { cpu: '4' });
    const pods = [running('p1', 'n1', 1, '2'), running('p2', 'n1', 2, '1'), running('p3', 'n1', 3, '1')];
    const { preempt, calls, fw } = setup({ nodes: [newNodeInfo(node, ...pods)] });
    const pod = makePod('big', { priority: 10, cpu: '2' });
    const out = await preempt(pod);
    assert.equal(out.status.code, Code.Success);
    assert.equal(out.nominatedNodeName, 'n1');
    assert.deepEqual(deleted(calls), ['p1']);
    // The victim got the DisruptionTarget condition before its deletion, and a Preempted event.
    const [patch, del] = calls.filter((c) => c.name === 'p1');
    assert.equal(patch?.verb, 'patch');
    assert.equal(patch?.subresource, 'status');
    const cond = (patch?.body as { status: { conditions: Record<string, string>[] } } | undefined)?.status
      .conditions[0];
    assert.deepEqual(
      { type: cond?.type, status: cond?.status, reason: cond?.reason, message: cond?.message },
      {
        type: 'DisruptionTarget',
        status: 'True',
        reason: 'PreemptionByScheduler',
        message: 'default-scheduler: preempting to accommodate a higher priority pod',
      },
    );
    assert.equal(del?.verb, 'delete');
    assert.deepEqual(
      fw.events.map((e) => [e.subject.metadata.name, e.type, e.reason, e.message]),
      [['p1', 'Normal', 'Preempted', `Preempted by pod ${pod.metadata.uid} on node n1`]],
    );
    // The preemptor itself is not patched: the scheduler records the nomination when it requeues it.
    assert.equal(
      calls.find((c) => c.name === 'big'),
      undefined,
    );
  });

  it('pods of equal or higher priority are never victims', async () => {
    const node = makeNode('n1', { cpu: '2' });
    const { preempt, calls } = setup({ nodes: [newNodeInfo(node, running('p1', 'n1', 5, '2'))] });
    const out = await preempt(makePod('x', { priority: 5, cpu: '1' }));
    assert.equal(out.status.code, Code.Unschedulable);
    assert.equal(
      out.status.message(),
      'preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.',
    );
    assert.equal(out.nominatedNodeName, '');
    assert.deepEqual(calls, []);
  });

  it('a node where even evicting every lower-priority pod is not enough gives its Filter reason', async () => {
    const n1 = makeNode('n1', { cpu: '4' });
    const n2 = makeNode('n2', { cpu: '4' });
    const { preempt } = setup({
      nodes: [newNodeInfo(n1, running('a', 'n1', 1, '4')), newNodeInfo(n2, running('b', 'n2', 100, '4'))],
    });
    const out = await preempt(makePod('huge', { priority: 10, cpu: '6' }));
    assert.equal(
      out.status.message(),
      'preemption: 0/2 nodes are available: 1 Insufficient cpu, 1 No preemption victims found for incoming pod.',
    );
  });

  it('nodes rejected as unresolvable are not tried: "Preemption is not helpful for scheduling"', async () => {
    const nodes = ['n1', 'n2', 'n3'].map((n) => newNodeInfo(makeNode(n), running(`p-${n}`, n, 0, '1')));
    const { preempt, calls } = setup({ nodes });
    const statuses: NodeToStatus = new Map(
      ['n1', 'n2', 'n3'].map((n) => [n, Status.unresolvable("node(s) didn't match Pod's node affinity/selector")]),
    );
    const pod = makePod('p', { priority: 10, nominatedNodeName: 'n2' });
    const out = await preempt(pod, statuses);
    assert.equal(
      out.status.message(),
      'preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.',
    );
    assert.equal(out.nominatedNodeName, '');
    // Its old nomination is cleared.
    assert.deepEqual(calls, [
      {
        verb: 'patch',
        namespace: 'default',
        name: 'p',
        body: { status: { nominatedNodeName: null } },
        subresource: 'status',
      },
    ]);
  });

  it('preemptionPolicy Never: no preemption', async () => {
    const { preempt, calls } = setup({
      nodes: [newNodeInfo(makeNode('n1', { cpu: '1' }), running('a', 'n1', 0, '1'))],
    });
    const out = await preempt(makePod('p', { priority: 10, cpu: '1', preemptionPolicy: 'Never' }));
    assert.equal(out.status.code, Code.Unschedulable);
    assert.equal(out.status.message(), 'preemption: not eligible due to preemptionPolicy=Never.');
    assert.equal(out.nominatedNodeName, undefined);
    assert.deepEqual(calls, []);
  });

  it('waits while a victim of an earlier preemption still terminates on the nominated node', async () => {
    const victim = running('old', 'n1', 0, '1', {
      deletionTimestamp: '2025-01-01T00:00:30Z',
      conditions: [{ type: 'DisruptionTarget', status: 'True', reason: 'PreemptionByScheduler' }],
    });
    const { preempt } = setup({ nodes: [newNodeInfo(makeNode('n1', { cpu: '1' }), victim)] });
    const out = await preempt(makePod('p', { priority: 10, cpu: '1', nominatedNodeName: 'n1' }));
    assert.equal(out.status.message(), 'preemption: not eligible due to a terminating pod on the nominated node.');
  });

  it('prefers evicting pods whose PodDisruptionBudget allows it', async () => {
    const pdb: KubeObject = {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'db', namespace: 'default' },
      spec: { selector: { matchLabels: { app: 'db' } } },
      status: { disruptionsAllowed: 0 },
    };
    // Same priority; the db pod started later (less important), so without the PDB it would be the victim.
    const web = running('web', 'n1', 1, '2', { labels: { app: 'web' }, startTime: '2025-01-01T00:00:00Z' });
    const db = running('db', 'n1', 1, '2', { labels: { app: 'db' }, startTime: '2025-01-01T01:00:00Z' });
    const nodes = () => [newNodeInfo(makeNode('n1', { cpu: '4' }), web, db)];
    const withPdb = setup({ nodes: nodes(), pdbs: [pdb] });
    await withPdb.preempt(makePod('p', { priority: 10, cpu: '2' }));
    assert.deepEqual(deleted(withPdb.calls), ['web']);
    const without = setup({ nodes: nodes() });
    await without.preempt(makePod('p', { priority: 10, cpu: '2' }));
    assert.deepEqual(deleted(without.calls), ['db']);
  });

  it('counts nominated pods of equal or higher priority as present', async () => {
    const n1 = newNodeInfo(makeNode('n1', { cpu: '4' }), running('low', 'n1', 1, '2'));
    const waiting = newPodInfo(makePod('waiting', { priority: 20, cpu: '2', nominatedNodeName: 'n1' }));
    const { preempt, calls } = setup({ nodes: [n1], nominated: new Map([['n1', [waiting]]]) });
    // 2 cpu free, but reserved for the nominated pod: the preemptor (priority 10) must evict "low".
    const out = await preempt(makePod('p', { priority: 10, cpu: '2' }));
    assert.equal(out.nominatedNodeName, 'n1');
    assert.deepEqual(deleted(calls), ['low']);
  });

  it('clears the nominations of lower-priority pods on the chosen node', async () => {
    const n1 = newNodeInfo(makeNode('n1', { cpu: '2' }), running('low', 'n1', 1, '2'));
    const lesser = newPodInfo(makePod('lesser', { priority: 5, cpu: '1', nominatedNodeName: 'n1' }));
    const { preempt, calls } = setup({ nodes: [n1], nominated: new Map([['n1', [lesser]]]) });
    await preempt(makePod('p', { priority: 10, cpu: '2' }));
    assert.ok(
      calls.some((c) => c.name === 'lesser' && JSON.stringify(c.body) === '{"status":{"nominatedNodeName":null}}'),
    );
  });
});

describe('DefaultPreemption with other plugins’ PreFilter state', () => {
  function setupWith(nodes: NodeInfo[]) {
    const calls: Call[] = [];
    const fw = new FakeFramework({
      nodes,
      client: fakeClient(calls),
      plugins: [
        { factory: fitFactory },
        { factory: interPodAffinityFactory },
        { factory: podTopologySpreadFactory },
        { factory: (args, h) => new DefaultPreemption(parseArgs(args), h, { async: false, random: () => 0 }) },
      ],
    });
    return { fw, calls, pl: fw.plugin<DefaultPreemption>('DefaultPreemption') };
  }

  it('evicts a lower-priority pod whose anti-affinity keeps the preemptor out', async () => {
    const guard = running('guard', 'n1', 1, '100m', {
      affinity: {
        podAntiAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: [
            { labelSelector: { matchLabels: { app: 'web' } }, topologyKey: 'kubernetes.io/hostname' },
          ],
        },
      },
    });
    const bystander = running('bystander', 'n1', 1, '100m');
    const { fw, pl, calls } = setupWith([newNodeInfo(makeNode('n1'), guard, bystander)]);
    const pod = makePod('web', { labels: { app: 'web' }, priority: 10 });
    const r = fw.schedule(pod);
    assert.equal(r.statuses.get('n1')?.message(), "node(s) didn't satisfy existing pods anti-affinity rules");
    const out = await pl.postFilter(r.state, pod, r.statuses);
    assert.equal(out.nominatedNodeName, 'n1');
    assert.deepEqual(deleted(calls), ['guard']);
  });

  it('evicts the lower-priority pods that count against the preemptor’s topology spread', async () => {
    const zone = (z: string) => ({ labels: { 'topology.kubernetes.io/zone': z } });
    const spread = {
      topologySpreadConstraints: [
        {
          maxSkew: 1,
          topologyKey: 'topology.kubernetes.io/zone',
          whenUnsatisfiable: 'DoNotSchedule',
          labelSelector: { matchLabels: { app: 'web' } },
        },
      ],
    };
    const run = async (w2Priority: number) => {
      const n1 = newNodeInfo(
        makeNode('n1', zone('a')),
        running('w1', 'n1', 1, '100m', { labels: { app: 'web' } }),
        running('w2', 'n1', w2Priority, '100m', { labels: { app: 'web' } }),
      );
      // Zone b has room for nothing: its only node is full with a pod of higher priority.
      const n2 = newNodeInfo(makeNode('n2', { ...zone('b'), cpu: '1' }), running('big', 'n2', 50, '1'));
      const { fw, pl, calls } = setupWith([n1, n2]);
      const pod = makePod('w3', { labels: { app: 'web' }, priority: 10, cpu: '100m', ...spread });
      const r = fw.schedule(pod);
      assert.equal(r.statuses.get('n1')?.message(), "node(s) didn't match pod topology spread constraints");
      assert.equal(r.statuses.get('n2')?.message(), 'Insufficient cpu');
      return { out: await pl.postFilter(r.state, pod, r.statuses), calls };
    };
    // Zone a holds 2 web pods, zone b none: only emptying zone a keeps the skew at 1.
    const both = await run(1);
    assert.equal(both.out.nominatedNodeName, 'n1');
    assert.deepEqual(deleted(both.calls).sort(), ['w1', 'w2']);
    // With w2 of higher priority, evicting w1 alone leaves a skew of 2: nothing helps.
    const none = await run(50);
    assert.equal(none.out.status.code, Code.Unschedulable);
    assert.deepEqual(none.calls, []);
    assert.equal(
      none.out.status.message(),
      "preemption: 0/2 nodes are available: 1 No preemption victims found for incoming pod, 1 node(s) didn't match pod topology spread constraints.",
    );
  });
});

describe('DefaultPreemption node choice', () => {
  /** Nodes of 2 cpu, each full with the given victims (priority, start hour). */
  async function choose(perNode: Record<string, [number, number][]>, pdbs: KubeObject[] = []) {
    const nodes = Object.entries(perNode).map(([name, pods]) =>
      newNodeInfo(
        makeNode(name, { cpu: '2' }),
        ...pods.map(([prio, hour], i) =>
          running(`${name}-${i}`, name, prio, `${2 / pods.length}`, {
            labels: { node: name },
            startTime: `2025-01-01T${String(hour).padStart(2, '0')}:00:00Z`,
          }),
        ),
      ),
    );
    const { preempt } = setup({ nodes, pdbs });
    const out = await preempt(makePod('p', { priority: 100, cpu: '2' }));
    return out.nominatedNodeName;
  }

  it('fewest PDB violations first', async () => {
    const pdb: KubeObject = {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'n1', namespace: 'default' },
      spec: { selector: { matchLabels: { node: 'n1' } } },
      status: { disruptionsAllowed: 0 },
    };
    assert.equal(await choose({ n1: [[1, 1]], n2: [[50, 1]] }, [pdb]), 'n2');
  });

  it('then the lowest highest-victim priority', async () => {
    assert.equal(await choose({ n1: [[5, 1]], n2: [[3, 1]], n3: [[4, 1]] }), 'n2');
  });

  it('then the smallest sum of priorities', async () => {
    assert.equal(
      await choose({
        n1: [
          [3, 1],
          [3, 1],
        ],
        n2: [
          [3, 1],
          [1, 1],
        ],
      }),
      'n2',
    );
  });

  it('then the latest start time of the most important victims', async () => {
    assert.equal(await choose({ n1: [[3, 1]], n2: [[3, 5]], n3: [[3, 2]] }), 'n2');
  });

  it('remaining ties go to the first candidate found', () => {
    const c = (nodeName: string) => ({ nodeName, victims: [makePod('v', { priority: 1 })], numPDBViolations: 0 });
    assert.equal(pickOneNodeForPreemption([c('a'), c('b')], 0)?.nodeName, 'a');
  });

  it('looks for minCandidateNodesPercentage of the nodes, at least minCandidateNodesAbsolute', () => {
    const args = parseArgs(undefined);
    assert.deepEqual(args, { minCandidateNodesPercentage: 10, minCandidateNodesAbsolute: 100 });
    assert.equal(calculateNumCandidates(args, 50), 50);
    assert.equal(calculateNumCandidates(args, 500), 100);
    assert.equal(calculateNumCandidates(args, 5000), 500);
    assert.equal(calculateNumCandidates({ minCandidateNodesPercentage: 0, minCandidateNodesAbsolute: 1 }, 10), 1);
    assert.throws(() => parseArgs({ minCandidateNodesPercentage: 0, minCandidateNodesAbsolute: 0 }), /cannot be zero/);
    assert.throws(() => parseArgs({ minCandidateNodesPercentage: 101 }), /not in valid range \[0, 100\]/);
  });

  it('stops the dry run once enough candidates are found', async () => {
    const nodes = ['n1', 'n2', 'n3'].map((n) => newNodeInfo(makeNode(n, { cpu: '1' }), running(`v-${n}`, n, 1, '1')));
    const { preempt, calls } = setup({
      nodes,
      args: { minCandidateNodesPercentage: 0, minCandidateNodesAbsolute: 1 },
    });
    const out = await preempt(makePod('p', { priority: 10, cpu: '1' }));
    // random() = 0: the walk starts at the first node, which is enough.
    assert.equal(out.nominatedNodeName, 'n1');
    assert.deepEqual(deleted(calls), ['v-n1']);
  });
});

describe('DefaultPreemption asynchronous evictions', () => {
  it('holds the preemptor back (PreEnqueue) until the victims are evicted', async () => {
    const pods = [running('a', 'n1', 1, '1'), running('b', 'n1', 1, '1')];
    const { fw, pl, calls } = setup({ nodes: [newNodeInfo(makeNode('n1', { cpu: '2' }), ...pods)], async: true });
    const pod = makePod('p', { priority: 10, cpu: '2' });
    const r = fw.schedule(pod);
    const out = await pl.postFilter(r.state, pod, r.statuses);
    assert.equal(out.nominatedNodeName, 'n1');
    // Until the background work ends, the pod may not be scheduled again.
    if (pl.isPodRunningPreemption(pod.metadata.uid)) {
      assert.equal(pl.preEnqueue(pod).code, Code.UnschedulableAndUnresolvable);
      assert.equal(pl.preEnqueue(pod).message(), 'waiting for the preemption for this pod to be finished');
    }
    await pl.waitForPreemptions();
    assert.ok(pl.preEnqueue(pod).isSuccess());
    assert.deepEqual(deleted(calls).sort(), ['a', 'b']);
    assert.deepEqual(
      pl.eventsToRegister().map((e) => e.event),
      [{ resource: 'Pod', actions: ['Delete'] }],
    );
  });

  it('the state the dry runs change is a copy', async () => {
    const node = newNodeInfo(makeNode('n1', { cpu: '1' }), running('a', 'n1', 1, '1'));
    const { fw, pl } = setup({ nodes: [node] });
    const pod = makePod('p', { priority: 10, cpu: '1' });
    const r = fw.schedule(pod);
    const before = node.pods.length;
    await pl.postFilter(r.state, pod, r.statuses);
    assert.equal(node.pods.length, before);
    assert.equal(node.requested.milliCPU, 1000);
    assert.ok(r.state instanceof CycleState);
  });
});
