/**
 * The kubelet's own check of a pod bound to its node (upstream's predicateAdmitHandler): the OS label, the node
 * name, node affinity and nodeSelector, host ports, untolerated NoExecute taints, and whether the node's allocatable resources still hold the pod
 * beside the pods already admitted — else the pod fails with upstream's reason (`OutOfcpu`, `OutOfmemory`,
 * `OutOfpods`, …) and message. Only the first failure is reported, in upstream's order.
 */
import { LabelSelector, type LabelSet } from '../../api/labels.js';
import { findMatchingUntoleratedTaint } from '../../api/taints.js';
import type { KubeObject } from '../../client/types.js';
import { podRequests, type ResourceAmounts, resourceList } from './resources.js';

export type AdmitResult = { admit: true } | { admit: false; reason: string; message: string };

const OUT_OF: Record<string, string> = {
  cpu: 'OutOfcpu',
  memory: 'OutOfmemory',
  'ephemeral-storage': 'OutOfephemeral-storage',
  pods: 'OutOfpods',
};

const insufficient = (resource: string, requested: bigint, used: bigint, capacity: bigint): AdmitResult => ({
  admit: false,
  reason: OUT_OF[resource] ?? `OutOf${resource}`,
  message: `Node didn't have enough resource: ${resource}, requested: ${requested}, used: ${used}, capacity: ${capacity}`,
});

const predicate = (name: string, desc: string): AdmitResult => ({
  admit: false,
  reason: name,
  message: `Predicate ${name} failed: ${desc}`,
});

/** Whether a resource name is an extended one (not in kubernetes.io's own namespace and not a native name). */
function isExtended(name: string): boolean {
  if (!name.includes('/')) return false;
  return !name.startsWith('kubernetes.io/') && !name.startsWith('requests.');
}

/** Upstream's noderesources Fits in the kubelet's use: the first resource that does not fit, or undefined. */
export function resourceMisfit(
  pod: KubeObject,
  node: KubeObject,
  others: readonly KubeObject[],
): AdmitResult | undefined {
  const allocatable = resourceList(node.status?.allocatable);
  const allowedPods = allocatable.get('pods') ?? 0n;
  if (BigInt(others.length) + 1n > allowedPods) return insufficient('pods', 1n, BigInt(others.length), allowedPods);
  const request = podRequests(pod);
  const used: ResourceAmounts = new Map();
  for (const other of others) {
    for (const [k, v] of podRequests(other)) used.set(k, (used.get(k) ?? 0n) + v);
  }
  const names = ['cpu', 'memory', 'ephemeral-storage'];
  for (const name of [...request.keys()].sort()) {
    if (!names.includes(name) && name !== 'pods') names.push(name);
  }
  for (const name of names) {
    const want = request.get(name) ?? 0n;
    if (want <= 0n) continue;
    const have = allocatable.get(name);
    // Extended resources the node does not know of are left to cluster-level allocators, as upstream does.
    if (have === undefined && isExtended(name)) continue;
    const cap = have ?? 0n;
    const inUse = used.get(name) ?? 0n;
    if (want > cap - inUse) return insufficient(name, want, inUse, cap);
  }
  return undefined;
}

interface NodeSelectorRequirement {
  key?: string;
  operator?: string;
  values?: string[];
}
interface NodeSelectorTerm {
  matchExpressions?: NodeSelectorRequirement[];
  matchFields?: NodeSelectorRequirement[];
}

const OPERATORS: Record<string, 'in' | 'notin' | 'exists' | '!' | 'gt' | 'lt'> = {
  In: 'in',
  NotIn: 'notin',
  Exists: 'exists',
  DoesNotExist: '!',
  Gt: 'gt',
  Lt: 'lt',
};

function requirementsMatch(reqs: readonly NodeSelectorRequirement[], labels: LabelSet): boolean {
  for (const r of reqs) {
    const op = OPERATORS[r.operator ?? ''];
    if (!op) return false;
    const values = r.values ?? [];
    const key = r.key ?? '';
    const value = labels[key];
    switch (op) {
      case 'in':
        if (value === undefined || !values.includes(value)) return false;
        break;
      case 'notin':
        if (value !== undefined && values.includes(value)) return false;
        break;
      case 'exists':
        if (value === undefined) return false;
        break;
      case '!':
        if (value !== undefined) return false;
        break;
      default: {
        if (value === undefined || values.length !== 1) return false;
        if (!/^-?\d+$/.test(value) || !/^-?\d+$/.test(values[0] ?? '')) return false;
        const have = BigInt(value);
        const want = BigInt(values[0] ?? '0');
        if (op === 'gt' ? !(have > want) : !(have < want)) return false;
      }
    }
  }
  return true;
}

