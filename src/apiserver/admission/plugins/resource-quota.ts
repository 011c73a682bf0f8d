/**
 * ResourceQuota (upstream's k8s.io/apiserver/pkg/admission/plugin/resourcequota), a validating plugin: a create or
 * update in a namespace is checked against every ResourceQuota there whose `status.hard` names something the
 * object uses and whose scopes it matches — pods (compute resources, `pods`, scopes Terminating, NotTerminating,
 * BestEffort, NotBestEffort, PriorityClass, CrossNamespacePodAffinity), services, claims, and `count/<resource>` for
 * any resource. Over quota it is refused (403) with upstream's text (`exceeded quota: q, requested: pods=1, used:
 * pods=2, limited: pods=2`); a quota that tracks cpu or memory needs every container to say its own
 * (`failed quota: q: must specify limits.cpu for: c`); a quota the resourcequota controller has not counted yet
 * refuses until it has (`status unknown for quota: …`).
 *
 * An admitted request is charged at once: the quota's `status.used` is raised with a compare-and-swap of the
 * quota, re-checked against the stored quota on every conflict, so two racing creates cannot both fit into the
 * last slot. Charges of requests that then fail are corrected by the controller's next recount, as upstream.
 */

import { compareQuantities, formatQuantity } from '../../../api/quantity.js';
import {
  type Evaluator,
  objectCountEvaluator,
  podEvaluator,
  pvcEvaluator,
  QUOTA_IGNORED_RESOURCES,
  serviceEvaluator,
} from '../../../api/quota/evaluators.js';
import {
  addLists,
  formatResourceList,
  listsEqual,
  mask,
  parseResourceList,
  type ResourceList,
  subtractNonNegative,
} from '../../../api/quota/resource-list.js';
import { quotaScopes } from '../../../api/quota/scopes.js';
import { StatusError } from '../../../api/status-error.js';
import { type Clock, realClock } from '../../../util/clock.js';
import { isObject, type KubeObject } from '../../registry/object.js';
import { type AdmissionAttributes, type AdmissionPlugin, admissionForbidden } from '../types.js';
import type { ClusterReader } from './cluster-reader.js';

export const RESOURCE_QUOTA = 'ResourceQuota';

const RESOURCE_QUOTAS = { group: '', version: 'v1', resource: 'resourcequotas' };

/** Resources whose quota must be explicitly requested by every container (a historical rule upstream keeps). */
const CONTAINER_MUST_SPECIFY = new Set([
  'cpu',
  'memory',
  'requests.cpu',
  'requests.memory',
  'limits.cpu',
  'limits.memory',
]);

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec => (isObject(v) ? v : {});
const recs = (v: unknown): Rec[] => (Array.isArray(v) ? v.filter(isObject) : []);

interface QuotaUse {
  evaluator: Evaluator;
  /** Whether this request can change what the evaluator measures (upstream's Evaluator.Handles). */
  handles(attrs: AdmissionAttributes): boolean;
}

const STATIC: ReadonlyMap<string, QuotaUse> = new Map([
  [
    '/pods',
    {
      evaluator: podEvaluator,
      handles: (a) =>
        (a.subresource === '' && a.operation === 'CREATE') || (a.subresource === 'resize' && a.operation === 'UPDATE'),
    },
  ],
  ['/services', { evaluator: serviceEvaluator, handles: (a) => a.subresource === '' }],
  ['/persistentvolumeclaims', { evaluator: pvcEvaluator, handles: (a) => a.subresource === '' }],
]);

/** The legacy names a few counted kinds are also known by (`configmaps` besides `count/configmaps`). */
const COUNT_ALIASES = new Set(['configmaps', 'resourcequotas', 'replicationcontrollers', 'secrets']);

