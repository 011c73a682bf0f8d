/**
 * What the deployment controller's sync steps share: the client, the event recorder, the clock, the
 * ReplicaSet cache, the queue (to look again later), and the two writes every step makes — a ReplicaSet update and
 * a Deployment status update.
 */
import type { EventRecorder } from '../../client/events/broadcaster.js';
import type { KubeClient } from '../../client/rest.js';
import type { Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import { type Deployment, REVISION_ANNOTATION, type ReplicaSet } from './util/types.js';

export interface SyncDeps {
  client: KubeClient;
  recorder: EventRecorder;
  clock: Clock;
  logger: Logger;
  /** A ReplicaSet from the informer's cache. */
  cachedReplicaSet(namespace: string, name: string): ReplicaSet | undefined;
  enqueueAfter(d: Deployment, ms: number): void;
  enqueueRateLimited(d: Deployment): void;
}

/**
 * UpdateStatus of the Deployment d (its status and, as upstream's status strategy allows, its annotations: the
 * revision). d's resourceVersion follows the answer, so that later writes in the same sync do not conflict.
 */
export async function writeDeploymentStatus(deps: SyncDeps, d: Deployment): Promise<void> {
  const ns = d.metadata.namespace ?? '';
  let written = (await deps.client.deployments(ns).updateStatus(d)) as Deployment;
  const revision = d.metadata.annotations?.[REVISION_ANNOTATION];
  if (revision !== undefined && written.metadata.annotations?.[REVISION_ANNOTATION] !== revision) {
    // An apiserver whose status strategy keeps annotations: set the revision through the main resource.
    written = (await deps.client.deployments(ns).patch(d.metadata.name ?? '', 'merge', {
      metadata: { resourceVersion: written.metadata.resourceVersion, annotations: { [REVISION_ANNOTATION]: revision } },
    })) as Deployment;
  }
  if (written.metadata.resourceVersion) d.metadata.resourceVersion = written.metadata.resourceVersion;
}

/** PUT of a ReplicaSet; resolves with the stored object. */
export async function updateReplicaSet(deps: SyncDeps, rs: ReplicaSet): Promise<ReplicaSet> {
  return (await deps.client.replicaSets(rs.metadata.namespace ?? '').update(rs)) as ReplicaSet;
}

export function deepCopy<T>(obj: T): T {
  return structuredClone(obj);
}
