/**
 * LimitRanger (upstream's plugin/pkg/admission/limitranger), for the LimitRanges of the request's namespace:
 * - mutating: a new pod's containers and init containers get the requests (`defaultRequest`) and limits
 *   (`default`) of `Container` items for what they do not set themselves, and the pod is annotated
 *   `kubernetes.io/limit-ranger: LimitRanger plugin set: cpu request for container app; …`;
 * - validating: `min`, `max` and `maxLimitRequestRatio` of `Container` items hold for every container, of `Pod`
 *   items for the pod's total, and `min`/`max` of `PersistentVolumeClaim` items for a claim's storage request —
 *   refused 403 with upstream's texts (`maximum cpu usage per Container is 1, but limit is 2`), several at once
 *   in brackets.
 * Pod updates are not checked (containers' resources cannot change but through `resize`, which is); objects being
 * deleted are left alone. LimitRanges are read from the watch cache; a namespace the cache shows none for is looked
 * up in storage, and that answer kept for 30 s, as upstream's live lookup.
 */
import { formatQuantity, parseQuantity, type Quantity } from '../../../api/quantity.js';
import { podLimits, podRequests } from '../../../api/quota/pod-resources.js';
import { parseResourceList, type ResourceList } from '../../../api/quota/resource-list.js';
import { type Clock, realClock } from '../../../util/clock.js';
import { isObject, type KubeObject } from '../../registry/object.js';
import { type AdmissionAttributes, type AdmissionPlugin, admissionForbidden } from '../types.js';
import type { ClusterReader } from './cluster-reader.js';

export const LIMIT_RANGER = 'LimitRanger';
export const LIMIT_RANGER_ANNOTATION = 'kubernetes.io/limit-ranger';

const LIMIT_RANGES = { group: '', version: 'v1', resource: 'limitranges' };
const LIVE_LOOKUP_TTL_MS = 30_000;

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec => (isObject(v) ? v : {});
const recs = (v: unknown): Rec[] => (Array.isArray(v) ? v.filter(isObject) : []);

/** Quantities as the constraints compare them: in milli-units (rounded up) unless that would overflow int64. */
const MAX_MILLI_VALUE = 9223372036854775807n / 1000n;
const ceilDiv = (n: bigint, d: bigint) => (n >= 0n ? (n + d - 1n) / d : n / d);
function observed(...qs: Array<Quantity | undefined>): bigint[] {
  const values = qs.map((q) => (q ? ceilDiv(q.nanos, 1_000_000_000n) : 0n));
  if (values.every((v) => v <= MAX_MILLI_VALUE)) return qs.map((q) => (q ? ceilDiv(q.nanos, 1_000_000n) : 0n));
  return values;
}

const s = formatQuantity;

function minConstraint(
  type: string,
  name: string,
  enforced: Quantity,
  req: ResourceList,
  lim: ResourceList,
): string | undefined {
  const r = req.get(name);
  const l = lim.get(name);
  const [rv, lv, ev] = observed(r, l, enforced) as [bigint, bigint, bigint];
  if (!r) return `minimum ${name} usage per ${type} is ${s(enforced)}.  No request is specified`;
  if (rv < ev) return `minimum ${name} usage per ${type} is ${s(enforced)}, but request is ${s(r)}`;
  if (l && lv < ev) return `minimum ${name} usage per ${type} is ${s(enforced)}, but limit is ${s(l)}`;
  return undefined;
}

function maxConstraint(
  type: string,
  name: string,
  enforced: Quantity,
  req: ResourceList,
  lim: ResourceList,
): string | undefined {
  const r = req.get(name);
  const l = lim.get(name);
  const [rv, lv, ev] = observed(r, l, enforced) as [bigint, bigint, bigint];
  if (!l) return `maximum ${name} usage per ${type} is ${s(enforced)}.  No limit is specified`;
  if (lv > ev) return `maximum ${name} usage per ${type} is ${s(enforced)}, but limit is ${s(l)}`;
  if (r && rv > ev) return `maximum ${name} usage per ${type} is ${s(enforced)}, but request is ${s(r)}`;
  return undefined;
}

function maxRequestConstraint(type: string, name: string, enforced: Quantity, req: ResourceList): string | undefined {
  const r = req.get(name);
  const [rv, , ev] = observed(r, undefined, enforced) as [bigint, bigint, bigint];
  if (!r) return `maximum ${name} usage per ${type} is ${s(enforced)}.  No request is specified`;
  if (rv > ev) return `maximum ${name} usage per ${type} is ${s(enforced)}, but request is ${s(r)}`;
  return undefined;
}

