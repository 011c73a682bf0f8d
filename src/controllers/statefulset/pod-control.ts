/**
 * StatefulPodControl (upstream's stateful_pod_control.go, in our own code): creates a pod's PersistentVolumeClaims
 * and then the pod, brings a pod's identity, storage and claim ownership back in line with the set, deletes pods,
 * and records upstream's events on the set — `SuccessfulCreate` "create Pod web-0 in StatefulSet web successful",
 * `FailedCreate` "create Pod web-0 in StatefulSet web failed error: …", the same for `update`/`delete`, and for
 * claims "create Claim data-web-0 Pod web-0 in StatefulSet web success".
 */
import type { Indexer } from '../../client/cache/store.js';
import type { EventRecorder } from '../../client/events/broadcaster.js';
import { isAlreadyExists, isConflict, type KubeObject, type ResourceClient } from '../../client/types.js';
import { aggregateMessage } from '../common/controller-ref.js';
import { hasStaleOwnerRef, isClaimOwnerUpToDate, retentionPolicy, updateClaimOwnerRefs } from './claims.js';
import {
  claimName,
  claimsForPod,
  getOrdinal,
  identityMatches,
  storageMatches,
  updateIdentity,
  updateStorage,
} from './identity.js';
import { type ClaimTemplate, POD_KIND, type Pod, STATEFUL_SET_KIND, type StatefulSet } from './types.js';

/** client-go's retry.DefaultBackoff: how many times an update is tried when it conflicts. */
const UPDATE_ATTEMPTS = 4;

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

const title = (verb: string) => verb.charAt(0).toUpperCase() + verb.slice(1);
const subject = (set: StatefulSet) => ({ ...set, ...STATEFUL_SET_KIND });

export class StatefulPodControl {
  constructor(
    private readonly pods: ResourceClient,
    private readonly claims: ResourceClient,
    private readonly podIndexer: Indexer,
    private readonly claimIndexer: Indexer,
    private readonly recorder: EventRecorder,
  ) {}

  private cachedClaim(namespace: string, name: string): (ClaimTemplate & KubeObject) | undefined {
    return this.claimIndexer.getByKey(`${namespace}/${name}`) as (ClaimTemplate & KubeObject) | undefined;
  }

  /** Creates the pod's claims, then the pod; an AlreadyExists pod is returned as an error without an event. */
  async createStatefulPod(set: StatefulSet, pod: Pod): Promise<void> {
    try {
      await this.createPersistentVolumeClaims(set, pod);
    } catch (err) {
      this.recordPodEvent('create', set, pod, err);
      throw err;
    }
    try {
      await this.pods.namespace(pod.metadata.namespace ?? '').create(pod);
    } catch (err) {
      if (isAlreadyExists(err)) throw err;
      this.recordPodEvent('create', set, pod, err);
      throw err;
    }
    // Give the claims the owners the retention policy asks for, as far as possible already.
    try {
      await this.updatePodClaimForRetentionPolicy(set, pod);
    } catch (err) {
      this.recordPodEvent('update', set, pod, err);
      throw err;
    }
    this.recordPodEvent('create', set, pod, undefined);
  }

  /** Creates the claims a pending pod is missing, and sets their owners. */
  async createMissingPersistentVolumeClaims(set: StatefulSet, pod: Pod): Promise<void> {
    await this.createPersistentVolumeClaims(set, pod);
    try {
      await this.updatePodClaimForRetentionPolicy(set, pod);
    } catch (err) {
      this.recordPodEvent('update', set, pod, err);
      throw err;
    }
  }

  /** Makes the pod's identity, volumes and claim owners agree with set; retries conflicts from the cache. */
  async updateStatefulPod(set: StatefulSet, original: Pod): Promise<void> {
    let pod = structuredClone(original);
    let attempted = false;
    let failure: unknown;
    for (let attempt = 1; ; attempt++) {
      let consistent = true;
      try {
        if (!identityMatches(set, pod)) {
          updateIdentity(set, pod);
          consistent = false;
        }
        if (!storageMatches(set, pod)) {
          updateStorage(set, pod);
          consistent = false;
          await this.createPersistentVolumeClaims(set, pod);
        }
        if (!this.claimsMatchRetentionPolicy(set, pod)) {
          await this.updatePodClaimForRetentionPolicy(set, pod);
          consistent = false;
        }
      } catch (err) {
        this.recordPodEvent('update', set, pod, err);
        throw err;
      }
      if (consistent) break;
      attempted = true;
      try {
        await this.pods.namespace(pod.metadata.namespace ?? '').update(pod);
        failure = undefined;
        break;
      } catch (err) {
        failure = err;
        if (!isConflict(err) || attempt >= UPDATE_ATTEMPTS) break;
        const cached = this.podIndexer.getByKey(`${set.metadata.namespace ?? ''}/${pod.metadata.name ?? ''}`);
        if (cached) pod = structuredClone(cached);
      }
    }
    if (attempted) this.recordPodEvent('update', set, pod, failure);
    if (failure !== undefined) throw failure;
  }

