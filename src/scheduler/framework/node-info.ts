/**
 * NodeInfo: one node with the pods on it (bound and assumed) and the aggregates plugins read — requested and
 * non-zero requested resources, host ports in use, pods with (anti-)affinity — as upstream's framework.NodeInfo
 * keeps them. Plain functions over the plain NodeInfo shape of types.ts, so the scheduler's cache, snapshots and
 * preemption's what-if copies all use the same code.
 *
 * API kept stable for the scheduler core:
 *   newNodeInfo(node?), setNode(ni, node), removeNode(ni), hasNode(ni), addPod(ni, pod), addPodInfo(ni, podInfo),
 *   removePod(ni, pod): boolean, cloneNodeInfo(ni), newPodInfo(pod), podKey(pod), nodeName(ni),
 *   computePodResourceRequest(pod, { nonZero? }), allocatableOf(node), host port helpers (hostPorts*),
 *   imageStatesOf(node).
 *
 * `imageStates` is filled by setNode with `numNodes: 1` for each image name on the node; the scheduler's cache,
 * which sees every node, should overwrite it with the cluster-wide counts (ImageLocality scales by them).
 */

import {
  addResource,
  allocatableOf,
  cloneResource,
  computePodResourceRequest,
  DEFAULT_MEMORY_REQUEST,
  DEFAULT_MILLI_CPU_REQUEST,
  newResource,
  podRequestAmounts,
} from './resources.js';
import type { HostPortInfo, Node, NodeInfo, Pod, PodInfo, Resource } from './types.js';

export { allocatableOf, computePodResourceRequest, DEFAULT_MEMORY_REQUEST, DEFAULT_MILLI_CPU_REQUEST };

let generationCounter = 0;
/** Upstream's nextGeneration(): a process-wide, ever-increasing number. */
export function nextGeneration(): number {
  generationCounter += 1;
  return generationCounter;
}

/** The node of a NodeInfo built before its node was known (pods bound to a node the cache has not seen yet). */
const NO_NODE: Node = Object.freeze({ apiVersion: 'v1', kind: 'Node', metadata: Object.freeze({}) }) as Node;

export function hasNode(ni: NodeInfo): boolean {
  return ni.node !== NO_NODE;
}

/** The node's name ('' when the NodeInfo has no node). */
export function nodeName(ni: NodeInfo): string {
  return ni.node.metadata?.name ?? '';
}

// --- pods -------------------------------------------------------------------------------------------------

/** The cache key of a pod: its uid (upstream refuses pods without one; we fall back to namespace/name). */
export function podKey(pod: Pod): string {
  return pod.metadata?.uid || `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`;
}

export function newPodInfo(pod: Pod): PodInfo {
  return { pod, cache: new Map() };
}

export function podHasAffinity(pod: Pod): boolean {
  const a = pod.spec?.affinity;
  return a != null && (a.podAffinity != null || a.podAntiAffinity != null);
}

export function podHasRequiredAntiAffinity(pod: Pod): boolean {
  const required = pod.spec?.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  return Array.isArray(required) && required.length > 0;
}

interface PodResources {
  requested: Resource;
  non0CPU: number;
  non0Mem: number;
  /** The host ports the pod's containers ask for. */
  hostPorts: HostPort[];
}

const RESOURCES_KEY = 'framework/podResources';

/** A pod's request and its non-zero cpu/memory, computed once per PodInfo (as upstream's cachedResource). */
export function podResources(pi: PodInfo): PodResources {
  const cached = pi.cache.get(RESOURCES_KEY) as PodResources | undefined;
  if (cached) return cached;
  const requested = computePodResourceRequest(pi.pod);
  const non0 = podRequestAmounts(pi.pod, true);
  const out: PodResources = {
    requested,
    non0CPU: Number(((non0.get('cpu') ?? 0n) + 999_999n) / 1_000_000n),
    non0Mem: Number(((non0.get('memory') ?? 0n) + 999_999_999n) / 1_000_000_000n),
    hostPorts: podHostPorts(pi.pod),
  };
  pi.cache.set(RESOURCES_KEY, out);
  return out;
}

// --- host ports -------------------------------------------------------------------------------------------

export const DEFAULT_BIND_ALL_HOST_IP = '0.0.0.0';

/** One host port a pod asks for. */
export interface HostPort {
  hostIP: string;
  protocol: string;
  hostPort: number;
}

