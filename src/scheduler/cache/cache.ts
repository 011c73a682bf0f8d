/**
 * The scheduler's cache (upstream's backend/cache): every node and every bound pod, as informers report them,
 * plus assumed pods — pods the scheduler has placed but whose binding has not been confirmed yet — so the next
 * cycle already counts them. A pod is assumed (assumePod) before binding starts, the binding's end is recorded
 * (finishBinding), and then either the informer's add of the bound pod confirms it (addPod) or a failed binding
 * forgets it (forgetPod). With a ttl, an assumed pod whose binding finished but was never confirmed expires
 * (upstream's default ttl is 0: never).
 *
 * Nodes are kept in a list ordered by last change, so updateSnapshot copies only what changed since the last
 * snapshot; the walk order of the snapshot interleaves zones (upstream's nodeTree).
 */
import type { Clock, TimerHandle } from '../../util/clock.js';
import { type Logger, silentLogger } from '../../util/logger.js';
import {
  addPodInfo,
  addPod as addPodToNodeInfo,
  cloneNodeInfo,
  copyNodeInfoInto,
  hasNode,
  newNodeInfo,
  nextGeneration,
  podKey,
  removeNode,
  removePod as removePodFromNodeInfo,
  setNode,
} from '../framework/node-info.js';
import type { Node, NodeInfo, Pod, PodInfo } from '../framework/types.js';
import type { Snapshot } from './snapshot.js';

/** How often assumed pods are checked for expiry (upstream's cleanAssumedPeriod). */
export const CLEAN_ASSUMED_PERIOD_MS = 1_000;

interface NodeItem {
  info: NodeInfo;
  prev: NodeItem | undefined;
  next: NodeItem | undefined;
}

interface PodState {
  pod: Pod;
  /** When an assumed pod whose binding finished expires (ttl > 0 only). */
  deadline?: number;
  bindingFinished: boolean;
}

interface ImageState {
  /** Shared with every NodeInfo that has the image, so counts stay current. */
  summary: { size: number; numNodes: number };
  nodes: Set<string>;
}

const ZONE_LABEL = 'topology.kubernetes.io/zone';
const REGION_LABEL = 'topology.kubernetes.io/region';
const LEGACY_ZONE_LABEL = 'failure-domain.beta.kubernetes.io/zone';
const LEGACY_REGION_LABEL = 'failure-domain.beta.kubernetes.io/region';

/** upstream's utilnode.GetZoneKey: region and zone, or '' when the node has neither. */
export function zoneKey(node: Node): string {
  const labels = node.metadata?.labels ?? {};
  const region = labels[REGION_LABEL] ?? labels[LEGACY_REGION_LABEL] ?? '';
  const zone = labels[ZONE_LABEL] ?? labels[LEGACY_ZONE_LABEL] ?? '';
  if (!region && !zone) return '';
  return `${region}:\x00:${zone}`;
}

/** Node names grouped by zone; list() takes one from each zone in turn (upstream's nodeTree). */
class NodeTree {
  private readonly zones = new Map<string, string[]>();
  private count = 0;

  add(node: Node): void {
    const name = node.metadata?.name ?? '';
    const zone = zoneKey(node);
    const names = this.zones.get(zone) ?? [];
    if (names.includes(name)) return;
    names.push(name);
    this.zones.set(zone, names);
    this.count++;
  }

  remove(node: Node): boolean {
    const name = node.metadata?.name ?? '';
    const zone = zoneKey(node);
    const names = this.zones.get(zone);
    const i = names?.indexOf(name) ?? -1;
    if (!names || i < 0) return false;
    names.splice(i, 1);
    if (names.length === 0) this.zones.delete(zone);
    this.count--;
    return true;
  }

  update(oldNode: Node | undefined, newNode: Node): void {
    if (oldNode && zoneKey(oldNode) === zoneKey(newNode) && this.has(newNode)) return;
    if (oldNode) this.remove(oldNode);
    this.add(newNode);
  }

  has(node: Node): boolean {
    return this.zones.get(zoneKey(node))?.includes(node.metadata?.name ?? '') ?? false;
  }

  get numNodes(): number {
    return this.count;
  }

  list(): string[] {
    const out: string[] = [];
    const lists = [...this.zones.values()];
    for (let i = 0; out.length < this.count; i++) {
      for (const names of lists) {
        const name = names[i];
        if (name !== undefined) out.push(name);
      }
    }
    return out;
  }
}

