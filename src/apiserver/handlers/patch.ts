import { applyJsonPatch } from '../../api/patch/json-patch.js';
import { applyMergePatch } from '../../api/patch/merge-patch.js';
import { PatchError } from '../../api/patch/patch-error.js';
import { applyStrategicMergePatch } from '../../api/patch/strategic-merge-patch.js';
import { schemaForKind } from '../../api/schema.js';
import { StatusError, statusErrors } from '../../api/status-error.js';
import { isObject, type KubeObject } from '../registry/object.js';
import type { ResourceDefinition } from '../registry/resource.js';

/**
 * The patch formats accepted on PATCH. Server-side apply (application/apply-patch+yaml) is not served yet: such a
 * request gets 415 UnsupportedMediaType listing these.
 */
export const PATCH_TYPES = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
];

/**
 * Applies a decoded patch body to the current object; failures become the Status kube-apiserver answers with.
 * inPlace: current is the caller's own copy, changed and answered rather than copied first.
 */
export function applyPatchBody(
  type: string,
  current: KubeObject,
  patch: unknown,
  def: ResourceDefinition,
  inPlace = false,
): KubeObject {
  let result: unknown;
  try {
    if (type === 'application/json-patch+json') result = applyJsonPatch(current, patch, { inPlace });
    else if (type === 'application/merge-patch+json') result = applyMergePatch(current, patch, { inPlace });
    else {
      const schema = schemaForKind({ group: def.group, version: def.version, kind: def.kind });
      result = applyStrategicMergePatch(current, patch, schema, { inPlace });
    }
  } catch (err) {
    if (err instanceof PatchError) {
      const s = err.status();
      throw new StatusError(s.code, s.reason, s.message, s.details);
    }
    throw err;
  }
  if (!isObject(result)) {
    throw new StatusError(
      422,
      'Invalid',
      `${def.kind} "${current.metadata.name ?? ''}" is invalid: patch: Invalid value: the patched object is not a JSON object`,
    );
  }
  if (result.metadata !== undefined && !isObject(result.metadata)) {
    throw statusErrors.badRequest('metadata must be an object');
  }
  return result as KubeObject;
}
