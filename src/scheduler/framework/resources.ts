/**
 * Resource arithmetic of the scheduler: upstream's framework.Resource (milliCPU, bytes, counts) built from resource
 * lists, and a pod's effective request as component-helpers' PodRequests computes it — the sum of the regular
 * containers and the restartable init containers (sidecars), raised to the largest single init container's need
 * (counting the sidecars started before it), plus `spec.overhead`. The "non-zero" variant gives a container that
 * asks nothing for cpu or memory upstream's defaults (100m, 200Mi), which scoring uses so empty pods still spread.
 */

import { parseQuantity } from '../../api/quantity.js';
import type { Pod, Resource } from './types.js';

/** A resource list as it appears in an object: `{ cpu: '500m', memory: '1Gi', pods: '110' }`. */
export type ResourceList = Record<string, string | number>;

/** Upstream's schedutil.DefaultMilliCPURequest and DefaultMemoryRequest. */
export const DEFAULT_MILLI_CPU_REQUEST = 100;
export const DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024;

const NANO = 1_000_000_000n;
const NANOS_PER_MILLI = 1_000_000n;

export function newResource(): Resource {
  return { milliCPU: 0, memory: 0, ephemeralStorage: 0, allowedPodNumber: 0, scalarResources: new Map() };
}

export function cloneResource(r: Resource): Resource {
  return { ...r, scalarResources: new Map(r.scalarResources) };
}

/** r += sign × other, in place. */
export function addResource(r: Resource, other: Resource, sign = 1): void {
  r.milliCPU += sign * other.milliCPU;
  r.memory += sign * other.memory;
  r.ephemeralStorage += sign * other.ephemeralStorage;
  r.allowedPodNumber += sign * other.allowedPodNumber;
  if (other.scalarResources.size === 0) return;
  for (const [name, v] of other.scalarResources) {
    r.scalarResources.set(name, (r.scalarResources.get(name) ?? 0) + sign * v);
  }
}

/** A quantity's nanos divided by `unit`, rounded up as Quantity.Value()/MilliValue() do. */
function ceilDiv(nanos: bigint, unit: bigint): number {
  const q = nanos / unit;
  return Number(nanos % unit > 0n ? q + 1n : q);
}

function nanosOf(q: string | number | undefined): bigint {
  if (q === undefined) return 0n;
  try {
    return parseQuantity(q).nanos;
  } catch {
    return 0n;
  }
}

/** Quantity.MilliValue(). */
export function milliValue(q: string | number | undefined): number {
  return ceilDiv(nanosOf(q), NANOS_PER_MILLI);
}

/** Quantity.Value(). */
export function intValue(q: string | number | undefined): number {
  return ceilDiv(nanosOf(q), NANO);
}

const DEFAULT_NAMESPACE_PREFIX = 'kubernetes.io/';
const REQUESTS_PREFIX = 'requests.';
const QUALIFIED_NAME =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;

function isQualifiedName(s: string): boolean {
  const slash = s.indexOf('/');
  const name = slash < 0 ? s : s.slice(slash + 1);
  const prefix = slash < 0 ? '' : s.slice(0, slash);
  if (name.length === 0 || name.length > 63) return false;
  if (slash >= 0 && (prefix.length === 0 || prefix.length > 253)) return false;
  return QUALIFIED_NAME.test(s);
}

/** v1helper.IsPrefixedNativeResource: names in the kubernetes.io/ namespace. */
export function isPrefixedNativeResource(name: string): boolean {
  return name.includes(DEFAULT_NAMESPACE_PREFIX);
}

/** v1helper.IsNativeResource: unprefixed names and kubernetes.io/ ones. */
export function isNativeResource(name: string): boolean {
  return !name.includes('/') || isPrefixedNativeResource(name);
}

