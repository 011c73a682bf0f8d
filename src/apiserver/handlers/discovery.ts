import { createHash } from 'node:crypto';
import { lookupResource, type ResourceInfo, servedGroupVersions } from '../../api/catalog.js';
import type { APIRegistry } from '../api-registry.js';
import type { RequestContext } from '../context.js';
import { customGroupVersions } from '../crd/discovery-groups.js';
import { statusLikeStrategy } from '../registry/resource.js';
import { writeJson } from '../respond.js';
import { POD_CONNECT_SUBRESOURCES } from './pod-proxy.js';

const AGGREGATED = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
const AGGREGATED_BETA = 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList';

interface GroupVersionResources {
  group: string;
  version: string;
  resources: ResourceInfo[];
}

/**
 * Discovery: /api, /apis (plain or aggregated, by the Accept header as kube-apiserver negotiates it),
 * /api/v1, /apis/<group> and /apis/<group>/<version>. Only what this server really serves is listed, with the
 * names, verbs, short names and categories upstream reports.
 */
export class Discovery {
  constructor(
    private readonly registry: APIRegistry,
    private readonly serverAddress: () => string,
  ) {}

  /** Serves a discovery path; false when the path is not one. */
  serve(ctx: RequestContext): boolean {
    const parts = ctx.url.pathname.split('/').filter(Boolean);
    const [prefix, a, b, ...rest] = parts;
    if (rest.length > 0 || ctx.method !== 'GET') return false;
    if (prefix === 'api') {
      if (a === undefined) return this.root(ctx, true);
      if (b === undefined) return this.resourceList(ctx, '', a);
      return false;
    }
    if (prefix === 'apis') {
      if (a === undefined) return this.root(ctx, false);
      if (b === undefined) return this.group(ctx, a);
      return this.resourceList(ctx, a, b);
    }
    return false;
  }

  private served(): GroupVersionResources[] {
    const out: GroupVersionResources[] = [];
    for (const g of servedGroupVersions()) {
      for (const version of g.versions) {
        const resources = [...this.registry.all().map((s) => s.def), ...this.registry.allVirtual()]
          .filter((s) => s.group === g.group && s.version === version)
          .map((s) => lookupResource(g.group, version, s.resource))
          .filter((r): r is ResourceInfo => r !== undefined)
          .sort((x, y) => x.resource.localeCompare(y.resource));
        if (resources.length > 0) out.push({ group: g.group, version, resources });
      }
    }
    out.push(...customGroupVersions(this.registry, new Set(servedGroupVersions().map((g) => g.group))));
    return out;
  }

