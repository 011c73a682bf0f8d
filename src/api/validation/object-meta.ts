/**
 * Validation of an object's metadata on create (apimachinery's api/validation ValidateObjectMeta): name or
 * generateName, namespace scope, generation, labels, annotations, owner references, finalizers, managed fields.
 * It expects generateName to have been turned into a name already.
 */
import { type FieldError, type FieldPath, forbidden, invalid, path, required, tooLong } from '../field-errors.js';
import { GoValue, goQuote } from './go-format.js';
import { validateLabels } from './labels.js';
import { validateManagedFields } from './managed-fields.js';
import { type NameValidator, validateNamespaceName, validatePathSegmentName } from './name-validators.js';
import { isQualifiedName } from './names.js';
import type { ObjectMetaInput, OwnerReferenceInput } from './object-meta-types.js';

/** Keys and values of all annotations together may not exceed 256 KiB. */
export const TOTAL_ANNOTATION_SIZE_LIMIT_BYTES = 256 * 1024;

export const FINALIZER_ORPHAN_DEPENDENTS = 'orphan';
export const FINALIZER_DELETE_DEPENDENTS = 'foregroundDeletion';

export const IS_NEGATIVE_ERROR_MSG = 'must be greater than or equal to 0';

/** The total size of annotation keys and values in bytes, as upstream counts it. */
export function annotationsSize(annotations: Readonly<Record<string, string>> | null | undefined): number {
  let total = 0;
  for (const [k, v] of Object.entries(annotations ?? {})) total += Buffer.byteLength(k) + Buffer.byteLength(v);
  return total;
}

/** Keys are qualified names compared without case; the total size is limited. */
export function validateAnnotations(
  annotations: Readonly<Record<string, string>> | null | undefined,
  fieldPath: FieldPath,
): FieldError[] {
  const errs: FieldError[] = [];
  for (const key of Object.keys(annotations ?? {})) {
    for (const msg of isQualifiedName(key.toLowerCase())) errs.push(invalid(fieldPath, key, msg));
  }
  if (annotationsSize(annotations) > TOTAL_ANNOTATION_SIZE_LIMIT_BYTES) {
    errs.push(tooLong(fieldPath, TOTAL_ANNOTATION_SIZE_LIMIT_BYTES));
  }
  return errs;
}

/** Group and version of an apiVersion, as schema.ParseGroupVersion reads it (a malformed one reads as empty). */
function groupVersion(apiVersion: string): { group: string; version: string } {
  if (apiVersion === '' || apiVersion === '/') return { group: '', version: '' };
  const parts = apiVersion.split('/');
  if (parts.length === 1) return { group: '', version: apiVersion };
  if (parts.length === 2) return { group: parts[0] ?? '', version: parts[1] ?? '' };
  return { group: '', version: '' };
}

/**
 * `%#v` of a metav1.OwnerReference. Go prints a set pointer as its address, which no one can reproduce; we print a
 * fixed placeholder address in its place.
 */
function goOwnerReference(ref: OwnerReferenceInput): string {
  const ptr = (v: boolean | null | undefined) => (v == null ? '(*bool)(nil)' : '(*bool)(0xc000000000)');
  return (
    `v1.OwnerReference{APIVersion:${goQuote(ref.apiVersion ?? '')}, Kind:${goQuote(ref.kind ?? '')}, ` +
    `Name:${goQuote(ref.name ?? '')}, UID:${goQuote(ref.uid ?? '')}, Controller:${ptr(ref.controller)}, ` +
    `BlockOwnerDeletion:${ptr(ref.blockOwnerDeletion)}}`
  );
}

function validateOwnerReference(ref: OwnerReferenceInput, fieldPath: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const { group, version } = groupVersion(ref.apiVersion ?? '');
  const kind = ref.kind ?? '';
  if (version === '')
    errs.push(invalid(fieldPath.child('apiVersion'), ref.apiVersion ?? '', 'version must not be empty'));
  if (kind === '') errs.push(invalid(fieldPath.child('kind'), kind, 'kind must not be empty'));
  if (!ref.name) errs.push(invalid(fieldPath.child('name'), ref.name ?? '', 'name must not be empty'));
  if (!ref.uid) errs.push(invalid(fieldPath.child('uid'), ref.uid ?? '', 'uid must not be empty'));
  // Only core v1 Events are banned from being owners.
  if (group === '' && version === 'v1' && kind === 'Event') {
    const gvk = `${group}/${version}, Kind=${kind}`;
    errs.push(invalid(fieldPath, new GoValue(goOwnerReference(ref)), `${gvk} is disallowed from being an owner`));
  }
  return errs;
}