/** v1helper.IsExtendedResourceName: a vendor-prefixed name (`example.com/gpu`) valid as a quota name. */
export function isExtendedResourceName(name: string): boolean {
  if (isNativeResource(name) || name.startsWith(REQUESTS_PREFIX)) return false;
  return isQualifiedName(`${REQUESTS_PREFIX}${name}`);
}

export function isHugePageResourceName(name: string): boolean {
  return name.startsWith('hugepages-');
}

export function isAttachableVolumeResourceName(name: string): boolean {
  return name.startsWith('attachable-volumes-');
}

/** schedutil.IsScalarResourceName: the resources tracked in Resource.scalarResources. */
export function isScalarResourceName(name: string): boolean {
  return (
    isExtendedResourceName(name) ||
    isHugePageResourceName(name) ||
    isPrefixedNativeResource(name) ||
    isAttachableVolumeResourceName(name)
  );
}

/** Adds one named amount (in nanos) to a Resource, as Resource.Add does for each entry of a list. */
function addNanos(r: Resource, name: string, nanos: bigint): void {
  switch (name) {
    case 'cpu':
      r.milliCPU += ceilDiv(nanos, NANOS_PER_MILLI);
      return;
    case 'memory':
      r.memory += ceilDiv(nanos, NANO);
      return;
    case 'pods':
      r.allowedPodNumber += ceilDiv(nanos, NANO);
      return;
    case 'ephemeral-storage':
      r.ephemeralStorage += ceilDiv(nanos, NANO);
      return;
    default:
      if (isScalarResourceName(name))
        r.scalarResources.set(name, (r.scalarResources.get(name) ?? 0) + ceilDiv(nanos, NANO));
  }
}

/** Resource.Add(list), in place. */
export function addResourceList(r: Resource, list: ResourceList | null | undefined): void {
  if (!list) return;
  for (const [name, q] of Object.entries(list)) addNanos(r, name, nanosOf(q));
}

/** framework.NewResource(list). */
export function resourceFromList(list: ResourceList | null | undefined): Resource {
  const r = newResource();
  addResourceList(r, list);
  return r;
}

/** A node's allocatable resources (falling back to nothing when status.allocatable is missing, as upstream). */
export function allocatableOf(node: { status?: { allocatable?: ResourceList } } | undefined): Resource {
  return resourceFromList(node?.status?.allocatable);
}

// --- pod requests -------------------------------------------------------------------------------------------

/** Amounts by resource name, in nanos (exact, like resource.Quantity). */
type Amounts = Map<string, bigint>;

function toAmounts(list: ResourceList | null | undefined): Amounts {
  const out: Amounts = new Map();
  for (const [name, q] of Object.entries(list ?? {})) out.set(name, nanosOf(q));
  return out;
}

function addAmounts(into: Amounts, more: Amounts): void {
  for (const [k, v] of more) into.set(k, (into.get(k) ?? 0n) + v);
}

function maxAmounts(into: Amounts, other: Amounts): void {
  for (const [k, v] of other) {
    const cur = into.get(k);
    if (cur === undefined || v > cur) into.set(k, v);
  }
}

const NON_MISSING: Amounts = new Map([
  ['cpu', BigInt(DEFAULT_MILLI_CPU_REQUEST) * NANOS_PER_MILLI],
  ['memory', BigInt(DEFAULT_MEMORY_REQUEST) * NANO],
]);

interface ContainerLike {
  name?: string;
  resources?: { requests?: ResourceList };
  restartPolicy?: string;
}
interface ContainerStatusLike {
  name?: string;
  resources?: { requests?: ResourceList };
  allocatedResources?: ResourceList;
}

function resizeInfeasible(pod: Pod): boolean {
  const cond = (pod.status?.conditions ?? []).find((c: { type?: string }) => c.type === 'PodResizePending');
  return cond?.reason === 'Infeasible';
}

/**
 * A container's requests. With in-place resize (on by default in v1.33) a running container counts the larger of
 * what its spec asks and what its status says is allocated/actuated.
 */
