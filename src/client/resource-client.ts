/**
 * ResourceClient over the REST client (client-go's dynamic client): upstream's URL layout, query parameter names
 * and DeleteOptions body, for one group/version/resource, optionally in one namespace.
 */
import type { KubeClient, QueryValue, RequestOptions } from './rest.js';
import {
  type DeleteOptions,
  type GroupVersionResource,
  type KubeObject,
  type ListOptions,
  type ObjectList,
  PATCH_CONTENT_TYPES,
  type PatchType,
  type ResourceClient,
  type WatchStream,
  type WriteOptions,
} from './types.js';

export class RestResource<T extends KubeObject> implements ResourceClient<T> {
  constructor(
    private readonly client: KubeClient,
    private readonly gvr: GroupVersionResource,
    /** undefined: a resource the catalog does not know and the caller did not describe. */
    private readonly namespaced: boolean | undefined,
    private readonly ns: string | undefined,
  ) {}

  namespace(ns: string): ResourceClient<T> {
    return new RestResource<T>(this.client, this.gvr, this.namespaced, ns);
  }

  async list(opts: ListOptions = {}): Promise<ObjectList<T>> {
    return this.client.request<ObjectList<T>>({
      method: 'GET',
      path: this.path(this.ns),
      query: listQuery(opts),
      target: this.target(),
    });
  }

  async watch(opts: ListOptions = {}): Promise<WatchStream<T>> {
    return this.client.watchRequest<T>({
      method: 'GET',
      path: this.path(this.ns),
      query: { ...listQuery(opts), watch: true },
      target: this.target(),
    });
  }

  async get(name: string, opts: { resourceVersion?: string } = {}): Promise<T> {
    return this.client.request<T>({
      method: 'GET',
      path: this.path(this.namespaceFor(name), name),
      query: { resourceVersion: opts.resourceVersion },
      target: this.target(name),
    });
  }

  async create(obj: T, opts: WriteOptions = {}): Promise<T> {
    const name = obj.metadata?.name ?? '';
    return this.client.request<T>({
      method: 'POST',
      path: this.path(this.namespaceFor(name || obj.metadata?.generateName || '', obj)),
      query: writeQuery(opts),
      body: obj,
      target: this.target(name),
    });
  }

  async update(obj: T, opts: WriteOptions = {}): Promise<T> {
    return this.putObject(obj, undefined, opts);
  }

  async updateStatus(obj: T, opts: WriteOptions = {}): Promise<T> {
    return this.putObject(obj, 'status', opts);
  }

  async patch(
    name: string,
    type: PatchType,
    patch: unknown,
    opts: WriteOptions & { subresource?: string } = {},
  ): Promise<T> {
    return this.client.request<T>(this.patchRequest(name, type, patch, opts));
  }

  private patchRequest(
    name: string,
    type: PatchType,
    patch: unknown,
    opts: WriteOptions & { subresource?: string },
  ): RequestOptions {
    const { subresource, ...write } = opts;
    return {
      method: 'PATCH',
      path: this.path(this.namespaceFor(name), name, subresource),
      query: writeQuery(write),
      body: patch,
      contentType: PATCH_CONTENT_TYPES[type],
      target: this.target(name),
    };
  }

  async patchForVersion(
    name: string,
    type: PatchType,
    patch: unknown,
    opts: WriteOptions & { subresource?: string } = {},
  ): Promise<string> {
    return this.client.requestResourceVersion(this.patchRequest(name, type, patch, opts));
  }

  async delete(name: string, opts: DeleteOptions = {}): Promise<KubeObject> {
    return this.client.request<KubeObject>({
      method: 'DELETE',
      path: this.path(this.namespaceFor(name), name),
      body: deleteOptionsBody(opts),
      target: this.target(name),
    });
  }

  async deleteCollection(opts: ListOptions & DeleteOptions = {}): Promise<KubeObject> {
    const { gracePeriodSeconds, propagationPolicy, preconditions, dryRun, ...list } = opts;
    const del: DeleteOptions = {};
    if (gracePeriodSeconds !== undefined) del.gracePeriodSeconds = gracePeriodSeconds;
    if (propagationPolicy !== undefined) del.propagationPolicy = propagationPolicy;
    if (preconditions !== undefined) del.preconditions = preconditions;
    if (dryRun !== undefined) del.dryRun = dryRun;
    return this.client.request<KubeObject>({
      method: 'DELETE',
      path: this.path(this.ns),
      query: listQuery(list),
      body: deleteOptionsBody(del),
      target: this.target(),
    });
  }

  async getSubresource(name: string, subresource: string): Promise<KubeObject> {
    return this.client.request<KubeObject>({
      method: 'GET',
      path: this.path(this.namespaceFor(name), name, subresource),
      target: this.target(name),
    });
  }

