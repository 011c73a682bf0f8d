/**
 * Validation of labels and of metav1 LabelSelector objects, as apimachinery's meta/v1/validation does it for
 * `metadata.labels`, `spec.selector` and the like.
 */
import { type FieldError, type FieldPath, forbidden, invalid, required } from '../field-errors.js';
import type { LabelSelectorObject, LabelSelectorRequirementObject } from '../labels.js';
import { isQualifiedName, isValidLabelValue } from './names.js';

export interface LabelSelectorValidationOptions {
  /** Accept label values that are not valid (only for updates of objects stored with such values). */
  allowInvalidLabelValueInSelector?: boolean;
  /** Accept operators that are not known (SubjectAccessReview-style callers). */
  allowUnknownOperatorInRequirement?: boolean;
}

export function validateLabelName(name: string, fieldPath: FieldPath): FieldError[] {
  return isQualifiedName(name).map((msg) => invalid(fieldPath, name, msg).withOrigin('labelKey'));
}

/** Every key a qualified name, every value a valid label value; errors name the map, not the key. */
export function validateLabels(labels: Readonly<Record<string, string>> | null | undefined, fieldPath: FieldPath) {
  const errs: FieldError[] = [];
  for (const [key, value] of Object.entries(labels ?? {})) {
    errs.push(...validateLabelName(key, fieldPath));
    for (const msg of isValidLabelValue(value)) errs.push(invalid(fieldPath, value, msg));
  }
  return errs;
}

export function validateLabelSelectorRequirement(
  req: LabelSelectorRequirementObject,
  options: LabelSelectorValidationOptions,
  fieldPath: FieldPath,
): FieldError[] {
  const errs: FieldError[] = [];
  const values = req.values ?? [];
  switch (req.operator) {
    case 'In':
    case 'NotIn':
      if (values.length === 0) {
        errs.push(required(fieldPath.child('values'), "must be specified when `operator` is 'In' or 'NotIn'"));
      }
      break;
    case 'Exists':
    case 'DoesNotExist':
      if (values.length > 0) {
        errs.push(
          forbidden(fieldPath.child('values'), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"),
        );
      }
      break;
    default:
      if (!options.allowUnknownOperatorInRequirement) {
        errs.push(invalid(fieldPath.child('operator'), req.operator ?? '', 'not a valid selector operator'));
      }
  }
  errs.push(...validateLabelName(req.key ?? '', fieldPath.child('key')));
  if (!options.allowInvalidLabelValueInSelector) {
    values.forEach((value, i) => {
      for (const msg of isValidLabelValue(value)) errs.push(invalid(fieldPath.child('values').index(i), value, msg));
    });
  }
  return errs;
}

/** Nothing to report for a missing selector; whether one is required is the caller's rule. */
export function validateLabelSelector(
  selector: LabelSelectorObject | null | undefined,
  options: LabelSelectorValidationOptions,
  fieldPath: FieldPath,
): FieldError[] {
  if (!selector) return [];
  const errs = validateLabels(selector.matchLabels, fieldPath.child('matchLabels'));
  (selector.matchExpressions ?? []).forEach((req, i) => {
    errs.push(...validateLabelSelectorRequirement(req, options, fieldPath.child('matchExpressions').index(i)));
  });
  return errs;
}

/** Whether a stored selector holds a value that validation would now refuse (to allow it on update). */
export function labelSelectorHasInvalidLabelValue(selector: LabelSelectorObject | null | undefined): boolean {
  return (selector?.matchExpressions ?? []).some((req) =>
    (req.values ?? []).some((v) => isValidLabelValue(v).length > 0),
  );
}
