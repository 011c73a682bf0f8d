/**
 * The resource quota controller (upstream's pkg/controller/resourcequota): keeps every ResourceQuota's status
 * current. `status.hard` mirrors `spec.hard`; `status.used` holds, for each resource named in `spec.hard` that an
 * evaluator can measure, the sum over the objects of the quota's namespace that fall inside its scopes.
 *
 * Quotas are synced when their spec changes (those whose status lacks usage first, through a priority queue), when
 * an object a quota tracks is added, changed in a way that matters to quota, or deleted in their namespace, and all
 * of them every --resource-quota-sync-period. The ResourceQuota admission plugin charges new objects as they are
 * admitted; additions are recounted here too, which corrects charges of requests that failed after admission.
 * `count/<resource>.<group>` works for any resource the server
 * lists: its evaluator and informer are made when a quota first names it.
 */

import { quantityFromInt } from '../../api/quantity.js';
import {
  type Evaluator,
  objectCountEvaluator,
  objectCountName,
  QUOTA_IGNORED_RESOURCES,
  staticEvaluators,
} from '../../api/quota/evaluators.js';
import {
  addInto,
  formatResourceList,
  listsEqual,
  mask,
  parseResourceList,
  type ResourceList,
} from '../../api/quota/resource-list.js';
import { quotaScopes, type ScopeRequirement } from '../../api/quota/scopes.js';
import { Lister, NamespaceLister } from '../../client/cache/listers.js';
import type { SharedIndexInformer } from '../../client/cache/shared-informer.js';
import { DeletedFinalStateUnknown, metaNamespaceKeyFunc, splitMetaNamespaceKey } from '../../client/cache/store.js';
import { waitForCacheSync } from '../../client/cache/wait-for-cache-sync.js';
import {
  type DiscoveredResource,
  GroupDiscoveryFailedError,
  serverPreferredResources,
} from '../../client/discovery.js';
import type { KubeObject } from '../../client/types.js';
import type { RateLimitingQueue } from '../../client/workqueue/rate-limiting.js';
import { createRateLimitingQueue } from '../../client/workqueue/rate-limiting.js';
import type { Controller, ControllerContext } from '../context.js';
import { runWorkers } from '../worker.js';

const RESOURCE_QUOTAS = { group: '', version: 'v1', resource: 'resourcequotas' };
/** How stale discovery may be before an unknown `count/` name makes the controller ask again (upstream: 30 s). */
const DISCOVERY_REFRESH_MS = 30_000;
/** How long a sync waits for a newly made informer to list before giving up (and retrying later). */
const INFORMER_SYNC_TIMEOUT_MS = 30_000;
const QUOTABLE_VERBS = ['create', 'list', 'watch', 'delete'];
const SCOPE_NAMES = ['Terminating', 'NotTerminating', 'BestEffort', 'NotBestEffort', 'PriorityClass'];

const groupResourceKey = (gvr: { group: string; resource: string }) => `${gvr.group}/${gvr.resource}`;
const unwrap = (obj: KubeObject | DeletedFinalStateUnknown<KubeObject>): KubeObject =>
  obj instanceof DeletedFinalStateUnknown ? obj.obj : obj;

interface Registered {
  evaluator: Evaluator;
  informer: SharedIndexInformer<KubeObject>;
}

export class ResourceQuotaController implements Controller {
  private readonly queue: RateLimitingQueue<string>;
  private readonly missingUsageQueue: RateLimitingQueue<string>;
  private readonly quotaInformer: SharedIndexInformer<KubeObject>;
  private readonly quotas: Lister<KubeObject>;
  private readonly registry = new Map<string, Registered>();
  private discovered: DiscoveredResource[] = [];
  private discoveredAt: number | undefined;

  constructor(private readonly ctx: ControllerContext) {
    this.queue = createRateLimitingQueue<string>({ clock: ctx.clock, name: 'resourcequota_primary' });
    this.missingUsageQueue = createRateLimitingQueue<string>({ clock: ctx.clock, name: 'resourcequota_priority' });
    this.quotaInformer = ctx.informers.forGroupVersionResource(RESOURCE_QUOTAS);
    this.quotas = new Lister(this.quotaInformer.getIndexer());
    this.quotaInformer.addEventHandler({
      onAdd: (q) => this.addQuota(q),
      onUpdate: (old, cur) => {
        // Status changes are this controller's own; only a new spec.hard needs a sync here.
        if (listsEqual(parseResourceList(old.spec?.hard), parseResourceList(cur.spec?.hard))) return;
        this.addQuota(cur);
      },
      onDelete: (q) => this.queue.add(metaNamespaceKeyFunc(q)),
    });
    for (const evaluator of staticEvaluators()) this.register(evaluator);
  }

