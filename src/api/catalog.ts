/**
 * The catalog of built-in resources a default v1.33 kube-apiserver serves: groups in discovery
 * order with their preferred versions, and per group/version the resources with kind, scope,
 * verbs, subresources, discovery names and storage key prefix. Built from generated/resources.json
 * (scripts/gen-api.mjs) and the hand-written facts in resource-facts.ts.
 */
import { readGeneratedJson } from './generated-files.js';
import { resourceFacts } from './resource-facts.js';

export interface SubresourceInfo {
  readonly name: string;
  readonly kind: string;
  /** The group and version of `kind`; differs from the parent's for e.g. scale (autoscaling/v1). */
  readonly group: string;
  readonly version: string;
  readonly verbs: readonly string[];
}

export interface ResourceInfo {
  readonly group: string;
  readonly version: string;
  /** The plural resource name in URLs, e.g. `pods`. */
  readonly resource: string;
  readonly kind: string;
  readonly namespaced: boolean;
  readonly verbs: readonly string[];
  readonly singularName: string;
  readonly shortNames: readonly string[];
  readonly categories: readonly string[];
  readonly subresources: readonly SubresourceInfo[];
  /** Key prefix under /registry, e.g. `minions`; undefined for resources that are not stored. */
  readonly storagePrefix?: string;
}

export interface ServedGroup {
  /** '' for the core group, served under /api; the others are listed at /apis in this order. */
  readonly group: string;
  /** Served versions, preferred first. */
  readonly versions: readonly string[];
  readonly preferredVersion: string;
}

interface GeneratedSubresource {
  name: string;
  kind: string;
  group?: string;
  version?: string;
  verbs: string[];
}
interface GeneratedResource {
  name: string;
  kind: string;
  namespaced: boolean;
  verbs: string[];
  subresources?: GeneratedSubresource[];
}
interface Generated {
  groups: { name: string; preferredVersion: string; versions: string[] }[];
  resources: Record<string, GeneratedResource[]>;
}

interface Catalog {
  readonly groups: readonly ServedGroup[];
  readonly byGroupVersion: ReadonlyMap<string, readonly ResourceInfo[]>;
}

let catalog: Catalog | undefined;

const gvKey = (group: string, version: string): string => (group === '' ? version : `${group}/${version}`);

function toInfo(group: string, version: string, r: GeneratedResource): ResourceInfo {
  const facts = resourceFacts(group, r.name);
  if (facts === undefined) throw new Error(`catalog: no facts for ${group || 'core'} ${r.name}`);
  return Object.freeze({
    group,
    version,
    resource: r.name,
    kind: r.kind,
    namespaced: r.namespaced,
    verbs: Object.freeze([...r.verbs]),
    singularName: facts.singularName ?? r.kind.toLowerCase(),
    shortNames: Object.freeze([...(facts.shortNames ?? [])]),
    categories: Object.freeze([...(facts.categories ?? [])]),
    subresources: Object.freeze(
      (r.subresources ?? []).map((s) =>
        Object.freeze({
          name: s.name,
          kind: s.kind,
          group: s.group ?? group,
          version: s.version ?? version,
          verbs: Object.freeze([...s.verbs]),
        }),
      ),
    ),
    storagePrefix: facts.storagePrefix,
  });
}

function load(): Catalog {
  if (catalog !== undefined) return catalog;
  const raw = readGeneratedJson<Generated>('resources.json');
  const groups = raw.groups.map((g) =>
    Object.freeze({ group: g.name, versions: Object.freeze([...g.versions]), preferredVersion: g.preferredVersion }),
  );
  const byGroupVersion = new Map<string, readonly ResourceInfo[]>();
  for (const g of groups) {
    for (const version of g.versions) {
      const list = raw.resources[gvKey(g.group, version)] ?? [];
      byGroupVersion.set(gvKey(g.group, version), Object.freeze(list.map((r) => toInfo(g.group, version, r))));
    }
  }
  catalog = { groups: Object.freeze(groups), byGroupVersion };
  return catalog;
}

/** The served groups in upstream's discovery order (core first), each with its versions. */
export function servedGroupVersions(): readonly ServedGroup[] {
  return load().groups;
}

/** The resources of one served group/version, sorted by name; empty when it is not served. */
export function resourcesOf(group: string, version: string): readonly ResourceInfo[] {
  return load().byGroupVersion.get(gvKey(group, version)) ?? [];
}

/** One resource by its plural name (no subresource), e.g. ('apps', 'v1', 'deployments'). */
export function lookupResource(group: string, version: string, resource: string): ResourceInfo | undefined {
  return resourcesOf(group, version).find((r) => r.resource === resource);
}

/** The top-level resource whose objects have this kind in this group/version. */
export function lookupKind(group: string, version: string, kind: string): ResourceInfo | undefined {
  return resourcesOf(group, version).find((r) => r.kind === kind);
}

/**
 * The storage key prefix of a resource's objects, ending in '/': `/registry/<prefix>/` for all of
 * them, or `/registry/<prefix>/<namespace>/` for one namespace of a namespaced resource.
 */
export function storageListPrefix(info: ResourceInfo, namespace?: string): string {
  if (info.storagePrefix === undefined) {
    throw new Error(`${info.resource}${info.group ? `.${info.group}` : ''} is not a stored resource`);
  }
  if (namespace === undefined || namespace === '') return `/registry/${info.storagePrefix}/`;
  if (!info.namespaced) throw new Error(`${info.resource} is cluster-scoped and has no namespace in its key`);
  return `/registry/${info.storagePrefix}/${namespace}/`;
}

/** The storage key of one object: `/registry/<prefix>/<namespace>/<name>` or `/registry/<prefix>/<name>`. */
export function storageKey(info: ResourceInfo, namespace: string | undefined, name: string): string {
  if (name === '') throw new Error('storage key needs a name');
  if (info.namespaced && (namespace === undefined || namespace === '')) {
    throw new Error(`${info.resource} is namespaced and its key needs a namespace`);
  }
  return `${storageListPrefix(info, namespace)}${name}`;
}
