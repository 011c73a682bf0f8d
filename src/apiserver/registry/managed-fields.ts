import type { SchemaNode } from '../../api/schema-node.js';
import { isObject, type KubeObject } from './object.js';

/**
 * metadata.managedFields for writes that are not server-side apply (operation "Update"): which manager set which
 * fields, in upstream's FieldsV1 notation ("f:<field>", "k:{…}" for list elements with keys, "v:<value>" for set
 * elements, "." for a map or list element itself). The writer of a change owns what it changed; fields it removed
 * are owned by nobody any more.
 */
export interface ManagedFieldsEntry {
  manager: string;
  operation: 'Update' | 'Apply';
  apiVersion: string;
  time: string;
  fieldsType: 'FieldsV1';
  fieldsV1: Record<string, unknown>;
  subresource?: string;
}

/** Fields of the object itself that nobody manages (system fields and the managed fields themselves). */
const UNMANAGED_METADATA = new Set([
  'name',
  'namespace',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'managedFields',
  'selfLink',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
]);

/** Leaf paths of a value, each with the JSON of what is there ("" for the "." markers of maps and elements). */
function leaves(value: unknown, schema: SchemaNode | undefined, prefix: string, out: Map<string, string>): void {
  if (Array.isArray(value)) {
    const keys = schema?.listMapKeys ?? (schema?.patchMergeKey ? [schema.patchMergeKey] : undefined);
    if (keys && value.every(isObject)) {
      for (const item of value as Record<string, unknown>[]) {
        const id: Record<string, unknown> = {};
        for (const k of keys) if (item[k] !== undefined) id[k] = item[k];
        const path = `${prefix}/k:${JSON.stringify(id)}`;
        out.set(`${path}/.`, '');
        leaves(item, schema?.items, path, out);
      }
      return;
    }
    if (schema?.listType === 'set') {
      for (const item of value) out.set(`${prefix}/v:${JSON.stringify(item)}`, '');
      return;
    }
    out.set(prefix, JSON.stringify(value));
    return;
  }
  if (isObject(value) && !schema?.preserveUnknownFields && schema?.type !== 'string') {
    const isMap = !schema || schema.additionalProperties !== undefined || schema.propertyNames === undefined;
    if (isMap && prefix) out.set(`${prefix}/.`, '');
    for (const [k, v] of Object.entries(value)) {
      if (v === undefined) continue;
      const child = schema?.property(k) ?? schema?.additionalProperties;
      leaves(v, child, `${prefix}/f:${k}`, out);
    }
    return;
  }
  out.set(prefix, JSON.stringify(value));
}

/** The fields a write of this resource can manage: no system fields; status only through /status. */
export function managedLeaves(
  obj: KubeObject,
  schema: SchemaNode | undefined,
  subresource?: string,
): Map<string, string> {
  const out = new Map<string, string>();
  if (subresource === 'status') {
    if (obj.status !== undefined) leaves(obj.status, schema?.property('status'), '/f:status', out);
    return out;
  }
  for (const [k, v] of Object.entries(obj)) {
    if (v === undefined || k === 'apiVersion' || k === 'kind' || k === 'status') continue;
    if (k === 'metadata' && isObject(v)) {
      for (const [mk, mv] of Object.entries(v)) {
        if (mv === undefined || UNMANAGED_METADATA.has(mk)) continue;
        leaves(mv, schema?.property('metadata')?.property(mk), `/f:metadata/f:${mk}`, out);
      }
      continue;
    }
    leaves(v, schema?.property(k), `/f:${k}`, out);
  }
  return out;
}

/** FieldsV1 from a set of leaf paths. */
export function toFieldsV1(paths: Iterable<string>): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const p of paths) {
    let node = root;
    for (const part of p.split('/').filter(Boolean)) {
      node[part] ??= {};
      node = node[part] as Record<string, unknown>;
    }
  }
  return root;
}

/** The leaf paths of a FieldsV1 tree. */
export function fromFieldsV1(fields: unknown, prefix = ''): string[] {
  if (!isObject(fields)) return [];
  const out: string[] = [];
  for (const [k, v] of Object.entries(fields)) {
    const p = `${prefix}/${k}`;
    const below = fromFieldsV1(v, p);
    if (below.length === 0) out.push(p);
    else out.push(...below);
  }
  return out;
}

/**
 * The managed fields after `manager` wrote `next` over `old` (undefined for a create): the manager gains what it
 * changed, everyone loses what it changed or removed, and entries left with nothing are dropped.
 */
export function updateManagedFields(
  entries: ManagedFieldsEntry[],
  old: KubeObject | undefined,
  next: KubeObject,
  opts: { manager: string; apiVersion: string; time: string; schema: SchemaNode | undefined; subresource?: string },
): ManagedFieldsEntry[] {
  const before = old ? managedLeaves(old, opts.schema, opts.subresource) : new Map<string, string>();
  const after = managedLeaves(next, opts.schema, opts.subresource);
  const changed = new Set<string>();
  for (const [p, v] of after) if (before.get(p) !== v) changed.add(p);
  const removed = new Set([...before.keys()].filter((p) => !after.has(p)));
  if (changed.size === 0 && removed.size === 0 && old) return entries;
  const sameEntry = (e: ManagedFieldsEntry) =>
    e.manager === opts.manager && e.operation === 'Update' && (e.subresource ?? '') === (opts.subresource ?? '');
  const result: ManagedFieldsEntry[] = [];
  let mine = new Set<string>();
  for (const e of entries) {
    const all = fromFieldsV1(e.fieldsV1);
    const paths = all.filter((p) => !removed.has(p) && !changed.has(p));
    if (sameEntry(e)) {
      mine = new Set(paths);
      continue;
    }
    // Another manager's entry keeps its set as it is unless this change took fields from it.
    if (paths.length === all.length) result.push(e);
    else if (paths.length > 0) result.push({ ...e, fieldsV1: toFieldsV1(paths) });
  }
  for (const p of changed) mine.add(p);
  if (mine.size > 0) {
    result.push({
      manager: opts.manager,
      operation: 'Update',
      apiVersion: opts.apiVersion,
      time: opts.time,
      fieldsType: 'FieldsV1',
      fieldsV1: toFieldsV1([...mine].sort()),
      ...(opts.subresource ? { subresource: opts.subresource } : {}),
    });
  }
  return result;
}

/** The manager of a request: ?fieldManager, else the client's User-Agent up to its first '/', as upstream. */
export function fieldManagerOf(query: URLSearchParams, userAgent: string | undefined): string {
  const explicit = query.get('fieldManager');
  if (explicit) return explicit.slice(0, 128);
  const agent = (userAgent ?? '').split('/')[0] ?? '';
  return agent.slice(0, 128) || 'unknown';
}