  async createSubresource(
    name: string,
    subresource: string,
    body: KubeObject,
    opts: WriteOptions = {},
  ): Promise<KubeObject> {
    return this.client.request<KubeObject>({
      method: 'POST',
      path: this.path(this.namespaceFor(name, body), name, subresource),
      query: writeQuery(opts),
      body,
      target: this.target(name),
    });
  }

  async updateSubresource(
    name: string,
    subresource: string,
    body: KubeObject,
    opts: WriteOptions = {},
  ): Promise<KubeObject> {
    return this.client.request<KubeObject>({
      method: 'PUT',
      path: this.path(this.namespaceFor(name, body), name, subresource),
      query: writeQuery(opts),
      body,
      target: this.target(name),
    });
  }

  private async putObject(obj: T, subresource: string | undefined, opts: WriteOptions): Promise<T> {
    const name = obj.metadata?.name;
    if (name === undefined || name === '') {
      throw new Error(`${this.gvr.resource}: an update needs metadata.name`);
    }
    return this.client.request<T>({
      method: 'PUT',
      path: this.path(this.namespaceFor(name, obj), name, subresource),
      query: writeQuery(opts),
      body: obj,
      target: this.target(name),
    });
  }

  /**
   * The namespace to put in the URL of a request about one object: the client's, else the object's; for a
   * namespaced resource one of them must be set.
   */
  private namespaceFor(name: string, obj?: KubeObject): string | undefined {
    if (this.namespaced === false) return undefined;
    const ns = this.ns ?? (obj?.metadata?.namespace || undefined);
    if (ns === undefined && this.namespaced === true) {
      throw new Error(
        `${this.gvr.resource} "${name}": a namespace is needed (set metadata.namespace or use .namespace(ns))`,
      );
    }
    return ns;
  }

  /** /api/v1[/namespaces/<ns>]/<resource>[/<name>[/<subresource>]], or /apis/<group>/<version>/… */
  private path(ns: string | undefined, name?: string, subresource?: string): string {
    const { group, version, resource } = this.gvr;
    let path = group === '' ? `/api/${version}` : `/apis/${group}/${version}`;
    if (ns !== undefined && this.namespaced !== false) path += `/namespaces/${pathSegment(ns)}`;
    path += `/${resource}`;
    if (name !== undefined) {
      if (name === '') throw new Error(`${resource}: the resource name may not be empty`);
      path += `/${pathSegment(name)}`;
      if (subresource !== undefined && subresource !== '') path += `/${subresource}`;
    }
    return path;
  }

  private target(name?: string): { group: string; resource: string; name?: string } {
    return { group: this.gvr.group, resource: this.gvr.resource, ...(name ? { name } : {}) };
  }
}

/** The query of list, watch and deleteCollection: ListOptions with upstream's parameter names. */
function listQuery(opts: ListOptions): Record<string, QueryValue> {
  return {
    labelSelector: opts.labelSelector,
    fieldSelector: opts.fieldSelector,
    limit: opts.limit,
    continue: opts.continue,
    resourceVersion: opts.resourceVersion,
    resourceVersionMatch: opts.resourceVersionMatch,
    timeoutSeconds: opts.timeoutSeconds,
    allowWatchBookmarks: opts.allowWatchBookmarks,
    sendInitialEvents: opts.sendInitialEvents,
  };
}

function writeQuery(opts: WriteOptions): Record<string, QueryValue> {
  return {
    dryRun: opts.dryRun,
    fieldManager: opts.fieldManager,
    fieldValidation: opts.fieldValidation,
    force: opts.force,
  };
}

/** meta/v1 DeleteOptions as JSON; dryRun is a list there. */
function deleteOptionsBody(opts: DeleteOptions): Record<string, unknown> {
  const { dryRun, ...rest } = opts;
  return { kind: 'DeleteOptions', apiVersion: 'v1', ...rest, ...(dryRun !== undefined ? { dryRun: [dryRun] } : {}) };
}

export function withQuery(path: string, query: Record<string, QueryValue> | undefined): string {
  if (query === undefined) return path;
  let any = false;
  for (const key in query) if (query[key] !== undefined) any = true;
  if (!any) return path;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const v of value) params.append(key, v);
    else params.append(key, String(value));
  }
  const text = params.toString();
  if (text === '') return path;
  return `${path}${path.includes('?') ? '&' : '?'}${text}`;
}

const PLAIN_SEGMENT = /^[a-z0-9.-]*$/;

/**
 * One path segment escaped as Go's URL.EscapedPath leaves it under client-go: `$&+,:;=@` stay as they are, so that
 * names such as `system:controller:deployment-controller` reach the apiserver as written.
 */
function pathSegment(segment: string): string {
  // Most segments are DNS names, which need no escaping.
  if (PLAIN_SEGMENT.test(segment)) return segment;
  return encodeURIComponent(segment).replace(/%(24|26|2B|2C|3A|3B|3D|40)/gi, (kept) => decodeURIComponent(kept));
}
