/**
 * ControllerRevisions as values: making one for a parent (NewControllerRevision), ordering them by revision number,
 * equality of their data, the next revision number, which old ones a history limit lets go, and the data format
 * DaemonSets and StatefulSets record — a strategic merge patch replacing the pod template,
 * `{"spec":{"template":{…,"$patch":"replace"}}}`, which kubectl's `rollout history --revision` and `rollout undo`
 * apply to the live object.
 */
import { withSortedKeys } from '../../api/go-json.js';
import type { KubeObject } from '../../client/types.js';
import { type GroupVersionKind, getControllerOf, newControllerRef } from '../common/controller-ref.js';
import { withoutServiceAccountAlias } from '../common/pods.js';
import {
  CONTROLLER_REVISION_HASH_LABEL,
  canonicalJson,
  controllerRevisionName,
  hashControllerRevision,
} from './hash.js';

/** apps/v1 ControllerRevision. */
export interface ControllerRevision extends KubeObject {
  /** The recorded state (a JSON object; for DaemonSets and StatefulSets the template patch). */
  data?: unknown;
  /** The revision number (int64; 0 or more). */
  revision?: number;
}

export const CONTROLLER_REVISION_GVK: GroupVersionKind = { apiVersion: 'apps/v1', kind: 'ControllerRevision' };

/**
 * A revision owned by parent (a controllerRef of parentKind) holding data, labelled with templateLabels plus the
 * hash label, named `<parent>-<hash>` where the hash covers the data and the collision count.
 */
export function newControllerRevision(
  parent: KubeObject,
  parentKind: GroupVersionKind,
  templateLabels: Record<string, string> | null | undefined,
  data: unknown,
  revision: number,
  collisionCount?: number | null,
): ControllerRevision {
  const cr: ControllerRevision = {
    apiVersion: CONTROLLER_REVISION_GVK.apiVersion,
    kind: CONTROLLER_REVISION_GVK.kind,
    metadata: {
      namespace: parent.metadata.namespace,
      labels: { ...(templateLabels ?? {}) },
      ownerReferences: [newControllerRef(parent, parentKind)],
    },
    data,
    revision,
  };
  const hash = hashControllerRevision(cr, collisionCount);
  cr.metadata.name = controllerRevisionName(parent.metadata.name ?? '', hash);
  (cr.metadata.labels as Record<string, string>)[CONTROLLER_REVISION_HASH_LABEL] = hash;
  return cr;
}

function creationMs(r: KubeObject): number {
  const t = r.metadata.creationTimestamp;
  const ms = t ? Date.parse(String(t)) : Number.NaN;
  return Number.isNaN(ms) ? 0 : ms;
}

/** Upstream's byRevision order: revision number, then creation time, then name. */
export function compareRevisions(a: ControllerRevision, b: ControllerRevision): number {
  const ra = a.revision ?? 0;
  const rb = b.revision ?? 0;
  if (ra !== rb) return ra - rb;
  const ca = creationMs(a);
  const cb = creationMs(b);
  if (ca !== cb) return ca - cb;
  const na = a.metadata.name ?? '';
  const nb = b.metadata.name ?? '';
  return na < nb ? -1 : na > nb ? 1 : 0;
}

/** A sorted copy (stable) of revisions, oldest first. */
export function sortControllerRevisions<T extends ControllerRevision>(revisions: readonly T[]): T[] {
  return [...revisions].sort(compareRevisions);
}

function parseHashLabel(r: ControllerRevision): number | undefined {
  const value = r.metadata.labels?.[CONTROLLER_REVISION_HASH_LABEL];
  if (value === undefined || !/^[+-]?\d+$/.test(value)) return undefined;
  const n = Number(value);
  return n >= -(2 ** 31) && n < 2 ** 31 ? n >>> 0 : undefined;
}

/**
 * EqualRevision: both absent, or both present with equal data. Hash labels that parse as numbers and differ decide
 * inequality first (as upstream, which only parses decimal hashes; safe-encoded ones never do).
 */
