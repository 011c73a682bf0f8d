/**
 * The new ReplicaSet of a Deployment (the one running its current template): found among its ReplicaSets and
 * given the next revision (which is how a rollback to an old template re-uses that template's ReplicaSet), or
 * created as `<deployment>-<pod-template-hash>`, with a hash collision resolved by bumping status.collisionCount.
 */
import { isAlreadyExists } from '../../client/types.js';
import { getControllerOf, isNamespaceTerminatingError, newControllerRef } from '../common/index.js';
import { type SyncDeps, updateReplicaSet, writeDeploymentStatus } from './deps.js';
import { setDeploymentRevision, setNewReplicaSetAnnotations } from './util/annotations.js';
import { computeHash, equalIgnoreHash } from './util/hash.js';
import { findNewReplicaSet, findOldReplicaSets, maxRevision } from './util/replica-sets.js';
import { newRSNewReplicas } from './util/scaling.js';
import { getCondition, hasProgressDeadline, newCondition, setCondition } from './util/status.js';
import {
  DEPLOYMENT_PROGRESSING,
  type Deployment,
  FAILED_RS_CREATE_REASON,
  FOUND_NEW_RS_REASON,
  NEW_REPLICA_SET_REASON,
  POD_TEMPLATE_HASH_LABEL,
  REVISION_ANNOTATION,
  type ReplicaSet,
} from './util/types.js';

export const DEPLOYMENT_KIND = { apiVersion: 'apps/v1', kind: 'Deployment' };

const quote = (s: string) => JSON.stringify(s);

/**
 * getAllReplicaSetsAndSyncRevision: [the new ReplicaSet (created when asked and missing), all old ones]. rsList
 * is the Deployment's claimed ReplicaSets; a ReplicaSet written here is replaced in it by what the server answered.
 */
export async function getAllReplicaSetsAndSyncRevision(
  deps: SyncDeps,
  d: Deployment,
  rsList: ReplicaSet[],
  createIfNotExisted: boolean,
): Promise<[ReplicaSet | undefined, ReplicaSet[]]> {
  const [, allOld] = findOldReplicaSets(d, rsList);
  const newRS = await getNewReplicaSet(deps, d, rsList, allOld, createIfNotExisted);
  return [newRS, allOld];
}

async function getNewReplicaSet(
  deps: SyncDeps,
  d: Deployment,
  rsList: ReplicaSet[],
  oldRSs: readonly ReplicaSet[],
  createIfNotExisted: boolean,
): Promise<ReplicaSet | undefined> {
  const existing = findNewReplicaSet(d, rsList);
  const newRevision = String(maxRevision(oldRSs) + 1);
  const now = deps.clock.now();

  if (existing) {
    const copy = structuredClone(existing);
    const annotationsUpdated = setNewReplicaSetAnnotations(d, copy, newRevision, true);
    const minReadySeconds = d.spec.minReadySeconds ?? 0;
    if (annotationsUpdated || (copy.spec.minReadySeconds ?? 0) !== minReadySeconds) {
      copy.spec.minReadySeconds = minReadySeconds;
      const updated = await updateReplicaSet(deps, copy);
      const i = rsList.indexOf(existing);
      if (i >= 0) rsList[i] = updated;
      return updated;
    }
    let needsUpdate = setDeploymentRevision(d, copy.metadata.annotations?.[REVISION_ANNOTATION]);
    if (hasProgressDeadline(d) && !getCondition(d.status, DEPLOYMENT_PROGRESSING)) {
      d.status ??= {};
      const msg = `Found new replica set ${quote(copy.metadata.name ?? '')}`;
      setCondition(d.status, newCondition(now, DEPLOYMENT_PROGRESSING, 'True', FOUND_NEW_RS_REASON, msg));
      needsUpdate = true;
    }
    if (needsUpdate) await writeDeploymentStatus(deps, d);
    return copy;
  }

  if (!createIfNotExisted) return undefined;

  const ns = d.metadata.namespace ?? '';
  const template = structuredClone(d.spec.template ?? {});
  const hash = computeHash(template, d.status?.collisionCount);
  const labels = { ...(d.spec.template?.metadata?.labels ?? {}), [POD_TEMPLATE_HASH_LABEL]: hash };
  template.metadata = { ...template.metadata, labels };
  const selector = structuredClone(d.spec.selector ?? {});
  selector.matchLabels = { ...(selector.matchLabels ?? {}), [POD_TEMPLATE_HASH_LABEL]: hash };
  const newRS: ReplicaSet = {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name: `${d.metadata.name}-${hash}`,
      namespace: ns,
      ownerReferences: [newControllerRef(d, DEPLOYMENT_KIND)],
      labels: { ...labels },
    },
    spec: { replicas: 0, minReadySeconds: d.spec.minReadySeconds ?? 0, selector, template },
  };
  const newReplicas = newRSNewReplicas(d, [...oldRSs, newRS], newRS);
  newRS.spec.replicas = newReplicas;
  setNewReplicaSetAnnotations(d, newRS, newRevision, false);

  let created: ReplicaSet;
  let alreadyExists = false;
  try {
    created = (await deps.client.replicaSets(ns).create(newRS)) as ReplicaSet;
  } catch (err) {
    if (isAlreadyExists(err)) {
      alreadyExists = true;
      const rs = deps.cachedReplicaSet(ns, newRS.metadata.name ?? '');
      if (!rs) throw err;
      const ref = getControllerOf(rs);
      if (ref && ref.uid === d.metadata.uid && equalIgnoreHash(d.spec.template, rs.spec.template)) {
        created = rs;
      } else {
        // A different template hashed to this name: count the collision; the next sync tries another name.
        d.status ??= {};
        const before = d.status.collisionCount ?? 0;
        d.status.collisionCount = before + 1;
        try {
          await writeDeploymentStatus(deps, d);
          deps.logger.v(2).info('Found a hash collision for deployment - bumping collisionCount to resolve it', {
            deployment: `${ns}/${d.metadata.name}`,
            oldCollisionCount: before,
            newCollisionCount: before + 1,
          });
        } catch {
          // retried with the original error
        }
        throw err;
      }
    } else if (isNamespaceTerminatingError(err)) {
      throw err;
    } else {
      const msg = `Failed to create new replica set ${quote(newRS.metadata.name ?? '')}: ${err instanceof Error ? err.message : String(err)}`;
      if (hasProgressDeadline(d)) {
        d.status ??= {};
        setCondition(d.status, newCondition(now, DEPLOYMENT_PROGRESSING, 'False', FAILED_RS_CREATE_REASON, msg));
        await writeDeploymentStatus(deps, d).catch(() => {});
      }
      deps.recorder.event(d, 'Warning', FAILED_RS_CREATE_REASON, msg);
      throw err;
    }
  }
  if (!alreadyExists && newReplicas > 0) {
    deps.recorder.event(
      d,
      'Normal',
      'ScalingReplicaSet',
      `Scaled up replica set ${created.metadata.name} from 0 to ${newReplicas}`,
    );
  }
  rsList.push(created);
  let needsUpdate = setDeploymentRevision(d, newRevision);
  if (!alreadyExists && hasProgressDeadline(d)) {
    d.status ??= {};
    const msg = `Created new replica set ${quote(created.metadata.name ?? '')}`;
    setCondition(d.status, newCondition(now, DEPLOYMENT_PROGRESSING, 'True', NEW_REPLICA_SET_REASON, msg));
    needsUpdate = true;
  }
  if (needsUpdate) await writeDeploymentStatus(deps, d);
  return created;
}