function useFor(attrs: AdmissionAttributes): QuotaUse | undefined {
  const { group, version, resource } = attrs.resource;
  const key = `${group}/${resource}`;
  if (QUOTA_IGNORED_RESOURCES.has(key)) return undefined;
  const known = STATIC.get(key);
  if (known) return known;
  const alias = group === '' && COUNT_ALIASES.has(resource) ? resource : undefined;
  return {
    evaluator: objectCountEvaluator({ group, version, resource }, alias),
    handles: (a) => a.subresource === '' && a.operation === 'CREATE',
  };
}

function hardOf(quota: KubeObject): ResourceList {
  return parseResourceList(rec(quota.status).hard);
}

function usedOf(quota: KubeObject): ResourceList {
  return parseResourceList(rec(quota.status).used);
}

/** generic.Matches: the quota limits something the evaluator measures, and the object is in every scope. */
function matches(evaluator: Evaluator, quota: KubeObject, obj: KubeObject, now: number): boolean {
  if (evaluator.matchingResources([...hardOf(quota).keys()]).length === 0) return false;
  return quotaScopes(quota).every((scope) => evaluator.matchesScope(scope, obj, now));
}

/** "a=1,b=2", keys sorted (prettyPrint). */
function prettyPrint(list: ResourceList): string {
  return [...list.keys()]
    .sort()
    .map((k) => `${k}=${formatQuantity(list.get(k) as NonNullable<ReturnType<typeof list.get>>)}`)
    .join(',');
}

/** podComputeUsageHelper's names for one container: what it states among cpu and memory. */
function containerStates(container: Rec): Set<string> {
  const resources = rec(container.resources);
  const requests = parseResourceList(resources.requests);
  const limits = parseResourceList(resources.limits);
  const out = new Set<string>();
  for (const name of ['cpu', 'memory']) {
    if (requests.has(name)) {
      out.add(name);
      out.add(`requests.${name}`);
    }
    if (limits.has(name)) out.add(`limits.${name}`);
  }
  return out;
}

/** The pod evaluator's Constraints: each container must state what the quota tracks of cpu and memory. */
function podConstraintError(required: string[], pod: KubeObject): string | undefined {
  const wanted = required.filter((r) => CONTAINER_MUST_SPECIFY.has(r));
  if (wanted.length === 0) return undefined;
  const missing = new Map<string, Set<string>>();
  const spec = rec(pod.spec);
  for (const c of [...recs(spec.containers), ...recs(spec.initContainers)]) {
    const has = containerStates(c);
    for (const r of wanted) {
      if (has.has(r)) continue;
      const names = missing.get(r) ?? new Set<string>();
      names.add(String(c.name ?? ''));
      missing.set(r, names);
    }
  }
  if (missing.size === 0) return undefined;
  const parts = [...missing.keys()].sort().map((r) => `${r} for: ${[...(missing.get(r) ?? [])].sort().join(',')}`);
  return `must specify ${parts.join('; ')}`;
}

/**
 * CheckRequest: the usage each matching quota would have if the request went through, by quota name; throws the
 * refusal when one would be exceeded. Quotas that the request does not change are not in the result.
 */
