/**
 * The ClusterRole aggregation controller (upstream's pkg/controller/clusterroleaggregation): a ClusterRole with
 * `aggregationRule.clusterRoleSelectors` gets as its `rules` the rules of every other ClusterRole that one of the
 * selectors matches, selector by selector, roles by name, each distinct rule once, in that order.
 *
 * Any ClusterRole change queues every aggregated ClusterRole (the set is small and which role feeds which is not
 * tracked). Rules are written with server-side apply under the field manager `clusterrole-aggregation-controller`,
 * falling back to an update when the server does not take apply patches, as upstream does.
 */
import { LabelSelector, type LabelSelectorObject } from '../../api/labels.js';
import { Lister } from '../../client/cache/listers.js';
import type { SharedIndexInformer } from '../../client/cache/shared-informer.js';
import { metaNamespaceKeyFunc, splitMetaNamespaceKey } from '../../client/cache/store.js';
import { waitForCacheSync } from '../../client/cache/wait-for-cache-sync.js';
import { ApiError, type KubeObject } from '../../client/types.js';
import { createRateLimitingQueue, type RateLimitingQueue } from '../../client/workqueue/rate-limiting.js';
import type { Controller, ControllerContext } from '../context.js';
import { runWorkers } from '../worker.js';

const CLUSTER_ROLES = { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterroles' };
const FIELD_MANAGER = 'clusterrole-aggregation-controller';
/** kube-controller-manager starts this controller with five workers. */
const WORKERS = 5;
const RULE_FIELDS = ['verbs', 'apiGroups', 'resources', 'resourceNames', 'nonResourceURLs'] as const;

export interface PolicyRule {
  verbs?: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

/** A rule's identity: its lists in order, a missing list the same as an empty one (semantic equality). */
function ruleKey(rule: PolicyRule): string {
  return JSON.stringify(RULE_FIELDS.map((f) => rule[f] ?? []));
}

/** The rule with only its non-empty lists, as an apply configuration carries it. */
function compactRule(rule: PolicyRule): PolicyRule {
  const out: PolicyRule = {};
  for (const f of RULE_FIELDS) {
    const v = rule[f];
    if (v && v.length > 0) out[f] = [...v];
  }
  return out;
}

const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export function rulesEqual(a: readonly PolicyRule[], b: readonly PolicyRule[]): boolean {
  return a.length === b.length && a.every((rule, i) => ruleKey(rule) === ruleKey(b[i] ?? {}));
}

/** The aggregated rules of role among roles: every selector in turn, matching roles by name, each rule once. */
export function aggregateRules(role: KubeObject, roles: readonly KubeObject[]): PolicyRule[] {
  const selectors = (role.aggregationRule?.clusterRoleSelectors ?? []) as LabelSelectorObject[];
  const seen = new Set<string>();
  const rules: PolicyRule[] = [];
  for (const selectorObject of selectors) {
    const selector = LabelSelector.fromObject(selectorObject);
    const matching = roles
      .filter((r) => selector.matches(r.metadata.labels))
      .sort((x, y) => byName(x.metadata.name ?? '', y.metadata.name ?? ''));
    for (const source of matching) {
      if (source.metadata.name === role.metadata.name) continue;
      for (const rule of (source.rules ?? []) as PolicyRule[]) {
        const key = ruleKey(rule);
        if (seen.has(key)) continue;
        seen.add(key);
        rules.push(rule);
      }
    }
  }
  return rules;
}

export class ClusterRoleAggregationController implements Controller {
  private readonly queue: RateLimitingQueue<string>;
  private readonly informer: SharedIndexInformer<KubeObject>;
  private readonly roles: Lister<KubeObject>;

  constructor(private readonly ctx: ControllerContext) {
    this.queue = createRateLimitingQueue<string>({ clock: ctx.clock, name: 'ClusterRoleAggregator' });
    this.informer = ctx.informers.forGroupVersionResource(CLUSTER_ROLES);
    this.roles = new Lister(this.informer.getIndexer());
    const enqueueAll = () => this.enqueueAggregated();
    this.informer.addEventHandler({ onAdd: enqueueAll, onUpdate: enqueueAll, onDelete: enqueueAll });
  }

  async run(): Promise<void> {
    const { ctx } = this;
    ctx.logger.info('Starting controller', { controller: 'clusterrole-aggregation-controller' });
    if (await waitForCacheSync(ctx.signal, this.informer)) {
      await runWorkers({
        queue: this.queue,
        workers: WORKERS,
        sync: (key) => this.syncClusterRole(key),
        signal: ctx.signal,
        logger: ctx.logger,
      });
    }
    ctx.logger.info('Shutting down controller', { controller: 'clusterrole-aggregation-controller' });
  }

  private enqueueAggregated(): void {
    for (const role of this.roles.list()) {
      if (role.aggregationRule != null) this.queue.add(metaNamespaceKeyFunc(role));
    }
  }

  private async syncClusterRole(key: string): Promise<void> {
    const { name } = splitMetaNamespaceKey(key);
    const role = this.roles.get(name);
    if (!role || role.aggregationRule == null) return;
    const rules = aggregateRules(role, this.roles.list());
    if (rulesEqual(rules, (role.rules ?? []) as PolicyRule[])) return;
    try {
      await this.ctx.client.clusterRoles().patch(
        name,
        'apply',
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRole',
          metadata: { name },
          rules: rules.map(compactRule),
        },
        { fieldManager: FIELD_MANAGER, force: true },
      );
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 415)) throw err;
      // The server does not take apply patches: replace the rules with an update.
      await this.ctx.client.clusterRoles().update({
        ...role,
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        rules: rules.map((r) => structuredClone(r)),
      });
    }
  }
}
