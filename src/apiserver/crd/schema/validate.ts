/**
 * The validation apiextensions runs on a custom resource against its version's schema, in upstream's order: value
 * validation (kube-openapi), embedded resources, list-type set/map uniqueness (on update only when the old object
 * had none of those errors), then the x-kubernetes-validations rules — skipped, with upstream's note, when an
 * earlier error already makes the object unfit for them.
 */

import type { Schema } from '../../../api/crd-schema-node.js';
import { type FieldError, invalid } from '../../../api/field-errors.js';
import { hasValidationRules, validateRules } from './cel-rules.js';
import { validateEmbeddedResources } from './embedded.js';
import { validateListSetsAndMaps } from './list-type.js';
import { validateAgainstSchema } from './openapi-validate.js';

/** Errors after which CEL rules are not run (their input would not have the schema's shape). */
const BLOCKING = new Set([
  'FieldValueNotSupported',
  'FieldValueRequired',
  'FieldValueTooLong',
  'FieldValueTooMany',
  'FieldValueTypeInvalid',
]);

export const RULES_NOT_CHECKED =
  'some validation rules were not checked because the object was invalid; correct the existing errors to complete validation';

/**
 * Validates a custom resource (the whole object) against its schema; `oldObj` is the stored object on update.
 * Errors carry the resource's field paths (`spec.size: Invalid value: 11: spec.size in body should be …`). On update,
 * parts left unchanged are not held to the schema (ratcheting): their CEL failures go to `warnings` if given.
 */
export function validateObject(
  obj: Record<string, unknown>,
  schema: Schema,
  oldObj?: Record<string, unknown>,
  warnings?: string[],
): FieldError[] {
  const errs = oldObj ? validateAgainstSchema(null, obj, schema, oldObj) : validateAgainstSchema(null, obj, schema);
  errs.push(...validateEmbeddedResources(obj, schema));
  if (!oldObj || validateListSetsAndMaps(oldObj, schema).length === 0)
    errs.push(...validateListSetsAndMaps(obj, schema));
  if (hasValidationRules(schema)) {
    if (errs.some((e) => BLOCKING.has(e.type))) errs.push(invalid(null, null, RULES_NOT_CHECKED));
    else errs.push(...validateRules(null, obj, schema, oldObj, warnings));
  }
  return errs;
}
