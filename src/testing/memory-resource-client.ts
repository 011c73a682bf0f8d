/**
 * An in-memory ResourceClient for unit tests of client-side components (leader election, event recorder,
 * controllers): one resource, objects kept in a Map, a cluster-wide resourceVersion counter, upstream's error
 * reasons (NotFound, AlreadyExists, Conflict), a simple watch, and client-go-fake-style reactors that can fail or
 * hold any call. Views made by namespace() share the same objects, actions and reactors.
 */
import { randomUUID } from 'node:crypto';
import { applyJsonPatch } from '../api/patch/json-patch.js';
import { applyMergePatch } from '../api/patch/merge-patch.js';
import {
  ApiError,
  type DeleteOptions,
  type KubeObject,
  type ListOptions,
  type ObjectList,
  type PatchType,
  type ResourceClient,
  type WatchEvent,
  type WatchStream,
  type WriteOptions,
} from '../client/types.js';

export type MemoryVerb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete';

/** One call made through the client, as recorded in `actions`. */
export interface MemoryAction {
  verb: MemoryVerb;
  namespace?: string;
  name?: string;
  object?: KubeObject;
  patchType?: PatchType;
  patch?: unknown;
  subresource?: string;
}

/** Runs before a call is served: throw to fail it, or return a promise to hold it (never resolving = a hang). */
export type MemoryReactor = (action: MemoryAction) => void | Promise<void>;

export interface MemoryResourceClientOptions {
  /** '' (the default) for the core group. */
  group?: string;
  version?: string;
  /** Plural resource name, e.g. 'leases'. */
  resource: string;
  kind: string;
  namespaced?: boolean;
  /** Supplies creationTimestamp; defaults to Date.now. */
  now?: () => number;
}

interface Shared {
  objects: Map<string, KubeObject>;
  revision: number;
  actions: MemoryAction[];
  reactors: { verb: MemoryVerb | '*'; fn: MemoryReactor }[];
  watchers: Set<{ namespace: string | undefined; push: (ev: WatchEvent) => void }>;
}

export class MemoryResourceClient<T extends KubeObject = KubeObject> implements ResourceClient<T> {
  private readonly opts: Required<MemoryResourceClientOptions>;
  private readonly shared: Shared;
  private readonly ns: string | undefined;

  constructor(opts: MemoryResourceClientOptions, ns?: string, shared?: Shared) {
    this.opts = { group: '', version: 'v1', namespaced: true, now: () => Date.now(), ...opts };
    this.ns = ns;
    this.shared = shared ?? { objects: new Map(), revision: 0, actions: [], reactors: [], watchers: new Set() };
  }

  /** Every call made so far, in order (all views). */
  get actions(): MemoryAction[] {
    return this.shared.actions;
  }

  /** Adds a reactor that runs before the calls of `verb` ('*' for all), ahead of those added earlier. */
  prependReactor(verb: MemoryVerb | '*', fn: MemoryReactor): () => void {
    const entry = { verb, fn };
    this.shared.reactors.unshift(entry);
    return () => {
      const i = this.shared.reactors.indexOf(entry);
      if (i >= 0) this.shared.reactors.splice(i, 1);
    };
  }

  /** A copy of every stored object (all namespaces). */
  all(): T[] {
    return [...this.shared.objects.values()].map((o) => structuredClone(o) as T);
  }

  namespace(ns: string): MemoryResourceClient<T> {
    return new MemoryResourceClient<T>(this.opts, ns, this.shared);
  }

  async get(name: string): Promise<T> {
    await this.react({ verb: 'get', namespace: this.ns, name });
    const found = this.shared.objects.get(this.key(this.ns, name));
    if (!found) throw this.notFound(name);
    return structuredClone(found) as T;
  }

  async list(opts?: ListOptions): Promise<ObjectList<T>> {
    await this.react({ verb: 'list', namespace: this.ns });
    const items = [...this.shared.objects.values()]
      .filter((o) => this.ns === undefined || o.metadata.namespace === this.ns)
      .filter((o) => matchesLabels(o, opts?.labelSelector))
      .map((o) => structuredClone(o) as T);
    return {
      apiVersion: this.apiVersion(),
      kind: `${this.opts.kind}List`,
      metadata: { resourceVersion: String(this.shared.revision) },
      items,
    };
  }

