/**
 * SharedInformerFactory (client-go's informers.SharedInformerFactory and dynamicinformer): one informer per
 * resource per process, however many controllers ask for it, so each resource is listed and watched once.
 * start() runs the informers not yet running (call it again after asking for more); waitForCacheSync() waits for
 * those started; shutdown() stops them all, after which start() does nothing.
 */
import type { Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import type { GroupVersionResource, KubeObject, ListerWatcher, ListOptions } from '../types.js';
import { SharedIndexInformer, type SharedIndexInformerOptions } from './shared-informer.js';
import type { Indexers } from './store.js';
import { waitForCacheSync } from './wait-for-cache-sync.js';

/** What the factory needs of a client: a ListerWatcher per resource (KubeClient fits), scoped to a namespace. */
export interface ListerWatcherSource {
  resource(gvr: GroupVersionResource): ListerWatcher & { namespace?(ns: string): ListerWatcher };
}

export interface SharedInformerFactoryOptions {
  /** Needed only by forGroupVersionResource. */
  client?: ListerWatcherSource;
  clock?: Clock;
  logger?: Logger;
  /** Resync period (ms) of informers that do not ask for one; 0 (the default) for none. */
  defaultResync?: number;
  /** Limits forGroupVersionResource informers to one namespace ('' or none: all namespaces). */
  namespace?: string;
  /** Edits the options of every list and watch, e.g. to add a label or field selector. */
  tweakListOptions?: (opts: ListOptions) => ListOptions | undefined;
  /** Applied to every object of informers that set no transform of their own (client-go's WithTransform). */
  transform?: <T extends KubeObject>(obj: T) => T;
  /** Reflector settings for every informer (mainly for tests). */
  reflector?: SharedIndexInformerOptions<KubeObject>['reflector'];
}

export interface InformerOptions<T> {
  /** Overrides the factory's defaultResync for this informer. */
  resyncPeriod?: number;
  /** Indices to add; given again for an informer that exists, they are added to it. */
  indexers?: Indexers<T>;
  transform?: (obj: T) => T;
}

/** kubectl's fully-qualified spelling of a resource: `deployments.v1.apps`, `pods.v1` for the core group. */
export function gvrKey(gvr: GroupVersionResource): string {
  return gvr.group ? `${gvr.resource}.${gvr.version}.${gvr.group}` : `${gvr.resource}.${gvr.version}`;
}

export class SharedInformerFactory {
  private readonly informers = new Map<string, SharedIndexInformer<KubeObject>>();
  private readonly started = new Set<string>();
  private shuttingDown = false;

  constructor(private readonly opts: SharedInformerFactoryOptions = {}) {}

  /** The shared informer of key, made from lw the first time it is asked for. */
  forResource<T extends KubeObject = KubeObject>(
    key: string,
    lw: ListerWatcher<T>,
    opts: InformerOptions<T> = {},
  ): SharedIndexInformer<T> {
    return this.informerFor(key, () => lw, opts);
  }

  /** The shared informer of a resource, listed and watched through the factory's client. */
  forGroupVersionResource<T extends KubeObject = KubeObject>(
    gvr: GroupVersionResource,
    opts: InformerOptions<T> = {},
  ): SharedIndexInformer<T> {
    return this.informerFor(
      gvrKey(gvr),
      () => {
        const client = this.opts.client;
        if (!client) throw new Error('SharedInformerFactory: forGroupVersionResource needs a client');
        let lw = client.resource(gvr);
        if (this.opts.namespace && lw.namespace) lw = lw.namespace(this.opts.namespace);
        return lw as ListerWatcher<T>;
      },
      opts,
    );
  }

  /** The informer of key, if one was asked for. */
  get<T extends KubeObject = KubeObject>(key: string): SharedIndexInformer<T> | undefined {
    return this.informers.get(key) as SharedIndexInformer<T> | undefined;
  }

  /** Runs every informer not yet started. */
  start(): void {
    if (this.shuttingDown) return;
    for (const [key, informer] of this.informers) {
      if (this.started.has(key)) continue;
      this.started.add(key);
      informer.run();
    }
  }

  /** Waits until every started informer has synced (or signal aborts); answers which ones did. */
  async waitForCacheSync(signal?: AbortSignal): Promise<Map<string, boolean>> {
    const started = [...this.started].map((key) => [key, this.informers.get(key)] as const);
    const results = await Promise.all(
      started.map(
        async ([key, informer]) => [key, informer ? await waitForCacheSync(signal, informer) : false] as const,
      ),
    );
    return new Map(results);
  }

  /** Stops every informer and waits until they have stopped. */
  async shutdown(): Promise<void> {
    this.shuttingDown = true;
    await Promise.all([...this.informers.values()].map((informer) => informer.stop()));
  }

  private informerFor<T extends KubeObject>(
    key: string,
    makeLw: () => ListerWatcher<T>,
    opts: InformerOptions<T>,
  ): SharedIndexInformer<T> {
    const existing = this.informers.get(key) as SharedIndexInformer<T> | undefined;
    if (existing) {
      if (opts.indexers) existing.addIndexers(opts.indexers);
      return existing;
    }
    const informer = new SharedIndexInformer<T>(this.tweaked(makeLw()), {
      name: key,
      ...(this.opts.clock ? { clock: this.opts.clock } : {}),
      ...(this.opts.logger ? { logger: this.opts.logger } : {}),
      ...(this.opts.reflector ? { reflector: this.opts.reflector } : {}),
      resyncPeriod: opts.resyncPeriod ?? this.opts.defaultResync ?? 0,
      ...(opts.indexers ? { indexers: opts.indexers } : {}),
      ...(opts.transform
        ? { transform: opts.transform }
        : this.opts.transform
          ? { transform: this.opts.transform }
          : {}),
    });
    this.informers.set(key, informer as unknown as SharedIndexInformer<KubeObject>);
    return informer;
  }

  private tweaked<T extends KubeObject>(lw: ListerWatcher<T>): ListerWatcher<T> {
    const tweak = this.opts.tweakListOptions;
    if (!tweak) return lw;
    const apply = (opts: ListOptions = {}) => {
      const copy = { ...opts };
      return tweak(copy) ?? copy;
    };
    return { list: (opts) => lw.list(apply(opts)), watch: (opts) => lw.watch(apply(opts)) };
  }
}

/**
 * Drops metadata.managedFields from an object before it is cached, as upstream's kube-controller-manager and kubelet
 * trim their informers' objects: no controller reads them, and they are a large part of every object kept.
 */
export function dropManagedFields<T extends KubeObject>(obj: T): T {
  if (obj.metadata?.managedFields) delete obj.metadata.managedFields;
  return obj;
}
