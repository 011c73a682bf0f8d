/**
 * ImageLocality (Score): favours nodes that already have the pod's images. Each image present on the node counts
 * its size scaled by the share of nodes that have it (so an image on every node does not tip the balance); the sum
 * is clamped between 23MB and 1000MB per container and mapped linearly onto 0..100.
 *
 * Image names are matched as the node reports them (`node.status.images[].names`), with `:latest` added to an
 * untagged pod image as upstream does. NodeInfo.imageStates holds the sizes and node counts.
 */

import type { CycleState, Handle, NodeInfo, PluginFactory, Pod, ScorePlugin } from '../../framework/types.js';
import { MAX_NODE_SCORE, Status } from '../../framework/types.js';

export const name = 'ImageLocality';

const MB = 1024 * 1024;
export const MIN_THRESHOLD = 23 * MB;
export const MAX_CONTAINER_THRESHOLD = 1000 * MB;

/** An image without a tag gets `:latest` (a `:` in the registry host does not count as a tag). */
export function normalizedImageName(image: string): string {
  return image.lastIndexOf(':') <= image.lastIndexOf('/') ? `${image}:latest` : image;
}

function scaledImageScore(state: { size: number; numNodes: number }, totalNumNodes: number): number {
  const spread = totalNumNodes > 0 ? state.numNodes / totalNumNodes : 0;
  return Math.trunc(state.size * spread);
}

/** The pod's images (init containers first), normalized as they are matched. */
function podImages(pod: Pod): string[] {
  const out: string[] = [];
  for (const c of pod.spec?.initContainers ?? []) out.push(normalizedImageName(String(c?.image ?? '')));
  for (const c of pod.spec?.containers ?? []) out.push(normalizedImageName(String(c?.image ?? '')));
  return out;
}

function sumScores(nodeInfo: NodeInfo, images: readonly string[], totalNumNodes: number): number {
  if (nodeInfo.imageStates.size === 0) return 0;
  let sum = 0;
  for (const image of images) {
    const state = nodeInfo.imageStates.get(image);
    if (state) sum += scaledImageScore(state, totalNumNodes);
  }
  return sum;
}

export function sumImageScores(nodeInfo: NodeInfo, pod: Pod, totalNumNodes: number): number {
  return sumScores(nodeInfo, podImages(pod), totalNumNodes);
}

export function calculatePriority(sumScores: number, numContainers: number): number {
  const maxThreshold = MAX_CONTAINER_THRESHOLD * numContainers;
  let s = sumScores;
  if (s < MIN_THRESHOLD) s = MIN_THRESHOLD;
  else if (s > maxThreshold) s = maxThreshold;
  return Math.trunc((MAX_NODE_SCORE * (s - MIN_THRESHOLD)) / (maxThreshold - MIN_THRESHOLD));
}

export class ImageLocality implements ScorePlugin {
  readonly name = name;
  /** The images of the pod scored last, in the same cycle (a cycle scores one pod on many nodes). */
  private lastPod: Pod | undefined;
  private lastState: CycleState | undefined;
  private lastImages: string[] = [];
  /** The result score() hands back, reused (the framework reads it at once). */
  private readonly result = { score: 0, status: Status.success() };

  constructor(private readonly handle: Pick<Handle, 'snapshot'>) {}

  score(state: CycleState, pod: Pod, nodeInfo: NodeInfo): { score: number; status: Status } {
    const totalNumNodes = this.handle.snapshot().nodeInfos().list().length;
    if (pod !== this.lastPod || state !== this.lastState) {
      this.lastImages = podImages(pod);
      this.lastPod = pod;
      this.lastState = state;
    }
    const images = this.lastImages;
    const score = calculatePriority(sumScores(nodeInfo, images, totalNumNodes), images.length);
    this.result.score = score || 0;
    return this.result;
  }
}

export const factory: PluginFactory = (_args, handle) => new ImageLocality(handle);
