/**
 * Discovery (client-go's discovery client): which resources the server serves, in which groups and versions,
 * namespaced or not, with which verbs and subresources. Asks for aggregated discovery (/api and /apis answered as
 * APIGroupDiscoveryList, two requests) and falls back to plain discovery (/api, /api/v1, /apis, /apis/<g>/<v>)
 * when the server answers in the old form.
 */
import type { KubeClient } from './rest.js';

export interface DiscoveredSubresource {
  /** e.g. status, scale. */
  name: string;
  kind: string;
  verbs: string[];
}

export interface DiscoveredResource {
  /** '' for the core group. */
  group: string;
  version: string;
  /** The plural name in URLs, e.g. pods. */
  resource: string;
  kind: string;
  namespaced: boolean;
  verbs: string[];
  /** Whether `version` is the group's preferred version. */
  preferred: boolean;
  singularName?: string;
  shortNames?: string[];
  categories?: string[];
  subresources?: DiscoveredSubresource[];
}

/** Some group versions could not be read; `resources` holds what could (client-go's ErrGroupDiscoveryFailed). */
export class GroupDiscoveryFailedError extends Error {
  constructor(
    readonly resources: DiscoveredResource[],
    /** groupVersion (e.g. apps/v1, or v1 for core) → why it failed. */
    readonly groups: Map<string, unknown>,
  ) {
    super(
      `unable to retrieve the complete list of server APIs: ${[...groups]
        .map(([gv, error]) => `${gv}: ${error instanceof Error ? error.message : String(error)}`)
        .join(', ')}`,
    );
    this.name = 'GroupDiscoveryFailedError';
  }
}

export interface DiscoveryOptions {
  /** Ask for aggregated discovery first (default true). */
  aggregated?: boolean;
}

const AGGREGATED_ACCEPT =
  'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,' +
  'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';

/**
 * Every resource of every served group version, core first, in the server's order. Subresources are listed under
 * their resource, not as resources of their own. Rejects with GroupDiscoveryFailedError (carrying the rest) when
 * some group versions could not be read.
 */
export async function serverResources(client: KubeClient, opts: DiscoveryOptions = {}): Promise<DiscoveredResource[]> {
  if (opts.aggregated !== false) {
    const [core, groups] = await Promise.all([
      client.request<Record<string, unknown>>({ method: 'GET', path: '/api', accept: AGGREGATED_ACCEPT }),
      client.request<Record<string, unknown>>({ method: 'GET', path: '/apis', accept: AGGREGATED_ACCEPT }),
    ]);
    if (core?.kind === 'APIGroupDiscoveryList' && groups?.kind === 'APIGroupDiscoveryList') {
      return fromAggregated([core, groups]);
    }
    return fromPlain(client, core, groups);
  }
  const [core, groups] = await Promise.all([
    client.request<Record<string, unknown>>({ method: 'GET', path: '/api' }),
    client.request<Record<string, unknown>>({ method: 'GET', path: '/apis' }),
  ]);
  return fromPlain(client, core, groups);
}

/** Only the preferred version of each group (client-go's ServerPreferredResources). */
export async function serverPreferredResources(
  client: KubeClient,
  opts: DiscoveryOptions = {},
): Promise<DiscoveredResource[]> {
  try {
    return (await serverResources(client, opts)).filter((r) => r.preferred);
  } catch (error) {
    if (error instanceof GroupDiscoveryFailedError) {
      throw new GroupDiscoveryFailedError(
        error.resources.filter((r) => r.preferred),
        error.groups,
      );
    }
    throw error;
  }
}

interface AggregatedResource {
  resource?: string;
  responseKind?: { kind?: string };
  scope?: string;
  singularResource?: string;
  verbs?: string[];
  shortNames?: string[];
  categories?: string[];
  subresources?: { subresource?: string; responseKind?: { kind?: string }; verbs?: string[] }[];
}

interface AggregatedGroup {
  metadata?: { name?: string };
  versions?: { version?: string; resources?: AggregatedResource[]; freshness?: string }[];
}

