/**
 * What PersistentVolumes and PersistentVolumeClaims share: access modes, volume modes, and the ACCESS MODES and
 * STORAGECLASS cells of their printers.
 */
import { type FieldError, type FieldPath, forbidden, notSupported, required } from '../../../api/field-errors.js';
import type { KubeObject } from '../object.js';
import { arr, rec, str } from './core-json.js';

export const ACCESS_MODES = ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod'];
export const VOLUME_MODES = ['Block', 'Filesystem'];
const BETA_CLASS = 'volume.beta.kubernetes.io/storage-class';

/** accessModes: at least one (with `detail` upstream gives for claims), all known, ReadWriteOncePod alone. */
export function validateAccessModes(modes: unknown, at: FieldPath, detail = ''): FieldError[] {
  const list = arr(modes).map(str);
  const errs: FieldError[] = [];
  if (list.length === 0) errs.push(required(at, detail));
  let rwop = false;
  let other = false;
  for (const mode of list) {
    if (!ACCESS_MODES.includes(mode)) errs.push(notSupported(at, mode, ACCESS_MODES));
    if (mode === 'ReadWriteOncePod') rwop = true;
    else if (ACCESS_MODES.includes(mode)) other = true;
  }
  if (rwop && other) errs.push(forbidden(at, 'may not use ReadWriteOncePod with other access modes'));
  return errs;
}

/** `RWO,ROX,RWX,RWOP` in that order, duplicates dropped. */
export function accessModesCell(modes: unknown): string {
  const list = arr(modes).map(str);
  const short: Array<[string, string]> = [
    ['ReadWriteOnce', 'RWO'],
    ['ReadOnlyMany', 'ROX'],
    ['ReadWriteMany', 'RWX'],
    ['ReadWriteOncePod', 'RWOP'],
  ];
  return short
    .filter(([mode]) => list.includes(mode))
    .map(([, s]) => s)
    .join(',');
}

/** The storage class: the beta annotation if present, else spec.storageClassName. */
export function storageClassOf(obj: KubeObject): string {
  const annotation = obj.metadata.annotations?.[BETA_CLASS];
  if (annotation !== undefined) return annotation;
  return str(rec(obj.spec).storageClassName);
}

export function volumeAttributesClassCell(obj: KubeObject): string {
  const name = rec(obj.spec).volumeAttributesClassName;
  return typeof name === 'string' ? name : '<unset>';
}

export function volumeModeCell(obj: KubeObject): string {
  const mode = rec(obj.spec).volumeMode;
  return typeof mode === 'string' ? mode : '<unset>';
}
