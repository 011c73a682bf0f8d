import { describe, it } from 'node:test';
import { FakeRecorder } from '../../client/events/fake-recorder.js';
import type { KubeClient } from '../../client/rest.js';
import assert from '../../testing/assert.js';
import { FakeClock } from '../../util/clock.js';
import { silentLogger } from '../../util/logger.js';
import { Snapshot } from '../cache/snapshot.js';
import { defaultProfile, emptyPlugins } from '../config/defaults.js';
import type { KubeSchedulerProfile } from '../config/types.js';
import { newNodeInfo } from '../framework/node-info.js';
import {
  Code,
  CycleState,
  type NodeInfo,
  type Plugin,
  type PluginFactory,
  type Pod,
  type QueuedPodInfo,
  Status,
} from '../framework/types.js';
import { IN_TREE_PLUGINS } from '../plugins/registry.js';
import { Framework, type FrameworkDeps, nodePluginScores } from './framework.js';

function deps(clock = new FakeClock()): FrameworkDeps {
  return {
    client: {} as KubeClient,
    clock,
    logger: silentLogger,
    recorder: new FakeRecorder(),
    snapshot: () => new Snapshot(),
    nominatedPodsForNode: () => [],
  };
}

const node = (name: string) => newNodeInfo({ metadata: { name }, status: { allocatable: { cpu: '1', pods: '10' } } });
const pod: Pod = { metadata: { name: 'p', namespace: 'default', uid: 'u1' }, spec: { containers: [] } };

/** A stub plugin with the given methods. */
function stub(name: string, methods: Record<string, unknown>): PluginFactory {
  return () => ({ name, ...methods }) as Plugin;
}

const sort = stub('Sort', { less: (a: QueuedPodInfo, b: QueuedPodInfo) => a.timestamp < b.timestamp });
const bind = stub('Bind', { bind: async () => Status.success() });

function profile(mutate: (p: KubeSchedulerProfile) => void): KubeSchedulerProfile {
  const p: KubeSchedulerProfile = { schedulerName: 'test', plugins: emptyPlugins(), pluginConfig: [] };
  p.plugins.multiPoint.enabled = [{ name: 'Sort' }, { name: 'Bind' }];
  mutate(p);
  return p;
}

