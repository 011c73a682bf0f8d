/**
 * What the garbage collector learns from discovery: the resources it watches (upstream's GetDeletableResources:
 * the preferred version of every resource that supports list, watch and delete, less the ignored ones) and the
 * mapping from an ownerReference's apiVersion and kind to the resource to GET, PATCH and DELETE (a REST mapper over
 * every served version).
 */
import { type DiscoveredResource, GroupDiscoveryFailedError, serverResources } from '../../client/discovery.js';
import type { KubeClient } from '../../client/rest.js';
import type { GroupVersionResource } from '../../client/types.js';

/** Upstream's default --gc-ignored-resources: Events are never owners worth tracking. */
export const IGNORED_RESOURCES: ReadonlySet<string> = new Set(['events', 'events.events.k8s.io']);

export interface DeletableResource {
  gvr: GroupVersionResource;
  /** apiVersion of the group version, e.g. `apps/v1`, `v1`. */
  apiVersion: string;
  kind: string;
  namespaced: boolean;
}

export interface ResourceMapping {
  gvr: GroupVersionResource;
  namespaced: boolean;
}

export interface DiscoveryResult {
  /** Keyed by `resource.version.group`. */
  deletable: Map<string, DeletableResource>;
  mapper: RestMapper;
  /** Group versions (apiVersion spelling) discovery could not read this time. */
  failedGroupVersions: Set<string>;
}

export function apiVersionOf(group: string, version: string): string {
  return group === '' ? version : `${group}/${version}`;
}

export function resourceKey(gvr: GroupVersionResource): string {
  return gvr.group ? `${gvr.resource}.${gvr.version}.${gvr.group}` : `${gvr.resource}.${gvr.version}`;
}

/** An ownerReference names a kind the mapper does not know (yet): retried until discovery knows it. */
export class RestMappingError extends Error {
  constructor(kind: string, apiVersion: string) {
    super(`unable to get REST mapping for ${kind}/${apiVersion}.`);
    this.name = 'RestMappingError';
  }
}

/** apiVersion + kind → resource, for every served version. */
export class RestMapper {
  private readonly byKind = new Map<string, ResourceMapping>();

  /** fallback answers for kinds these resources do not have (the previous mapper, when discovery was partial). */
  constructor(
    resources: readonly DiscoveredResource[],
    private readonly fallback?: RestMapper,
  ) {
    for (const r of resources) {
      if (!r.kind || !r.resource) continue;
      const key = `${apiVersionOf(r.group, r.version)}\u0000${r.kind}`;
      if (this.byKind.has(key)) continue;
      this.byKind.set(key, {
        gvr: { group: r.group, version: r.version, resource: r.resource },
        namespaced: r.namespaced,
      });
    }
  }

  /** The same mappings, without a fallback (so that chains of partial discoveries stay one deep). */
  withoutFallback(): RestMapper {
    if (!this.fallback) return this;
    const copy = new RestMapper([]);
    for (const [key, value] of this.fallback.byKind) copy.byKind.set(key, value);
    for (const [key, value] of this.byKind) copy.byKind.set(key, value);
    return copy;
  }

  mapping(apiVersion: string, kind: string): ResourceMapping {
    const found = this.byKind.get(`${apiVersion}\u0000${kind}`);
    if (found) return found;
    if (this.fallback) return this.fallback.mapping(apiVersion, kind);
    throw new RestMappingError(kind, apiVersion);
  }
}

/** One discovery round: the deletable resources and a fresh mapper (partial when some groups failed). */
export async function discoverResources(
  client: KubeClient,
  ignored: ReadonlySet<string> = IGNORED_RESOURCES,
  previous?: RestMapper,
): Promise<DiscoveryResult> {
  let all: DiscoveredResource[];
  const failedGroupVersions = new Set<string>();
  try {
    all = await serverResources(client);
  } catch (err) {
    if (!(err instanceof GroupDiscoveryFailedError)) throw err;
    all = err.resources;
    for (const gv of err.groups.keys()) failedGroupVersions.add(gv);
  }
  const deletable = new Map<string, DeletableResource>();
  for (const r of all) {
    if (!r.preferred) continue;
    if (!['list', 'watch', 'delete'].every((verb) => r.verbs.includes(verb))) continue;
    const gvr = { group: r.group, version: r.version, resource: r.resource };
    const groupResource = r.group ? `${r.resource}.${r.group}` : r.resource;
    if (ignored.has(groupResource)) continue;
    deletable.set(resourceKey(gvr), {
      gvr,
      apiVersion: apiVersionOf(r.group, r.version),
      kind: r.kind,
      namespaced: r.namespaced,
    });
  }
  const mapper = new RestMapper(all, failedGroupVersions.size > 0 ? previous?.withoutFallback() : undefined);
  return { deletable, mapper, failedGroupVersions };
}
