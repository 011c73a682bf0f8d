/**
 * The pods/eviction subresource's rules (upstream's EvictionREST, pkg/registry/core/pod/storage/eviction.go): an
 * eviction deletes a pod only if the PodDisruptionBudget that covers it allows one more disruption, and records
 * the disruption in the budget's status so that concurrent evictions cannot all pass.
 *
 * - A pod that is Pending, Succeeded, Failed or already being deleted is deleted at once: its disruption has
 *   happened, no budget is asked.
 * - More than one budget covering the pod: a 500 Status, which the eviction subresource does not support.
 * - No budget: the pod is deleted.
 * - A pod that is not Ready does not count as healthy: with `unhealthyPodEvictionPolicy: AlwaysAllow`, or while
 *   the budget has currentHealthy >= desiredHealthy > 0 (IfHealthyBudget, the default), it is deleted without
 *   spending the budget (with a resourceVersion precondition, so that it cannot become Ready meanwhile).
 * - Otherwise the budget must have caught up with its spec (status.observedGeneration) and allow a disruption,
 *   else 429 TooManyRequests; when it does, disruptionsAllowed goes down by one and the pod is listed in
 *   status.disruptedPods (retried on conflicts).
 * - The deleted pod first gets the DisruptionTarget condition (reason EvictionByEvictionAPI), unless dry-run.
 */

import { LabelSelector, type LabelSelectorObject } from '../../../api/labels.js';
import { type Status, StatusError, statusErrors } from '../../../api/status-error.js';
import { type Clock, realClock } from '../../../util/clock.js';
import type { UserInfo } from '../../context.js';
import { deepClone, isObject, type KubeObject, nowTimestamp } from '../object.js';
import type { DeleteOptions } from '../resource.js';
import type { GenericStore } from '../store.js';

/** Upstream's MaxDisruptedPodSize: evictions approved but not yet seen by the disruption controller. */
export const MAX_DISRUPTED_POD_SIZE = 2000;

/** Upstream's EvictionsRetry: 20 attempts, 500 ms apart (±10%). */
const RETRY_STEPS = 20;
const RETRY_INTERVAL_MS = 500;

/** Who the apiserver is when it writes through its own API (its loopback client). */
const APISERVER_USER: UserInfo = { name: 'system:apiserver', groups: ['system:authenticated', 'system:masters'] };

const POD = { group: '', resource: 'Pod' };
const PDB = { group: 'policy', resource: 'poddisruptionbudget' };

export interface EvictionStores {
  pods: GenericStore;
  /** The policy/v1 PodDisruptionBudget store (absent: no budget covers anything). */
  pdbs: GenericStore | undefined;
  clock?: Clock;
}

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec => (isObject(v) ? v : {});
const num = (v: unknown): number => (typeof v === 'number' ? v : 0);

function phaseOf(pod: KubeObject): string {
  const phase = rec(pod.status).phase;
  return typeof phase === 'string' ? phase : '';
}

/** Whether the pod's disruption has already happened, so no budget needs asking. */
function canIgnorePDB(pod: KubeObject): boolean {
  const phase = phaseOf(pod);
  return phase === 'Succeeded' || phase === 'Failed' || phase === 'Pending' || !!pod.metadata.deletionTimestamp;
}

/** Whether deleting the pod must be pinned to the version looked at (it could become Ready meanwhile). */
function shouldEnforceResourceVersion(pod: KubeObject): boolean {
  const phase = phaseOf(pod);
  return !(phase === 'Succeeded' || phase === 'Failed' || pod.metadata.deletionTimestamp);
}

function isPodReady(pod: KubeObject): boolean {
  const conditions = rec(pod.status).conditions;
  return Array.isArray(conditions) && conditions.some((c) => isObject(c) && c.type === 'Ready' && c.status === 'True');
}

function resourceVersionSet(options: DeleteOptions): boolean {
  return !!options.preconditions?.resourceVersion;
}

function withResourceVersion(options: DeleteOptions, resourceVersion: string | undefined): DeleteOptions {
  return { ...options, preconditions: { ...options.preconditions, resourceVersion: resourceVersion ?? '' } };
}

function isConflict(err: unknown): boolean {
  return err instanceof StatusError && err.code === 409;
}

/** The 429 an eviction gets while the budget's status is behind its spec (or the pod's state moved). */
function stillBeingProcessed(pdbName: string): StatusError {
  return new StatusError(429, 'TooManyRequests', "Cannot evict pod as it would violate the pod's disruption budget.", {
    causes: [
      {
        reason: 'DisruptionBudget',
        message: `The disruption budget ${pdbName} is still being processed by the server.`,
      },
    ],
    retryAfterSeconds: 10,
  });
}