function containerRequests(pod: Pod, c: ContainerLike, statuses: Map<string, ContainerStatusLike>): Amounts {
  const spec = toAmounts(c.resources?.requests);
  const cs = c.name === undefined ? undefined : statuses.get(c.name);
  if (!cs?.resources) return spec;
  const out: Amounts = resizeInfeasible(pod) ? new Map() : spec;
  maxAmounts(out, toAmounts(cs.resources.requests));
  maxAmounts(out, toAmounts(cs.allocatedResources));
  return out;
}

/** component-helpers PodRequests (pod-level resources are alpha in v1.33 and off, so not read). */
export function podRequestAmounts(pod: Pod, nonZero: boolean): Amounts {
  const statuses = new Map<string, ContainerStatusLike>();
  for (const cs of [...(pod.status?.containerStatuses ?? []), ...(pod.status?.initContainerStatuses ?? [])]) {
    if (cs?.name !== undefined) statuses.set(cs.name, cs);
  }
  const withDefaults = (reqs: Amounts): Amounts => {
    if (!nonZero) return reqs;
    const out = new Map(reqs);
    for (const [k, v] of NON_MISSING) if (!out.has(k)) out.set(k, v);
    return out;
  };
  const total: Amounts = new Map();
  for (const c of (pod.spec?.containers ?? []) as ContainerLike[]) {
    addAmounts(total, withDefaults(containerRequests(pod, c, statuses)));
  }
  const sidecars: Amounts = new Map();
  const initPeak: Amounts = new Map();
  for (const c of (pod.spec?.initContainers ?? []) as ContainerLike[]) {
    const reqs = withDefaults(containerRequests(pod, c, statuses));
    if (c.restartPolicy === 'Always') {
      // A sidecar keeps running next to the app containers, and next to every init container after it.
      addAmounts(total, reqs);
      addAmounts(sidecars, reqs);
      maxAmounts(initPeak, sidecars);
    } else {
      const during = new Map(reqs);
      addAmounts(during, sidecars);
      maxAmounts(initPeak, during);
    }
  }
  maxAmounts(total, initPeak);
  if (pod.spec?.overhead) addAmounts(total, toAmounts(pod.spec.overhead));
  return total;
}

/**
 * A pod's effective request as a Resource (upstream's computePodResourceRequest / PodRequests). With `nonZero`,
 * containers missing a cpu or memory request count 100m / 200Mi.
 */
export function computePodResourceRequest(pod: Pod, opts: { nonZero?: boolean } = {}): Resource {
  const r = newResource();
  for (const [name, nanos] of podRequestAmounts(pod, opts.nonZero === true)) addNanos(r, name, nanos);
  return r;
}

/** One resource of a pod's request in scheduler units (milliCPU for cpu, the value otherwise), as scoring reads it. */
export function podRequestOf(pod: Pod, resourceName: string, nonZero: boolean): number {
  return podRequestList(pod, [resourceName], nonZero)[0] ?? 0;
}

/** Several resources of a pod's request in scheduler units, computing the request once. */
export function podRequestList(pod: Pod, resourceNames: readonly string[], nonZero: boolean): number[] {
  const amounts = podRequestAmounts(pod, nonZero);
  return resourceNames.map((name) => {
    const nanos = amounts.get(name) ?? 0n;
    return name === 'cpu' ? ceilDiv(nanos, NANOS_PER_MILLI) : ceilDiv(nanos, NANO);
  });
}

/** The amount of one resource in a Resource (0 when absent), by its API name. */
export function resourceAmount(r: Resource, name: string): number {
  switch (name) {
    case 'cpu':
      return r.milliCPU;
    case 'memory':
      return r.memory;
    case 'ephemeral-storage':
      return r.ephemeralStorage;
    case 'pods':
      return r.allowedPodNumber;
    default:
      return r.scalarResources.get(name) ?? 0;
  }
}
