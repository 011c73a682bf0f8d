/**
 * What a pod asks of a node, as upstream's resource helper adds it up (PodRequests): the sum of the regular
 * containers and of the restartable init containers (sidecars), or the largest init container (with the sidecars
 * started before it) if that is more, plus the pod overhead. CPU is counted in millicores, everything else in whole
 * units (bytes, pods), rounded up as Quantity.MilliValue and Quantity.Value do.
 */
import { parseQuantity } from '../../api/quantity.js';
import type { KubeObject } from '../../client/types.js';

export type ResourceAmounts = Map<string, bigint>;

const NANO = 1_000_000_000n;
const MILLI_PER_NANO = 1_000_000n;

const ceilDiv = (a: bigint, b: bigint): bigint => (a >= 0n ? (a + b - 1n) / b : a / b);

/** The amount of one resource in the units the kubelet compares: millicores for cpu, whole units otherwise. */
export function amountOf(resource: string, value: unknown): bigint {
  if (typeof value !== 'string' && typeof value !== 'number') return 0n;
  let nanos: bigint;
  try {
    nanos = parseQuantity(value).nanos;
  } catch {
    return 0n;
  }
  return resource === 'cpu' ? ceilDiv(nanos, MILLI_PER_NANO) : ceilDiv(nanos, NANO);
}

/** A ResourceList (`{ cpu: '500m', memory: '1Gi' }`) in comparable units. */
export function resourceList(list: unknown): ResourceAmounts {
  const out: ResourceAmounts = new Map();
  if (!list || typeof list !== 'object') return out;
  for (const [name, value] of Object.entries(list as Record<string, unknown>)) out.set(name, amountOf(name, value));
  return out;
}

function add(into: ResourceAmounts, more: ResourceAmounts): void {
  for (const [k, v] of more) into.set(k, (into.get(k) ?? 0n) + v);
}

function max(into: ResourceAmounts, other: ResourceAmounts): void {
  for (const [k, v] of other) if (v > (into.get(k) ?? 0n)) into.set(k, v);
}

interface ContainerLike {
  restartPolicy?: string;
  resources?: { requests?: Record<string, unknown> };
}

const memo = new WeakMap<KubeObject, ResourceAmounts>();

/** The pod's effective requests (upstream's PodRequests, without in-place resize); remembered per pod object. */
export function podRequests(pod: KubeObject): ResourceAmounts {
  let known = memo.get(pod);
  if (!known) {
    known = computePodRequests(pod);
    memo.set(pod, known);
  }
  return known;
}

function computePodRequests(pod: KubeObject): ResourceAmounts {
  const spec = (pod.spec ?? {}) as {
    containers?: ContainerLike[];
    initContainers?: ContainerLike[];
    overhead?: unknown;
  };
  const reqs: ResourceAmounts = new Map();
  for (const c of spec.containers ?? []) add(reqs, resourceList(c.resources?.requests));
  const sidecars: ResourceAmounts = new Map();
  const initMax: ResourceAmounts = new Map();
  for (const c of spec.initContainers ?? []) {
    const own = resourceList(c.resources?.requests);
    if (c.restartPolicy === 'Always') {
      add(reqs, own);
      add(sidecars, own);
      max(initMax, sidecars);
    } else {
      const step: ResourceAmounts = new Map(own);
      add(step, sidecars);
      max(initMax, step);
    }
  }
  max(reqs, initMax);
  if (spec.overhead) add(reqs, resourceList(spec.overhead));
  return reqs;
}