export interface SchedulerCacheOptions {
  clock: Clock;
  logger?: Logger;
  /** How long an assumed pod whose binding finished may stay unconfirmed (0, the default: forever). */
  assumedPodTtlMs?: number;
}

export class SchedulerCache {
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly ttlMs: number;
  private readonly nodes = new Map<string, NodeItem>();
  private head: NodeItem | undefined;
  private readonly tree = new NodeTree();
  private readonly podStates = new Map<string, PodState>();
  private readonly assumed = new Set<string>();
  private readonly images = new Map<string, ImageState>();
  private timer: TimerHandle | undefined;

  constructor(opts: SchedulerCacheOptions) {
    this.clock = opts.clock;
    this.log = opts.logger ?? silentLogger;
    this.ttlMs = opts.assumedPodTtlMs ?? 0;
  }

  /** Starts expiring assumed pods (only when a ttl is set). */
  run(): void {
    if (this.ttlMs > 0 && !this.timer) {
      this.timer = this.clock.every(CLEAN_ASSUMED_PERIOD_MS, () => this.cleanupAssumedPods(this.clock.now()));
    }
  }

  stop(): void {
    this.timer?.cancel();
    this.timer = undefined;
  }

  // --- assumed pods ---------------------------------------------------------------------------------------

  /**
   * Counts the pod (with spec.nodeName set) on its node before its binding is confirmed. `info`, when given, is the
   * PodInfo of this very pod object, with what the cycle already worked out from its spec.
   */
  assumePod(pod: Pod, info?: PodInfo): void {
    const key = podKey(pod);
    if (this.podStates.has(key)) {
      throw new Error(`pod ${key}(${describe(pod)}) is in the cache, so can't be assumed`);
    }
    this.addPodInternal(pod, true, info?.pod === pod ? info : undefined);
  }

  /** The binding call ended; from now on the ttl (if any) runs. */
  finishBinding(pod: Pod): void {
    const key = podKey(pod);
    const state = this.podStates.get(key);
    if (!state || !this.assumed.has(key)) return;
    state.bindingFinished = true;
    if (this.ttlMs > 0) state.deadline = this.clock.now() + this.ttlMs;
  }

  /** Undoes assumePod (the binding failed). */
  forgetPod(pod: Pod): void {
    const key = podKey(pod);
    const state = this.podStates.get(key);
    if (state && state.pod.spec?.nodeName !== pod.spec?.nodeName) {
      throw new Error(
        `pod ${key}(${describe(pod)}) was assumed on ${pod.spec?.nodeName} but assigned to ${state.pod.spec?.nodeName}`,
      );
    }
    if (!state || !this.assumed.has(key)) {
      throw new Error(`pod ${key}(${describe(pod)}) wasn't assumed so cannot be forgotten`);
    }
    this.removePodInternal(state.pod);
  }

  isAssumedPod(pod: Pod): boolean {
    return this.assumed.has(podKey(pod));
  }

  /** The pod as the cache has it (assumed or bound). */
  getPod(pod: Pod): Pod | undefined {
    return this.podStates.get(podKey(pod))?.pod;
  }

  /** Expires assumed pods whose binding finished longer than the ttl ago. */
  cleanupAssumedPods(now: number): void {
    if (this.ttlMs <= 0) return;
    for (const key of [...this.assumed]) {
      const state = this.podStates.get(key);
      if (!state?.bindingFinished || state.deadline === undefined || now <= state.deadline) continue;
      this.log.info('Pod expired', { pod: describe(state.pod), node: state.pod.spec?.nodeName });
      this.removePodInternal(state.pod);
    }
  }

  // --- bound pods (from the informer) ------------------------------------------------------------------------

  /** A bound pod appeared: confirms an assumed pod, or adds it (again, if it had expired). */
  addPod(pod: Pod): void {
    const key = podKey(pod);
    const state = this.podStates.get(key);
    if (state && this.assumed.has(key)) {
      this.updatePodInternal(state.pod, pod);
      if (state.pod.spec?.nodeName !== pod.spec?.nodeName) {
        this.log.info('Pod was added to a different node than it was assumed', {
          pod: describe(pod),
          assumedNode: state.pod.spec?.nodeName,
          currentNode: pod.spec?.nodeName,
        });
      }
      return;
    }
    if (!state) {
      this.addPodInternal(pod, false);
      return;
    }
    throw new Error(`pod ${key}(${describe(pod)}) was already in added state`);
  }

