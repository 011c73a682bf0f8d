/**
 * Whether a node can take an in-place resize (upstream's canResizePod): a pod asking for more cpu or memory than
 * the node has allocatable at all cannot be resized there (Infeasible); one that does not fit beside the node's
 * other pods waits (Deferred) and is tried again later, keeping what it has meanwhile.
 */
import type { KubeObject } from '../../client/types.js';
import { resourceMisfit } from './admission.js';
import { amountOf, resourceList } from './resources.js';

interface ContainerLike {
  resources?: { requests?: Record<string, unknown> };
}

/**
 * A pod's request of one resource as upstream's v1 resource helper counts it (GetResourceRequest): the sum over
 * its containers, or an init container's if larger (sidecars not set apart), plus the overhead when not zero;
 * millicores for cpu, bytes for memory.
 */
function podRequest(pod: KubeObject, name: string): bigint {
  const spec = pod.spec ?? {};
  let total = 0n;
  for (const c of (spec.containers ?? []) as ContainerLike[]) total += amountOf(name, c.resources?.requests?.[name]);
  for (const c of (spec.initContainers ?? []) as ContainerLike[]) {
    const own = amountOf(name, c.resources?.requests?.[name]);
    if (own > total) total = own;
  }
  if (total > 0n && spec.overhead) total += amountOf(name, spec.overhead[name]);
  return total;
}

export type ResizeHold = { reason: 'Infeasible' | 'Deferred'; message: string };

/** Why the node cannot resize the pod to what its spec asks now, or undefined when it can. */
export function resizeHold(pod: KubeObject, node: KubeObject, others: readonly KubeObject[]): ResizeHold | undefined {
  const allocatable = resourceList(node.status?.allocatable);
  const cpuAvailable = allocatable.get('cpu') ?? 0n;
  const memAvailable = allocatable.get('memory') ?? 0n;
  const cpu = podRequest(pod, 'cpu');
  const memory = podRequest(pod, 'memory');
  if (cpu > cpuAvailable || memory > memAvailable) {
    const what =
      memory > memAvailable
        ? `memory, requested: ${memory}, capacity: ${memAvailable}`
        : `cpu, requested: ${cpu}, capacity: ${cpuAvailable}`;
    return { reason: 'Infeasible', message: `Node didn't have enough capacity: ${what}` };
  }
  const misfit = resourceMisfit(pod, node, others);
  return misfit && !misfit.admit ? { reason: 'Deferred', message: misfit.message } : undefined;
}
