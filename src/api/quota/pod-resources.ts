/**
 * What a pod asks for and is limited to, as the quota system charges it (upstream's resource helpers PodRequests
 * and PodLimits), and its QoS class:
 *
 * - requests: the sum over regular containers and sidecars (init containers with restartPolicy Always), or, if
 *   larger, what the biggest ordinary init container needs while the sidecars started before it run; plus the
 *   pod's overhead;
 * - limits: the same over limits, with the overhead added only to resources that have a limit.
 *
 * A container whose status reports resources (in-place resize) is charged the larger of spec and status.
 */
import { type Rec, rec, recs } from '../json-readers.js';
import type { QuotaObject } from './object.js';
import { addInto, maxInto, parseResourceList, type ResourceList } from './resource-list.js';

type Which = 'requests' | 'limits';

/** What to count besides the containers' spec (LimitRanger counts the spec alone). */
export interface PodResourcesOptions {
  /** Add spec.overhead (default true). */
  overhead?: boolean;
  /** Raise containers to the resources their status reports (default true). */
  status?: boolean;
}

/** A container's spec requests or limits, raised to what its status reports when that is larger. */
function containerResources(container: Rec, statuses: Map<string, Rec>, which: Which): ResourceList {
  const list = parseResourceList(rec(container.resources)[which]);
  const status = statuses.get(String(container.name ?? ''));
  if (status && status.resources != null) {
    maxInto(list, parseResourceList(rec(status.resources)[which]));
    if (which === 'requests') maxInto(list, parseResourceList(status.allocatedResources));
  }
  return list;
}

function statusesByName(list: unknown): Map<string, Rec> {
  return new Map(recs(list).map((s) => [String(s.name ?? ''), s] as const));
}

function aggregate(pod: QuotaObject, which: Which, useStatus: boolean): ResourceList {
  const spec = rec(pod.spec);
  const status = useStatus ? rec(pod.status) : {};
  const containerStatuses = statusesByName(status.containerStatuses);
  const initStatuses = statusesByName(status.initContainerStatuses);
  const total: ResourceList = new Map();
  for (const c of recs(spec.containers)) addInto(total, containerResources(c, containerStatuses, which));
  const sidecars: ResourceList = new Map();
  const initPeak: ResourceList = new Map();
  for (const c of recs(spec.initContainers)) {
    const own = containerResources(c, initStatuses, which);
    if (c.restartPolicy === 'Always') {
      // A sidecar keeps running beside everything that starts after it.
      addInto(total, own);
      addInto(sidecars, own);
      maxInto(initPeak, sidecars);
    } else {
      const during: ResourceList = new Map(own);
      addInto(during, sidecars);
      maxInto(initPeak, during);
    }
  }
  maxInto(total, initPeak);
  return total;
}

/** The pod's effective requests (PodRequests). */
export function podRequests(pod: QuotaObject, opts: PodResourcesOptions = {}): ResourceList {
  const total = aggregate(pod, 'requests', opts.status !== false);
  if (opts.overhead !== false) addInto(total, parseResourceList(rec(pod.spec).overhead));
  return total;
}

/** The pod's effective limits (PodLimits). */
export function podLimits(pod: QuotaObject, opts: PodResourcesOptions = {}): ResourceList {
  const total = aggregate(pod, 'limits', opts.status !== false);
  if (opts.overhead === false) return total;
  for (const [name, q] of parseResourceList(rec(pod.spec).overhead)) {
    if (total.has(name)) addInto(total, new Map([[name, q]]));
  }
  return total;
}

/** BestEffort when no container requests or limits any cpu or memory (status.qosClass when the server set it). */
export function isBestEffort(pod: QuotaObject): boolean {
  const qos = rec(pod.status).qosClass;
  if (typeof qos === 'string' && qos !== '') return qos === 'BestEffort';
  const spec = rec(pod.spec);
  for (const c of [...recs(spec.containers), ...recs(spec.initContainers)]) {
    const resources = rec(c.resources);
    for (const which of ['requests', 'limits'] as const) {
      for (const [name, q] of parseResourceList(resources[which])) {
        if ((name === 'cpu' || name === 'memory') && q.nanos > 0n) return false;
      }
    }
  }
  return true;
}
