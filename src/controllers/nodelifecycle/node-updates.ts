/**
 * Writes the node lifecycle controller makes to nodes and pods (upstream's pkg/controller controller_utils.go and
 * pkg/controller/util/node):
 *
 * - `addOrUpdateTaintsOnNode`, `removeTaintsOffNode`, `swapNodeControllerTaint`: read the node (the apiserver's
 *   cache first, then fresh after a conflict) and patch `spec.taints` with the node's resourceVersion as
 *   precondition, retried on conflict;
 * - `addOrUpdateLabelsOnNode`;
 * - `markPodsNotReady`: sets the Ready condition of a node's pods to False, with a `NodeNotReady` event on each;
 * - `recordNodeEvent`, `recordNodeStatusChange`: events about a node, upstream's texts.
 */
import { type Taint, taintExists, taintMatches } from '../../api/taints.js';
import type { EventRecorder } from '../../client/events/broadcaster.js';
import { EVENT_TYPE_NORMAL, EVENT_TYPE_WARNING, formatTime } from '../../client/events/event.js';
import type { KubeClient } from '../../client/rest.js';
import { isConflict, isNotFound, type KubeObject } from '../../client/types.js';
import type { Logger } from '../../util/logger.js';
import { updatePodCondition } from '../common/pod-conditions.js';
import type { PodCondition } from '../common/pods.js';

/** Tries of a taint or label update before it is given up (upstream's UpdateTaintBackoff steps). */
const UPDATE_RETRIES = 5;

const taintsOf = (node: KubeObject): Taint[] => (node.spec?.taints ?? []) as Taint[];
const sameTaint = (a: Taint, b: Taint) =>
  a.key === b.key &&
  a.effect === b.effect &&
  (a.value ?? '') === (b.value ?? '') &&
  (a.timeAdded ?? '') === (b.timeAdded ?? '');

/**
 * Reads the node and patches it with what edit makes of it (nothing when edit answers undefined), retrying on a
 * conflict with a fresh read.
 */
async function patchNode(
  client: KubeClient,
  nodeName: string,
  edit: (node: KubeObject) => Record<string, unknown> | undefined,
): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    // The first read may come from the apiserver's cache; a retry reads the latest.
    const node = await client.nodes().get(nodeName, attempt === 0 ? { resourceVersion: '0' } : {});
    const patch = edit(node);
    if (!patch) return;
    try {
      await client.nodes().patch(nodeName, 'merge', {
        ...patch,
        metadata: { ...(patch.metadata as object), resourceVersion: node.metadata.resourceVersion },
      });
      return;
    } catch (err) {
      if (!isConflict(err) || attempt + 1 >= UPDATE_RETRIES) throw err;
    }
  }
}

/** Adds the taints, replacing one with the same key and effect that differs (AddOrUpdateTaintOnNode). */
export async function addOrUpdateTaintsOnNode(client: KubeClient, nodeName: string, taints: Taint[]): Promise<void> {
  if (taints.length === 0) return;
  await patchNode(client, nodeName, (node) => {
    let current = taintsOf(node);
    let updated = false;
    for (const taint of taints) {
      const existing = current.find((t) => taintMatches(t, taint));
      if (existing && sameTaint(existing, taint)) continue;
      updated = true;
      current = existing ? current.map((t) => (taintMatches(t, taint) ? taint : t)) : [...current, taint];
    }
    return updated ? { spec: { taints: current } } : undefined;
  });
}

/** Removes the taints (by key and effect); nothing is read when the given node has none of them. */
export async function removeTaintsOffNode(
  client: KubeClient,
  nodeName: string,
  node: KubeObject | undefined,
  taints: Taint[],
): Promise<void> {
  if (taints.length === 0) return;
  if (node && !taints.some((t) => taintExists(taintsOf(node), t))) return;
  await patchNode(client, nodeName, (fresh) => {
    const current = taintsOf(fresh);
    const kept = current.filter((t) => !taints.some((r) => taintMatches(t, r)));
    if (kept.length === current.length) return undefined;
    return { spec: { taints: kept.length > 0 ? kept : null } };
  });
}

/**
 * Adds taintsToAdd (stamped with the time now) and removes taintsToRemove; false (after logging) when either
 * write failed (SwapNodeControllerTaint).
 */