/** The budgets in the pod's namespace whose selector matches the pod (an invalid or missing selector: none). */
async function budgetsFor(pdbs: GenericStore, pod: KubeObject, namespace: string): Promise<KubeObject[]> {
  // A consistent read (as upstream's loopback LIST): a budget created a moment ago counts.
  const { items } = await pdbs.storage.list(`${pdbs.def.storagePrefix}/${namespace}/`);
  return items
    .map((kv) => pdbs.decode(kv.value, kv.modRevision))
    .filter((pdb) => {
      const selector = rec(pdb.spec).selector;
      try {
        return LabelSelector.fromObject(isObject(selector) ? (selector as LabelSelectorObject) : undefined).matches(
          pod.metadata.labels ?? {},
        );
      } catch {
        return false;
      }
    });
}

/** Upstream's UpdateDisruptionAllowedCondition for a budget with no disruption left. */
function markInsufficient(status: Rec, now: number): void {
  const conditions = Array.isArray(status.conditions) ? (status.conditions as Rec[]) : [];
  const condition = {
    type: 'DisruptionAllowed',
    status: 'False',
    observedGeneration: num(status.observedGeneration),
    reason: 'InsufficientPods',
    message: '',
  };
  const i = conditions.findIndex((c) => isObject(c) && c.type === 'DisruptionAllowed');
  const existing = conditions[i];
  if (i < 0 || !existing) {
    conditions.push({ ...condition, lastTransitionTime: nowTimestamp(now) });
  } else {
    const changed = existing.status !== condition.status;
    conditions[i] = {
      ...existing,
      ...condition,
      lastTransitionTime: changed || !existing.lastTransitionTime ? nowTimestamp(now) : existing.lastTransitionTime,
    };
  }
  status.conditions = conditions;
}

/** Spends one disruption of the budget on the pod, or refuses with upstream's errors. */
async function checkAndDecrement(
  pdbs: GenericStore,
  namespace: string,
  podName: string,
  pdb: KubeObject,
  dryRun: boolean,
  now: number,
): Promise<void> {
  const name = pdb.metadata.name ?? '';
  const status = rec(pdb.status);
  if (num(status.observedGeneration) < (pdb.metadata.generation ?? 0)) throw stillBeingProcessed(name);
  const allowed = num(status.disruptionsAllowed);
  if (allowed < 0) throw statusErrors.forbidden(PDB, name, 'pdb disruptions allowed is negative');
  if (Object.keys(rec(status.disruptedPods)).length > MAX_DISRUPTED_POD_SIZE) {
    throw statusErrors.forbidden(
      PDB,
      name,
      'DisruptedPods map too big - too many evictions not confirmed by PDB controller',
    );
  }
  if (allowed === 0) {
    throw new StatusError(429, 'TooManyRequests', "Cannot evict pod as it would violate the pod's disruption budget.", {
      causes: [
        {
          reason: 'DisruptionBudget',
          message: `The disruption budget ${name} needs ${num(status.desiredHealthy)} healthy pods and has ${num(status.currentHealthy)} currently`,
        },
      ],
    });
  }
  const next = deepClone(pdb);
  const nextStatus = rec(next.status);
  next.status = nextStatus;
  nextStatus.disruptionsAllowed = allowed - 1;
  if (allowed - 1 === 0) markInsufficient(nextStatus, now);
  if (dryRun) return;
  // Tells the disruption controller this pod is about to go, so it does not count it as available meanwhile.
  nextStatus.disruptedPods = { ...rec(nextStatus.disruptedPods), [podName]: nowTimestamp(now) };
  await pdbs.update(namespace, name, next, { subresource: 'status', user: APISERVER_USER });
}

/**
 * Marks the pod with the DisruptionTarget condition (through its status, checking the delete preconditions against
 * the latest pod), then deletes it with options.
 */
async function addConditionAndDeletePod(
  pods: GenericStore,
  namespace: string,
  name: string,
  options: DeleteOptions,
  now: number,
): Promise<void> {
  let opts = options;
  if (!options.dryRun) {
    const pre = options.preconditions;
    const updated = await pods.guaranteedUpdate(
      namespace,
      name,
      (latest) => {
        if (pre?.uid && pre.uid !== latest.metadata.uid) {
          throw statusErrors.conflict(
            POD,
            name,
            `the UID in the precondition (${pre.uid}) does not match the UID in record (${latest.metadata.uid ?? ''}). The object might have been deleted and then recreated`,
          );
        }
        if (pre?.resourceVersion && pre.resourceVersion !== latest.metadata.resourceVersion) {
          throw statusErrors.conflict(
            POD,
            name,
            `the ResourceVersion in the precondition (${pre.resourceVersion}) does not match the ResourceVersion in record (${latest.metadata.resourceVersion ?? ''}). The object might have been modified`,
          );
        }
        setDisruptionTarget(latest, now);
        return latest;
      },
      {
        subresource: 'status',
        prepare: { status: true },
        skipAdmission: true,
        validate: (next, old) => pods.validateUpdate(next, old, true),
      },
    );
    // The condition's write moved the pod's resourceVersion; a precondition on it follows.
    if (resourceVersionSet(options)) opts = withResourceVersion(options, updated.metadata.resourceVersion);
  }
  await pods.delete(namespace, name, { ...opts, skipAdmission: true });
}

