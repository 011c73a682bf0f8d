/**
 * Pod validation on create and update (upstream's ValidatePodCreate and ValidatePodUpdate) and the pod-template
 * validation that ReplicationControllers and PodTemplates use (ValidatePodTemplateSpec).
 */
import { type FieldError, type FieldPath, forbidden, invalid, path, required } from '../../../api/field-errors.js';
import { validateLabels } from '../../../api/validation/labels.js';
import { validateAnnotations } from '../../../api/validation/object-meta.js';
import { deepClone, jsonEqual, type KubeObject } from '../object.js';
import { arr, type Rec, rec, recs, str, stringMap } from './core-json.js';
import { describeSpecChange } from './core-pod-spec-diff.js';
import { validatePodSpec, validateTolerations } from './core-pod-spec-validation.js';
import { inclusiveRangeError } from './core-port-validation.js';

const MIRROR = 'kubernetes.io/config.mirror';
const DELETION_COST = 'controller.kubernetes.io/pod-deletion-cost';
const MAX_INT32 = 2147483647;

export const UPDATABLE_POD_FIELDS = [
  '`spec.containers[*].image`',
  '`spec.initContainers[*].image`',
  '`spec.activeDeadlineSeconds`',
  '`spec.tolerations` (only additions to existing tolerations)',
  '`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)',
];

const validDeletionCost = (v: string) =>
  /^[-+]?[0-9]+$/.test(v) && Math.abs(Number(v)) <= MAX_INT32 + (v.startsWith('-') ? 1 : 0);

/** Upstream's ValidatePodSpecificAnnotations (mirror pods, deletion cost). */
function podAnnotations(annotations: Record<string, string>, spec: Rec, at: FieldPath, oldCostValid: boolean) {
  const errs: FieldError[] = [];
  if (MIRROR in annotations && !str(spec.nodeName)) {
    errs.push(invalid(at.key(MIRROR), annotations[MIRROR], 'must set spec.nodeName if mirror pod annotation is set'));
  }
  const cost = annotations[DELETION_COST];
  if (oldCostValid && cost !== undefined && !validDeletionCost(cost)) {
    errs.push(invalid(at.key(DELETION_COST), cost, 'must be a 32bit integer'));
  }
  return errs;
}

/** Pod-only checks on containers: images must not have surrounding whitespace. */
function imageWhitespace(list: unknown, at: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  recs(list).forEach((c, i) => {
    const image = str(c.image);
    if (image.trim() !== image) {
      errs.push(invalid(at.index(i).child('image'), image, 'must not have leading or trailing whitespace'));
    }
  });
  return errs;
}

/** validatePodMetadataAndSpec without the object metadata (which the generic registry checks). */
function podMetadataAndSpec(pod: KubeObject, oldCostValid = true): FieldError[] {
  const spec = rec(pod.spec);
  const specPath = path('spec');
  const errs = [
    ...podAnnotations(pod.metadata.annotations ?? {}, spec, path('metadata', 'annotations'), oldCostValid),
    ...validatePodSpec(spec, specPath, { isPod: true }),
  ];
  if (!str(spec.serviceAccountName)) {
    recs(spec.volumes).forEach((v, vi) => {
      recs(rec(v.projected).sources).forEach((s, si) => {
        if (s.serviceAccountToken) {
          errs.push(
            forbidden(
              specPath.child('volumes').index(vi).child('projected', 'sources').index(si).child('serviceAccountToken'),
              'must not be specified when serviceAccountName is not set',
            ),
          );
        }
      });
    });
  }
  errs.push(...imageWhitespace(spec.containers, specPath.child('containers')));
  errs.push(...imageWhitespace(spec.initContainers, specPath.child('initContainers')));
  return errs;
}

export function validatePodCreate(pod: KubeObject): FieldError[] {
  const spec = rec(pod.spec);
  const errs = podMetadataAndSpec(pod);
  if (arr(spec.ephemeralContainers).length > 0) {
    errs.push(forbidden(path('spec', 'ephemeralContainers'), 'cannot be set on create'));
  }
  if (str(spec.nodeName) && arr(spec.schedulingGates).length > 0) {
    errs.push(forbidden(path('spec', 'nodeName'), 'cannot be set until all schedulingGates have been cleared'));
  }
  return errs;
}

/**
 * validatePodMetadataAndSpec: the pod as a whole, as a write of pods/ephemeralcontainers or pods/resize is checked
 * before what that write changed.
 */
export function validatePodMetadataAndSpec(pod: KubeObject): FieldError[] {
  return podMetadataAndSpec(pod);
}

/** ValidateContainerUpdates: the same number of containers, each with an image. */
function containerUpdates(next: unknown, old: unknown, at: FieldPath): { errs: FieldError[]; stop: boolean } {
  if (arr(next).length !== arr(old).length) {
    return { errs: [forbidden(at, 'pod updates may not add or remove containers')], stop: true };
  }
  const errs: FieldError[] = [];
  recs(next).forEach((c, i) => {
    const image = str(c.image);
    if (!image) errs.push(required(at.index(i).child('image')));
    if (image.trim() !== image) {
      errs.push(invalid(at.index(i).child('image'), image, 'must not have leading or trailing whitespace'));
    }
  });
  return { errs, stop: false };
}

function sameTolerationIgnoringSeconds(a: Rec, b: Rec): boolean {
  const { tolerationSeconds: _a, ...restA } = a;
  const { tolerationSeconds: _b, ...restB } = b;
  return jsonEqual(restA, restB);
}