export async function swapNodeControllerTaint(
  client: KubeClient,
  log: Logger,
  nowMs: number,
  taintsToAdd: Taint[],
  taintsToRemove: Taint[],
  node: KubeObject,
): Promise<boolean> {
  const nodeName = node.metadata.name ?? '';
  const stamped = taintsToAdd.map((t) => ({ ...t, timeAdded: formatTime(nowMs) }));
  try {
    await addOrUpdateTaintsOnNode(client, nodeName, stamped);
  } catch (err) {
    log.error(`unable to taint ${JSON.stringify(stamped)} unresponsive Node "${nodeName}"`, { err: String(err) });
    return false;
  }
  log.v(4).info('Added taint to node', { taint: stamped, node: nodeName });
  try {
    await removeTaintsOffNode(client, nodeName, node, taintsToRemove);
  } catch (err) {
    log.error(
      `unable to remove ${JSON.stringify(taintsToRemove)} unneeded taint from unresponsive Node "${nodeName}"`,
      {
        err: String(err),
      },
    );
    return false;
  }
  log.v(4).info('Made sure that node has no taint', { node: nodeName, taint: taintsToRemove });
  return true;
}

/** Sets the labels on the node (AddOrUpdateLabelsOnNode). */
export async function addOrUpdateLabelsOnNode(
  client: KubeClient,
  nodeName: string,
  labels: Record<string, string>,
): Promise<void> {
  await patchNode(client, nodeName, (node) => {
    const current = node.metadata.labels ?? {};
    const changed = Object.entries(labels).some(([k, v]) => current[k] !== v);
    return changed ? { metadata: { labels } } : undefined;
  });
}

/**
 * Sets Ready=False on every pod of the node that is ready (MarkPodsNotReady), with a `NodeNotReady` warning event
 * on each pod changed. Throws (after trying them all) when some update failed for a reason other than NotFound.
 */
export async function markPodsNotReady(
  client: KubeClient,
  recorder: EventRecorder,
  log: Logger,
  pods: readonly KubeObject[],
  nodeName: string,
  nowMs: number,
): Promise<void> {
  log.v(2).info('Update ready status of pods on node', { node: nodeName });
  const errors: unknown[] = [];
  for (const cached of pods) {
    if (cached.spec?.nodeName !== nodeName) continue;
    const ready = ((cached.status?.conditions ?? []) as PodCondition[]).find((c) => c?.type === 'Ready');
    if (!ready) continue;
    const pod = structuredClone(cached);
    const conditions = (pod.status?.conditions ?? []) as PodCondition[];
    if (!updatePodCondition(conditions, { ...ready, status: 'False' }, nowMs)) continue;
    log.v(2).info('Updating ready status of pod to false', { pod: `${pod.metadata.namespace}/${pod.metadata.name}` });
    try {
      await client.pods(pod.metadata.namespace ?? '').updateStatus({ ...pod, apiVersion: 'v1', kind: 'Pod' });
    } catch (err) {
      if (isNotFound(err)) continue;
      log.info('Failed to update status for pod', { pod: pod.metadata.name, err: String(err) });
      errors.push(err);
    }
    recorder.event({ ...pod, apiVersion: 'v1', kind: 'Pod' }, EVENT_TYPE_WARNING, 'NodeNotReady', 'Node is not ready');
  }
  if (errors.length === 1) throw errors[0];
  if (errors.length > 1) throw new Error(`[${errors.map(String).join(', ')}]`);
}

const nodeRef = (name: string, uid: string) => ({ apiVersion: 'v1', kind: 'Node', name, uid });

/** An event about a node: "Node NAME event: TEXT" (RecordNodeEvent). */
export function recordNodeEvent(
  recorder: EventRecorder,
  nodeName: string,
  nodeUid: string,
  type: string,
  reason: string,
  text: string,
): void {
  recorder.eventf(nodeRef(nodeName, nodeUid), type, reason, 'Node %s event: %s', nodeName, text);
}

/** A Normal event whose reason is the node's new status: "Node NAME status is now: STATUS". */
export function recordNodeStatusChange(recorder: EventRecorder, node: KubeObject, newStatus: string): void {
  const name = node.metadata.name ?? '';
  recorder.eventf(
    nodeRef(name, node.metadata.uid ?? ''),
    EVENT_TYPE_NORMAL,
    newStatus,
    'Node %s status is now: %s',
    name,
    newStatus,
  );
}
