/**
 * Checks of `metadata.managedFields` entries and of field manager names (apimachinery's meta/v1/validation).
 */
import { type FieldError, type FieldPath, invalid, tooLong } from '../field-errors.js';
import type { ManagedFieldsEntryInput } from './object-meta-types.js';

export const FIELD_MANAGER_MAX_LENGTH = 128;
export const MAX_SUBRESOURCE_NAME_LENGTH = 256;

const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

/** At most 128 bytes, every character printable; positions in messages are byte offsets, as upstream's. */
export function validateFieldManager(manager: string, fieldPath: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (Buffer.byteLength(manager, 'utf8') > FIELD_MANAGER_MAX_LENGTH)
    errs.push(tooLong(fieldPath, FIELD_MANAGER_MAX_LENGTH));
  let offset = 0;
  for (const ch of manager) {
    if (!PRINTABLE.test(ch)) {
      const code = (ch.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0');
      errs.push(invalid(fieldPath, manager, `invalid character U+${code} (at position ${offset})`));
    }
    offset += Buffer.byteLength(ch, 'utf8');
  }
  return errs;
}

export function validateManagedFields(
  entries: readonly ManagedFieldsEntryInput[] | null | undefined,
  fieldPath: FieldPath,
): FieldError[] {
  const errs: FieldError[] = [];
  (entries ?? []).forEach((entry, i) => {
    const p = fieldPath.index(i);
    const operation = entry.operation ?? '';
    if (operation !== 'Apply' && operation !== 'Update') {
      errs.push(invalid(p.child('operation'), operation, 'must be `Apply` or `Update`'));
    }
    const fieldsType = entry.fieldsType ?? '';
    if (fieldsType.length > 0 && fieldsType !== 'FieldsV1') {
      errs.push(invalid(p.child('fieldsType'), fieldsType, 'must be `FieldsV1`'));
    }
    errs.push(...validateFieldManager(entry.manager ?? '', p.child('manager')));
    if (Buffer.byteLength(entry.subresource ?? '', 'utf8') > MAX_SUBRESOURCE_NAME_LENGTH) {
      errs.push(tooLong(p.child('subresource'), MAX_SUBRESOURCE_NAME_LENGTH));
    }
  });
  return errs;
}