function ratioConstraint(
  type: string,
  name: string,
  enforced: Quantity,
  req: ResourceList,
  lim: ResourceList,
): string | undefined {
  const r = req.get(name);
  const l = lim.get(name);
  const [rv, lv] = observed(r, l, enforced) as [bigint, bigint, bigint];
  const e = s(enforced);
  if (!r || rv === 0n)
    return `${name} max limit to request ratio per ${type} is ${e}, but no request is specified or request is 0`;
  if (!l || lv === 0n)
    return `${name} max limit to request ratio per ${type} is ${e}, but no limit is specified or limit is 0`;
  const ratio = Number(lv) / Number(rv);
  const enforcedValue = Number(enforced.nanos) / 1e9;
  // Compared as upstream does, in thousandths when the maximum allows it.
  const exceeded =
    enforcedValue <= Number(MAX_MILLI_VALUE) ? ratio * 1000 > enforcedValue * 1000 : ratio > enforcedValue;
  if (exceeded)
    return `${name} max limit to request ratio per ${type} is ${e}, but provided ratio is ${ratio.toFixed(6)}`;
  return undefined;
}

function sortedEntries(v: unknown): Array<[string, Quantity]> {
  return [...parseResourceList(v)].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** min, max and ratio of one item against requests and limits. */
function itemErrors(item: Rec, type: string, req: ResourceList, lim: ResourceList): string[] {
  const found: Array<string | undefined> = [];
  for (const [k, v] of sortedEntries(item.min)) found.push(minConstraint(type, k, v, req, lim));
  for (const [k, v] of sortedEntries(item.max)) found.push(maxConstraint(type, k, v, req, lim));
  for (const [k, v] of sortedEntries(item.maxLimitRequestRatio)) found.push(ratioConstraint(type, k, v, req, lim));
  return found.filter((e): e is string => e !== undefined);
}

function containerLists(c: Rec): { req: ResourceList; lim: ResourceList } {
  const resources = rec(c.resources);
  return { req: parseResourceList(resources.requests), lim: parseResourceList(resources.limits) };
}

/** PodValidateLimitFunc. */
export function podLimitErrors(limitRange: KubeObject, pod: KubeObject): string[] {
  const spec = rec(pod.spec);
  const errs: string[] = [];
  for (const item of recs(rec(limitRange.spec).limits)) {
    const type = String(item.type ?? '');
    if (type === 'Container') {
      for (const c of [...recs(spec.containers), ...recs(spec.initContainers)]) {
        const { req, lim } = containerLists(c);
        errs.push(...itemErrors(item, type, req, lim));
      }
    }
    if (type === 'Pod') {
      const opts = { overhead: false, status: false };
      errs.push(...itemErrors(item, type, podRequests(pod, opts), podLimits(pod, opts)));
    }
  }
  return errs;
}

/** PersistentVolumeClaimValidateLimitFunc: min and max of the storage request. */
export function claimLimitErrors(limitRange: KubeObject, pvc: KubeObject): string[] {
  const requests = parseResourceList(rec(rec(rec(pvc.spec).resources)).requests);
  const errs: string[] = [];
  for (const item of recs(rec(limitRange.spec).limits)) {
    const type = String(item.type ?? '');
    if (type !== 'PersistentVolumeClaim') continue;
    for (const [k, v] of sortedEntries(item.min)) {
      const e = minConstraint(type, k, v, requests, new Map());
      if (e) errs.push(e);
    }
    for (const [k, v] of sortedEntries(item.max)) {
      const e = maxRequestConstraint(type, k, v, requests);
      if (e) errs.push(e);
    }
  }
  return errs;
}

/** The defaults of a LimitRange's Container items (defaultContainerResourceRequirements). */
function containerDefaults(limitRange: KubeObject): { requests: Rec; limits: Rec } {
  const requests: Rec = {};
  const limits: Rec = {};
  for (const item of recs(rec(limitRange.spec).limits)) {
    if (item.type !== 'Container') continue;
    Object.assign(limits, rec(item.default));
    Object.assign(requests, rec(item.defaultRequest));
  }
  return { requests, limits };
}

/** Sets what a container lacks; returns the annotation parts (mergeContainerResources). */
function mergeContainer(c: Rec, defaults: { requests: Rec; limits: Rec }, label: string): string[] {
  const resources = rec(c.resources);
  const limits = rec(resources.limits);
  const requests = rec(resources.requests);
  const setLimits = Object.keys(defaults.limits).filter((k) => !(k in limits));
  const setRequests = Object.keys(defaults.requests).filter((k) => !(k in requests));
  for (const k of setLimits) limits[k] = canonical(defaults.limits[k]);
  for (const k of setRequests) requests[k] = canonical(defaults.requests[k]);
  if (setLimits.length > 0 || setRequests.length > 0) {
    c.resources = {
      ...resources,
      ...(Object.keys(limits).length > 0 ? { limits } : {}),
      ...(Object.keys(requests).length > 0 ? { requests } : {}),
    };
  }
  const out: string[] = [];
  if (setRequests.length > 0) out.push(`${setRequests.sort().join(', ')} request for ${label} ${String(c.name ?? '')}`);
  if (setLimits.length > 0) out.push(`${setLimits.sort().join(', ')} limit for ${label} ${String(c.name ?? '')}`);
  return out;
}

function canonical(v: unknown): unknown {
  return typeof v === 'string' || typeof v === 'number' ? formatQuantity(parseQuantity(v)) : v;
}

/** PodMutateLimitFunc. */
export function applyPodDefaults(limitRange: KubeObject, pod: KubeObject): void {
  const defaults = containerDefaults(limitRange);
  if (Object.keys(defaults.limits).length === 0 && Object.keys(defaults.requests).length === 0) return;
  const spec = rec(pod.spec);
  const notes: string[] = [];
  for (const c of recs(spec.containers)) notes.push(...mergeContainer(c, defaults, 'container'));
  for (const c of recs(spec.initContainers)) notes.push(...mergeContainer(c, defaults, 'init container'));
  if (notes.length === 0) return;
  pod.metadata.annotations = {
    ...pod.metadata.annotations,
    [LIMIT_RANGER_ANNOTATION]: `LimitRanger plugin set: ${notes.join('; ')}`,
  };
}

/** Which requests the plugin looks at (DefaultLimitRangerActions.SupportsAttributes), and as what. */
function kindOf(attrs: AdmissionAttributes): 'pod' | 'claim' | undefined {
  const { group, kind } = attrs.kind;
  if (group !== '') return undefined;
  if (attrs.subresource === 'resize') return kind === 'Pod' && attrs.operation === 'UPDATE' ? 'pod' : undefined;
  if (attrs.subresource !== '') return undefined;
  if (kind === 'Pod') return attrs.operation === 'UPDATE' ? undefined : 'pod';
  if (kind === 'PersistentVolumeClaim') return 'claim';
  return undefined;
}

export function limitRanger(reader: ClusterReader, clock: Clock = realClock): AdmissionPlugin {
  const liveLookups = new Map<string, { until: number; items: KubeObject[] }>();

  async function limitRanges(namespace: string): Promise<readonly Readonly<KubeObject>[]> {
    const cached = await reader.listShared(LIMIT_RANGES, namespace);
    if (cached.length > 0) return cached;
    const kept = liveLookups.get(namespace);
    if (kept && kept.until > clock.now()) return kept.items;
    const items = await reader.liveList(LIMIT_RANGES, namespace);
    liveLookups.set(namespace, { until: clock.now() + LIVE_LOOKUP_TTL_MS, items });
    if (liveLookups.size > 4096) liveLookups.delete(liveLookups.keys().next().value as string);
    return items;
  }

  /** limitRanges() without waiting, when the answer is at hand (undefined otherwise). */
  function limitRangesNow(namespace: string): readonly Readonly<KubeObject>[] | undefined {
    const cached = reader.listSharedNow(LIMIT_RANGES, namespace);
    if (cached === undefined || cached.length > 0) return cached;
    const kept = liveLookups.get(namespace);
    return kept && kept.until > clock.now() ? kept.items : undefined;
  }

  type Found = { kind: 'pod' | 'claim'; items: readonly Readonly<KubeObject>[] } | undefined;

  /** The LimitRanges that apply to the request; at once when they are at hand, as on nearly every request. */
  function applicable(attrs: AdmissionAttributes): Found | Promise<Found> {
    if (!attrs.object || attrs.namespace === '') return undefined;
    const kind = kindOf(attrs);
    if (!kind) return undefined;
    if (attrs.oldObject?.metadata.deletionTimestamp) return undefined;
    const known = limitRangesNow(attrs.namespace);
    if (known) return known.length > 0 ? { kind, items: known } : undefined;
    return limitRanges(attrs.namespace).then((items) => (items.length > 0 ? { kind, items } : undefined));
  }

  function admitFound(attrs: AdmissionAttributes, found: Found): void {
    if (found?.kind !== 'pod') return;
    for (const lr of found.items) applyPodDefaults(lr, attrs.object as KubeObject);
  }

  function validateFound(attrs: AdmissionAttributes, found: Found): void {
    if (!found) return;
    for (const lr of found.items) {
      const errs =
        found.kind === 'pod'
          ? podLimitErrors(lr, attrs.object as KubeObject)
          : claimLimitErrors(lr, attrs.object as KubeObject);
      if (errs.length > 0)
        throw admissionForbidden(attrs, errs.length === 1 ? (errs[0] as string) : `[${errs.join(', ')}]`);
    }
  }

  return {
    name: LIMIT_RANGER,
    handles: (op) => op === 'CREATE' || op === 'UPDATE',
    resources: ['/pods', '/persistentvolumeclaims'],
    admit(attrs) {
      const found = applicable(attrs);
      if (found instanceof Promise) return found.then((f) => admitFound(attrs, f));
      admitFound(attrs, found);
    },
    validate(attrs) {
      const found = applicable(attrs);
      if (found instanceof Promise) return found.then((f) => validateFound(attrs, f));
      validateFound(attrs, found);
    },
  };
}