/** The host ports a pod's containers declare (hostPort > 0), with upstream's defaults (0.0.0.0, TCP). */
export function podHostPorts(pod: Pod): HostPort[] {
  const out: HostPort[] = [];
  for (const c of pod.spec?.containers ?? []) {
    for (const p of c?.ports ?? []) {
      const hostPort = Number(p?.hostPort ?? 0);
      if (!(hostPort > 0)) continue;
      out.push({ hostIP: p.hostIP || DEFAULT_BIND_ALL_HOST_IP, protocol: p.protocol || 'TCP', hostPort });
    }
  }
  return out;
}

const portKey = (protocol: string, port: number) => `${protocol || 'TCP'}/${port}`;

export function hostPortsAdd(h: HostPortInfo, ip: string, protocol: string, port: number): void {
  if (port <= 0) return;
  const addr = ip || DEFAULT_BIND_ALL_HOST_IP;
  let set = h.get(addr);
  if (!set) {
    set = new Set();
    h.set(addr, set);
  }
  set.add(portKey(protocol, port));
}

export function hostPortsRemove(h: HostPortInfo, ip: string, protocol: string, port: number): void {
  if (port <= 0) return;
  const addr = ip || DEFAULT_BIND_ALL_HOST_IP;
  const set = h.get(addr);
  if (!set) return;
  set.delete(portKey(protocol, port));
  if (set.size === 0) h.delete(addr);
}

/** Number of (ip, protocol, port) entries. */
export function hostPortsLen(h: HostPortInfo): number {
  let n = 0;
  for (const set of h.values()) n += set.size;
  return n;
}

/**
 * Whether (ip, protocol, port) collides with a port in use: 0.0.0.0 collides with the same protocol/port on any
 * address; a specific address collides with itself and with 0.0.0.0.
 */
export function hostPortsConflict(h: HostPortInfo, ip: string, protocol: string, port: number): boolean {
  if (port <= 0) return false;
  const addr = ip || DEFAULT_BIND_ALL_HOST_IP;
  const key = portKey(protocol, port);
  if (addr === DEFAULT_BIND_ALL_HOST_IP) {
    for (const set of h.values()) if (set.has(key)) return true;
    return false;
  }
  return (h.get(DEFAULT_BIND_ALL_HOST_IP)?.has(key) ?? false) || (h.get(addr)?.has(key) ?? false);
}

function cloneHostPorts(h: HostPortInfo): HostPortInfo {
  const out: HostPortInfo = new Map();
  for (const [ip, set] of h) out.set(ip, new Set(set));
  return out;
}

// --- images -----------------------------------------------------------------------------------------------

/** Image name → size for every name of every image in node.status.images. */
export function imageStatesOf(node: Node | undefined): Map<string, { size: number; numNodes: number }> {
  const out = new Map<string, { size: number; numNodes: number }>();
  for (const image of node?.status?.images ?? []) {
    const size = Number(image?.sizeBytes ?? 0);
    for (const name of image?.names ?? []) out.set(name, { size, numNodes: 1 });
  }
  return out;
}

// --- NodeInfo ---------------------------------------------------------------------------------------------

export function newNodeInfo(node?: Node, ...pods: Pod[]): NodeInfo {
  const ni: NodeInfo = {
    node: NO_NODE,
    pods: [],
    podsWithAffinity: [],
    podsWithRequiredAntiAffinity: [],
    usedPorts: new Map(),
    requested: newResource(),
    nonZeroRequested: newResource(),
    allocatable: newResource(),
    imageStates: new Map(),
    generation: nextGeneration(),
  };
  if (node) setNode(ni, node);
  for (const pod of pods) addPod(ni, pod);
  return ni;
}

export function setNode(ni: NodeInfo, node: Node): void {
  ni.node = node;
  ni.allocatable = allocatableOf(node);
  ni.imageStates = imageStatesOf(node);
  ni.generation = nextGeneration();
}

/** Forgets the node but keeps its pods (upstream's RemoveNode, for pods still bound to a deleted node). */
export function removeNode(ni: NodeInfo): void {
  ni.node = NO_NODE;
  ni.allocatable = newResource();
  ni.imageStates = new Map();
  ni.generation = nextGeneration();
}

function update(ni: NodeInfo, pi: PodInfo, sign: 1 | -1): void {
  const res = podResources(pi);
  addResource(ni.requested, res.requested, sign);
  ni.nonZeroRequested.milliCPU += sign * res.non0CPU;
  ni.nonZeroRequested.memory += sign * res.non0Mem;
  for (const p of res.hostPorts) {
    if (sign > 0) hostPortsAdd(ni.usedPorts, p.hostIP, p.protocol, p.hostPort);
    else hostPortsRemove(ni.usedPorts, p.hostIP, p.protocol, p.hostPort);
  }
  ni.generation = nextGeneration();
}

