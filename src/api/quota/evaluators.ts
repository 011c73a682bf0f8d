/**
 * Quota evaluators (upstream's pkg/quota/v1/evaluator/core and apiserver's generic object-count evaluator): for
 * one kind of object, which quota resource names it can measure, whether an object falls in a quota scope, and what
 * one object uses. The controller sums usage over every object of a namespace from the informer caches.
 */

import { type Rec, rec, recs } from '../json-readers.js';
import { quantityFromInt } from '../quantity.js';
import type { QuotaObject, QuotaResource } from './object.js';
import { isBestEffort, podLimits, podRequests } from './pod-resources.js';
import { addInto, parseResourceList, type ResourceList } from './resource-list.js';
import { type ScopeRequirement, scopeSelectorMatches } from './scopes.js';

export interface Evaluator {
  /** The resource whose objects it measures (the version is the one listed and watched). */
  readonly gvr: QuotaResource;
  /** The subset of names this evaluator measures. */
  matchingResources(names: readonly string[]): string[];
  /** Whether obj falls inside a scope requirement (objects that have no scopes never do). */
  matchesScope(scope: ScopeRequirement, obj: QuotaObject, now: number): boolean;
  /** What one object uses. */
  usage(obj: QuotaObject, now: number): ResourceList;
}

/**
 * Resources quota never tracks (upstream's DefaultIgnoredResources), as `group/resource`: virtual resources that are
 * never stored, and events, which have never been quota-ed.
 */
export const QUOTA_IGNORED_RESOURCES: ReadonlySet<string> = new Set([
  '/bindings',
  '/componentstatuses',
  'authentication.k8s.io/tokenreviews',
  'authentication.k8s.io/selfsubjectreviews',
  'authorization.k8s.io/subjectaccessreviews',
  'authorization.k8s.io/selfsubjectaccessreviews',
  'authorization.k8s.io/localsubjectaccessreviews',
  'authorization.k8s.io/selfsubjectrulesreviews',
  '/events',
  'events.k8s.io/events',
]);

/** `count/<resource>` for the core group, `count/<resource>.<group>` otherwise. */
export function objectCountName(group: string, resource: string): string {
  return group === '' ? `count/${resource}` : `count/${resource}.${group}`;
}

const one = () => quantityFromInt(1);
const zero = () => quantityFromInt(0);

/** Counts objects of one resource under `count/...` and, for the historical ones, an alias (`configmaps`). */
export function objectCountEvaluator(gvr: QuotaResource, alias?: string): Evaluator {
  const names = [objectCountName(gvr.group, gvr.resource), ...(alias ? [alias] : [])];
  return {
    gvr,
    matchingResources: (input) => input.filter((n) => names.includes(n)),
    matchesScope: () => false,
    usage: () => new Map(names.map((n) => [n, one()])),
  };
}

// --- pods ---

const POD_RESOURCES = new Set([
  'count/pods',
  'cpu',
  'memory',
  'ephemeral-storage',
  'requests.cpu',
  'requests.memory',
  'requests.ephemeral-storage',
  'limits.cpu',
  'limits.memory',
  'limits.ephemeral-storage',
  'pods',
]);
const HUGEPAGES = 'hugepages-';
const REQUESTS = 'requests.';

/** Native resources are unprefixed or in a kubernetes.io domain. */
function isNativeResource(name: string): boolean {
  return !name.includes('/') || name.includes('kubernetes.io/');
}

/** An extended resource a pod may request (`example.com/gpu`), charged as `requests.<name>`. */
function isExtendedResource(name: string): boolean {
  return !isNativeResource(name) && !name.startsWith(REQUESTS);
}

/**
 * Whether a pod is charged compute quota: not once it has reached a terminal phase, nor once it has been
 * terminating for longer than its grace period (QuotaV1Pod).
 */
