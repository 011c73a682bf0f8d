/**
 * A StatefulSet pod's identity (upstream's stateful_set_utils.go, in our own code): its ordinal parsed from its name
 * (`<set>-<ordinal>`), the ordinal range `[ordinals.start, ordinals.start + replicas)`, its hostname, subdomain and
 * identity labels, its PersistentVolumeClaims (`<template>-<set>-<ordinal>`) and the volumes pointing at them, its
 * revision label, the health predicates the controller orders its work by, and how a new pod is made from the
 * current or the update revision.
 */

import { newControllerRef } from '../common/controller-ref.js';
import { getPodFromTemplate, isPodAvailable, isPodReady } from '../common/pods.js';
import {
  type ClaimTemplate,
  POD_INDEX_LABEL,
  POD_NAME_LABEL,
  type Pod,
  REVISION_LABEL,
  STATEFUL_SET_KIND,
  type StatefulSet,
} from './types.js';

const ORDINAL_NAME = /^(.*)-([0-9]+)$/s;
const INT32_MAX = 2 ** 31 - 1;

/** The parent set's name and the ordinal in a pod's name; ordinal -1 (and parent '') when the name has none. */
export function parentNameAndOrdinal(pod: Pod): { parent: string; ordinal: number } {
  const match = ORDINAL_NAME.exec(pod.metadata.name ?? '');
  if (!match) return { parent: '', ordinal: -1 };
  const n = Number(match[2]);
  return { parent: match[1] ?? '', ordinal: n <= INT32_MAX ? n : -1 };
}

export function getOrdinal(pod: Pod): number {
  return parentNameAndOrdinal(pod).ordinal;
}

/** The first ordinal of the set (spec.ordinals.start, or 0). */
export function startOrdinal(set: StatefulSet): number {
  return set.spec.ordinals?.start ?? 0;
}

export function replicasOf(set: StatefulSet): number {
  return set.spec.replicas ?? 1;
}

/** The last ordinal of the set, inclusive. */
export function endOrdinal(set: StatefulSet): number {
  return startOrdinal(set) + replicasOf(set) - 1;
}

export function podInOrdinalRange(pod: Pod, set: StatefulSet): boolean {
  const ordinal = getOrdinal(pod);
  return ordinal >= startOrdinal(set) && ordinal <= endOrdinal(set);
}

export function podName(set: StatefulSet, ordinal: number): string {
  return `${set.metadata.name ?? ''}-${ordinal}`;
}

export function claimName(set: StatefulSet, template: ClaimTemplate, ordinal: number): string {
  return `${template.metadata?.name ?? ''}-${set.metadata.name ?? ''}-${ordinal}`;
}

/** Whether a pod's name makes it a member of set (upstream's isMemberOf: only the parent part counts). */
export function isMemberOf(set: StatefulSet, pod: Pod): boolean {
  return parentNameAndOrdinal(pod).parent === set.metadata.name;
}

/** Whether the pod's name, namespace and pod-name label are those of a member of set. */
export function identityMatches(set: StatefulSet, pod: Pod): boolean {
  const { parent, ordinal } = parentNameAndOrdinal(pod);
  return (
    ordinal >= 0 &&
    parent === set.metadata.name &&
    pod.metadata.name === podName(set, ordinal) &&
    pod.metadata.namespace === set.metadata.namespace &&
    pod.metadata.labels?.[POD_NAME_LABEL] === pod.metadata.name
  );
}

/** Whether the pod has a volume for each claim template, pointing at its own claim. */
export function storageMatches(set: StatefulSet, pod: Pod): boolean {
  const ordinal = getOrdinal(pod);
  if (ordinal < 0) return false;
  const volumes = new Map<string, { persistentVolumeClaim?: { claimName?: string } }>();
  for (const v of pod.spec?.volumes ?? []) volumes.set(v?.name, v);
  for (const template of set.spec.volumeClaimTemplates ?? []) {
    const volume = volumes.get(template.metadata?.name ?? '');
    if (volume?.persistentVolumeClaim?.claimName !== claimName(set, template, ordinal)) return false;
  }
  return true;
}

/**
 * The claims of a pod, keyed by template name: each template with the pod's claim name, the set's namespace, and
 * the set's matchLabels added to the template's labels.
 */
export function claimsForPod(set: StatefulSet, pod: Pod): Map<string, ClaimTemplate> {
  const ordinal = getOrdinal(pod);
  const claims = new Map<string, ClaimTemplate>();
  for (const template of set.spec.volumeClaimTemplates ?? []) {
    const claim = structuredClone(template);
    claim.apiVersion = 'v1';
    claim.kind = 'PersistentVolumeClaim';
    claim.metadata = {
      ...claim.metadata,
      name: claimName(set, template, ordinal),
      namespace: set.metadata.namespace ?? '',
      labels: { ...(claim.metadata?.labels ?? {}), ...(set.spec.selector?.matchLabels ?? {}) },
    };
    delete claim.status;
    claims.set(template.metadata?.name ?? '', claim);
  }
  return claims;
}

