import { type FieldError, path } from '../../../api/field-errors.js';
import type { ObjectMetaInput } from '../../../api/validation/object-meta-types.js';
import { validateObjectMetaUpdate } from '../../../api/validation/object-meta-update.js';
import type { KubeObject } from '../object.js';
import { type Builtin, STATUS_KEEPS_METADATA, type StatusKeptMetadata, statusStrategy } from './common.js';

/**
 * Gives a built-in resource's status subresource upstream's status validation (metadata update rules plus the
 * resource's own status checks). builtin() has no hook for it yet, so the status strategy is replaced here.
 */
export function withStatusValidation(
  b: Builtin,
  validate: (obj: KubeObject, old: KubeObject) => FieldError[],
  keptMetadata: StatusKeptMetadata = STATUS_KEEPS_METADATA,
): Builtin {
  b.def.status = statusStrategy(
    (obj, old) => [
      ...validateObjectMetaUpdate(obj.metadata as ObjectMetaInput, old.metadata as ObjectMetaInput, path('metadata')),
      ...validate(obj, old),
    ],
    keptMetadata,
  );
  return b;
}