export function validatePodUpdate(pod: KubeObject, old: KubeObject): FieldError[] {
  const spec = rec(pod.spec);
  const oldSpec = rec(old.spec);
  const oldCost = old.metadata.annotations?.[DELETION_COST];
  const errs = podMetadataAndSpec(pod, oldCost === undefined || validDeletionCost(oldCost));
  const annotations = path('metadata', 'annotations');
  const oldMirror = old.metadata.annotations?.[MIRROR];
  const newMirror = pod.metadata.annotations?.[MIRROR];
  if (oldMirror !== undefined && oldMirror !== newMirror) {
    errs.push(forbidden(annotations.key(MIRROR), 'may not remove or update mirror pod annotation'));
  }
  if (oldMirror === undefined && newMirror !== undefined) {
    errs.push(forbidden(annotations.key(MIRROR), 'may not add mirror pod annotation'));
  }
  const specPath = path('spec');
  for (const key of ['containers', 'initContainers']) {
    const result = containerUpdates(spec[key], oldSpec[key], specPath.child(key));
    errs.push(...result.errs);
    if (result.stop) return errs;
  }
  const deadline = spec.activeDeadlineSeconds;
  const oldDeadline = oldSpec.activeDeadlineSeconds;
  if (typeof deadline === 'number') {
    if (deadline < 0 || deadline > MAX_INT32) {
      errs.push(invalid(specPath.child('activeDeadlineSeconds'), deadline, inclusiveRangeError(0, MAX_INT32)));
      return errs;
    }
    if (typeof oldDeadline === 'number' && oldDeadline < deadline) {
      errs.push(
        invalid(specPath.child('activeDeadlineSeconds'), deadline, 'must be less than or equal to previous value'),
      );
      return errs;
    }
  } else if (typeof oldDeadline === 'number') {
    errs.push(
      invalid(specPath.child('activeDeadlineSeconds'), null, 'must not update from a positive integer to nil value'),
    );
  }
  const tolerations = recs(spec.tolerations);
  const kept = recs(oldSpec.tolerations).every((t) => tolerations.some((n) => sameTolerationIgnoringSeconds(t, n)));
  if (!kept) {
    errs.push(
      forbidden(specPath.child('tolerations'), 'existing toleration can not be modified except its tolerationSeconds'),
    );
  } else errs.push(...validateTolerations(spec.tolerations, specPath.child('tolerations')));
  const oldGates = new Set(recs(oldSpec.schedulingGates).map((g) => str(g.name)));
  recs(spec.schedulingGates).forEach((g, i) => {
    if (!oldGates.has(str(g.name))) {
      errs.push(
        forbidden(
          specPath.child('schedulingGates').index(i).child('name'),
          `only deletion is allowed, but found new scheduling gate '${str(g.name)}'`,
        ),
      );
    }
  });
  if (jsonEqual(spec, oldSpec)) return errs;
  const munged = mungeUpdatableFields(spec, oldSpec);
  if (!jsonEqual(munged, oldSpec)) {
    errs.push(
      forbidden(
        specPath,
        `pod updates may not change fields other than ${UPDATABLE_POD_FIELDS.join(',')}\n${describeSpecChange(oldSpec, munged)}`,
      ),
    );
  }
  return errs;
}

/** The new spec with every field a pod update may change set back to its old value. */
function mungeUpdatableFields(spec: Rec, oldSpec: Rec): Rec {
  const munged = deepClone(spec);
  for (const key of ['containers', 'initContainers']) {
    const oldList = recs(oldSpec[key]);
    if (Array.isArray(munged[key])) {
      munged[key] = recs(munged[key]).map((c, i) => {
        const image = oldList[i]?.image;
        return image === undefined ? (({ image: _i, ...rest }) => rest)(c) : { ...c, image };
      });
    }
  }
  // The deprecated serviceAccount alias is no field of upstream's internal PodSpec, which this rule compares: a
  // change of it alone (a pod stored before it was written out) is no change.
  for (const key of ['activeDeadlineSeconds', 'schedulingGates', 'tolerations', 'serviceAccount']) {
    if (oldSpec[key] === undefined) delete munged[key];
    else munged[key] = oldSpec[key];
  }
  const oldGrace = oldSpec.terminationGracePeriodSeconds;
  if (typeof oldGrace === 'number' && oldGrace < 0 && munged.terminationGracePeriodSeconds === 1) {
    munged.terminationGracePeriodSeconds = oldGrace;
  }
  // A pod still gated from scheduling may gain node selector entries (but not change or lose any).
  if (arr(oldSpec.schedulingGates).length > 0) {
    const before = stringMap(oldSpec.nodeSelector);
    const after = stringMap(munged.nodeSelector);
    if (Object.entries(before).every(([k, v]) => after[k] === v)) {
      if (oldSpec.nodeSelector === undefined) delete munged.nodeSelector;
      else munged.nodeSelector = oldSpec.nodeSelector;
    }
  }
  return munged;
}

/** Upstream's ValidatePodTemplateSpec; `at` is the template's path (spec.template, template). */
export function validatePodTemplateSpec(template: unknown, at: FieldPath): FieldError[] {
  const t = rec(template);
  const meta = rec(t.metadata);
  const spec = rec(t.spec);
  const annotations = stringMap(meta.annotations);
  const errs = [
    ...validateLabels(stringMap(meta.labels), at.child('labels')),
    ...validateAnnotations(annotations, at.child('annotations')),
    ...podAnnotations(annotations, spec, at.child('annotations'), true),
    ...validatePodSpec(spec, at.child('spec'), { isPod: false }),
  ];
  if (arr(spec.ephemeralContainers).length > 0) {
    errs.push(forbidden(at.child('spec', 'ephemeralContainers'), 'ephemeral containers not allowed in pod template'));
  }
  return errs;
}
