import { lookupResource } from '../../../api/catalog.js';
import type { FieldError } from '../../../api/field-errors.js';
import { path } from '../../../api/field-errors.js';
import { goStructEncoder } from '../../../api/protobuf/go-struct-json.js';
import { type NameValidator, nameIsDNSSubdomain } from '../../../api/validation/name-validators.js';
import { validateObjectMeta } from '../../../api/validation/object-meta.js';
import type { ObjectMetaInput } from '../../../api/validation/object-meta-types.js';
import { validateObjectMetaUpdate } from '../../../api/validation/object-meta-update.js';
import { deepClone } from '../../../util/clone.js';
import { defaultPrinter, type Printer } from '../../printers/table.js';
import type { KubeObject } from '../object.js';
import type { ResourceDefinition, StatusStrategy, Strategy } from '../resource.js';

export interface BuiltinSpec {
  group: string;
  version: string;
  resource: string;
  strategy?: Strategy;
  /** The name format the resource requires (default: a DNS-1123 subdomain, as most upstream resources). */
  nameValidator?: NameValidator;
  /** Whether the resource has a status subresource this server serves. */
  hasStatus?: boolean;
  /** Whether the resource has a scale subresource (autoscaling/v1 Scale over spec.replicas). */
  hasScale?: boolean;
  /** Whether the resource has a finalize subresource (namespaces). */
  hasFinalize?: boolean;
  printer?: Printer;
}

export interface Builtin {
  def: ResourceDefinition;
  printer: Printer;
}

/**
 * A built-in resource from the catalog's facts (kind, scope, storage prefix) and its own strategy. Every one gets
 * upstream's metadata validation; resources with a status subresource get its spec/status split: status is
 * ignored on the main resource and everything but status is ignored on /status.
 */
export function builtin(spec: BuiltinSpec): Builtin {
  const info = lookupResource(spec.group, spec.version, spec.resource);
  if (!info?.storagePrefix)
    throw new Error(`${spec.resource} in ${spec.group}/${spec.version} is not a stored resource`);
  const own = spec.strategy ?? {};
  const options = { namespaced: info.namespaced, nameValidator: spec.nameValidator ?? nameIsDNSSubdomain };
  // A created object's status is reset to its type's zero value, which upstream writes as Go encodes it (an
  // HPA's `{desiredReplicas: 0, currentMetrics: null}`, a Service's `{loadBalancer: {}}`); worked out once per kind.
  let zeroStatus: unknown;
  const resetStatus = (obj: KubeObject) => {
    zeroStatus ??= zeroStatusOf(info.group ? `${info.group}/${info.version}` : info.version, info.kind) ?? null;
    if (zeroStatus === null) delete obj.status;
    else obj.status = deepClone(zeroStatus) as KubeObject['status'];
  };
  const strategy: Strategy = {
    ...own,
    prepareForCreate(obj, user) {
      if (spec.hasStatus) resetStatus(obj);
      own.prepareForCreate?.(obj, user);
    },
    prepareForUpdate(obj, old) {
      if (spec.hasStatus) {
        if (old.status === undefined) delete obj.status;
        else obj.status = old.status;
      }
      own.prepareForUpdate?.(obj, old);
    },
    validate(obj) {
      return [...validateObjectMeta(obj.metadata as ObjectMetaInput, options), ...(own.validate?.(obj) ?? [])];
    },
    validateUpdate(obj, old) {
      return [
        ...validateObjectMetaUpdate(obj.metadata as ObjectMetaInput, old.metadata as ObjectMetaInput, path('metadata')),
        ...validateObjectMeta(obj.metadata as ObjectMetaInput, options),
        ...(own.validateUpdate?.(obj, old) ?? own.validate?.(obj) ?? []),
      ];
    },
  };
  const def: ResourceDefinition = {
    group: info.group,
    version: info.version,
    resource: info.resource,
    kind: info.kind,
    listKind: `${info.kind}List`,
    namespaced: info.namespaced,
    storagePrefix: `/registry/${info.storagePrefix}`,
    strategy,
    ...(spec.hasStatus ? { status: statusStrategy() } : {}),
    ...(spec.hasScale ? { scale: true } : {}),
    ...(spec.hasFinalize ? { finalize: true } : {}),
  };
  return { def, printer: spec.printer ?? defaultPrinter };
}

/** The metadata upstream's ResetObjectMetaForStatus keeps from the stored object on a status write. */
export const STATUS_KEEPS_METADATA = ['labels', 'annotations', 'finalizers', 'ownerReferences'] as const;
export type StatusKeptMetadata = readonly (typeof STATUS_KEEPS_METADATA)[number][];

/**
 * Upstream's status-update rules: a write to /status changes status only; spec and the metadata a status writer
 * may not touch are kept as they were — by default labels, annotations, finalizers and owner references; some
 * resources keep less (a Deployment only its labels: its controller writes revision annotations through /status).
 */
export function statusStrategy(
  validate?: (obj: KubeObject, old: KubeObject) => FieldError[],
  keptMetadata: StatusKeptMetadata = STATUS_KEEPS_METADATA,
): StatusStrategy {
  return {
    prepareForUpdate(obj, old) {
      const status = obj.status;
      for (const key of Object.keys(obj)) if (key !== 'metadata' && key !== 'status') delete obj[key];
      for (const [key, value] of Object.entries(old)) if (key !== 'metadata' && key !== 'status') obj[key] = value;
      if (status === undefined) delete obj.status;
      keepStatusMetadata(obj, old, keptMetadata);
    },
    ...(validate ? { validateUpdate: validate } : {}),
  };
}

/** Sets back the metadata a status-like write may not change (upstream's ResetObjectMetaForStatus) to old's. */
export function keepStatusMetadata(
  obj: KubeObject,
  old: KubeObject,
  keptMetadata: StatusKeptMetadata = STATUS_KEEPS_METADATA,
): void {
  const meta = obj.metadata;
  for (const field of keptMetadata) {
    if (old.metadata[field] === undefined) delete meta[field];
    else meta[field] = old.metadata[field] as never;
  }
}

/** The number of entries of a map field, for DATA-style columns. */
export function countKeys(v: unknown): number {
  return v && typeof v === 'object' ? Object.keys(v).length : 0;
}

/** The status of a kind as Go encodes its zero value, or undefined when the type has no status struct. */
function zeroStatusOf(apiVersion: string, kind: string): unknown {
  const encoded = goStructEncoder().encodeObject({}, apiVersion, kind);
  return encoded.status !== null && typeof encoded.status === 'object' ? encoded.status : undefined;
}
