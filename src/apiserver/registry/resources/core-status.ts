/**
 * The status subresource as upstream's core/v1 status strategies have it: a write to /status changes status (and
 * may touch metadata such as labels and annotations); every other top-level field stays as stored. Pods, nodes and
 * persistent volumes add their own rules on top.
 */
import type { FieldError } from '../../../api/field-errors.js';
import type { KubeObject } from '../object.js';
import type { StatusStrategy } from '../resource.js';

/** Copies every top-level field but metadata and status from old into obj. */
export function keepAllButStatus(obj: KubeObject, old: KubeObject): void {
  for (const key of Object.keys(obj)) if (key !== 'metadata' && key !== 'status') delete obj[key];
  for (const [key, value] of Object.entries(old)) if (key !== 'metadata' && key !== 'status') obj[key] = value;
  if (obj.status === undefined) delete obj.status;
}

export function specKeepingStatusStrategy(
  validate?: (obj: KubeObject, old: KubeObject) => FieldError[],
): StatusStrategy {
  return { prepareForUpdate: keepAllButStatus, ...(validate ? { validateUpdate: validate } : {}) };
}
