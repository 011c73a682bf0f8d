/**
 * rolloutRecreate: a Recreate step. Old ReplicaSets go to 0; only when none of their pods is left (running or
 * not yet terminated) is the new ReplicaSet created and scaled to spec.replicas.
 */

import type { KubeObject } from '../../client/types.js';
import type { SyncDeps } from './deps.js';
import { getAllReplicaSetsAndSyncRevision } from './new-replica-set.js';
import { syncRolloutStatus } from './progress.js';
import { cleanupDeployment, scaleReplicaSetAndRecordEvent } from './sync.js';
import { activeReplicaSets, actualReplicas } from './util/replica-sets.js';
import { deploymentComplete } from './util/status.js';
import { type Deployment, type ReplicaSet, replicasOf } from './util/types.js';

/** Pods by the uid of the ReplicaSet that controls them. */
export type PodMap = Map<string, KubeObject[]>;

export async function rolloutRecreate(
  deps: SyncDeps,
  d: Deployment,
  rsList: ReplicaSet[],
  podMap: PodMap,
): Promise<void> {
  let [newRS, oldRSs] = await getAllReplicaSetsAndSyncRevision(deps, d, rsList, false);
  let allRSs = [...oldRSs, newRS];

  let scaledDown = false;
  for (const rs of activeReplicaSets(oldRSs)) {
    const [scaled] = await scaleReplicaSetAndRecordEvent(deps, rs, 0, d);
    if (scaled) scaledDown = true;
  }
  if (scaledDown) return syncRolloutStatus(deps, allRSs, newRS, d);

  // Wait until the old pods are gone.
  if (oldPodsRunning(newRS, oldRSs, podMap)) return syncRolloutStatus(deps, allRSs, newRS, d);

  if (!newRS) {
    [newRS, oldRSs] = await getAllReplicaSetsAndSyncRevision(deps, d, rsList, true);
    allRSs = [...oldRSs, newRS];
  }
  if (newRS) await scaleReplicaSetAndRecordEvent(deps, newRS, replicasOf(d), d);

  if (deploymentComplete(d, d.status)) await cleanupDeployment(deps, oldRSs, d);
  return syncRolloutStatus(deps, allRSs, newRS, d);
}

/** Whether any pod of an old ReplicaSet is still there and has not finished (Succeeded or Failed). */
export function oldPodsRunning(newRS: ReplicaSet | undefined, oldRSs: readonly ReplicaSet[], podMap: PodMap): boolean {
  if (actualReplicas(oldRSs) > 0) return true;
  for (const [uid, pods] of podMap) {
    if (newRS && newRS.metadata.uid === uid) continue;
    for (const pod of pods) {
      const phase = pod.status?.phase;
      if (phase === 'Failed' || phase === 'Succeeded') continue;
      return true;
    }
  }
  return false;
}