  updatePod(oldPod: Pod, newPod: Pod): void {
    const key = podKey(oldPod);
    const state = this.podStates.get(key);
    if (!state)
      throw new Error(`pod ${key}(${describe(oldPod)}) is not added to scheduler cache, so cannot be updated`);
    if (this.assumed.has(key)) {
      throw new Error(`assumed pod ${key}(${describe(oldPod)}) should not be updated`);
    }
    this.updatePodInternal(state.pod, newPod);
  }

  removePod(pod: Pod): void {
    const key = podKey(pod);
    const state = this.podStates.get(key);
    if (!state)
      throw new Error(`pod ${key}(${describe(pod)}) is not found in scheduler cache, so cannot be removed from it`);
    if (state.pod.spec?.nodeName !== pod.spec?.nodeName) {
      this.log.error('Pod was added to a different node than it was assumed', {
        pod: describe(pod),
        assumedNode: pod.spec?.nodeName,
        currentNode: state.pod.spec?.nodeName,
      });
    }
    this.removePodInternal(state.pod);
  }

  // --- nodes -------------------------------------------------------------------------------------------------

  addNode(node: Node): NodeInfo {
    const name = node.metadata?.name ?? '';
    let item = this.nodes.get(name);
    if (item) {
      if (hasNode(item.info)) this.removeImageStates(item.info.node);
    } else {
      item = { info: newNodeInfo(), prev: undefined, next: undefined };
      this.nodes.set(name, item);
    }
    this.moveToHead(item);
    this.tree.add(node);
    setNode(item.info, node);
    this.addImageStates(node, item.info);
    return item.info;
  }

  updateNode(oldNode: Node, newNode: Node): NodeInfo {
    const name = newNode.metadata?.name ?? '';
    let item = this.nodes.get(name);
    if (!item) {
      item = { info: newNodeInfo(), prev: undefined, next: undefined };
      this.nodes.set(name, item);
      this.tree.add(newNode);
    } else {
      if (hasNode(item.info)) this.removeImageStates(item.info.node);
      this.tree.update(hasNode(item.info) ? item.info.node : oldNode, newNode);
    }
    this.moveToHead(item);
    setNode(item.info, newNode);
    this.addImageStates(newNode, item.info);
    return item.info;
  }

  /** Forgets the node; its NodeInfo stays while pods are still bound to it (they go with their own deletes). */
  removeNode(node: Node): void {
    const name = node.metadata?.name ?? '';
    const item = this.nodes.get(name);
    if (!item) throw new Error(`node ${name} is not found`);
    if (hasNode(item.info)) this.removeImageStates(item.info.node);
    removeNode(item.info);
    if (item.info.pods.length === 0) {
      this.unlink(item);
      this.nodes.delete(name);
    } else {
      this.moveToHead(item);
    }
    this.tree.remove(node);
  }

  // --- snapshots ----------------------------------------------------------------------------------------------

  /**
   * Brings `snapshot` up to date: copies the NodeInfos that changed since its generation, drops deleted nodes,
   * and rebuilds the lists when membership or affinity changed.
   */
  updateSnapshot(snapshot: Snapshot): void {
    const since = snapshot.generation;
    let updateAll = false;
    let updateAffinity = false;
    for (let item = this.head; item; item = item.next) {
      if (item.info.generation <= since) break;
      if (!hasNode(item.info)) continue;
      const name = item.info.node.metadata?.name ?? '';
      const existing = snapshot.nodeInfoMap.get(name);
      if (!existing) {
        updateAll = true;
        snapshot.nodeInfoMap.set(name, cloneNodeInfo(item.info));
        continue;
      }
      if (
        existing.podsWithAffinity.length > 0 !== item.info.podsWithAffinity.length > 0 ||
        existing.podsWithRequiredAntiAffinity.length > 0 !== item.info.podsWithRequiredAntiAffinity.length > 0
      ) {
        updateAffinity = true;
      }
      copyNodeInfoInto(existing, item.info);
      snapshot.recordChange(existing);
    }
    if (this.head) snapshot.generation = this.head.info.generation;
    if (snapshot.nodeInfoMap.size > this.tree.numNodes) {
      for (const name of [...snapshot.nodeInfoMap.keys()]) {
        const item = this.nodes.get(name);
        if (!item || !hasNode(item.info)) snapshot.nodeInfoMap.delete(name);
      }
      updateAll = true;
    }
    if (updateAll || snapshot.nodeInfoList.length !== this.tree.numNodes) {
      snapshot.nodeInfoList = [];
      for (const name of this.tree.list()) {
        const ni = snapshot.nodeInfoMap.get(name);
        if (ni) snapshot.nodeInfoList.push(ni);
        else this.log.error('Node exists in nodeTree but not in NodeInfoMap', { node: name });
      }
      snapshot.refreshAffinityLists();
    } else if (updateAffinity) {
      snapshot.refreshAffinityLists();
    }
  }