  async deleteStatefulPod(set: StatefulSet, pod: Pod): Promise<void> {
    try {
      await this.pods.namespace(pod.metadata.namespace ?? '').delete(pod.metadata.name ?? '');
    } catch (err) {
      this.recordPodEvent('delete', set, pod, err);
      throw err;
    }
    this.recordPodEvent('delete', set, pod, undefined);
  }

  /** Whether every existing claim of the pod has the owners set's retention policy asks for. */
  claimsMatchRetentionPolicy(set: StatefulSet, pod: Pod): boolean {
    const ordinal = getOrdinal(pod);
    for (const template of set.spec.volumeClaimTemplates ?? []) {
      const claim = this.cachedClaim(set.metadata.namespace ?? '', claimName(set, template, ordinal));
      if (claim && !isClaimOwnerUpToDate(claim, set, pod)) return false;
    }
    return true;
  }

  /** Rewrites the owners of the pod's claims that do not match set's retention policy. */
  async updatePodClaimForRetentionPolicy(set: StatefulSet, pod: Pod): Promise<void> {
    const ordinal = getOrdinal(pod);
    for (const template of set.spec.volumeClaimTemplates ?? []) {
      const name = claimName(set, template, ordinal);
      const cached = this.cachedClaim(set.metadata.namespace ?? '', name);
      if (!cached || isClaimOwnerUpToDate(cached, set, pod)) continue;
      const claim = structuredClone(cached);
      updateClaimOwnerRefs(claim, set, pod);
      try {
        await this.claims.namespace(set.metadata.namespace ?? '').update(claim);
      } catch (err) {
        throw new Error(`could not update claim ${name} for delete policy ownerRefs: ${message(err)}`);
      }
    }
  }

  /**
   * Under whenScaled: Delete, a claim still owned by an earlier pod of the same name is stale: the garbage collector
   * is about to delete it, so the pod must not be created on it yet.
   */
  podClaimIsStale(set: StatefulSet, pod: Pod): boolean {
    if (retentionPolicy(set).whenScaled === 'Retain') return false;
    for (const claim of claimsForPod(set, pod).values()) {
      const existing = this.cachedClaim(claim.metadata?.namespace ?? '', claim.metadata?.name ?? '');
      if (existing && hasStaleOwnerRef(existing, pod, POD_KIND)) return true;
    }
    return false;
  }

  /** Creates the pod's claims that do not exist; fails for a claim being deleted. */
  async createPersistentVolumeClaims(set: StatefulSet, pod: Pod): Promise<void> {
    const errors: Error[] = [];
    for (const claim of claimsForPod(set, pod).values()) {
      const name = claim.metadata?.name ?? '';
      const namespace = claim.metadata?.namespace ?? '';
      const existing = this.cachedClaim(namespace, name);
      if (existing) {
        if (existing.metadata.deletionTimestamp) errors.push(new Error(`pvc ${name} is being deleted`));
        continue;
      }
      try {
        await this.claims.namespace(namespace).create(claim as KubeObject);
        this.recordClaimEvent('create', set, pod, name, undefined);
      } catch (err) {
        errors.push(new Error(`failed to create PVC ${name}: ${message(err)}`));
        if (!isAlreadyExists(err)) this.recordClaimEvent('create', set, pod, name, err);
      }
    }
    if (errors.length > 0) throw new Error(aggregateMessage(errors));
  }

  private recordPodEvent(verb: string, set: StatefulSet, pod: Pod, err: unknown): void {
    const podName = pod.metadata.name ?? '';
    const setName = set.metadata.name ?? '';
    if (err === undefined) {
      this.recorder.event(
        subject(set),
        'Normal',
        `Successful${title(verb)}`,
        `${verb} Pod ${podName} in StatefulSet ${setName} successful`,
      );
    } else {
      this.recorder.event(
        subject(set),
        'Warning',
        `Failed${title(verb)}`,
        `${verb} Pod ${podName} in StatefulSet ${setName} failed error: ${message(err)}`,
      );
    }
  }

  private recordClaimEvent(verb: string, set: StatefulSet, pod: Pod, claim: string, err: unknown): void {
    const podName = pod.metadata.name ?? '';
    const setName = set.metadata.name ?? '';
    if (err === undefined) {
      this.recorder.event(
        subject(set),
        'Normal',
        `Successful${title(verb)}`,
        `${verb} Claim ${claim} Pod ${podName} in StatefulSet ${setName} success`,
      );
    } else {
      this.recorder.event(
        subject(set),
        'Warning',
        `Failed${title(verb)}`,
        `${verb} Claim ${claim} for Pod ${podName} in StatefulSet ${setName} failed error: ${message(err)}`,
      );
    }
  }
}
