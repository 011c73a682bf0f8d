/**
 * What the REST handlers do differently for custom resources: unknown fields are those the CRD's schema prunes
 * (reported as fieldValidation asks, then dropped), strategic merge patch is refused (custom resources carry no
 * patch strategies, as upstream), and a deprecated version's warning goes with every answer.
 */
import { schemaForDefinition } from '../../api/schema.js';
import type { StatusError } from '../../api/status-error.js';
import { PATCH_TYPES } from '../handlers/patch.js';
import type { FieldValidationDirective } from '../registry/field-validation.js';
import { addWarnings, decodeTypeError } from '../registry/field-validation.js';
import { isObject, type KubeObject } from '../registry/object.js';
import type { CustomResourceHooks } from '../registry/resource.js';

/** The patch formats a custom resource accepts. */
export const CUSTOM_RESOURCE_PATCH_TYPES = PATCH_TYPES.filter((t) => t !== 'application/strategic-merge-patch+json');

type HttpResponse = Parameters<typeof addWarnings>[0];

/**
 * The error of decoding a custom resource's metadata into ObjectMeta, as upstream's coercion of it does before
 * anything else (`json: cannot unmarshal number into Go struct field ObjectMeta.labels of type string`), if any.
 */
export function customMetadataTypeError(obj: unknown): string | undefined {
  const metadata = isObject(obj) ? obj.metadata : undefined;
  const schema = schemaForDefinition('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta');
  return schema && isObject(metadata) ? decodeTypeError(metadata, schema) : undefined;
}

/**
 * Prunes obj by the CRD's schema; with Strict the pruned fields refuse the request (`strict` builds the error from
 * upstream's `unknown field "spec.foo"` texts), with Warn they become Warning headers.
 */
export function pruneCustomResource(
  hooks: CustomResourceHooks,
  obj: KubeObject,
  directive: FieldValidationDirective,
  res: HttpResponse,
  strict: (errors: string[]) => StatusError,
  decodingErrors: readonly string[] = [],
): void {
  const errors = [...decodingErrors, ...hooks.prune(obj).map((p) => `unknown field "${p}"`)];
  if (errors.length === 0 || directive === 'Ignore') return;
  if (directive === 'Strict') throw strict(errors);
  addWarnings(res, errors);
}
