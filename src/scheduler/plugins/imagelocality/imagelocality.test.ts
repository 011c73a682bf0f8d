import { describe, it } from 'node:test';
import assert from '../../../testing/assert.js';
import { newNodeInfo } from '../../framework/node-info.js';
import { CycleState, type NodeInfo, type Pod } from '../../framework/types.js';
import { ImageLocality, normalizedImageName } from './index.js';

const MB = 1024 * 1024;
const node = (name: string, images: [string, number][]) =>
  newNodeInfo({
    metadata: { name },
    status: { images: images.map(([n, size]) => ({ names: [n], sizeBytes: size * MB })) },
  });
const pod = (...images: string[]): Pod =>
  ({ metadata: { name: 'p' }, spec: { containers: images.map((image, i) => ({ name: `c${i}`, image })) } }) as Pod;

/** Each image counted on as many nodes as have it, as the scheduler's cache does. */
function withClusterCounts(nodes: NodeInfo[]): NodeInfo[] {
  const counts = new Map<string, number>();
  for (const n of nodes) for (const name of n.imageStates.keys()) counts.set(name, (counts.get(name) ?? 0) + 1);
  for (const n of nodes) for (const [name, s] of n.imageStates) s.numNodes = counts.get(name) ?? 1;
  return nodes;
}
function scores(p: Pod, nodes: NodeInfo[]): number[] {
  const handle = { snapshot: () => ({ nodeInfos: () => ({ list: () => nodes }) }) } as never;
  const pl = new ImageLocality(handle);
  return nodes.map((n) => pl.score(new CycleState(), p, n).score);
}

describe('ImageLocality (upstream cases)', () => {
  const n403002000 = () =>
    node('node1', [
      ['gcr.io/40:latest', 40],
      ['gcr.io/300:latest', 300],
      ['gcr.io/2000:latest', 2000],
    ]);
  const n25010 = () =>
    node('node2', [
      ['gcr.io/250:latest', 250],
      ['gcr.io/10:latest', 10],
    ]);
  it('two images spread on two nodes, prefer the larger image one', () => {
    // node1: 40MB × 1/2 < 23MB → 0; node2: 250MB × 1/2 = 125MB → 100 × (125 − 23) / (2000 − 23) = 5
    assert.deepEqual(scores(pod('gcr.io/40', 'gcr.io/250'), withClusterCounts([n403002000(), n25010()])), [0, 5]);
  });
  it('two images on one node, prefer this node', () => {
    // node1: (40 + 300) / 2 = 170MB → 7
    assert.deepEqual(scores(pod('gcr.io/40', 'gcr.io/300'), withClusterCounts([n403002000(), n25010()])), [7, 0]);
  });
  it('clamps to the per-container maximum', () => {
    // node1: 2000 / 2 = 1000MB → 100 × (1000 − 23) / (2000 − 23) = 49
    assert.deepEqual(scores(pod('gcr.io/600', 'gcr.io/2000'), withClusterCounts([n403002000(), n25010()])), [49, 0]);
  });
  it('an image present everywhere counts fully', () => {
    const nodes = withClusterCounts([
      node('a', [['gcr.io/big:latest', 3000]]),
      node('b', [['gcr.io/big:latest', 3000]]),
    ]);
    assert.deepEqual(scores(pod('gcr.io/big'), nodes), [100, 100]);
  });
  it('normalises image names', () => {
    assert.equal(normalizedImageName('nginx'), 'nginx:latest');
    assert.equal(normalizedImageName('nginx:1.25'), 'nginx:1.25');
    assert.equal(normalizedImageName('localhost:5000/app'), 'localhost:5000/app:latest');
    assert.equal(normalizedImageName('localhost:5000/app:v1'), 'localhost:5000/app:v1');
  });
});