export function addPodInfo(ni: NodeInfo, pi: PodInfo): void {
  ni.pods.push(pi);
  if (podHasAffinity(pi.pod)) ni.podsWithAffinity.push(pi);
  if (podHasRequiredAntiAffinity(pi.pod)) ni.podsWithRequiredAntiAffinity.push(pi);
  update(ni, pi, 1);
}

export function addPod(ni: NodeInfo, pod: Pod): PodInfo {
  const pi = newPodInfo(pod);
  addPodInfo(ni, pi);
  return pi;
}

function removeFrom(list: PodInfo[], key: string): PodInfo | undefined {
  const i = list.findIndex((p) => podKey(p.pod) === key);
  if (i < 0) return undefined;
  const [removed] = list.splice(i, 1);
  return removed;
}

/**
 * Removes the pod with the same key (uid) and subtracts what it added — computed from the stored PodInfo, so an
 * updated pod object removes exactly what its old version added. False when the pod is not on this node.
 */
export function removePod(ni: NodeInfo, pod: Pod): boolean {
  const key = podKey(pod);
  const removed = removeFrom(ni.pods, key);
  if (!removed) return false;
  removeFrom(ni.podsWithAffinity, key);
  removeFrom(ni.podsWithRequiredAntiAffinity, key);
  update(ni, removed, -1);
  return true;
}

/**
 * A copy that can be changed without touching the original (pod infos are shared, as upstream's Snapshot does).
 * `allocatable` and `imageStates` are shared too: nothing changes them in place (setNode and the cache replace them).
 */
export function cloneNodeInfo(ni: NodeInfo): NodeInfo {
  return {
    node: ni.node,
    pods: [...ni.pods],
    podsWithAffinity: [...ni.podsWithAffinity],
    podsWithRequiredAntiAffinity: [...ni.podsWithRequiredAntiAffinity],
    usedPorts: cloneHostPorts(ni.usedPorts),
    requested: cloneResource(ni.requested),
    nonZeroRequested: cloneResource(ni.nonZeroRequested),
    allocatable: ni.allocatable,
    imageStates: ni.imageStates,
    generation: ni.generation,
  };
}

/**
 * A copy of the NodeInfo holding only the pods `keep` accepts (in their order), as cloneNodeInfo followed by
 * removePod of every other pod would leave it, built without the removals.
 */
export function cloneNodeInfoKeeping(ni: NodeInfo, keep: (pi: PodInfo) => boolean): NodeInfo {
  const out: NodeInfo = {
    node: ni.node,
    pods: [],
    podsWithAffinity: [],
    podsWithRequiredAntiAffinity: [],
    usedPorts: new Map(),
    requested: newResource(),
    nonZeroRequested: newResource(),
    allocatable: ni.allocatable,
    imageStates: ni.imageStates,
    generation: nextGeneration(),
  };
  for (const pi of ni.pods) if (keep(pi)) addPodInfo(out, pi);
  return out;
}

function copyList<T>(dst: T[], src: readonly T[]): void {
  dst.length = src.length;
  for (let i = 0; i < src.length; i++) dst[i] = src[i] as T;
}

function copyResourceInto(dst: Resource, src: Resource): void {
  dst.milliCPU = src.milliCPU;
  dst.memory = src.memory;
  dst.ephemeralStorage = src.ephemeralStorage;
  dst.allowedPodNumber = src.allowedPodNumber;
  if (src.scalarResources.size > 0 || dst.scalarResources.size > 0) dst.scalarResources = new Map(src.scalarResources);
}

/**
 * Makes `dst` a copy of `src` as cloneNodeInfo would, reusing dst's own lists and resource objects (the snapshot's
 * refresh of a changed node, which then allocates next to nothing and keeps the node's data where it was).
 */
export function copyNodeInfoInto(dst: NodeInfo, src: NodeInfo): void {
  dst.node = src.node;
  copyList(dst.pods, src.pods);
  copyList(dst.podsWithAffinity, src.podsWithAffinity);
  copyList(dst.podsWithRequiredAntiAffinity, src.podsWithRequiredAntiAffinity);
  if (src.usedPorts.size > 0 || dst.usedPorts.size > 0) dst.usedPorts = cloneHostPorts(src.usedPorts);
  copyResourceInto(dst.requested, src.requested);
  copyResourceInto(dst.nonZeroRequested, src.nonZeroRequested);
  dst.allocatable = src.allocatable;
  dst.imageStates = src.imageStates;
  dst.generation = src.generation;
}

export { cloneResource, newResource };