/** Each reference complete, no Event owners, at most one controller. */
export function validateOwnerReferences(
  refs: readonly OwnerReferenceInput[] | null | undefined,
  fieldPath: FieldPath,
): FieldError[] {
  const errs: FieldError[] = [];
  let firstController = '';
  for (const ref of refs ?? []) {
    errs.push(...validateOwnerReference(ref, fieldPath));
    if (ref.controller !== true) continue;
    const current = `${ref.kind ?? ''}/${ref.name ?? ''}`;
    if (firstController === '') {
      firstController = current;
      continue;
    }
    const all = new GoValue(`[]v1.OwnerReference{${(refs ?? []).map(goOwnerReference).join(', ')}}`);
    const detail = `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${current}`;
    errs.push(invalid(fieldPath, all, detail));
  }
  return errs;
}

export function validateFinalizerName(name: string, fieldPath: FieldPath): FieldError[] {
  return isQualifiedName(name).map((msg) => invalid(fieldPath, name, msg));
}

/** Every finalizer a qualified name; `orphan` and `foregroundDeletion` not both. */
export function validateFinalizers(finalizers: readonly string[] | null | undefined, fieldPath: FieldPath) {
  const list = finalizers ?? [];
  const errs = list.flatMap((f) => validateFinalizerName(f, fieldPath));
  if (list.includes(FINALIZER_ORPHAN_DEPENDENTS) && list.includes(FINALIZER_DELETE_DEPENDENTS)) {
    const detail = `finalizer ${FINALIZER_ORPHAN_DEPENDENTS} and ${FINALIZER_DELETE_DEPENDENTS} cannot be both set`;
    errs.push(invalid(fieldPath, list, detail));
  }
  return errs;
}

export function validateNonnegativeField(value: number, fieldPath: FieldPath): FieldError[] {
  return value < 0 ? [invalid(fieldPath, value, IS_NEGATIVE_ERROR_MSG).withOrigin('minimum')] : [];
}

export interface ObjectMetaOptions {
  /** Whether the resource lives in namespaces: then a namespace is required, else it is forbidden. */
  namespaced: boolean;
  /** The resource's name format; by default the path-segment rule every resource follows. */
  nameValidator?: NameValidator;
}

export function validateObjectMeta(
  meta: ObjectMetaInput,
  options: ObjectMetaOptions,
  fieldPath: FieldPath = path('metadata'),
): FieldError[] {
  const errs: FieldError[] = [];
  const validateName = options.nameValidator ?? validatePathSegmentName;
  const generateName = meta.generateName ?? '';
  if (generateName !== '') {
    for (const msg of validateName(generateName, true))
      errs.push(invalid(fieldPath.child('generateName'), generateName, msg));
  }
  const name = meta.name ?? '';
  if (name === '') {
    errs.push(required(fieldPath.child('name'), 'name or generateName is required'));
  } else {
    for (const msg of validateName(name, false)) errs.push(invalid(fieldPath.child('name'), name, msg));
  }
  const namespace = meta.namespace ?? '';
  if (options.namespaced) {
    if (namespace === '') errs.push(required(fieldPath.child('namespace')));
    else
      for (const msg of validateNamespaceName(namespace, false))
        errs.push(invalid(fieldPath.child('namespace'), namespace, msg));
  } else if (namespace !== '') {
    errs.push(forbidden(fieldPath.child('namespace'), 'not allowed on this type'));
  }
  errs.push(...validateNonnegativeField(meta.generation ?? 0, fieldPath.child('generation')));
  errs.push(...validateLabels(meta.labels, fieldPath.child('labels')));
  errs.push(...validateAnnotations(meta.annotations, fieldPath.child('annotations')));
  errs.push(...validateOwnerReferences(meta.ownerReferences, fieldPath.child('ownerReferences')));
  errs.push(...validateFinalizers(meta.finalizers, fieldPath.child('finalizers')));
  errs.push(...validateManagedFields(meta.managedFields, fieldPath.child('managedFields')));
  return errs;
}
