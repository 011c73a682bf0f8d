/**
 * Validation of an object's metadata on update (apimachinery's api/validation ValidateObjectMetaUpdate): which
 * fields may not change, the resourceVersion an update must carry, and the rules still checked on the new object.
 */
import { type FieldError, type FieldPath, forbidden, invalid, path } from '../field-errors.js';
import { GO_ZERO_TIME, goStringSlice, goTime } from './go-format.js';
import { validateLabels } from './labels.js';
import { validateManagedFields } from './managed-fields.js';
import { validateAnnotations, validateOwnerReferences } from './object-meta.js';
import type { ObjectMetaInput } from './object-meta-types.js';

export const FIELD_IMMUTABLE_ERROR_MSG = 'field is immutable';

/** An `Invalid value: <new>: field is immutable` error when the values differ. */
export function validateImmutableField(newValue: unknown, oldValue: unknown, fieldPath: FieldPath): FieldError[] {
  return Object.is(newValue, oldValue) ? [] : [invalid(fieldPath, newValue, FIELD_IMMUTABLE_ERROR_MSG)];
}

/** Once an object is being deleted, finalizers may be removed but not added. */
export function validateNoNewFinalizers(
  newFinalizers: readonly string[] | null | undefined,
  oldFinalizers: readonly string[] | null | undefined,
  fieldPath: FieldPath,
): FieldError[] {
  const old = new Set(oldFinalizers ?? []);
  const extra = [...new Set(newFinalizers ?? [])].filter((f) => !old.has(f)).sort();
  if (extra.length === 0) return [];
  const found = goStringSlice(extra).text;
  return [
    forbidden(
      fieldPath,
      `no new finalizers can be added if the object is being deleted, found new finalizers ${found}`,
    ),
  ];
}

/** Times are equal when they name the same instant, whatever their spelling (Semantic.DeepEqual upstream). */
function sameInstant(a: string | null | undefined, b: string | null | undefined): boolean {
  if (!a || !b) return !a && !b;
  const ta = Date.parse(a);
  const tb = Date.parse(b);
  return Number.isNaN(ta) || Number.isNaN(tb) ? a === b : ta === tb;
}

function timeChange(
  newTime: string | null | undefined,
  oldTime: string | null | undefined,
  missing: unknown,
  fieldPath: FieldPath,
): FieldError[] {
  if (sameInstant(newTime, oldTime)) return [];
  return [invalid(fieldPath, newTime ? goTime(newTime) : missing, FIELD_IMMUTABLE_ERROR_MSG)];
}

export function validateObjectMetaUpdate(
  newMeta: ObjectMetaInput,
  oldMeta: ObjectMetaInput,
  fieldPath: FieldPath = path('metadata'),
): FieldError[] {
  const errs: FieldError[] = [];
  if (oldMeta.deletionTimestamp) {
    errs.push(...validateNoNewFinalizers(newMeta.finalizers, oldMeta.finalizers, fieldPath.child('finalizers')));
  }
  if (!newMeta.resourceVersion) {
    errs.push(invalid(fieldPath.child('resourceVersion'), '', 'must be specified for an update'));
  }
  const newGeneration = newMeta.generation ?? 0;
  if (newGeneration < (oldMeta.generation ?? 0)) {
    errs.push(invalid(fieldPath.child('generation'), newGeneration, 'must not be decremented'));
  }
  for (const field of ['name', 'namespace', 'uid'] as const) {
    errs.push(...validateImmutableField(newMeta[field] ?? '', oldMeta[field] ?? '', fieldPath.child(field)));
  }
  errs.push(
    ...timeChange(
      newMeta.creationTimestamp,
      oldMeta.creationTimestamp,
      GO_ZERO_TIME,
      fieldPath.child('creationTimestamp'),
    ),
    ...timeChange(newMeta.deletionTimestamp, oldMeta.deletionTimestamp, null, fieldPath.child('deletionTimestamp')),
    ...validateImmutableField(
      newMeta.deletionGracePeriodSeconds ?? null,
      oldMeta.deletionGracePeriodSeconds ?? null,
      fieldPath.child('deletionGracePeriodSeconds'),
    ),
  );
  errs.push(...validateLabels(newMeta.labels, fieldPath.child('labels')));
  errs.push(...validateAnnotations(newMeta.annotations, fieldPath.child('annotations')));
  errs.push(...validateOwnerReferences(newMeta.ownerReferences, fieldPath.child('ownerReferences')));
  errs.push(...validateManagedFields(newMeta.managedFields, fieldPath.child('managedFields')));
  return errs;
}
