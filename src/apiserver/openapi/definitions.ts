/**
 * The committed schema tables (src/api/generated/definitions.json, written by scripts/gen-api.mjs) in their
 * compact form, as the OpenAPI publisher needs them: every definition by name with its extensions and
 * group/version/kinds, the definition that describes a kind, and the set of definitions a document must carry.
 */
import { readFileSync } from 'node:fs';

/** One schema in the compact generated form (see scripts/gen-api.mjs for the key names). */
export interface RawSchema {
  readonly t?: string;
  readonly f?: string;
  readonly e?: readonly string[];
  readonly r?: string;
  readonly i?: RawSchema;
  readonly ap?: RawSchema | boolean;
  readonly p?: Readonly<Record<string, RawSchema>>;
  readonly req?: readonly string[];
  readonly ps?: string;
  readonly pk?: string;
  readonly lt?: string;
  readonly lk?: readonly string[];
  readonly mt?: string;
  readonly pu?: boolean;
  readonly ios?: boolean;
  readonly er?: boolean;
  readonly un?: readonly unknown[];
  readonly gvk?: readonly (readonly [string, string, string])[];
}

export interface GroupVersionKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

/** Definitions every resource's operations use, whatever the resource. */
export const META = {
  status: 'io.k8s.apimachinery.pkg.apis.meta.v1.Status',
  deleteOptions: 'io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions',
  patch: 'io.k8s.apimachinery.pkg.apis.meta.v1.Patch',
  watchEvent: 'io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent',
  resourceList: 'io.k8s.apimachinery.pkg.apis.meta.v1.APIResourceList',
} as const;

let table: Readonly<Record<string, RawSchema>> | undefined;
let byKind: Map<string, string> | undefined;

export function rawDefinitions(): Readonly<Record<string, RawSchema>> {
  table ??= JSON.parse(
    readFileSync(new URL('../../api/generated/definitions.json', import.meta.url), 'utf8'),
  ) as Record<string, RawSchema>;
  return table;
}

export function rawDefinition(name: string): RawSchema | undefined {
  const defs = rawDefinitions();
  return Object.hasOwn(defs, name) ? defs[name] : undefined;
}

/** The name of the definition whose x-kubernetes-group-version-kind lists this kind (the first, as upstream). */
export function definitionOfKind(gvk: GroupVersionKind): string | undefined {
  if (byKind === undefined) {
    byKind = new Map();
    for (const [name, raw] of Object.entries(rawDefinitions())) {
      for (const [group, version, kind] of raw.gvk ?? []) {
        const key = `${group}/${version}/${kind}`;
        if (!byKind.has(key)) byKind.set(key, name);
      }
    }
  }
  return byKind.get(`${gvk.group}/${gvk.version}/${gvk.kind}`);
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