  async watch(): Promise<WatchStream<T>> {
    await this.react({ verb: 'watch', namespace: this.ns });
    const queue: WatchEvent<T>[] = [];
    let wake: (() => void) | undefined;
    let closed = false;
    const watcher = {
      namespace: this.ns,
      push: (ev: WatchEvent) => {
        queue.push(structuredClone(ev) as WatchEvent<T>);
        wake?.();
      },
    };
    this.shared.watchers.add(watcher);
    const close = () => {
      closed = true;
      this.shared.watchers.delete(watcher);
      wake?.();
    };
    return {
      close,
      async *[Symbol.asyncIterator]() {
        while (!closed) {
          const next = queue.shift();
          if (next) {
            yield next;
            continue;
          }
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
          wake = undefined;
        }
      },
    };
  }

  async create(obj: T, _opts?: WriteOptions): Promise<T> {
    const namespace = this.objectNamespace(obj);
    await this.react({ verb: 'create', namespace, name: obj.metadata.name, object: structuredClone(obj) });
    const stored = structuredClone(obj) as T;
    const meta = stored.metadata;
    if (!meta.name && meta.generateName) meta.name = `${meta.generateName}${randomUUID().slice(0, 5)}`;
    if (!meta.name) throw this.invalid('metadata.name: Required value: name or generateName is required');
    const key = this.key(namespace, meta.name);
    if (this.shared.objects.has(key)) {
      throw new ApiError({
        kind: 'Status',
        apiVersion: 'v1',
        status: 'Failure',
        message: `${this.qualified()} "${meta.name}" already exists`,
        reason: 'AlreadyExists',
        details: { name: meta.name, group: this.opts.group, kind: this.opts.resource },
        code: 409,
      });
    }
    if (namespace !== undefined) meta.namespace = namespace;
    meta.uid = randomUUID();
    meta.creationTimestamp = new Date(this.opts.now()).toISOString().replace(/\.\d{3}Z$/, 'Z');
    stored.apiVersion = this.apiVersion();
    stored.kind = this.opts.kind;
    return this.store(key, stored, 'ADDED');
  }

  async update(obj: T, _opts?: WriteOptions): Promise<T> {
    return this.replace('update', obj);
  }

  async updateStatus(obj: T, _opts?: WriteOptions): Promise<T> {
    return this.replace('update', obj, 'status');
  }

  async patch(
    name: string,
    type: PatchType,
    encoded: unknown,
    opts?: WriteOptions & { subresource?: string },
  ): Promise<T> {
    // A patch given as JSON text is what the real client would send as it is.
    const patch =
      typeof encoded === 'string' || Buffer.isBuffer(encoded) ? JSON.parse(encoded.toString('utf8')) : encoded;
    await this.react({
      verb: 'patch',
      namespace: this.ns,
      name,
      patchType: type,
      patch,
      subresource: opts?.subresource,
    });
    const key = this.key(this.ns, name);
    const current = this.shared.objects.get(key);
    if (!current) throw this.notFound(name);
    const next = (type === 'json' ? applyJsonPatch(current, patch) : applyMergePatch(current, patch)) as T;
    const rv = (patch as { metadata?: { resourceVersion?: string } } | null)?.metadata?.resourceVersion;
    if (rv !== undefined && rv !== current.metadata.resourceVersion) throw this.conflict(name);
    next.metadata = { ...next.metadata, name, uid: current.metadata.uid, namespace: current.metadata.namespace };
    return this.store(key, next, 'MODIFIED');
  }

  async patchForVersion(
    name: string,
    type: PatchType,
    encoded: unknown,
    opts?: WriteOptions & { subresource?: string },
  ): Promise<string> {
    return (await this.patch(name, type, encoded, opts)).metadata.resourceVersion ?? '';
  }