  async run(): Promise<void> {
    const { ctx } = this;
    ctx.logger.info('Starting resource quota controller');
    const informers = [this.quotaInformer, ...[...this.registry.values()].map((r) => r.informer)];
    if (!(await waitForCacheSync(ctx.signal, ...informers))) return;
    this.enqueueAll();
    const resync = ctx.clock.every(ctx.options.resourceQuotaSyncPeriodMs, () => this.enqueueAll());
    const workers = ctx.options.concurrentResourceQuotaSyncs;
    const sync = (key: string) => this.syncFromKey(key);
    try {
      await Promise.all([
        runWorkers({ queue: this.queue, workers, sync, signal: ctx.signal, logger: ctx.logger }),
        runWorkers({ queue: this.missingUsageQueue, workers, sync, signal: ctx.signal, logger: ctx.logger }),
      ]);
    } finally {
      resync.cancel();
      ctx.logger.info('Shutting down resource quota controller');
    }
  }

  /** Watches a resource for replenishment and measures it with evaluator. */
  private register(evaluator: Evaluator): Registered {
    const informer = this.ctx.informers.forGroupVersionResource(evaluator.gvr);
    const gr = groupResourceKey(evaluator.gvr);
    const fingerprint = (obj: KubeObject) => {
      const now = this.ctx.clock.now();
      const scopes = SCOPE_NAMES.map((s) => evaluator.matchesScope({ scopeName: s, operator: 'Exists' }, obj, now));
      return JSON.stringify([formatResourceList(evaluator.usage(obj, now)), scopes]);
    };
    informer.addEventHandler({
      onAdd: (obj) => this.replenish(gr, obj.metadata?.namespace ?? ''),
      onUpdate: (old, cur) => {
        const namespace = cur.metadata?.namespace ?? '';
        // Without a quota in the namespace there is nothing to replenish, and no need to measure the change.
        if (namespace === '' || this.quotas.namespaced(namespace).list().length === 0) return;
        if (fingerprint(old) !== fingerprint(cur)) this.replenish(gr, namespace);
      },
      onDelete: (obj) => this.replenish(gr, unwrap(obj).metadata?.namespace ?? ''),
    });
    const registered = { evaluator, informer };
    this.registry.set(gr, registered);
    return registered;
  }

  private enqueueAll(): void {
    for (const q of this.quotas.list()) this.queue.add(metaNamespaceKeyFunc(q));
    this.ctx.logger.v(4).info('Resource quota controller queued all resource quota for full calculation of usage');
  }

  /** A new or re-specified quota: to the priority queue when its status lacks what it can measure. */
  private addQuota(quota: KubeObject): void {
    const key = metaNamespaceKeyFunc(quota);
    const specHard = parseResourceList(quota.spec?.hard);
    const statusHard = parseResourceList(quota.status?.hard);
    if (!listsEqual(specHard, statusHard)) {
      this.missingUsageQueue.add(key);
      return;
    }
    const used = parseResourceList(quota.status?.used);
    for (const name of statusHard.keys()) {
      if (used.has(name)) continue;
      for (const { evaluator } of this.registry.values()) {
        if (evaluator.matchingResources([name]).length > 0) {
          this.missingUsageQueue.add(key);
          return;
        }
      }
    }
    this.queue.add(key);
  }

  /** Something a quota may track changed in namespace: queue the quotas there that track that resource. */
  private replenish(groupResource: string, namespace: string): void {
    const registered = this.registry.get(groupResource);
    if (!registered || namespace === '') return;
    for (const quota of this.quotas.namespaced(namespace).list()) {
      const names = new Set([...Object.keys(quota.spec?.hard ?? {}), ...Object.keys(quota.status?.hard ?? {})]);
      if (registered.evaluator.matchingResources([...names]).length > 0) {
        this.queue.add(metaNamespaceKeyFunc(quota));
      }
    }
  }

  private async syncFromKey(key: string): Promise<void> {
    const { namespace, name } = splitMetaNamespaceKey(key);
    const quota = this.quotas.namespaced(namespace).get(name);
    if (!quota) {
      this.ctx.logger.info('Resource quota has been deleted', { key });
      return;
    }
    await this.syncQuota(quota);
  }

