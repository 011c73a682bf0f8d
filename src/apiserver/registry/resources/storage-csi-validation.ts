/**
 * Checks the storage.k8s.io CSI resources share: a CSI driver's name as upstream's core ValidateCSIDriverName judges
 * it (required, at most 63 bytes, a DNS-1123 subdomain once lower-cased), and Go's semantic equality of decoded
 * JSON, which upstream's immutability checks use (a missing, null or empty list or map equals another).
 */
import { type FieldError, type FieldPath, invalid, required, tooLong } from '../../../api/field-errors.js';
import { isDNS1123Subdomain } from '../../../api/validation/names.js';
import { isObject, jsonEqual } from '../object.js';

const CSI_DRIVER_NAME_MAX_LENGTH = 63;

/** A CSI driver's name (a VolumeAttachment's attacher, a CSINode driver's name). */
export function csiDriverNameErrors(name: string, at: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (name === '') errs.push(required(at));
  if (Buffer.byteLength(name) > CSI_DRIVER_NAME_MAX_LENGTH) errs.push(tooLong(at, CSI_DRIVER_NAME_MAX_LENGTH));
  for (const msg of isDNS1123Subdomain(name.toLowerCase())) errs.push(invalid(at, name, msg));
  return errs;
}

const isEmpty = (v: unknown): boolean =>
  v === undefined ||
  v === null ||
  (Array.isArray(v) && v.length === 0) ||
  (isObject(v) && Object.keys(v).every((k) => isEmpty(v[k])));

/** The value with every empty list, map and null left out, at any depth. */
function pruned(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(pruned);
  if (!isObject(v)) return v;
  const out: Record<string, unknown> = {};
  for (const [k, value] of Object.entries(v)) if (!isEmpty(value)) out[k] = pruned(value);
  return out;
}

/** apiequality.Semantic.DeepEqual over decoded JSON: nil and empty lists and maps are equal. */
export function semanticEqual(a: unknown, b: unknown): boolean {
  if (isEmpty(a) || isEmpty(b)) return isEmpty(a) && isEmpty(b);
  return jsonEqual(pruned(a), pruned(b));
}