/** Points the pod's volumes named after claim templates at the pod's claims (replacing same-named volumes). */
export function updateStorage(set: StatefulSet, pod: Pod): void {
  const claims = claimsForPod(set, pod);
  const volumes: unknown[] = [];
  for (const [name, claim] of claims) {
    volumes.push({ name, persistentVolumeClaim: { claimName: claim.metadata?.name } });
  }
  for (const v of pod.spec?.volumes ?? []) if (!claims.has(v?.name)) volumes.push(v);
  pod.spec = { ...(pod.spec ?? {}), volumes };
  if (volumes.length === 0) delete pod.spec.volumes;
}

/** Sets the pod's name, namespace and identity labels from its ordinal. */
export function updateIdentity(set: StatefulSet, pod: Pod): void {
  const ordinal = getOrdinal(pod);
  pod.metadata.name = podName(set, ordinal);
  pod.metadata.namespace = set.metadata.namespace ?? '';
  pod.metadata.labels = { ...(pod.metadata.labels ?? {}), [POD_NAME_LABEL]: pod.metadata.name };
  pod.metadata.labels[POD_INDEX_LABEL] = String(ordinal);
}

/** updateIdentity plus the fields only set when the pod is made: hostname and subdomain (the governing Service). */
export function initIdentity(set: StatefulSet, pod: Pod): void {
  updateIdentity(set, pod);
  pod.spec = { ...(pod.spec ?? {}), hostname: pod.metadata.name };
  if (set.spec.serviceName) pod.spec.subdomain = set.spec.serviceName;
  else delete pod.spec.subdomain;
}

// Health.

export function isCreated(pod: Pod): boolean {
  return !!pod.status?.phase;
}
export function isPending(pod: Pod): boolean {
  return pod.status?.phase === 'Pending';
}
export function isFailed(pod: Pod): boolean {
  return pod.status?.phase === 'Failed';
}
export function isSucceeded(pod: Pod): boolean {
  return pod.status?.phase === 'Succeeded';
}
export function isTerminating(pod: Pod): boolean {
  return !!pod.metadata.deletionTimestamp;
}
export function isRunningAndReady(pod: Pod): boolean {
  return pod.status?.phase === 'Running' && isPodReady(pod);
}
/** Ready for minReadySeconds (upstream checks availability alone here, not the phase). */
export function isRunningAndAvailable(pod: Pod, minReadySeconds: number, nowMs: number): boolean {
  return isPodAvailable(pod, minReadySeconds, nowMs);
}
export function isHealthy(pod: Pod): boolean {
  return isRunningAndReady(pod) && !isTerminating(pod);
}
/** Not available, or on its way out. */
export function isUnavailable(pod: Pod, minReadySeconds: number, nowMs: number): boolean {
  return !isRunningAndAvailable(pod, minReadySeconds, nowMs) || isTerminating(pod);
}

export function allowsBurst(set: StatefulSet): boolean {
  return set.spec.podManagementPolicy === 'Parallel';
}

// Revisions of pods.

export function getPodRevision(pod: Pod): string {
  return pod.metadata.labels?.[REVISION_LABEL] ?? '';
}

export function setPodRevision(pod: Pod, revision: string): void {
  pod.metadata.labels = { ...(pod.metadata.labels ?? {}), [REVISION_LABEL]: revision };
}

/** A new pod of set (as set's template says) for an ordinal: named, owned, with its identity and storage. */
export function newStatefulSetPod(set: StatefulSet, ordinal: number): Pod {
  const pod = getPodFromTemplate(set.spec.template, set, newControllerRef(set, STATEFUL_SET_KIND));
  pod.metadata.name = podName(set, ordinal);
  initIdentity(set, pod);
  updateStorage(set, pod);
  return pod;
}

/**
 * A new pod for an ordinal at the revision it should have: the current revision below the partition of a
 * RollingUpdate (or, without rollingUpdate, below start + currentReplicas), the update revision otherwise.
 * The condition keeps upstream's operator precedence: a partition counts whatever the strategy type.
 */
export function newVersionedStatefulSetPod(
  currentSet: StatefulSet,
  updateSet: StatefulSet,
  currentRevision: string,
  updateRevision: string,
  ordinal: number,
): Pod {
  const strategy = currentSet.spec.updateStrategy;
  const start = startOrdinal(currentSet);
  const currentReplicas = currentSet.status?.currentReplicas ?? 0;
  const useCurrent =
    (strategy?.type === 'RollingUpdate' && !strategy.rollingUpdate && ordinal < start + currentReplicas) ||
    (!!strategy?.rollingUpdate && ordinal < start + (strategy.rollingUpdate.partition ?? 0));
  const pod = newStatefulSetPod(useCurrent ? currentSet : updateSet, ordinal);
  setPodRevision(pod, useCurrent ? currentRevision : updateRevision);
  return pod;
}

/** Pods by ordinal, highest first (pods without an ordinal last). */
export function descendingOrdinal(a: Pod, b: Pod): number {
  return getOrdinal(b) - getOrdinal(a);
}
