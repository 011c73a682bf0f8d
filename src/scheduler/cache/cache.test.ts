import { describe, it } from 'node:test';
import assert from '../../testing/assert.js';
import { FakeClock } from '../../util/clock.js';
import type { Node, Pod } from '../framework/types.js';
import { SchedulerCache } from './cache.js';
import { Snapshot } from './snapshot.js';

function node(name: string, zone?: string, images: { names: string[]; sizeBytes: number }[] = []): Node {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: zone ? { 'topology.kubernetes.io/zone': zone } : {} },
    spec: {},
    status: { allocatable: { cpu: '4', memory: '8Gi', pods: '110' }, images },
  };
}

function pod(name: string, nodeName: string, cpu = '500m', extra: Record<string, unknown> = {}): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', uid: `uid-${name}` },
    spec: { nodeName, containers: [{ name: 'c', image: 'nginx', resources: { requests: { cpu } } }], ...extra },
  };
}

describe('SchedulerCache', () => {
  it('assumes a pod, and the informer add confirms it', () => {
    const cache = new SchedulerCache({ clock: new FakeClock() });
    cache.addNode(node('n1'));
    const p = pod('a', 'n1');
    cache.assumePod(p);
    assert.equal(cache.isAssumedPod(p), true);
    assert.equal(cache.nodeInfo('n1')?.requested.milliCPU, 500);
    assert.throws(() => cache.assumePod(p), /is in the cache, so can't be assumed/);
    cache.finishBinding(p);
    cache.addPod({ ...p, metadata: { ...p.metadata, resourceVersion: '2' } });
    assert.equal(cache.isAssumedPod(p), false);
    assert.equal(cache.nodeInfo('n1')?.requested.milliCPU, 500, 'counted once');
    assert.equal(cache.nodeInfo('n1')?.pods.length, 1);
    assert.throws(() => cache.forgetPod(p), /wasn't assumed so cannot be forgotten/);
    cache.removePod(p);
    assert.equal(cache.nodeInfo('n1')?.requested.milliCPU, 0);
    assert.equal(cache.podCount(), 0);
  });

  it('forgets an assumed pod whose binding failed', () => {
    const cache = new SchedulerCache({ clock: new FakeClock() });
    cache.addNode(node('n1'));
    const p = pod('a', 'n1');
    cache.assumePod(p);
    cache.finishBinding(p);
    cache.forgetPod(p);
    assert.equal(cache.isAssumedPod(p), false);
    assert.equal(cache.nodeInfo('n1')?.pods.length, 0);
    assert.equal(cache.podCount(), 0);
  });

  it('expires an unconfirmed assumed pod after the ttl once its binding finished', () => {
    const clock = new FakeClock(0);
    const cache = new SchedulerCache({ clock, assumedPodTtlMs: 30_000 });
    cache.run();
    cache.addNode(node('n1'));
    const p = pod('a', 'n1');
    cache.assumePod(p);
    clock.step(60_000);
    assert.equal(cache.isAssumedPod(p), true, 'binding not finished: never expires');
    cache.finishBinding(p);
    clock.step(30_000);
    assert.equal(cache.isAssumedPod(p), true);
    clock.step(2_000);
    assert.equal(cache.isAssumedPod(p), false);
    assert.equal(cache.nodeInfo('n1')?.pods.length, 0);
    // The informer's add after expiry puts it back.
    cache.addPod(p);
    assert.equal(cache.nodeInfo('n1')?.pods.length, 1);
    cache.stop();
  });

  it('never expires assumed pods with the default ttl of 0', () => {
    const clock = new FakeClock(0);
    const cache = new SchedulerCache({ clock });
    cache.run();
    cache.addNode(node('n1'));
    const p = pod('a', 'n1');
    cache.assumePod(p);
    cache.finishBinding(p);
    clock.step(3_600_000);
    assert.equal(cache.isAssumedPod(p), true);
  });

  it('keeps a NodeInfo for pods of a deleted node until they go', () => {
    const cache = new SchedulerCache({ clock: new FakeClock() });
    const n = node('n1');
    cache.addNode(n);
    const p = pod('a', 'n1');
    cache.addPod(p);
    cache.removeNode(n);
    assert.equal(cache.nodeCount(), 0);
    assert.equal(cache.nodeInfo('n1')?.pods.length, 1);
    const snapshot = new Snapshot();
    cache.updateSnapshot(snapshot);
    assert.equal(snapshot.numNodes(), 0);
    cache.removePod(p);
    assert.equal(cache.nodeInfo('n1'), undefined);
  });

  it('snapshots copy only changed nodes and interleave zones', () => {
    const cache = new SchedulerCache({ clock: new FakeClock() });
    for (const [name, zone] of [
      ['a1', 'a'],
      ['a2', 'a'],
      ['b1', 'b'],
      ['b2', 'b'],
      ['c1', 'c'],
    ] as const) {
      cache.addNode(node(name, zone));
    }
    const snapshot = new Snapshot();
    cache.updateSnapshot(snapshot);
    assert.deepEqual(
      snapshot.nodeInfoList.map((ni) => ni.node.metadata.name),
      ['a1', 'b1', 'c1', 'a2', 'b2'],
    );
    const a1Before = snapshot.nodeInfoMap.get('a1');
    const b1Copy = { ...snapshot.nodeInfoMap.get('b1') };
    cache.addPod(pod('p', 'a1'));
    cache.updateSnapshot(snapshot);
    assert.equal(snapshot.nodeInfoMap.get('a1'), a1Before, 'same object, updated in place');
    assert.equal(snapshot.nodeInfoMap.get('a1')?.pods.length, 1);
    assert.notEqual(snapshot.nodeInfoMap.get('a1'), cache.nodeInfo('a1'), 'a copy, not the live NodeInfo');
    assert.equal(snapshot.nodeInfoMap.get('b1')?.generation, b1Copy.generation, 'unchanged node not copied');
    // Changing the cache does not change the snapshot until the next update.
    cache.addPod(pod('q', 'a1'));
    assert.equal(snapshot.nodeInfoMap.get('a1')?.pods.length, 1);
    cache.removeNode(node('c1', 'c'));
    cache.updateSnapshot(snapshot);
    assert.equal(snapshot.nodeInfoMap.get('a1')?.pods.length, 2);
    assert.deepEqual(
      snapshot.nodeInfoList.map((ni) => ni.node.metadata.name),
      ['a1', 'b1', 'a2', 'b2'],
    );
  });

  it('keeps the lists of nodes with (anti-)affinity pods', () => {
    const cache = new SchedulerCache({ clock: new FakeClock() });
    cache.addNode(node('n1'));
    cache.addNode(node('n2'));
    const snapshot = new Snapshot();
    cache.updateSnapshot(snapshot);
    assert.equal(snapshot.nodeInfos().havePodsWithAffinityList().length, 0);
    const anti = pod('anti', 'n2', '100m', {
      affinity: {
        podAntiAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: [
            { labelSelector: { matchLabels: { app: 'x' } }, topologyKey: 'kubernetes.io/hostname' },
          ],
        },
      },
    });
    cache.addPod(anti);
    cache.updateSnapshot(snapshot);
    assert.deepEqual(
      snapshot
        .nodeInfos()
        .havePodsWithAffinityList()
        .map((ni) => ni.node.metadata.name),
      ['n2'],
    );
    assert.deepEqual(
      snapshot
        .nodeInfos()
        .havePodsWithRequiredAntiAffinityList()
        .map((ni) => ni.node.metadata.name),
      ['n2'],
    );
    cache.removePod(anti);
    cache.updateSnapshot(snapshot);
    assert.equal(snapshot.nodeInfos().havePodsWithRequiredAntiAffinityList().length, 0);
  });

  it('counts on how many nodes each image is', () => {
    const cache = new SchedulerCache({ clock: new FakeClock() });
    const img = { names: ['nginx:1.27', 'docker.io/library/nginx:1.27'], sizeBytes: 50_000_000 };
    cache.addNode(node('n1', undefined, [img]));
    cache.addNode(node('n2', undefined, [img]));
    cache.addNode(node('n3'));
    const snapshot = new Snapshot();
    cache.updateSnapshot(snapshot);
    assert.deepEqual(snapshot.nodeInfoMap.get('n1')?.imageStates.get('nginx:1.27'), { size: 50_000_000, numNodes: 2 });
    cache.removeNode(node('n2', undefined, [img]));
    assert.equal(cache.imageNumNodes('nginx:1.27'), 1);
    cache.updateSnapshot(snapshot);
    assert.equal(snapshot.nodeInfoMap.get('n1')?.imageStates.get('nginx:1.27')?.numNodes, 1);
  });
});
