/**
 * The check the storage.k8s.io CSI resources share: a CSI driver's name as upstream's core ValidateCSIDriverName
 * judges it (required, at most 63 bytes, a DNS-1123 subdomain once lower-cased).
 */
import { type FieldError, type FieldPath, invalid, required, tooLong } from '../../../api/field-errors.js';
import { isDNS1123Subdomain } from '../../../api/validation/names.js';

const CSI_DRIVER_NAME_MAX_LENGTH = 63;

/** A CSI driver's name (a VolumeAttachment's attacher, a CSINode driver's name). */
export function csiDriverNameErrors(name: string, at: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (name === '') errs.push(required(at));
  if (Buffer.byteLength(name) > CSI_DRIVER_NAME_MAX_LENGTH) errs.push(tooLong(at, CSI_DRIVER_NAME_MAX_LENGTH));
  for (const msg of isDNS1123Subdomain(name.toLowerCase())) errs.push(invalid(at, name, msg));
  return errs;
}