export function checkRequest(
  quotas: readonly KubeObject[],
  attrs: AdmissionAttributes,
  evaluator: Evaluator,
  now: number,
): Map<string, ResourceList> {
  const obj = attrs.object as KubeObject;
  const interesting: KubeObject[] = [];
  for (const quota of quotas) {
    if (!matches(evaluator, quota, obj, now)) continue;
    const hard = hardOf(quota);
    const restricted = evaluator.matchingResources([...hard.keys()]);
    const quotaName = quota.metadata.name ?? '';
    if (evaluator === podEvaluator) {
      const failed = podConstraintError(restricted, obj);
      if (failed) throw admissionForbidden(attrs, `failed quota: ${quotaName}: ${failed}`);
    }
    const used = usedOf(quota);
    if (restricted.some((r) => hard.has(r) && !used.has(r))) {
      throw admissionForbidden(
        attrs,
        `status unknown for quota: ${quotaName}, resources: ${[...restricted].sort().join(',')}`,
      );
    }
    interesting.push(quota);
  }
  const out = new Map<string, ResourceList>();
  if (interesting.length === 0) return out;
  const inputUsage = evaluator.usage(obj, now);
  const negative = [...inputUsage].filter(([, q]) => q.nanos < 0n).map(([n]) => n);
  if (negative.length > 0) {
    throw admissionForbidden(attrs, `quota usage is negative for resource(s): ${negative.sort().join(',')}`);
  }
  const old = attrs.operation === 'UPDATE' ? attrs.oldObject : undefined;
  if (attrs.operation === 'UPDATE' && !old) {
    throw admissionForbidden(attrs, 'unable to get previous usage since prior version of object was not found');
  }
  const priorUsage = old?.metadata.resourceVersion ? evaluator.usage(old, now) : undefined;
  for (const quota of interesting) {
    // An update is charged what it adds, when the old object counted against this quota too.
    const delta =
      priorUsage && old && matches(evaluator, quota, old, now)
        ? subtractNonNegative(inputUsage, priorUsage)
        : inputUsage;
    const hard = hardOf(quota);
    const requested = mask(new Map([...delta].filter(([, q]) => q.nanos !== 0n)), hard.keys());
    if (requested.size === 0) continue;
    const used = usedOf(quota);
    const next = addLists(used, requested);
    if (attrs.subresource !== 'status') {
      const exceeded = [...requested.keys()].filter((name) => {
        const limit = hard.get(name);
        const total = next.get(name);
        return limit && total && compareQuantities(total, limit) > 0;
      });
      if (exceeded.length > 0) {
        throw admissionForbidden(
          attrs,
          `exceeded quota: ${quota.metadata.name ?? ''}, requested: ${prettyPrint(mask(requested, exceeded))}, used: ${prettyPrint(mask(used, exceeded))}, limited: ${prettyPrint(mask(hard, exceeded))}`,
        );
      }
    }
    if (!listsEqual(next, used)) out.set(quota.metadata.name ?? '', next);
  }
  return out;
}

export function resourceQuota(reader: ClusterReader, clock: Clock = realClock): AdmissionPlugin {
  return {
    name: RESOURCE_QUOTA,
    handles: (op) => op === 'CREATE' || op === 'UPDATE',
    validate(attrs) {
      if (attrs.namespace === '' || !attrs.object) return;
      // A namespace without quotas (most) is known at once, without waiting (and before anything else is looked at).
      if (reader.listSharedNow(RESOURCE_QUOTAS, attrs.namespace)?.length === 0) return;
      const use = useFor(attrs);
      if (!use?.handles(attrs)) return;
      return charge(attrs, use);
    },
  };

  /** Checks the request against the namespace's quotas, and charges it to them. */
  async function charge(attrs: AdmissionAttributes, use: NonNullable<ReturnType<typeof useFor>>): Promise<void> {
    const quotas = await reader.listShared(RESOURCE_QUOTAS, attrs.namespace);
    if (quotas.length === 0) return;
    const charges = checkRequest(quotas, attrs, use.evaluator, clock.now());
    if (attrs.dryRun || charges.size === 0) return;
    const store = reader.store(RESOURCE_QUOTAS);
    if (!store) return;
    for (const name of charges.keys()) {
      // Charged against the quota as stored: on a conflict the store reads it again and this check runs again.
      await store
        .guaranteedUpdate(
          attrs.namespace,
          name,
          (current) => {
            const next = checkRequest([current], attrs, use.evaluator, clock.now()).get(name);
            if (!next) return current;
            current.status = { ...rec(current.status), used: formatResourceList(next) };
            return current;
          },
          { skipAdmission: true, subresource: 'status' },
        )
        .catch((err) => {
          // A quota deleted meanwhile no longer limits anything.
          if (err instanceof StatusError && err.code === 404) return undefined;
          throw err;
        });
    }
  }
}
