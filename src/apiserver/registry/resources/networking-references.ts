/** Typed object references in networking objects (Ingress resource backends, IngressClass parameters). */
import {
  type FieldError,
  type FieldPath,
  forbidden,
  invalid,
  notSupported,
  required,
} from '../../../api/field-errors.js';
import { isValidPathSegmentName, validateNamespaceName } from '../../../api/validation/name-validators.js';
import { isDNS1123Subdomain } from '../../../api/validation/names.js';
import { type Rec, str, unset } from './groups-fields.js';

/** validateIngressTypedLocalObjectReference: apiGroup a subdomain, kind and name required path segments. */
export function validateTypedReference(ref: Rec, at: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (!unset(ref.apiGroup)) {
    for (const msg of isDNS1123Subdomain(str(ref.apiGroup)))
      errs.push(invalid(at.child('apiGroup'), str(ref.apiGroup), msg));
  }
  for (const key of ['kind', 'name']) {
    const value = str(ref[key]);
    if (value === '') errs.push(required(at.child(key), `${key} is required`));
    else for (const msg of isValidPathSegmentName(value)) errs.push(invalid(at.child(key), value, msg));
  }
  return errs;
}

const SCOPES = ['Cluster', 'Namespace'];

/** validateIngressClassParametersReference: a typed reference with a scope, and a namespace only for Namespace. */
export function validateParametersReference(ref: Rec, at: FieldPath): FieldError[] {
  const errs = validateTypedReference(ref, at);
  if (unset(ref.scope)) return [...errs, required(at.child('scope'))];
  const scope = str(ref.scope);
  if (!SCOPES.includes(scope)) return [...errs, notSupported(at.child('scope'), scope, SCOPES)];
  if (scope === 'Namespace') {
    if (unset(ref.namespace)) errs.push(required(at.child('namespace'), "`parameters.scope` is set to 'Namespace'"));
    else {
      const ns = str(ref.namespace);
      for (const msg of validateNamespaceName(ns, false)) errs.push(invalid(at.child('namespace'), ns, msg));
    }
  }
  if (scope === 'Cluster' && !unset(ref.namespace)) {
    errs.push(forbidden(at.child('namespace'), "`parameters.scope` is set to 'Cluster'"));
  }
  return errs;
}
