/**
 * What the server actually serves, grouped the way the OpenAPI documents are: one entry per group/version that
 * has at least one served resource, in discovery order (core first), resources sorted by name.
 */
import { servedGroupVersions } from '../../api/catalog.js';
import type { APIRegistry, ServedResource } from '../api-registry.js';

export interface ServedGroupVersion {
  readonly group: string;
  readonly version: string;
  readonly resources: readonly ServedResource[];
}

export function servedByGroupVersion(registry: APIRegistry): ServedGroupVersion[] {
  const all = registry.all();
  const known = new Set<string>();
  const out: ServedGroupVersion[] = [];
  const take = (group: string, version: string) => {
    known.add(`${group}/${version}`);
    const resources = all
      .filter((s) => s.def.group === group && s.def.version === version)
      .sort((a, b) => (a.def.resource < b.def.resource ? -1 : a.def.resource > b.def.resource ? 1 : 0));
    if (resources.length > 0) out.push({ group, version, resources });
  };
  for (const g of servedGroupVersions()) for (const version of g.versions) take(g.group, version);
  // Group/versions outside the catalog (none today) go last, in name order.
  const extra = [...new Set(all.map((s) => `${s.def.group}/${s.def.version}`))].filter((k) => !known.has(k)).sort();
  for (const k of extra) {
    const slash = k.lastIndexOf('/');
    take(k.slice(0, slash), k.slice(slash + 1));
  }
  return out;
}

/** The key of a group/version in /openapi/v3: `api/v1` or `apis/<group>/<version>`. */
export function openAPIV3Key(group: string, version: string): string {
  return group === '' ? `api/${version}` : `apis/${group}/${version}`;
}

/** A string that changes whenever what the documents describe changes. */
export function servedSignature(registry: APIRegistry): string {
  return registry
    .all()
    .map((served) => {
      const { def } = served;
      const flags = def as { status?: unknown; scale?: boolean };
      return [
        def.group,
        def.version,
        def.resource,
        def.kind,
        def.listKind,
        def.namespaced,
        flags.status !== undefined,
        flags.scale === true,
        def.strategy.returnDeletedObject === true,
        served.openapi?.signature ?? '',
      ].join(':');
    })
    .sort()
    .join('\n');
}
