import { describe, it } from 'node:test';
import assert from '../../../testing/assert.js';
import { realClock } from '../../../util/clock.js';
import { SchedulerCache } from '../../cache/cache.js';
import { Snapshot } from '../../cache/snapshot.js';
import type { Pod } from '../../framework/types.js';
import { makeNode, makePod } from '../defaultpreemption/testing.js';
import { filterTopologySpreadConstraints } from './common.js';
import { calPreFilterState } from './filtering.js';

const ZONE = 'topology.kubernetes.io/zone';

/** The counts per constraint as [value, count] lists, in the maps' order, and the critical paths' minimums. */
function summary(s: ReturnType<typeof calPreFilterState>) {
  return {
    counts: s.tpValueToMatchNum.map((m) => [...m]),
    minimums: s.criticalPaths.map((p) => p.paths[0].num),
  };
}

describe('PodTopologySpread counts kept between cycles', () => {
  it('equal a full recount after pods come and go, labels change and nodes are added', () => {
    const cache = new SchedulerCache({ clock: realClock });
    const snapshot = new Snapshot();
    const zones = ['z1', 'z2', 'z3'];
    for (let i = 0; i < 9; i++) cache.addNode(makeNode(`n${i}`, { labels: { [ZONE]: zones[i % 3] as string } }));
    cache.addNode(makeNode('no-zone'));
    const incoming = makePod('incoming', {
      labels: { app: 'web' },
      topologySpreadConstraints: [
        {
          maxSkew: 1,
          topologyKey: ZONE,
          whenUnsatisfiable: 'DoNotSchedule',
          labelSelector: { matchLabels: { app: 'web' } },
        },
        {
          maxSkew: 2,
          topologyKey: 'kubernetes.io/hostname',
          whenUnsatisfiable: 'DoNotSchedule',
          labelSelector: { matchLabels: { app: 'web' } },
        },
      ],
    });
    const constraints = filterTopologySpreadConstraints(
      incoming.spec.topologySpreadConstraints,
      incoming.metadata?.labels ?? {},
      'DoNotSchedule',
    );
    const check = (label: string) => {
      cache.updateSnapshot(snapshot);
      const nodes = snapshot.nodeInfoList;
      const kept = calPreFilterState(incoming, constraints, nodes, snapshot);
      const full = calPreFilterState(incoming, constraints, nodes);
      assert.deepEqual(summary(kept), summary(full), label);
    };

    check('first cycle');
    const bound: Pod[] = [];
    for (let i = 0; i < 20; i++) {
      const pod = makePod(`web-${i}`, { labels: { app: i % 4 === 0 ? 'db' : 'web' }, nodeName: `n${(i * 7) % 9}` });
      cache.addPod(pod);
      bound.push(pod);
      check(`after adding pod ${i}`);
    }
    for (const pod of bound.splice(0, 5)) {
      cache.removePod(pod);
      check(`after removing ${pod.metadata?.name}`);
    }
    const other = makePod('other-ns', { namespace: 'other', labels: { app: 'web' }, nodeName: 'n1' });
    cache.addPod(other);
    check('after a pod in another namespace');

    // A node moves to another zone: the domains change, so the totals are walked again.
    const moved = makeNode('n4', { labels: { [ZONE]: 'z9' } });
    cache.updateNode(makeNode('n4', { labels: { [ZONE]: 'z2' } }), moved);
    check('after a zone change');
    const terminating = { ...(bound[0] as Pod) };
    terminating.metadata = { ...terminating.metadata, deletionTimestamp: '2026-12-02T00:00:00Z' };
    cache.updatePod(bound[0] as Pod, terminating);
    check('after a pod starts terminating');

    cache.addNode(makeNode('n9', { labels: { [ZONE]: 'z1' } }));
    cache.addPod(makePod('web-new', { labels: { app: 'web' }, nodeName: 'n9' }));
    check('after a node is added');
    cache.removeNode(makeNode('n0', { labels: { [ZONE]: 'z1' } }));
    check('after a node is removed');
    for (let i = 0; i < 30; i++) {
      cache.addPod(makePod(`late-${i}`, { labels: { app: 'web' }, nodeName: `n${1 + (i % 9)}` }));
      if (i % 3 === 0) check(`after late pod ${i}`);
    }
    check('at the end');
  });

  it('are not kept for a pod whose node affinity decides which nodes count', () => {
    const cache = new SchedulerCache({ clock: realClock });
    const snapshot = new Snapshot();
    for (let i = 0; i < 4; i++) cache.addNode(makeNode(`n${i}`, { labels: { [ZONE]: `z${i % 2}`, tier: `t${i}` } }));
    for (let i = 0; i < 4; i++) cache.addPod(makePod(`web-${i}`, { labels: { app: 'web' }, nodeName: `n${i}` }));
    cache.updateSnapshot(snapshot);
    const incoming = makePod('incoming', {
      labels: { app: 'web' },
      nodeSelector: { tier: 't1' },
      topologySpreadConstraints: [
        {
          maxSkew: 1,
          topologyKey: ZONE,
          whenUnsatisfiable: 'DoNotSchedule',
          labelSelector: { matchLabels: { app: 'web' } },
        },
      ],
    });
    const constraints = filterTopologySpreadConstraints(
      incoming.spec.topologySpreadConstraints,
      incoming.metadata?.labels ?? {},
      'DoNotSchedule',
    );
    const s = calPreFilterState(incoming, constraints, snapshot.nodeInfoList, snapshot);
    // Only n1 (tier t1, zone z1) counts under nodeAffinityPolicy Honor.
    assert.deepEqual([...(s.tpValueToMatchNum[0] ?? [])], [['z1', 1]]);
  });
});