  async delete(name: string, opts?: DeleteOptions): Promise<KubeObject> {
    await this.react({ verb: 'delete', namespace: this.ns, name });
    const key = this.key(this.ns, name);
    const current = this.shared.objects.get(key);
    if (!current) throw this.notFound(name);
    const pre = opts?.preconditions;
    if (pre?.resourceVersion !== undefined && pre.resourceVersion !== current.metadata.resourceVersion) {
      throw this.conflict(name);
    }
    this.shared.objects.delete(key);
    this.shared.revision++;
    const gone = structuredClone(current);
    gone.metadata.resourceVersion = String(this.shared.revision);
    this.notify({ type: 'DELETED', object: gone });
    return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name } };
  }

  async deleteCollection(opts?: ListOptions & DeleteOptions): Promise<KubeObject> {
    const list = await this.list(opts);
    for (const item of list.items) await this.namespace(item.metadata.namespace ?? '').delete(item.metadata.name ?? '');
    return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success' };
  }

  async getSubresource(name: string, subresource: string): Promise<KubeObject> {
    throw this.notSupported(`get ${subresource} of ${name}`);
  }

  async createSubresource(name: string, subresource: string): Promise<KubeObject> {
    throw this.notSupported(`create ${subresource} of ${name}`);
  }

  async updateSubresource(name: string, subresource: string): Promise<KubeObject> {
    throw this.notSupported(`update ${subresource} of ${name}`);
  }

  private async replace(verb: 'update', obj: T, subresource?: string): Promise<T> {
    const namespace = this.objectNamespace(obj);
    const name = obj.metadata.name ?? '';
    await this.react({ verb, namespace, name, object: structuredClone(obj), subresource });
    const key = this.key(namespace, name);
    const current = this.shared.objects.get(key);
    if (!current) throw this.notFound(name);
    const rv = obj.metadata.resourceVersion;
    if (rv !== undefined && rv !== '' && rv !== current.metadata.resourceVersion) throw this.conflict(name);
    const next = structuredClone(obj) as T;
    next.metadata.uid = current.metadata.uid;
    next.metadata.creationTimestamp = current.metadata.creationTimestamp;
    if (namespace !== undefined) next.metadata.namespace = namespace;
    next.apiVersion = this.apiVersion();
    next.kind = this.opts.kind;
    return this.store(key, next, 'MODIFIED');
  }

  private store(key: string, obj: T, type: 'ADDED' | 'MODIFIED'): T {
    this.shared.revision++;
    obj.metadata.resourceVersion = String(this.shared.revision);
    this.shared.objects.set(key, obj);
    this.notify({ type, object: obj });
    return structuredClone(obj);
  }

  private notify(ev: WatchEvent): void {
    for (const w of this.shared.watchers) {
      if (w.namespace === undefined || w.namespace === ev.object.metadata.namespace) w.push(ev);
    }
  }

  private async react(action: MemoryAction): Promise<void> {
    this.shared.actions.push(action);
    for (const r of [...this.shared.reactors]) {
      if (r.verb === '*' || r.verb === action.verb) await r.fn(action);
    }
  }

  private objectNamespace(obj: KubeObject): string | undefined {
    if (!this.opts.namespaced) return undefined;
    return this.ns ?? obj.metadata.namespace ?? 'default';
  }

  private key(namespace: string | undefined, name: string): string {
    return this.opts.namespaced ? `${namespace ?? 'default'}/${name}` : name;
  }

  private apiVersion(): string {
    return this.opts.group ? `${this.opts.group}/${this.opts.version}` : this.opts.version;
  }

  private qualified(): string {
    return this.opts.group ? `${this.opts.resource}.${this.opts.group}` : this.opts.resource;
  }

  private notFound(name: string): ApiError {
    return new ApiError({
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      message: `${this.qualified()} "${name}" not found`,
      reason: 'NotFound',
      details: { name, group: this.opts.group, kind: this.opts.resource },
      code: 404,
    });
  }

  private conflict(name: string): ApiError {
    return new ApiError({
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      message: `Operation cannot be fulfilled on ${this.qualified()} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
      reason: 'Conflict',
      details: { name, group: this.opts.group, kind: this.opts.resource },
      code: 409,
    });
  }

  private invalid(message: string): ApiError {
    return new ApiError({ kind: 'Status', apiVersion: 'v1', status: 'Failure', message, reason: 'Invalid', code: 422 });
  }

  private notSupported(what: string): ApiError {
    return new ApiError({
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      message: `the memory client does not ${what}`,
      reason: 'MethodNotAllowed',
      code: 405,
    });
  }
}

/** Equality-based label selectors only (`a=b,c!=d`, `a`), enough for tests. */
function matchesLabels(obj: KubeObject, selector: string | undefined): boolean {
  if (!selector) return true;
  const labels = obj.metadata.labels ?? {};
  return selector.split(',').every((term) => {
    const t = term.trim();
    const ne = t.indexOf('!=');
    if (ne >= 0) return labels[t.slice(0, ne)] !== t.slice(ne + 2);
    const eq = t.indexOf('=');
    if (eq >= 0) return labels[t.slice(0, eq).replace(/=$/, '')] === t.slice(eq + 1).replace(/^=/, '');
    return t in labels;
  });
}