describe('Framework', () => {
  it('expands the default profile over the in-tree plugins as upstream does', () => {
    const fwk = new Framework(defaultProfile({}), IN_TREE_PLUGINS, deps());
    const d = fwk.describe();
    assert.deepEqual(d.queueSort, ['PrioritySort']);
    assert.deepEqual(d.preEnqueue, ['SchedulingGates', 'DefaultPreemption']);
    assert.deepEqual(d.filter, [
      'NodeUnschedulable',
      'NodeName',
      'TaintToleration',
      'NodeAffinity',
      'NodePorts',
      'NodeResourcesFit',
      'VolumeBinding',
      'PodTopologySpread',
      'InterPodAffinity',
    ]);
    assert.deepEqual(d.postFilter, ['DefaultPreemption']);
    assert.deepEqual(d.score, [
      'TaintToleration',
      'NodeAffinity',
      'NodeResourcesFit',
      'VolumeBinding',
      'PodTopologySpread',
      'InterPodAffinity',
      'NodeResourcesBalancedAllocation',
      'ImageLocality',
    ]);
    assert.deepEqual(d.reserve, ['VolumeBinding']);
    assert.deepEqual(d.preBind, ['VolumeBinding']);
    assert.deepEqual(d.weights, {
      TaintToleration: 3,
      NodeAffinity: 2,
      NodeResourcesFit: 1,
      VolumeBinding: 1,
      PodTopologySpread: 2,
      InterPodAffinity: 2,
      NodeResourcesBalancedAllocation: 1,
      ImageLocality: 1,
    });
    assert.deepEqual(d.bind, ['DefaultBinder']);
    assert.deepEqual(d.notEvaluated, ['VolumeRestrictions', 'NodeVolumeLimits', 'VolumeZone']);
  });

  it('orders explicit entries before multiPoint ones and lets the Score entry set the weight', () => {
    const registry = {
      Sort: sort,
      Bind: bind,
      A: stub('A', { filter: () => Status.success(), score: () => ({ score: 1, status: Status.success() }) }),
      B: stub('B', { filter: () => Status.success(), score: () => ({ score: 1, status: Status.success() }) }),
      C: stub('C', { filter: () => Status.success() }),
    };
    const fwk = new Framework(
      profile((p) => {
        p.plugins.multiPoint.enabled.push({ name: 'A', weight: 2 }, { name: 'B', weight: 3 }, { name: 'C' });
        p.plugins.filter.enabled = [{ name: 'C' }];
        p.plugins.score.enabled = [{ name: 'B', weight: 7 }];
        p.plugins.score.disabled = [{ name: 'A' }];
      }),
      registry,
      deps(),
    );
    assert.deepEqual(fwk.describe().filter, ['C', 'A', 'B']);
    assert.deepEqual(fwk.describe().score, ['B']);
    assert.deepEqual(fwk.describe().weights, { B: 7 });
  });

  it('refuses profiles upstream refuses', () => {
    assert.throws(
      () =>
        new Framework(
          profile((p) => p.plugins.multiPoint.enabled.push({ name: 'Nope' })),
          { Sort: sort, Bind: bind },
          deps(),
        ),
      /plugin "Nope" does not exist/,
    );
    assert.throws(
      () =>
        new Framework(
          profile((p) => (p.plugins.multiPoint.enabled = [{ name: 'Sort' }])),
          { Sort: sort, Bind: bind },
          deps(),
        ),
      /at least one bind plugin is needed for profile with scheduler name "test"/,
    );
    assert.throws(
      () =>
        new Framework(
          profile((p) => (p.plugins.multiPoint.enabled = [{ name: 'Bind' }])),
          { Sort: sort, Bind: bind },
          deps(),
        ),
      /only one queue sort plugin required for profile with scheduler name "test", but got 0/,
    );
  });

  it('runs Filter in order and stops at the first rejection, naming the plugin', () => {
    const calls: string[] = [];
    const record = (name: string, s: Status) => {
      calls.push(name);
      return s;
    };
    const registry = {
      Sort: sort,
      Bind: bind,
      Ok: stub('Ok', { filter: () => record('Ok', Status.success()) }),
      No: stub('No', { filter: () => record('No', Status.unschedulable('Insufficient cpu')) }),
      Never: stub('Never', { filter: () => record('Never', Status.success()) }),
    };
    const fwk = new Framework(
      profile((p) => p.plugins.multiPoint.enabled.push({ name: 'Ok' }, { name: 'No' }, { name: 'Never' })),
      registry,
      deps(),
    );
    const s = fwk.runFilterPlugins(new CycleState(), pod, node('n1'));
    assert.equal(s.code, Code.Unschedulable);
    assert.equal(s.plugin, 'No');
    assert.equal(s.message(), 'Insufficient cpu');
    assert.deepEqual(calls, ['Ok', 'No']);
  });

  it('intersects PreFilter results and skips the Filter of plugins that said Skip', () => {
    const registry = {
      Sort: sort,
      Bind: bind,
      One: stub('One', { preFilter: () => ({ result: { nodeNames: new Set(['a', 'b']) }, status: Status.success() }) }),
      Two: stub('Two', { preFilter: () => ({ result: { nodeNames: new Set(['b', 'c']) }, status: Status.success() }) }),
      Skipper: stub('Skipper', {
        preFilter: () => ({ status: Status.skip() }),
        filter: () => Status.unschedulable('never asked'),
      }),
    };
    const fwk = new Framework(
      profile((p) => p.plugins.multiPoint.enabled.push({ name: 'One' }, { name: 'Two' }, { name: 'Skipper' })),
      registry,
      deps(),
    );
    const state = new CycleState();
    const out = fwk.runPreFilterPlugins(state, pod, [node('a'), node('b'), node('c')]);
    assert.ok(out.status.isSuccess());
    assert.deepEqual([...(out.result?.nodeNames ?? [])], ['b']);
    assert.deepEqual(out.pluginsWithNodes, ['One', 'Two']);
    assert.deepEqual(out.skipped, ['Skipper']);
    assert.ok(fwk.runFilterPlugins(state, pod, node('b')).isSuccess());

    const disjoint = new Framework(
      profile((p) => p.plugins.multiPoint.enabled.push({ name: 'One' }, { name: 'Three' })),
      {
        ...registry,
        Three: stub('Three', {
          preFilter: () => ({ result: { nodeNames: new Set(['z']) }, status: Status.success() }),
        }),
      },
      deps(),
    );
    const none = disjoint.runPreFilterPlugins(new CycleState(), pod, []);
    assert.equal(none.status.code, Code.UnschedulableAndUnresolvable);
    assert.equal(none.status.message(), "node(s) didn't satisfy plugin(s) [One Three] simultaneously");
  });

  it('normalizes and weights scores, and refuses scores out of range', () => {
    const registry = {
      Sort: sort,
      Bind: bind,
      Raw: stub('Raw', {
        score: (_s: CycleState, _p: Pod, ni: NodeInfo) => ({
          score: ni.node.metadata.name === 'a' ? 10 : 5,
          status: Status.success(),
        }),
        normalizeScore: (_s: CycleState, _p: Pod, scores: { score: number }[]) => {
          for (const s of scores) s.score *= 10;
          return Status.success();
        },
      }),
      Flat: stub('Flat', { score: () => ({ score: 50, status: Status.success() }) }),
    };
    const fwk = new Framework(
      profile((p) => p.plugins.multiPoint.enabled.push({ name: 'Raw', weight: 2 }, { name: 'Flat' })),
      registry,
      deps(),
    );
    const { scores, status } = fwk.runScorePlugins(new CycleState(), pod, [node('a'), node('b')]);
    assert.ok(status.isSuccess());
    assert.deepEqual(nodePluginScores(scores), [
      {
        name: 'a',
        scores: [
          { name: 'Raw', score: 200 },
          { name: 'Flat', score: 50 },
        ],
        totalScore: 250,
      },
      {
        name: 'b',
        scores: [
          { name: 'Raw', score: 100 },
          { name: 'Flat', score: 50 },
        ],
        totalScore: 150,
      },
    ]);
    const bad = new Framework(
      profile((p) => p.plugins.multiPoint.enabled.push({ name: 'Big' })),
      { Sort: sort, Bind: bind, Big: stub('Big', { score: () => ({ score: 101, status: Status.success() }) }) },
      deps(),
    );
    const out = bad.runScorePlugins(new CycleState(), pod, [node('a')]);
    assert.equal(out.status.code, Code.Error);
    assert.match(
      out.status.message(),
      /plugin "Big" returns an invalid score 101, it should in the range of \[0, 100\]/,
    );
  });

  it('waits at Permit until allowed, or rejects when the wait times out', async () => {
    const clock = new FakeClock();
    const registry = {
      Sort: sort,
      Bind: bind,
      Gate: stub('Gate', { permit: () => ({ status: new Status(Code.Wait), timeoutMs: 5000 }) }),
    };
    const fwk = new Framework(
      profile((p) => p.plugins.multiPoint.enabled.push({ name: 'Gate' })),
      registry,
      deps(clock),
    );
    assert.equal(fwk.runPermitPlugins(new CycleState(), pod, 'n1').code, Code.Wait);
    const waited = fwk.waitOnPermit(pod);
    fwk.waitingPods.get('u1')?.allow('Gate');
    assert.ok((await waited).isSuccess());

    fwk.runPermitPlugins(new CycleState(), pod, 'n1');
    const timedOut = fwk.waitOnPermit(pod);
    clock.step(5000);
    const s = await timedOut;
    assert.equal(s.code, Code.Unschedulable);
    assert.equal(s.message(), 'rejected due to timeout after waiting 5s at plugin Gate');
  });
});