export function podIsCharged(pod: QuotaObject, now: number): boolean {
  const phase = rec(pod.status).phase;
  if (phase === 'Succeeded' || phase === 'Failed') return false;
  const { deletionTimestamp, deletionGracePeriodSeconds } = pod.metadata;
  if (deletionTimestamp && typeof deletionGracePeriodSeconds === 'number') {
    const deadline = Date.parse(deletionTimestamp) + deletionGracePeriodSeconds * 1000;
    if (now > deadline) return false;
  }
  return true;
}

/** podComputeUsageHelper: the quota names one pod's requests and limits are charged under. */
function computeUsage(requests: ResourceList, limits: ResourceList): ResourceList {
  const out: ResourceList = new Map([['pods', one()]]);
  for (const name of ['cpu', 'memory', 'ephemeral-storage']) {
    const req = requests.get(name);
    if (req) {
      out.set(name, req);
      out.set(`${REQUESTS}${name}`, req);
    }
    const lim = limits.get(name);
    if (lim) out.set(`limits.${name}`, lim);
  }
  for (const [name, q] of requests) {
    if (name.startsWith(HUGEPAGES)) {
      out.set(name, q);
      out.set(`${REQUESTS}${name}`, q);
    }
    if (isExtendedResource(name)) out.set(`${REQUESTS}${name}`, q);
  }
  return out;
}

/** What a pod uses: always `count/pods`; compute resources only while it is charged. */
export function podUsage(pod: QuotaObject, now: number): ResourceList {
  const out: ResourceList = new Map([['count/pods', one()]]);
  if (!podIsCharged(pod, now)) return out;
  addInto(out, computeUsage(podRequests(pod), podLimits(pod)));
  return out;
}

function usesCrossNamespacePodAffinity(pod: QuotaObject): boolean {
  const affinity = rec(rec(pod.spec).affinity);
  const crossNamespace = (term: Rec) =>
    (Array.isArray(term.namespaces) && term.namespaces.length > 0) || term.namespaceSelector != null;
  for (const kind of ['podAffinity', 'podAntiAffinity']) {
    const a = rec(affinity[kind]);
    if (recs(a.requiredDuringSchedulingIgnoredDuringExecution).some(crossNamespace)) return true;
    if (recs(a.preferredDuringSchedulingIgnoredDuringExecution).some((w) => crossNamespace(rec(w.podAffinityTerm)))) {
      return true;
    }
  }
  return false;
}

/** podMatchesScopeFunc. */
export function podMatchesScope(scope: ScopeRequirement, pod: QuotaObject): boolean {
  const spec = rec(pod.spec);
  switch (scope.scopeName) {
    case 'Terminating':
      return typeof spec.activeDeadlineSeconds === 'number' && spec.activeDeadlineSeconds >= 0;
    case 'NotTerminating':
      return !(typeof spec.activeDeadlineSeconds === 'number' && spec.activeDeadlineSeconds >= 0);
    case 'BestEffort':
      return isBestEffort(pod);
    case 'NotBestEffort':
      return !isBestEffort(pod);
    case 'PriorityClass': {
      const priorityClass = typeof spec.priorityClassName === 'string' ? spec.priorityClassName : '';
      if (scope.operator === 'Exists') return priorityClass !== '';
      return scopeSelectorMatches(scope, priorityClass === '' ? {} : { PriorityClass: priorityClass });
    }
    case 'CrossNamespacePodAffinity':
      return usesCrossNamespacePodAffinity(pod);
    default:
      return false;
  }
}

export const podEvaluator: Evaluator = {
  gvr: { group: '', version: 'v1', resource: 'pods' },
  matchingResources: (input) =>
    input.filter(
      (n) =>
        POD_RESOURCES.has(n) ||
        n.startsWith(HUGEPAGES) ||
        n.startsWith(`${REQUESTS}${HUGEPAGES}`) ||
        (!isNativeResource(n) && n.startsWith(REQUESTS)),
    ),
  matchesScope: (scope, obj) => podMatchesScope(scope, obj),
  usage: podUsage,
};

// --- services ---

const SERVICE_RESOURCES = new Set(['count/services', 'services', 'services.loadbalancers', 'services.nodeports']);

