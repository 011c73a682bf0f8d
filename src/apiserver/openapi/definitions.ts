/**
 * The committed schema tables (src/api/generated/definitions.json, written by scripts/gen-api.mjs) in their
 * compact form, as the OpenAPI publisher needs them: every definition by name with its extensions and
 * group/version/kinds, the definition that describes a kind, and the set of definitions a document must carry.
 */
import { type RawSchema, rawDefinitions } from '../../api/schema.js';

export { definitionOfKind, type GroupVersionKind, type RawSchema, rawDefinitions } from '../../api/schema.js';

/** Definitions every resource's operations use, whatever the resource. */
export const META = {
  status: 'io.k8s.apimachinery.pkg.apis.meta.v1.Status',
  deleteOptions: 'io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions',
  patch: 'io.k8s.apimachinery.pkg.apis.meta.v1.Patch',
  watchEvent: 'io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent',
  resourceList: 'io.k8s.apimachinery.pkg.apis.meta.v1.APIResourceList',
} as const;

export function rawDefinition(name: string): RawSchema | undefined {
  const defs = rawDefinitions();
  return Object.hasOwn(defs, name) ? defs[name] : undefined;
}

function collectRefs(raw: RawSchema, into: string[]): void {
  if (raw.r !== undefined) into.push(raw.r);
  if (raw.i !== undefined) collectRefs(raw.i, into);
  if (raw.ap !== undefined && typeof raw.ap !== 'boolean') collectRefs(raw.ap, into);
  for (const prop of Object.values(raw.p ?? {})) collectRefs(prop, into);
}

/** The named definitions and every definition they reach through $refs, sorted by name. */
export function reachableDefinitions(roots: Iterable<string>): string[] {
  const seen = new Set<string>();
  const queue = [...roots];
  for (let name = queue.pop(); name !== undefined; name = queue.pop()) {
    if (seen.has(name)) continue;
    const raw = rawDefinition(name);
    if (raw === undefined) throw new Error(`openapi: definition ${name} is referenced but not generated`);
    seen.add(name);
    collectRefs(raw, queue);
  }
  return [...seen].sort();
}
