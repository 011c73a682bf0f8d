/**
 * The pod garbage collector (upstream's pkg/controller/podgc). Every 20 s it looks at every pod and node in its
 * caches and force-deletes (grace period 0), after marking them Failed:
 *
 * - terminated pods (not Pending, Running or Unknown) beyond --terminated-pod-gc-threshold, evicted ones first,
 *   then oldest first (0 or less turns this off);
 * - terminating pods on nodes that are not ready and carry the `node.kubernetes.io/out-of-service` taint;
 * - orphaned pods, bound to a node that does not exist: a node missing from the cache is quarantined for 40 s and
 *   then asked for from the API; only if the API says NotFound are its pods deleted, with a `DisruptionTarget`
 *   condition (reason `DeletionByPodGC`);
 * - terminating pods that were never scheduled.
 */
import type { SharedIndexInformer } from '../../client/cache/shared-informer.js';
import { waitForCacheSync } from '../../client/cache/wait-for-cache-sync.js';
import { isNotFound, type KubeObject } from '../../client/types.js';
import type { Controller, ControllerContext } from '../context.js';

/** How often the collector runs (upstream gcCheckPeriod). */
export const GC_CHECK_PERIOD_MS = 20_000;
/** How long a node missing from the cache is given to appear before the API is asked (upstream quarantineTime). */
export const QUARANTINE_TIME_MS = 40_000;
const OUT_OF_SERVICE_TAINT = 'node.kubernetes.io/out-of-service';
/** At most this many pods are being deleted at once. */
const DELETE_CONCURRENCY = 64;

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : {});
const recs = (v: unknown): Rec[] => (Array.isArray(v) ? v.map(rec) : []);

const phaseOf = (pod: KubeObject) => String(rec(pod.status).phase ?? '');
const nodeNameOf = (pod: KubeObject) => String(rec(pod.spec).nodeName ?? '');
const podRef = (pod: KubeObject) => `${pod.metadata.namespace ?? ''}/${pod.metadata.name ?? ''}`;

/** Not Pending, Running or Unknown (an empty phase counts as terminated too, as upstream's check does). */
export function isPodTerminated(pod: KubeObject): boolean {
  const phase = phaseOf(pod);
  return phase !== 'Pending' && phase !== 'Running' && phase !== 'Unknown';
}

function isEvicted(pod: KubeObject): boolean {
  return phaseOf(pod) === 'Failed' && rec(pod.status).reason === 'Evicted';
}

/** Evicted pods first, then by creation time, then by name (byEvictionAndCreationTimestamp). */
export function compareForCollection(a: KubeObject, b: KubeObject): number {
  const ea = isEvicted(a);
  const eb = isEvicted(b);
  if (ea !== eb) return ea ? -1 : 1;
  const ta = Date.parse(a.metadata.creationTimestamp ?? '') || 0;
  const tb = Date.parse(b.metadata.creationTimestamp ?? '') || 0;
  if (ta !== tb) return ta - tb;
  const na = a.metadata.name ?? '';
  const nb = b.metadata.name ?? '';
  return na < nb ? -1 : na > nb ? 1 : 0;
}

function isNodeReady(node: KubeObject): boolean {
  return recs(rec(node.status).conditions).some((c) => c.type === 'Ready' && c.status === 'True');
}

/** Runs fn over items with at most limit calls in flight. */
async function forEachLimited<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      await fn(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}

export class PodGCController implements Controller {
  private readonly pods: SharedIndexInformer<KubeObject>;
  private readonly nodes: SharedIndexInformer<KubeObject>;
  /** Node names missing from the cache, with the time their quarantine ends. */
  private readonly quarantine = new Map<string, number>();
  private running: Promise<void> | undefined;
  private rerun = false;

  constructor(private readonly ctx: ControllerContext) {
    this.pods = ctx.informers.forGroupVersionResource({ group: '', version: 'v1', resource: 'pods' });
    this.nodes = ctx.informers.forGroupVersionResource({ group: '', version: 'v1', resource: 'nodes' });
  }