/** apidiscovery.k8s.io/v2 APIGroupDiscoveryList: versions are in preference order; Stale ones count as failed. */
function fromAggregated(lists: Record<string, unknown>[]): DiscoveredResource[] {
  const out: DiscoveredResource[] = [];
  const failed = new Map<string, unknown>();
  for (const list of lists) {
    for (const item of (list.items ?? []) as AggregatedGroup[]) {
      const group = item.metadata?.name ?? '';
      (item.versions ?? []).forEach((v, index) => {
        const version = v.version ?? '';
        if (v.freshness === 'Stale') {
          failed.set(groupVersion(group, version), new Error('stale discovery information'));
          return;
        }
        for (const r of v.resources ?? []) {
          const resource: DiscoveredResource = {
            group,
            version,
            resource: r.resource ?? '',
            kind: r.responseKind?.kind ?? '',
            namespaced: r.scope === 'Namespaced',
            verbs: [...(r.verbs ?? [])],
            preferred: index === 0,
          };
          if (r.singularResource) resource.singularName = r.singularResource;
          if (r.shortNames?.length) resource.shortNames = [...r.shortNames];
          if (r.categories?.length) resource.categories = [...r.categories];
          if (r.subresources?.length) {
            resource.subresources = r.subresources.map((s) => ({
              name: s.subresource ?? '',
              kind: s.responseKind?.kind ?? '',
              verbs: [...(s.verbs ?? [])],
            }));
          }
          out.push(resource);
        }
      });
    }
  }
  if (failed.size > 0) throw new GroupDiscoveryFailedError(out, failed);
  return out;
}

interface ApiGroup {
  name?: string;
  versions?: { version?: string }[];
  preferredVersion?: { version?: string };
}

interface ApiResource {
  name?: string;
  singularName?: string;
  namespaced?: boolean;
  kind?: string;
  verbs?: string[];
  shortNames?: string[];
  categories?: string[];
}

/** /api (APIVersions) and /apis (APIGroupList), then one APIResourceList per group version. */
async function fromPlain(
  client: KubeClient,
  core: Record<string, unknown> | undefined,
  groups: Record<string, unknown> | undefined,
): Promise<DiscoveredResource[]> {
  const wanted: { group: string; version: string; preferred: boolean }[] = [];
  const coreVersions = (core?.versions ?? []) as string[];
  coreVersions.forEach((version, index) => {
    wanted.push({ group: '', version, preferred: index === 0 });
  });
  for (const g of (groups?.groups ?? []) as ApiGroup[]) {
    const name = g.name ?? '';
    const preferred = g.preferredVersion?.version ?? g.versions?.[0]?.version;
    for (const v of g.versions ?? []) {
      if (v.version) wanted.push({ group: name, version: v.version, preferred: v.version === preferred });
    }
  }
  const failed = new Map<string, unknown>();
  const lists = await Promise.all(
    wanted.map(async (gv) => {
      const path = gv.group === '' ? `/api/${gv.version}` : `/apis/${gv.group}/${gv.version}`;
      try {
        return await client.request<{ resources?: ApiResource[] }>({ method: 'GET', path });
      } catch (error) {
        failed.set(groupVersion(gv.group, gv.version), error);
        return undefined;
      }
    }),
  );
  const out: DiscoveredResource[] = [];
  wanted.forEach((gv, index) => {
    const entries = lists[index]?.resources ?? [];
    const byName = new Map<string, DiscoveredResource>();
    for (const r of entries) {
      const name = r.name ?? '';
      if (name.includes('/')) continue;
      const resource: DiscoveredResource = {
        group: gv.group,
        version: gv.version,
        resource: name,
        kind: r.kind ?? '',
        namespaced: r.namespaced === true,
        verbs: [...(r.verbs ?? [])],
        preferred: gv.preferred,
      };
      if (r.singularName) resource.singularName = r.singularName;
      if (r.shortNames?.length) resource.shortNames = [...r.shortNames];
      if (r.categories?.length) resource.categories = [...r.categories];
      byName.set(name, resource);
      out.push(resource);
    }
    for (const r of entries) {
      const [parentName, sub] = (r.name ?? '').split('/', 2);
      const parent = byName.get(parentName ?? '');
      if (sub === undefined || parent === undefined) continue;
      parent.subresources ??= [];
      parent.subresources.push({ name: sub, kind: r.kind ?? '', verbs: [...(r.verbs ?? [])] });
    }
  });
  if (failed.size > 0) throw new GroupDiscoveryFailedError(out, failed);
  return out;
}

function groupVersion(group: string, version: string): string {
  return group === '' ? version : `${group}/${version}`;
}