  // --- inspection --------------------------------------------------------------------------------------------

  nodeCount(): number {
    return this.tree.numNodes;
  }

  podCount(): number {
    return this.podStates.size;
  }

  assumedPodCount(): number {
    return this.assumed.size;
  }

  /** The live NodeInfo of a node (tests and debugging; do not change it). */
  nodeInfo(name: string): NodeInfo | undefined {
    return this.nodes.get(name)?.info;
  }

  /** How many nodes have the image (0 when none). */
  imageNumNodes(image: string): number {
    return this.images.get(image)?.nodes.size ?? 0;
  }

  // --- internals ----------------------------------------------------------------------------------------------

  private addPodInternal(pod: Pod, assumed: boolean, info?: PodInfo): void {
    const nodeName: string = pod.spec?.nodeName ?? '';
    let item = this.nodes.get(nodeName);
    if (!item) {
      item = { info: newNodeInfo(), prev: undefined, next: undefined };
      this.nodes.set(nodeName, item);
    }
    if (info) addPodInfo(item.info, info);
    else addPodToNodeInfo(item.info, pod);
    this.moveToHead(item);
    const key = podKey(pod);
    this.podStates.set(key, { pod, bindingFinished: false });
    if (assumed) this.assumed.add(key);
  }

  private removePodInternal(pod: Pod): void {
    const key = podKey(pod);
    const item = this.nodes.get(pod.spec?.nodeName ?? '');
    if (item) {
      if (!removePodFromNodeInfo(item.info, pod)) {
        this.log.error('Pod not found on its node in the cache', { pod: describe(pod), node: pod.spec?.nodeName });
      }
      if (item.info.pods.length === 0 && !hasNode(item.info)) {
        this.unlink(item);
        this.nodes.delete(pod.spec?.nodeName ?? '');
      } else {
        this.moveToHead(item);
      }
    }
    this.podStates.delete(key);
    this.assumed.delete(key);
  }

  private updatePodInternal(oldPod: Pod, newPod: Pod): void {
    this.removePodInternal(oldPod);
    this.addPodInternal(newPod, false);
  }

  private addImageStates(node: Node, ni: NodeInfo): void {
    const name = node.metadata?.name ?? '';
    const states = new Map<string, { size: number; numNodes: number }>();
    for (const image of node.status?.images ?? []) {
      const size = Number(image?.sizeBytes ?? 0);
      for (const imageName of image?.names ?? []) {
        let state = this.images.get(imageName);
        if (!state) {
          state = { summary: { size, numNodes: 0 }, nodes: new Set() };
          this.images.set(imageName, state);
        }
        state.nodes.add(name);
        state.summary.numNodes = state.nodes.size;
        states.set(imageName, state.summary);
      }
    }
    ni.imageStates = states;
  }

  private removeImageStates(node: Node): void {
    const name = node.metadata?.name ?? '';
    for (const image of node.status?.images ?? []) {
      for (const imageName of image?.names ?? []) {
        const state = this.images.get(imageName);
        if (!state) continue;
        state.nodes.delete(name);
        state.summary.numNodes = state.nodes.size;
        if (state.nodes.size === 0) this.images.delete(imageName);
      }
    }
  }

  /** Puts the item first; its NodeInfo's generation is the newest (node-info bumps it on every change). */
  private moveToHead(item: NodeItem): void {
    if (item.info.generation <= (this.head?.info.generation ?? 0)) item.info.generation = nextGeneration();
    if (this.head === item) return;
    this.unlink(item);
    item.next = this.head;
    if (this.head) this.head.prev = item;
    this.head = item;
  }

  private unlink(item: NodeItem): void {
    if (item.prev) item.prev.next = item.next;
    if (item.next) item.next.prev = item.prev;
    if (this.head === item) this.head = item.next;
    item.prev = undefined;
    item.next = undefined;
  }
}

function describe(pod: Pod): string {
  return `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`;
}