  async run(): Promise<void> {
    const { ctx } = this;
    ctx.logger.info('Starting controller', { controller: 'pod-garbage-collector-controller' });
    if (!(await waitForCacheSync(ctx.signal, this.pods, this.nodes))) return;
    const tick = () => this.trigger();
    tick();
    const timer = ctx.clock.every(GC_CHECK_PERIOD_MS, tick);
    await new Promise<void>((resolve) => {
      if (ctx.signal.aborted) resolve();
      else ctx.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    timer.cancel();
    await this.running;
    ctx.logger.info('Shutting down controller', { controller: 'pod-garbage-collector-controller' });
  }

  /** Starts a pass, or, if one is under way, another right after it (passes never overlap). */
  private trigger(): void {
    if (this.ctx.signal.aborted) return;
    if (this.running) {
      this.rerun = true;
      return;
    }
    this.running = (async () => {
      try {
        do {
          this.rerun = false;
          await this.gc().catch((err) => this.ctx.logger.error('pod garbage collection failed', { err: String(err) }));
        } while (this.rerun && !this.ctx.signal.aborted);
      } finally {
        this.running = undefined;
      }
    })();
  }

  /** One pass over the caches. */
  async gc(): Promise<void> {
    const pods = this.pods.getIndexer().list();
    const nodes = this.nodes.getIndexer().list();
    const threshold = this.ctx.options.terminatedPodGcThreshold;
    if (threshold > 0) await this.gcTerminated(pods, threshold);
    await this.gcTerminating(pods);
    await this.gcOrphaned(pods, nodes);
    await this.gcUnscheduledTerminating(pods);
  }

  private async gcTerminated(pods: KubeObject[], threshold: number): Promise<void> {
    const terminated = pods.filter(isPodTerminated);
    const deleteCount = terminated.length - threshold;
    if (deleteCount <= 0) return;
    this.ctx.logger.info('Garbage collecting pods', { numPods: deleteCount });
    terminated.sort(compareForCollection);
    await forEachLimited(terminated.slice(0, deleteCount), DELETE_CONCURRENCY, (pod) =>
      this.markFailedAndDelete(pod).catch((err) => this.reportError(pod, err)),
    );
  }

  private async gcTerminating(pods: KubeObject[]): Promise<void> {
    const log = this.ctx.logger;
    log.v(4).info("GC'ing terminating pods that are on out-of-service nodes");
    const candidates: KubeObject[] = [];
    for (const pod of pods) {
      if (!pod.metadata.deletionTimestamp) continue;
      const node = this.nodes.getIndexer().getByKey(nodeNameOf(pod));
      if (!node) continue;
      const outOfService = recs(rec(node.spec).taints).some((t) => t.key === OUT_OF_SERVICE_TAINT);
      if (!isNodeReady(node) && outOfService) {
        log.v(4).info('Garbage collecting pod that is terminating', { pod: podRef(pod), phase: phaseOf(pod) });
        candidates.push(pod);
      }
    }
    if (candidates.length === 0) return;
    log
      .v(4)
      .info('Garbage collecting pods that are terminating on node tainted with node.kubernetes.io/out-of-service', {
        numPods: candidates.length,
      });
    candidates.sort(compareForCollection);
    await forEachLimited(candidates, DELETE_CONCURRENCY, (pod) =>
      this.markFailedAndDelete(pod).catch((err) => this.reportError(pod, err)),
    );
  }

  private async gcOrphaned(pods: KubeObject[], nodes: KubeObject[]): Promise<void> {
    const log = this.ctx.logger;
    log.v(4).info("GC'ing orphaned");
    const existing = new Set(nodes.map((n) => n.metadata.name ?? ''));
    const now = this.ctx.clock.now();
    for (const pod of pods) {
      const nodeName = nodeNameOf(pod);
      if (nodeName !== '' && !existing.has(nodeName) && !this.quarantine.has(nodeName)) {
        this.quarantine.set(nodeName, now + QUARANTINE_TIME_MS);
      }
    }
    const deletedNodes = new Set<string>();
    for (const [nodeName, until] of [...this.quarantine]) {
      if (until > now) continue;
      this.quarantine.delete(nodeName);
      if (existing.has(nodeName)) continue;
      try {
        await this.ctx.client.nodes().get(nodeName);
      } catch (err) {
        if (isNotFound(err)) deletedNodes.add(nodeName);
        else log.error('Error while getting node', { node: nodeName, err: String(err) });
      }
    }
    if (deletedNodes.size === 0) return;
    const orphans = pods.filter((pod) => deletedNodes.has(nodeNameOf(pod)));
    await forEachLimited(orphans, DELETE_CONCURRENCY, async (pod) => {
      log.v(2).info('Found orphaned Pod assigned to the Node, deleting', { pod: podRef(pod), node: nodeNameOf(pod) });
      const condition = {
        type: 'DisruptionTarget',
        status: 'True',
        reason: 'DeletionByPodGC',
        message: 'PodGC: node no longer exists',
      };
      try {
        await this.markFailedAndDelete(pod, condition);
        log.info('Forced deletion of orphaned Pod succeeded', { pod: podRef(pod) });
      } catch (err) {
        this.reportError(pod, err);
      }
    });
  }

  private async gcUnscheduledTerminating(pods: KubeObject[]): Promise<void> {
    const log = this.ctx.logger;
    log.v(4).info("GC'ing unscheduled pods which are terminating");
    const candidates = pods.filter((pod) => pod.metadata.deletionTimestamp && nodeNameOf(pod) === '');
    await forEachLimited(candidates, DELETE_CONCURRENCY, async (pod) => {
      log.v(2).info('Found unscheduled terminating Pod not assigned to any Node, deleting', { pod: podRef(pod) });
      try {
        await this.markFailedAndDelete(pod);
        log.info('Forced deletion of unscheduled terminating Pod succeeded', { pod: podRef(pod) });
      } catch (err) {
        this.reportError(pod, err);
      }
    });
  }

  private reportError(pod: KubeObject, err: unknown): void {
    if (isNotFound(err)) return;
    this.ctx.logger.error('failed to garbage collect pod', { pod: podRef(pod), err: String(err) });
  }

  /**
   * Moves a pod that has not finished to the Failed phase (with condition, if given) through its status, since no
   * kubelet will ever do it for an orphan, then deletes it with grace period 0.
   */
  private async markFailedAndDelete(pod: KubeObject, condition?: Rec): Promise<void> {
    const { client, clock, logger } = this.ctx;
    const namespace = pod.metadata.namespace ?? '';
    const name = pod.metadata.name ?? '';
    logger.info('PodGC is force deleting Pod', { pod: podRef(pod) });
    const phase = phaseOf(pod);
    if (phase !== 'Succeeded' && phase !== 'Failed') {
      const status: Rec = { phase: 'Failed' };
      if (condition) {
        const previous = recs(rec(pod.status).conditions).find((c) => c.type === condition.type);
        const lastTransitionTime =
          previous && previous.status === condition.status && typeof previous.lastTransitionTime === 'string'
            ? previous.lastTransitionTime
            : `${new Date(clock.now()).toISOString().slice(0, 19)}Z`;
        status.conditions = [{ ...condition, lastTransitionTime }];
      }
      await client.pods(namespace).patch(
        name,
        'strategic',
        { metadata: { uid: pod.metadata.uid }, status },
        {
          subresource: 'status',
        },
      );
    }
    await client.pods(namespace).delete(name, { gracePeriodSeconds: 0 });
  }
}