  private root(ctx: RequestContext, legacy: boolean): boolean {
    const accept = String(ctx.req.headers.accept ?? '');
    const served = this.served().filter((gv) => (legacy ? gv.group === '' : gv.group !== ''));
    const aggregated = pickAggregated(accept);
    if (aggregated) {
      const body = this.aggregated(served, aggregated === AGGREGATED ? 'v2' : 'v2beta1');
      const text = JSON.stringify(body);
      ctx.res.setHeader('etag', `"${createHash('sha512').update(text).digest('hex').toUpperCase()}"`);
      ctx.res.setHeader('vary', 'Accept');
      writeJson(ctx, 200, body, aggregated);
      return true;
    }
    if (legacy) {
      writeJson(ctx, 200, {
        kind: 'APIVersions',
        versions: ['v1'],
        serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: this.serverAddress() }],
      });
      return true;
    }
    const groups = new Map<string, string[]>();
    for (const gv of served) groups.set(gv.group, [...(groups.get(gv.group) ?? []), gv.version]);
    writeJson(ctx, 200, {
      kind: 'APIGroupList',
      apiVersion: 'v1',
      groups: [...groups].map(([name, versions]) => this.apiGroup(name, versions)),
    });
    return true;
  }

  private group(ctx: RequestContext, group: string): boolean {
    const versions = this.served()
      .filter((gv) => gv.group === group)
      .map((gv) => gv.version);
    if (versions.length === 0) return false;
    writeJson(ctx, 200, { kind: 'APIGroup', apiVersion: 'v1', ...this.apiGroup(group, versions) });
    return true;
  }

  private apiGroup(name: string, versions: string[]) {
    const preferred = servedGroupVersions().find((g) => g.group === name)?.preferredVersion ?? versions[0] ?? '';
    const preferredServed = versions.includes(preferred) ? preferred : (versions[0] as string);
    return {
      name,
      versions: versions.map((v) => ({ groupVersion: `${name}/${v}`, version: v })),
      preferredVersion: { groupVersion: `${name}/${preferredServed}`, version: preferredServed },
    };
  }

  private resourceList(ctx: RequestContext, group: string, version: string): boolean {
    const gv = this.served().find((x) => x.group === group && x.version === version);
    if (!gv) return false;
    const resources: Record<string, unknown>[] = [];
    for (const r of gv.resources) {
      resources.push({
        name: r.resource,
        singularName: r.singularName,
        namespaced: r.namespaced,
        kind: r.kind,
        verbs: r.verbs,
        ...(r.shortNames.length ? { shortNames: r.shortNames } : {}),
        ...(r.categories.length ? { categories: r.categories } : {}),
      });
      for (const sub of this.subresources(r)) {
        resources.push({
          name: `${r.resource}/${sub.name}`,
          singularName: '',
          namespaced: r.namespaced,
          ...(sub.group !== group || sub.version !== version ? { group: sub.group, version: sub.version } : {}),
          kind: sub.kind,
          verbs: sub.verbs,
        });
      }
    }
    writeJson(ctx, 200, {
      kind: 'APIResourceList',
      apiVersion: 'v1',
      groupVersion: group ? `${group}/${version}` : version,
      resources,
    });
    return true;
  }

  /** The subresources this server implements for a resource. */
  private subresources(r: ResourceInfo) {
    const served = this.registry.lookup(r.group, r.version, r.resource);
    const def = served?.def;
    return r.subresources.filter(
      (s) =>
        (def !== undefined && statusLikeStrategy(def, s.name) !== undefined) ||
        (s.name === 'scale' && def?.scale === true) ||
        (s.name === 'finalize' && def?.finalize === true) ||
        (s.name === 'binding' && def?.binding !== undefined) ||
        (s.name === 'eviction' && def?.eviction === true) ||
        (r.group === '' && r.resource === 'serviceaccounts' && s.name === 'token') ||
        (r.group === '' && r.resource === 'pods' && POD_CONNECT_SUBRESOURCES.has(s.name)),
    );
  }

  private aggregated(served: GroupVersionResources[], version: 'v2' | 'v2beta1') {
    const byGroup = new Map<string, GroupVersionResources[]>();
    for (const gv of served) byGroup.set(gv.group, [...(byGroup.get(gv.group) ?? []), gv]);
    return {
      kind: 'APIGroupDiscoveryList',
      apiVersion: `apidiscovery.k8s.io/${version}`,
      metadata: {},
      items: [...byGroup].map(([group, gvs]) => ({
        metadata: { name: group, creationTimestamp: null },
        versions: gvs.map((gv) => ({
          version: gv.version,
          resources: gv.resources.map((r) => ({
            resource: r.resource,
            responseKind: { group: r.group, version: r.version, kind: r.kind },
            scope: r.namespaced ? 'Namespaced' : 'Cluster',
            singularResource: r.singularName,
            verbs: r.verbs,
            ...(r.shortNames.length ? { shortNames: r.shortNames } : {}),
            ...(r.categories.length ? { categories: r.categories } : {}),
            ...(this.subresources(r).length
              ? {
                  subresources: this.subresources(r).map((s) => ({
                    subresource: s.name,
                    responseKind: { group: s.group, version: s.version, kind: s.kind },
                    verbs: s.verbs,
                  })),
                }
              : {}),
          })),
          freshness: 'Current',
        })),
      })),
    };
  }
}

function pickAggregated(accept: string): string | undefined {
  for (const part of accept.split(',')) {
    const p = part.replace(/\s+/g, '');
    if (p.includes('as=APIGroupDiscoveryList') && p.includes('g=apidiscovery.k8s.io')) {
      if (p.includes('v=v2beta1')) return AGGREGATED_BETA;
      if (p.includes('v=v2')) return AGGREGATED;
    }
    if (p.startsWith('application/json') && !p.includes('as=')) return undefined;
  }
  return undefined;
}