export function equalRevision(a: ControllerRevision | undefined, b: ControllerRevision | undefined): boolean {
  if (!a || !b) return a === b;
  const ha = parseHashLabel(a);
  const hb = parseHashLabel(b);
  if (ha !== undefined && hb !== undefined && ha !== hb) return false;
  return sameTemplateData(a.data, b.data);
}

/**
 * Whether two revisions' data record the same template. The pod spec's `serviceAccount`, an alias the apiserver
 * keeps equal to `serviceAccountName`, is left out: revisions recorded before wheelhouse wrote the alias lack it, and
 * the template they record is the same (upstream, converting on every read, never sees such a difference).
 */
export function sameTemplateData(a: unknown, b: unknown): boolean {
  return canonicalJson(withoutAlias(a ?? null)) === canonicalJson(withoutAlias(b ?? null));
}

/** Revision data without its template's spec.serviceAccount (copies made only along that path). */
function withoutAlias(data: unknown): unknown {
  const spec = (data as { spec?: { template?: { spec?: Record<string, unknown> } } } | null)?.spec;
  const podSpec = spec?.template?.spec;
  const rest = podSpec && withoutServiceAccountAlias(podSpec);
  if (rest === podSpec) return data;
  return { ...(data as object), spec: { ...spec, template: { ...spec?.template, spec: rest } } };
}

/** The revisions equal to needle, in their given order. */
export function findEqualRevisions<T extends ControllerRevision>(
  revisions: readonly T[],
  needle: ControllerRevision,
): T[] {
  return revisions.filter((r) => equalRevision(r, needle));
}

/** The number the next revision gets: one past the highest, or 1 for an empty history. */
export function nextRevision(revisions: readonly ControllerRevision[]): number {
  let max = 0;
  for (const r of revisions) max = Math.max(max, r.revision ?? 0);
  return max + 1;
}

/**
 * The revisions a history limit lets go: of the revisions not in use (live names), the oldest ones beyond limit.
 * Revisions in use are never chosen. A negative limit counts as zero.
 */
export function revisionsBeyondLimit<T extends ControllerRevision>(
  revisions: readonly T[],
  limit: number,
  live: ReadonlySet<string>,
): T[] {
  const unused = sortControllerRevisions(revisions.filter((r) => !live.has(r.metadata.name ?? '')));
  const excess = unused.length - Math.max(0, limit);
  return excess > 0 ? unused.slice(0, excess) : [];
}

/** Whether the revision's controller is parent. */
export function isControlledBy(obj: KubeObject, parent: KubeObject): boolean {
  const ref = getControllerOf(obj);
  return ref !== undefined && ref.uid === parent.metadata.uid;
}

// The template patch of DaemonSets and StatefulSets.

/**
 * The data a DaemonSet or StatefulSet records: a patch replacing spec.template with the object's template. The
 * template's metadata keeps `creationTimestamp: null`, as Go's encoding of a pod template always writes it, and the
 * keys are sorted at every level, as Go marshals the map upstream builds the patch in: the data's bytes are then
 * the ones kubectl computes from the live object when it checks whether a rollback changes anything.
 */
export function templatePatch(obj: KubeObject): { spec: { template: Record<string, unknown> } } {
  const template = { ...((obj.spec?.template ?? {}) as Record<string, unknown>) };
  const metadata = { ...((template.metadata ?? {}) as Record<string, unknown>) };
  if (!('creationTimestamp' in metadata)) metadata.creationTimestamp = null;
  template.metadata = metadata;
  template.$patch = 'replace';
  return withSortedKeys({ spec: { template } });
}

/**
 * The pod template a revision records (the template patch applied to an object: the template is replaced whole),
 * or undefined when the revision's data holds none.
 */
export function templateOfRevision(revision: ControllerRevision): Record<string, unknown> | undefined {
  const data = revision.data as { spec?: { template?: Record<string, unknown> } } | undefined;
  const template = data?.spec?.template;
  if (!template || typeof template !== 'object') return undefined;
  const { $patch: _replace, ...rest } = structuredClone(template);
  const metadata = rest.metadata as Record<string, unknown> | undefined;
  if (metadata && metadata.creationTimestamp === null) delete metadata.creationTimestamp;
  return rest;
}
