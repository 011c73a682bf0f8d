/**
 * A DaemonSet's status as upstream counts it, per node that should run a pod: desiredNumberScheduled, and — looking
 * at the node's oldest pod — currentNumberScheduled, numberReady, numberAvailable (ready for minReadySeconds),
 * updatedNumberScheduled (of the current revision); numberMisscheduled counts nodes with a pod that should have none;
 * numberUnavailable is desired minus available. observedGeneration moves only when the sync acted on the spec.
 */
import type { KubeObject, ResourceClient } from '../../client/types.js';
import { isPodAvailable, isPodReady } from '../common/pods.js';
import { nodeShouldRunDaemonPod } from './placement.js';
import { compareDaemonPods, isPodUpdated, templateGeneration } from './pods.js';

export interface DaemonSetCounts {
  desiredNumberScheduled: number;
  currentNumberScheduled: number;
  numberMisscheduled: number;
  numberReady: number;
  updatedNumberScheduled: number;
  numberAvailable: number;
  numberUnavailable: number;
}

/** The DaemonSetStatus counts tagged omitempty in apps/v1. */
const OMITTED_AT_ZERO = ['updatedNumberScheduled', 'numberAvailable', 'numberUnavailable'] as const;

/** Upstream's StatusUpdateRetries. */
const STATUS_UPDATE_RETRIES = 1;

export function countDaemonSet(
  ds: KubeObject,
  nodes: readonly KubeObject[],
  nodeToDaemonPods: ReadonlyMap<string, KubeObject[]>,
  hash: string,
  nowMs: number,
): DaemonSetCounts {
  const c: DaemonSetCounts = {
    desiredNumberScheduled: 0,
    currentNumberScheduled: 0,
    numberMisscheduled: 0,
    numberReady: 0,
    updatedNumberScheduled: 0,
    numberAvailable: 0,
    numberUnavailable: 0,
  };
  const generation = templateGeneration(ds);
  const minReady: number = ds.spec?.minReadySeconds ?? 0;
  for (const node of nodes) {
    const pods = nodeToDaemonPods.get(node.metadata.name ?? '') ?? [];
    const [shouldRun] = nodeShouldRunDaemonPod(node, ds);
    if (!shouldRun) {
      if (pods.length > 0) c.numberMisscheduled++;
      continue;
    }
    c.desiredNumberScheduled++;
    if (pods.length === 0) continue;
    c.currentNumberScheduled++;
    let pod = pods[0] as KubeObject;
    for (let i = 1; i < pods.length; i++)
      if (compareDaemonPods(pods[i] as KubeObject, pod) < 0) pod = pods[i] as KubeObject;
    if (isPodReady(pod)) {
      c.numberReady++;
      if (isPodAvailable(pod, minReady, nowMs)) c.numberAvailable++;
    }
    if (isPodUpdated(pod, hash, generation)) c.updatedNumberScheduled++;
  }
  c.numberUnavailable = c.desiredNumberScheduled - c.numberAvailable;
  return c;
}

/** storeDaemonSetStatus: writes the counts (and observedGeneration) unless the status already says so. */
export async function storeDaemonSetStatus(
  client: ResourceClient,
  ds: KubeObject,
  counts: DaemonSetCounts,
  updateObservedGeneration: boolean,
): Promise<void> {
  const status = ds.status ?? {};
  const generation: number = ds.metadata.generation ?? 0;
  const same = (Object.keys(counts) as (keyof DaemonSetCounts)[]).every((k) => (status[k] ?? 0) === counts[k]);
  if (same && (status.observedGeneration ?? 0) >= generation) return;
  const ns = client.namespace(ds.metadata.namespace ?? '');
  let toUpdate: KubeObject = ds;
  for (let attempt = 0; ; attempt++) {
    const next = {
      ...toUpdate,
      status: {
        ...(toUpdate.status ?? {}),
        ...counts,
        ...(updateObservedGeneration ? { observedGeneration: generation } : {}),
      },
    };
    // Fields apps/v1 declares omitempty are left out at zero, as upstream's encoding of the status leaves them.
    for (const k of OMITTED_AT_ZERO) if (next.status[k] === 0) delete next.status[k];
    try {
      await ns.updateStatus(next);
      return;
    } catch (err) {
      if (attempt >= STATUS_UPDATE_RETRIES) throw err;
      toUpdate = await ns.get(ds.metadata.name ?? '');
    }
  }
}