function termMatches(term: NodeSelectorTerm, node: KubeObject): boolean {
  const exprs = term.matchExpressions ?? [];
  const fields = term.matchFields ?? [];
  if (exprs.length === 0 && fields.length === 0) return false;
  if (!requirementsMatch(exprs, node.metadata.labels ?? {})) return false;
  return requirementsMatch(fields, { 'metadata.name': node.metadata.name ?? '' });
}

/** nodeSelector and requiredDuringSchedulingIgnoredDuringExecution node affinity. */
export function nodeAffinityMatches(pod: KubeObject, node: KubeObject): boolean {
  const spec = pod.spec ?? {};
  const labels = node.metadata.labels ?? {};
  if (spec.nodeSelector && !LabelSelector.fromSet(spec.nodeSelector).matches(labels)) return false;
  const required = spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution as
    | { nodeSelectorTerms?: NodeSelectorTerm[] }
    | undefined;
  if (!required) return true;
  return (required.nodeSelectorTerms ?? []).some((t) => termMatches(t, node));
}

interface PortLike {
  hostPort?: number;
  hostIP?: string;
  protocol?: string;
}

function hostPorts(pod: KubeObject): PortLike[] {
  const out: PortLike[] = [];
  for (const list of [pod.spec?.initContainers, pod.spec?.containers]) {
    for (const c of (list ?? []) as { ports?: PortLike[] }[]) {
      for (const p of c.ports ?? []) if (p.hostPort && p.hostPort > 0) out.push(p);
    }
  }
  return out;
}

function portsConflict(a: PortLike, b: PortLike): boolean {
  if (a.hostPort !== b.hostPort || (a.protocol ?? 'TCP') !== (b.protocol ?? 'TCP')) return false;
  const ipA = a.hostIP || '0.0.0.0';
  const ipB = b.hostIP || '0.0.0.0';
  return ipA === ipB || ipA === '0.0.0.0' || ipB === '0.0.0.0';
}

/** Decides whether the kubelet of `node` runs `pod`, given the pods it already runs (`others`). */
export function admitPod(pod: KubeObject, node: KubeObject, others: readonly KubeObject[]): AdmitResult {
  const nodeOs = node.metadata.labels?.['kubernetes.io/os'] ?? 'linux';
  const podOs = pod.metadata.labels?.['kubernetes.io/os'];
  if (podOs !== undefined && podOs !== nodeOs) {
    return {
      admit: false,
      reason: 'PodOSSelectorNodeLabelDoesNotMatch',
      message: "Failed to admit pod as the `kubernetes.io/os` label doesn't match node label",
    };
  }
  const osName = pod.spec?.os?.name;
  if (osName !== undefined && osName !== 'linux') {
    return {
      admit: false,
      reason: 'PodOSNotSupported',
      message: "Failed to admit pod as the OS field doesn't match node OS",
    };
  }
  const misfit = resourceMisfit(pod, node, others);
  if (misfit) return misfit;
  if (!nodeAffinityMatches(pod, node))
    return predicate('NodeAffinity', "node(s) didn't match Pod's node affinity/selector");
  if (pod.spec?.nodeName && pod.spec.nodeName !== node.metadata.name) {
    return predicate('NodeName', "node(s) didn't match the requested node name");
  }
  const wanted = hostPorts(pod);
  if (wanted.length > 0) {
    const taken = others.flatMap(hostPorts);
    if (wanted.some((w) => taken.some((t) => portsConflict(w, t)))) {
      return predicate('NodePorts', "node(s) didn't have free ports for the requested pod ports");
    }
  }
  // Of the taints, the kubelet looks only at NoExecute ones.
  if (findMatchingUntoleratedTaint(node.spec?.taints, pod.spec?.tolerations, (t) => t.effect === 'NoExecute')) {
    return predicate('TaintToleration', 'node(s) had untolerated taint');
  }
  return { admit: true };
}
