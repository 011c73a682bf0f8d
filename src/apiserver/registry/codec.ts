import { type FieldError, invalidStatus } from '../../api/field-errors.js';
import { StatusError, statusErrors } from '../../api/status-error.js';
import { isStorageError, type StorageError } from '../../storage/types.js';
import type { KubeObject } from './object.js';
import { groupResource, type ResourceDefinition } from './resource.js';

/**
 * A copy of the object with apiVersion, kind and metadata as its first keys, the order upstream writes them in
 * (apiVersion and kind replaced when given). Runs twice on every create.
 */
export function withTypeFirst(obj: KubeObject, apiVersion = obj.apiVersion, kind = obj.kind): KubeObject {
  return typeFirstCopy(obj, apiVersion, kind, obj.metadata);
}

/**
 * The copy withTypeFirst and encodeForStorage make, built key by key rather than with rest and spread patterns, which
 * cost more than the encoding on small objects. A "__proto__" key (a custom resource's unknown field kept) stays a
 * field, not a prototype.
 */
function typeFirstCopy(
  obj: KubeObject,
  apiVersion: KubeObject['apiVersion'],
  kind: KubeObject['kind'],
  metadata: KubeObject['metadata'],
): KubeObject {
  const out: Record<string, unknown> = { apiVersion, kind, metadata };
  for (const k of Object.keys(obj)) {
    if (k === 'apiVersion' || k === 'kind' || k === 'metadata') continue;
    if (k === '__proto__')
      Object.defineProperty(out, k, { value: obj[k], enumerable: true, writable: true, configurable: true });
    else out[k] = obj[k];
  }
  return out as KubeObject;
}

/** Objects are stored as JSON without their resourceVersion; it is the storage revision of their last write. */
export function encodeForStorage(obj: KubeObject): string {
  const meta = obj.metadata;
  let metadata: KubeObject['metadata'] = meta;
  if (meta && (meta.resourceVersion !== undefined || meta.selfLink !== undefined)) {
    metadata = {};
    for (const k of Object.keys(meta)) if (k !== 'resourceVersion' && k !== 'selfLink') metadata[k] = meta[k];
  }
  return JSON.stringify(typeFirstCopy(obj, obj.apiVersion, obj.kind, metadata));
}

/**
 * Objects the registry wrote, by the bytes it handed to storage (see handOver): a watch cache in the same process
 * takes the object for the decoded form of the change those bytes make, instead of decoding them again. Only writes
 * whose object nobody changes afterwards are remembered (the REST handlers' answers).
 */
const writtenObjects = new WeakMap<Buffer, KubeObject>();

export function rememberWritten(bytes: Buffer, obj: KubeObject): void {
  writtenObjects.set(bytes, obj);
}

/**
 * The object written as value, at revision (its resourceVersion set to it), when this process wrote it; given once
 * (a store may keep the bytes as long as the object lives, and the object must not live as long).
 */
export function writtenObjectOf(value: Buffer, revision: number): KubeObject | undefined {
  const obj = writtenObjects.get(value);
  if (!obj) return undefined;
  writtenObjects.delete(value);
  obj.metadata.resourceVersion = String(revision);
  return obj;
}

/** A JSON value already encoded, written into a response as it is. */
export class RawJson {
  constructor(readonly parts: readonly Buffer[]) {}
}

const METADATA_KEY = Buffer.from('"metadata":{');
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/**
 * A stored object's JSON with its resourceVersion spliced into its metadata, without decoding it; undefined when
 * the bytes are not in the shape encodeForStorage writes (top-level metadata before any nested object).
 */
export function storedJsonWithRevision(value: Buffer, revision: number): RawJson | undefined {
  const at = value.indexOf(METADATA_KEY);
  if (at < 0 || value.indexOf(OPEN_BRACE, 1) < at) return undefined;
  const cut = at + METADATA_KEY.length;
  const empty = value[cut] === CLOSE_BRACE;
  const rv = Buffer.from(`"resourceVersion":"${revision}"${empty ? '' : ','}`);
  return new RawJson([value.subarray(0, cut), rv, value.subarray(cut)]);
}

export function decodeFromStorage(value: Buffer, revision: number): KubeObject {
  return decodeJson(value.toString('utf8'), revision);
}

/** A stored object's JSON text as an object with its resourceVersion. */
export function decodeJson(json: string, revision: number): KubeObject {
  const obj = JSON.parse(json) as KubeObject;
  const meta = obj.metadata as unknown;
  if (meta !== null && typeof meta === 'object' && !Array.isArray(meta))
    obj.metadata.resourceVersion = String(revision);
  else obj.metadata = { resourceVersion: String(revision) };
  return obj;
}

/** The Status a storage failure becomes for a client, as kube-apiserver maps etcd's errors. */
export function storageToStatus(err: unknown, def: ResourceDefinition, name: string): StatusError {
  if (err instanceof StatusError) return err;
  if (!isStorageError(err)) return statusErrors.internal(err);
  const e: StorageError = err;
  switch (e.code) {
    case 'KeyExists':
      return statusErrors.alreadyExists(groupResource(def), name);
    case 'NotFound':
      return statusErrors.notFound(groupResource(def), name);
    case 'Conflict':
      return statusErrors.modified(groupResource(def), name);
    case 'Compacted':
      return statusErrors.resourceExpired('The resourceVersion for the provided list is too old.');
    case 'TooLarge':
      return statusErrors.requestEntityTooLarge('limit is 1500000 bytes for a stored object');
    case 'FutureRevision':
      return statusErrors.timeout(`Too large resource version: ${e.message}`, 1);
    default:
      return statusErrors.internal(e);
  }
}

/** The 422 Invalid status for a failed validation, with upstream's message and causes. */
export function invalidError(def: ResourceDefinition, name: string, errors: FieldError[]): StatusError {
  const s = invalidStatus({ group: def.group, kind: def.kind }, name, errors);
  return new StatusError(422, 'Invalid', s.message, s.details);
}