  private async syncQuota(quota: KubeObject): Promise<void> {
    const hard = parseResourceList(quota.spec?.hard);
    const previousUsed = parseResourceList(quota.status?.used);
    let dirty =
      quota.status?.hard == null ||
      quota.status?.used == null ||
      !listsEqual(hard, parseResourceList(quota.status?.hard));
    const namespace = quota.metadata.namespace ?? '';
    const { usage, errors } = await this.calculateUsage(namespace, quotaScopes(quota), hard);
    let used: ResourceList = new Map(previousUsed);
    for (const [name, q] of usage) used.set(name, q);
    used = mask(used, hard.keys());
    dirty ||= !listsEqual(used, previousUsed);
    if (dirty) {
      const next: KubeObject = {
        ...quota,
        apiVersion: 'v1',
        kind: 'ResourceQuota',
        status: { hard: formatResourceList(hard), used: formatResourceList(used) },
      };
      try {
        await this.ctx.client.resourceQuotas(namespace).updateStatus(next);
      } catch (err) {
        errors.push(err instanceof Error ? err.message : String(err));
      }
    }
    if (errors.length > 0) throw new Error(errors.join(', '));
  }

  /** quota.CalculateUsage: the measured usage of every measurable name in hard, and what could not be measured. */
  private async calculateUsage(
    namespace: string,
    scopes: ScopeRequirement[],
    hard: ResourceList,
  ): Promise<{ usage: ResourceList; errors: string[] }> {
    const names = [...hard.keys()];
    const errors: string[] = [];
    await this.ensureCountEvaluators(names).catch((err) => errors.push(`failed to discover resources: ${err}`));
    const matched = new Set<string>();
    for (const { evaluator } of this.registry.values()) {
      for (const n of evaluator.matchingResources(names)) matched.add(n);
    }
    const usage: ResourceList = new Map();
    const now = this.ctx.clock.now();
    for (const { evaluator, informer } of [...this.registry.values()]) {
      const intersection = evaluator.matchingResources([...matched]);
      if (intersection.length === 0) continue;
      if (!(await this.synced(informer))) {
        const gvr = evaluator.gvr;
        errors.push(`${gvr.group}/${gvr.version}, Resource=${gvr.resource} not yet synced`);
        for (const n of intersection) matched.delete(n);
        continue;
      }
      const stats: ResourceList = new Map(intersection.map((n) => [n, quantityFromInt(0)]));
      for (const obj of new NamespaceLister(informer.getIndexer(), namespace).list()) {
        if (!scopes.every((s) => evaluator.matchesScope(s, obj, now))) continue;
        addInto(stats, evaluator.usage(obj, now));
      }
      addInto(usage, stats);
    }
    return { usage: mask(usage, matched), errors };
  }

  /** Waits (boundedly) for an informer made at run time to list. */
  private async synced(informer: SharedIndexInformer<KubeObject>): Promise<boolean> {
    if (informer.hasSynced()) return true;
    const giveUp = new AbortController();
    const onAbort = () => giveUp.abort();
    this.ctx.signal.addEventListener('abort', onAbort, { once: true });
    const timer = this.ctx.clock.after(INFORMER_SYNC_TIMEOUT_MS, onAbort);
    try {
      return await waitForCacheSync(giveUp.signal, informer);
    } finally {
      timer.cancel();
      this.ctx.signal.removeEventListener('abort', onAbort);
    }
  }

  /** Makes object-count evaluators for `count/<resource>.<group>` names no evaluator measures yet. */
  private async ensureCountEvaluators(names: string[]): Promise<void> {
    const measured = (n: string) => [...this.registry.values()].some((r) => r.evaluator.matchingResources([n]).length);
    const unknown = names.filter((n) => n.startsWith('count/') && !measured(n));
    if (unknown.length === 0) return;
    const now = this.ctx.clock.now();
    if (this.discoveredAt === undefined || now - this.discoveredAt >= DISCOVERY_REFRESH_MS) {
      this.discoveredAt = now;
      try {
        this.discovered = await serverPreferredResources(this.ctx.client);
      } catch (err) {
        if (!(err instanceof GroupDiscoveryFailedError)) throw err;
        this.discovered = err.resources;
      }
    }
    let added = false;
    for (const name of unknown) {
      const found = this.discovered.find(
        (r) =>
          r.namespaced &&
          objectCountName(r.group, r.resource) === name &&
          !QUOTA_IGNORED_RESOURCES.has(groupResourceKey(r)) &&
          QUOTABLE_VERBS.every((v) => r.verbs.includes(v)),
      );
      if (!found || this.registry.has(groupResourceKey(found))) continue;
      this.register(objectCountEvaluator({ group: found.group, version: found.version, resource: found.resource }));
      this.ctx.logger.info('QuotaMonitor created object count evaluator', {
        resource: found.group ? `${found.resource}.${found.group}` : found.resource,
      });
      added = true;
    }
    if (added) this.ctx.informers.start();
  }
}
