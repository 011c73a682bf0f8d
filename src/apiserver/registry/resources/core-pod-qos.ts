/**
 * A pod's quality-of-service class as upstream computes it when the pod is created (ComputePodQOS): BestEffort
 * without any cpu or memory requests or limits, Guaranteed when every container limits both and all requests equal
 * the limits, Burstable otherwise.
 */

import { addQuantities, compareQuantities, isQuantity, parseQuantity, type Quantity } from '../../../api/quantity.js';
import type { KubeObject } from '../object.js';
import { rec, recs } from './core-json.js';

export type QOSClass = 'Guaranteed' | 'Burstable' | 'BestEffort';

const QOS_RESOURCES = new Set(['cpu', 'memory']);

function positive(list: unknown): Array<[string, Quantity]> {
  const out: Array<[string, Quantity]> = [];
  for (const [name, value] of Object.entries(rec(list))) {
    if (!QOS_RESOURCES.has(name) || !isQuantity(value)) continue;
    const q = parseQuantity(value as string | number);
    if (q.nanos > 0n) out.push([name, q]);
  }
  return out;
}

function accumulate(into: Map<string, Quantity>, name: string, q: Quantity): void {
  const have = into.get(name);
  into.set(name, have ? addQuantities(have, q) : q);
}

export function computePodQOS(pod: KubeObject): QOSClass {
  const spec = rec(pod.spec);
  const requests = new Map<string, Quantity>();
  const limits = new Map<string, Quantity>();
  let guaranteed = true;
  for (const c of [...recs(spec.containers), ...recs(spec.initContainers)]) {
    const resources = rec(c.resources);
    for (const [name, q] of positive(resources.requests)) accumulate(requests, name, q);
    const found = new Set<string>();
    for (const [name, q] of positive(resources.limits)) {
      found.add(name);
      accumulate(limits, name, q);
    }
    if (!found.has('cpu') || !found.has('memory')) guaranteed = false;
  }
  if (requests.size === 0 && limits.size === 0) return 'BestEffort';
  if (guaranteed) {
    for (const [name, req] of requests) {
      const lim = limits.get(name);
      if (!lim || compareQuantities(lim, req) !== 0) {
        guaranteed = false;
        break;
      }
    }
  }
  return guaranteed && requests.size === limits.size ? 'Guaranteed' : 'Burstable';
}
