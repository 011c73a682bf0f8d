/**
 * A StatefulSet's revisions: the ControllerRevision that records its pod template (the patch
 * `{"spec":{"template":{…,"$patch":"replace"}}}`, labelled with the template's labels, carrying the set's
 * annotations), and the set as a revision describes it (the template replaced by the recorded one).
 */
import { type ControllerRevision, newControllerRevision, templateOfRevision, templatePatch } from '../history/index.js';
import { STATEFUL_SET_KIND, type StatefulSet } from './types.js';

export function newRevision(set: StatefulSet, revision: number, collisionCount: number): ControllerRevision {
  const cr = newControllerRevision(
    set,
    STATEFUL_SET_KIND,
    set.spec.template?.metadata?.labels,
    templatePatch(set),
    revision,
    collisionCount,
  );
  cr.metadata.annotations = { ...(cr.metadata.annotations ?? {}), ...(set.metadata.annotations ?? {}) };
  return cr;
}

/** set with the pod template the revision recorded. */
export function applyRevision(set: StatefulSet, revision: ControllerRevision): StatefulSet {
  const clone = structuredClone(set);
  const template = templateOfRevision(revision);
  if (template) clone.spec.template = template;
  return clone;
}