export function serviceUsage(svc: QuotaObject): ResourceList {
  const spec = rec(svc.spec);
  const ports = recs(spec.ports);
  const out: ResourceList = new Map([
    ['count/services', one()],
    ['services', one()],
    ['services.loadbalancers', zero()],
    ['services.nodeports', zero()],
  ]);
  if (spec.type === 'NodePort') {
    out.set('services.nodeports', quantityFromInt(ports.length));
  } else if (spec.type === 'LoadBalancer') {
    // Without allocated node ports, only ports that name one explicitly use one.
    const nodePorts =
      spec.allocateLoadBalancerNodePorts === false
        ? ports.filter((p) => typeof p.nodePort === 'number' && p.nodePort !== 0).length
        : ports.length;
    out.set('services.nodeports', quantityFromInt(nodePorts));
    out.set('services.loadbalancers', one());
  }
  return out;
}

export const serviceEvaluator: Evaluator = {
  gvr: { group: '', version: 'v1', resource: 'services' },
  matchingResources: (input) => input.filter((n) => SERVICE_RESOURCES.has(n)),
  matchesScope: () => false,
  usage: serviceUsage,
};

// --- persistentvolumeclaims ---

const STORAGE_CLASS_SUFFIX = '.storageclass.storage.k8s.io/';
const PVC_RESOURCES = ['persistentvolumeclaims', 'requests.storage'];

function storageClassOf(pvc: QuotaObject): string {
  const annotated = pvc.metadata.annotations?.['volume.beta.kubernetes.io/storage-class'];
  if (annotated !== undefined) return annotated;
  const name = rec(pvc.spec).storageClassName;
  return typeof name === 'string' ? name : '';
}

export function pvcUsage(pvc: QuotaObject): ResourceList {
  const out: ResourceList = new Map([
    ['count/persistentvolumeclaims', one()],
    ['persistentvolumeclaims', one()],
  ]);
  const storageClass = storageClassOf(pvc);
  if (storageClass !== '') out.set(`${storageClass}${STORAGE_CLASS_SUFFIX}persistentvolumeclaims`, one());
  // Charged the larger of what is asked for and what was allocated (a failed expansion may leave the latter).
  const requested = parseResourceList(rec(rec(pvc.spec).resources).requests).get('storage');
  const allocated = parseResourceList(rec(pvc.status).allocatedResources).get('storage');
  const storage = requested && allocated ? (allocated.nanos > requested.nanos ? allocated : requested) : requested;
  if (storage) {
    out.set('requests.storage', storage);
    if (storageClass !== '') out.set(`${storageClass}${STORAGE_CLASS_SUFFIX}requests.storage`, storage);
  }
  return out;
}

export const pvcEvaluator: Evaluator = {
  gvr: { group: '', version: 'v1', resource: 'persistentvolumeclaims' },
  matchingResources: (input) =>
    input.filter(
      (n) =>
        n === 'count/persistentvolumeclaims' ||
        PVC_RESOURCES.includes(n) ||
        PVC_RESOURCES.some((r) => n.endsWith(`${STORAGE_CLASS_SUFFIX}${r}`)),
    ),
  matchesScope: () => false,
  usage: pvcUsage,
};

/** The evaluators upstream always registers: pods, services, claims, and the counted kinds with legacy aliases. */
export function staticEvaluators(): Evaluator[] {
  return [
    podEvaluator,
    serviceEvaluator,
    pvcEvaluator,
    objectCountEvaluator({ group: '', version: 'v1', resource: 'configmaps' }, 'configmaps'),
    objectCountEvaluator({ group: '', version: 'v1', resource: 'resourcequotas' }, 'resourcequotas'),
    objectCountEvaluator({ group: '', version: 'v1', resource: 'replicationcontrollers' }, 'replicationcontrollers'),
    objectCountEvaluator({ group: '', version: 'v1', resource: 'secrets' }, 'secrets'),
  ];
}