/** Upstream's UpdatePodCondition with DisruptionTarget=True, reason EvictionByEvictionAPI. */
function setDisruptionTarget(pod: KubeObject, now: number): void {
  const status = rec(pod.status);
  pod.status = status;
  const conditions = Array.isArray(status.conditions) ? (status.conditions as Rec[]) : [];
  const condition: Rec = {
    type: 'DisruptionTarget',
    status: 'True',
    lastProbeTime: null,
    lastTransitionTime: nowTimestamp(now),
    reason: 'EvictionByEvictionAPI',
    message: 'Eviction API: evicting',
  };
  const i = conditions.findIndex((c) => isObject(c) && c.type === 'DisruptionTarget');
  const existing = conditions[i];
  if (i < 0 || !existing) conditions.push(condition);
  else {
    if (existing.status === condition.status) condition.lastTransitionTime = existing.lastTransitionTime ?? null;
    conditions[i] = condition;
  }
  status.conditions = conditions;
}

function sleep(clock: Clock, ms: number): Promise<void> {
  return new Promise((resolve) => clock.after(ms, resolve));
}

/** A retry interval with upstream's 10% jitter. */
function retryInterval(): number {
  return RETRY_INTERVAL_MS * (1 + Math.random() * 0.1);
}

/**
 * Evicts pod `name` in `namespace` with the Eviction's delete options (dryRun included). Returns the Status to
 * answer with (201 Success, or the 500 for a pod covered by several budgets); throws the refusals.
 */
export async function evictPod(
  stores: EvictionStores,
  namespace: string,
  name: string,
  options: DeleteOptions,
): Promise<Status> {
  const { pods, pdbs } = stores;
  const clock = stores.clock ?? realClock;
  const success: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 };
  const pinned = resourceVersionSet(options);

  // A pod whose disruption already happened goes without asking a budget (retrying conflicts, unless the client
  // pinned a resourceVersion).
  let pod: KubeObject | undefined;
  for (let attempt = 1; ; attempt++) {
    try {
      pod = await pods.get(namespace, name);
      if (!canIgnorePDB(pod)) break;
      const opts =
        shouldEnforceResourceVersion(pod) && !pinned
          ? withResourceVersion(options, pod.metadata.resourceVersion)
          : options;
      await addConditionAndDeletePod(pods, namespace, name, opts, clock.now());
      return success;
    } catch (err) {
      if (pinned || !isConflict(err) || attempt >= RETRY_STEPS) throw err;
      await sleep(clock, retryInterval());
    }
  }

  const matching = pdbs ? await budgetsFor(pdbs, pod, namespace) : [];
  if (matching.length > 1) {
    return {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.',
      code: 500,
    };
  }
  let pdbName = '';
  let unhealthyDelete = false;
  const pdb = matching[0];
  if (pdbs && pdb) {
    pdbName = pdb.metadata.name ?? '';
    const status = rec(pdb.status);
    if (!isPodReady(pod)) {
      const policy = rec(pdb.spec).unhealthyPodEvictionPolicy;
      const desired = num(status.desiredHealthy);
      // Deleting a pod that does not count as healthy spends nothing, when the budget allows it.
      if (policy === 'AlwaysAllow' || (num(status.currentHealthy) >= desired && desired > 0)) unhealthyDelete = true;
    }
    if (!unhealthyDelete) {
      let current = pdb;
      for (let attempt = 1; ; attempt++) {
        try {
          await checkAndDecrement(pdbs, namespace, name, current, options.dryRun === true, clock.now());
          break;
        } catch (err) {
          if (!isConflict(err) || attempt >= RETRY_STEPS) throw err;
          await sleep(clock, retryInterval());
          current = await pdbs.get(namespace, pdbName);
        }
      }
    }
  }

  const opts = unhealthyDelete ? withResourceVersion(options, pod.metadata.resourceVersion) : options;
  try {
    await addConditionAndDeletePod(pods, namespace, name, opts, clock.now());
  } catch (err) {
    // The unhealthy pod changed since it was looked at: the client should try again.
    if (isConflict(err) && unhealthyDelete && !pinned) throw stillBeingProcessed(pdbName);
    throw err;
  }
  return success;
}
