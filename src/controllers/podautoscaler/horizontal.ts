/**
 * The horizontal-pod-autoscaler controller (upstream's pkg/controller/podautoscaler, autoscaling/v2). Every
 * --horizontal-pod-autoscaler-sync-period (15s; a new or changed HPA also waits that long, as upstream's fixed
 * per-item rate limiter makes it) each HPA is reconciled:
 * - the target's scale subresource is read (its kind found through discovery); failing that, AbleToScale False
 *   FailedGetScale and a FailedGetScale event;
 * - a target at zero replicas (with minReplicas above zero) is left alone: ScalingActive False ScalingDisabled;
 * - a target above maxReplicas or below minReplicas (default 1) is scaled to the bound ("Current number of replicas
 *   above Spec.MaxReplicas" / "below Spec.MinReplicas"), with a SuccessfulRescale event and AbleToScale True
 *   SucceededRescale;
 * - otherwise the replica count comes from spec.metrics: the target's selector is checked (present, parseable, its
 *   pods not also selected by another HPA), then each metric read. wheelhouse serves no metrics API, so every
 *   metric fails with upstream's error chain: an event per metric (FailedGetResourceMetric, ...), ScalingActive
 *   False with the first error, currentMetrics holding one empty entry per metric, and a
 *   FailedComputeMetricsReplicas event, as on a cluster without a metrics server.
 * The status is written (PUT horizontalpodautoscalers/status) only when it changed.
 */
import { type Rec, rec } from '../../api/json-readers.js';
import { LabelSelector } from '../../api/labels.js';
import { semanticEqual } from '../../api/semantic-equal.js';
import { Lister } from '../../client/cache/listers.js';
import type { SharedIndexInformer } from '../../client/cache/shared-informer.js';
import { metaNamespaceKeyFunc, splitMetaNamespaceKey } from '../../client/cache/store.js';
import { waitForCacheSync } from '../../client/cache/wait-for-cache-sync.js';
import type { EventRecorder } from '../../client/events/broadcaster.js';
import type { KubeObject, ResourceClient } from '../../client/types.js';

import type { RateLimiter } from '../../client/workqueue/rate-limiters.js';
import { createRateLimitingQueue, type RateLimitingQueue } from '../../client/workqueue/rate-limiting.js';
import { deepClone } from '../../util/clone.js';
import { formatTime } from '../../util/time.js';
import { KindResources } from '../common/kind-resources.js';
import type { Controller, ControllerContext } from '../context.js';
import { runWorkers } from '../worker.js';
import { MetricFailure, type MetricInput, MetricsSource } from './metrics.js';
import { ScaleHistory } from './normalize.js';
import { tolerance } from './replicas.js';

const HPAS = { group: 'autoscaling', version: 'v2', resource: 'horizontalpodautoscalers' };
const PODS = { group: '', version: 'v1', resource: 'pods' };

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

interface Condition {
  type: string;
  status: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

/** Upstream's FixedItemIntervalRateLimiter: every key waits the same interval, whatever its history. */
export class FixedIntervalRateLimiter implements RateLimiter<string> {
  constructor(private readonly intervalMs: number) {}
  when(): number {
    return this.intervalMs;
  }
  forget(): void {}
  numRequeues(): number {
    return 0;
  }
}

/** Go's schema.ParseGroupVersion. */
function parseGroupVersion(gv: string): { group: string; version: string } {
  if (gv === '' || gv === '/') return { group: '', version: '' };
  const parts = gv.split('/');
  if (parts.length === 1) return { group: '', version: gv };
  if (parts.length === 2) return { group: parts[0] ?? '', version: parts[1] ?? '' };
  throw new Error(`unexpected GroupVersion string: ${gv}`);
}

/** A scale target that could not be read: the error for the event and condition, and the one the sync returns. */
class ScaleFailure extends Error {
  constructor(
    readonly shown: string,
    returned: string,
  ) {
    super(returned);
  }
}

export class HorizontalController implements Controller {
  private readonly queue: RateLimitingQueue<string>;
  private readonly hpaInformer: SharedIndexInformer<KubeObject>;
  private readonly podInformer: SharedIndexInformer<KubeObject>;
  private readonly hpas: Lister<KubeObject>;
  private readonly pods: Lister<KubeObject>;
  private readonly recorder: EventRecorder;
  private readonly kinds: KindResources;
  private readonly metrics: MetricsSource;
  /** Recent recommendations and scale changes per HPA, for stabilization and the scaling policies. */
  private readonly history: ScaleHistory;
  /**
   * Each HPA's pod selector as its last reconcile found it (upstream's hpaSelectors): nothing until then. Two HPAs
   * whose selectors pick the same pod make the selector ambiguous.
   */
  private readonly selectors = new Map<string, LabelSelector>();

  constructor(private readonly ctx: ControllerContext) {
    const period = ctx.options.horizontalPodAutoscalerSyncPeriodMs;
    this.queue = createRateLimitingQueue<string>({
      clock: ctx.clock,
      rateLimiter: new FixedIntervalRateLimiter(period),
      name: 'horizontalpodautoscaler',
    });
    this.recorder = ctx.recorder('horizontal-pod-autoscaler');
    this.kinds = new KindResources(ctx.client);
    this.metrics = new MetricsSource(ctx.client);
    this.history = new ScaleHistory(ctx.options.horizontalPodAutoscalerDownscaleStabilizationMs);
    this.hpaInformer = ctx.informers.forGroupVersionResource(HPAS);
    this.podInformer = ctx.informers.forGroupVersionResource(PODS);
    this.hpas = new Lister(this.hpaInformer.getIndexer());
    this.pods = new Lister(this.podInformer.getIndexer());
    this.hpaInformer.addEventHandler({
      onAdd: (hpa) => this.enqueue(hpa),
      onUpdate: (_old, hpa) => this.enqueue(hpa),
      onDelete: (hpa) => {
        const key = metaNamespaceKeyFunc(hpa);
        this.queue.forget(key);
        this.selectors.delete(key);
      },
    });
  }

  /** Every add waits the sync period (upstream's AddRateLimited with its fixed interval). */
  private enqueue(hpa: KubeObject): void {
    const key = metaNamespaceKeyFunc(hpa);
    this.queue.addRateLimited(key);
    if (!this.selectors.has(key)) this.selectors.set(key, LabelSelector.nothing());
  }

  async run(): Promise<void> {
    const { ctx } = this;
    ctx.logger.info('Starting HPA controller');
    if (await waitForCacheSync(ctx.signal, this.hpaInformer, this.podInformer)) {
      await runWorkers({
        queue: this.queue,
        workers: ctx.options.concurrentHorizontalPodAutoscalerSyncs,
        sync: (key) => this.processKey(key),
        signal: ctx.signal,
        logger: ctx.logger,
      });
    }
    ctx.logger.info('Shutting down HPA controller');
  }

  /** Reconciles the HPA and queues it again for the next period, unless it is gone; errors are only logged. */
  private async processKey(key: string): Promise<void> {
    const { namespace, name } = splitMetaNamespaceKey(key);
    const hpa = this.hpas.namespaced(namespace).get(name);
    if (!hpa) {
      this.ctx.logger.info('Horizontal Pod Autoscaler has been deleted', { HPA: key });
      this.history.forget(key);
      return;
    }
    try {
      await this.reconcile(hpa, key);
    } catch (err) {
      this.ctx.logger.error('HPA reconcile failed', { HPA: key, err: message(err) });
    }
    if (!this.ctx.signal.aborted) this.queue.addRateLimited(key);
  }

  private async reconcile(shared: KubeObject, key: string): Promise<void> {
    const hpa = deepClone(shared);
    const original = deepClone(rec(hpa.status));
    hpa.status = rec(hpa.status);
    const spec = rec(hpa.spec);
    const ref = rec(spec.scaleTargetRef);
    const namespace = hpa.metadata.namespace ?? '';
    const reference = `${String(ref.kind ?? '')}/${namespace}/${String(ref.name ?? '')}`;
    const status = () => rec(hpa.status);

    let scale: KubeObject;
    let scaleClient: ResourceClient<KubeObject>;
    try {
      ({ scale, scaleClient } = await this.readScale(hpa, reference));
    } catch (err) {
      const shown = err instanceof ScaleFailure ? err.shown : message(err);
      this.recorder.event(hpa, 'Warning', 'FailedGetScale', shown);
      this.setCondition(
        hpa,
        'AbleToScale',
        'False',
        'FailedGetScale',
        `the HPA controller was unable to get the target's current scale: ${shown}`,
      );
      await this.updateStatusIfNeeded(original, hpa);
      throw err;
    }
    this.setCondition(
      hpa,
      'AbleToScale',
      'True',
      'SucceededGetScale',
      "the HPA controller was able to get the target's current scale",
    );
    const currentReplicas = Number(rec(scale.spec).replicas ?? 0);
    const minReplicas = typeof spec.minReplicas === 'number' ? spec.minReplicas : 1;
    const maxReplicas = Number(spec.maxReplicas ?? 0);
    let desiredReplicas = 0;
    let rescaleReason = '';
    let rescale = true;
    let metricStatuses: Rec[] | null = null;
    let partialError: string | undefined;
    this.history.recordInitial(key, currentReplicas, this.ctx.clock.now());
    if (currentReplicas === 0 && minReplicas !== 0) {
      desiredReplicas = 0;
      rescale = false;
      this.setCondition(
        hpa,
        'ScalingActive',
        'False',
        'ScalingDisabled',
        'scaling is disabled since the replica count of the target is zero',
      );
    } else if (currentReplicas > maxReplicas) {
      rescaleReason = 'Current number of replicas above Spec.MaxReplicas';
      desiredReplicas = maxReplicas;
    } else if (currentReplicas < minReplicas) {
      rescaleReason = 'Current number of replicas below Spec.MinReplicas';
      desiredReplicas = minReplicas;
    } else {
      const specs = Array.isArray(spec.metrics) ? spec.metrics.map(rec) : [];
      const computed = await this.replicasForMetrics(hpa, scale, specs);
      metricStatuses = computed.statuses;
      if (computed.replicas === -1) {
        this.setStatus(hpa, currentReplicas, Number(status().desiredReplicas ?? 0), metricStatuses, false);
        await this.updateStatusIfNeeded(original, hpa);
        this.recorder.event(hpa, 'Warning', 'FailedComputeMetricsReplicas', computed.error ?? '');
        throw new Error(
          `failed to compute desired number of replicas based on listed metrics for ${reference}: ${computed.error}`,
        );
      }
      // Some metrics failed and the others ask for more replicas: scale on those, and report the failure after.
      if (computed.error) partialError = computed.error;
      let rescaleMetric = '';
      if (computed.replicas > desiredReplicas) {
        desiredReplicas = computed.replicas;
        rescaleMetric = computed.metric;
      }
      if (desiredReplicas > currentReplicas) rescaleReason = `${rescaleMetric} above target`;
      if (desiredReplicas < currentReplicas) rescaleReason = 'All metrics below target';
      const now = this.ctx.clock.now();
      const normalized =
        spec.behavior === undefined || spec.behavior === null
          ? this.history.normalize(key, currentReplicas, desiredReplicas, minReplicas, maxReplicas, now)
          : this.history.normalizeWithBehavior(
              key,
              spec.behavior,
              currentReplicas,
              desiredReplicas,
              minReplicas,
              maxReplicas,
              now,
            );
      for (const c of normalized.conditions) this.setCondition(hpa, c.type, c.status, c.reason, c.message);
      desiredReplicas = normalized.replicas;
      rescale = desiredReplicas !== currentReplicas;
    }
    if (rescale) {
      const updated = deepClone(scale);
      updated.spec = { ...rec(updated.spec), replicas: desiredReplicas };
      try {
        await scaleClient.updateSubresource(scale.metadata.name ?? '', 'scale', updated);
      } catch (err) {
        this.recorder.event(
          hpa,
          'Warning',
          'FailedRescale',
          `New size: ${desiredReplicas}; reason: ${rescaleReason}; error: ${message(err)}`,
        );
        this.setCondition(
          hpa,
          'AbleToScale',
          'False',
          'FailedUpdateScale',
          `the HPA controller was unable to update the target scale: ${message(err)}`,
        );
        this.setStatus(hpa, currentReplicas, Number(status().desiredReplicas ?? 0), metricStatuses, false);
        await this.updateStatusIfNeeded(original, hpa);
        throw new Error(`failed to rescale ${reference}: ${message(err)}`);
      }
      this.setCondition(
        hpa,
        'AbleToScale',
        'True',
        'SucceededRescale',
        `the HPA controller was able to update the target scale to ${desiredReplicas}`,
      );
      this.recorder.event(hpa, 'Normal', 'SuccessfulRescale', `New size: ${desiredReplicas}; reason: ${rescaleReason}`);
      this.history.storeScaleEvent(key, spec.behavior, currentReplicas, desiredReplicas, this.ctx.clock.now());
      this.ctx.logger.info('Successfully rescaled', {
        HPA: key,
        currentReplicas,
        desiredReplicas,
        reason: rescaleReason,
      });
    } else {
      desiredReplicas = currentReplicas;
    }
    this.setStatus(hpa, currentReplicas, desiredReplicas, metricStatuses, rescale);
    await this.updateStatusIfNeeded(original, hpa);
    if (partialError) throw new Error(partialError);
  }

  /** The target's scale through the first of its kind's resources that answers (upstream's RESTMappings order). */
  private async readScale(
    hpa: KubeObject,
    reference: string,
  ): Promise<{ scale: KubeObject; scaleClient: ResourceClient<KubeObject> }> {
    const ref = rec(rec(hpa.spec).scaleTargetRef);
    const kind = String(ref.kind ?? '');
    const name = String(ref.name ?? '');
    let group: string;
    try {
      ({ group } = parseGroupVersion(String(ref.apiVersion ?? '')));
    } catch (err) {
      throw new ScaleFailure(message(err), `invalid API version in scale target reference: ${message(err)}`);
    }
    let mappings: Awaited<ReturnType<KindResources['mappings']>>;
    try {
      mappings = await this.kinds.mappings(group, kind);
    } catch (err) {
      throw new ScaleFailure(message(err), `unable to determine resource for scale target reference: ${message(err)}`);
    }
    if (mappings.length === 0) {
      const shown = `no matches for kind "${kind}" in group "${group}"`;
      throw new ScaleFailure(shown, `unable to determine resource for scale target reference: ${shown}`);
    }
    let first: unknown;
    for (const mapping of mappings) {
      const scaleClient = this.ctx.client
        .resource({ group, version: mapping.version, resource: mapping.resource })
        .namespace(hpa.metadata.namespace ?? '');
      try {
        return { scale: await scaleClient.getSubresource(name, 'scale'), scaleClient };
      } catch (err) {
        first ??= err;
      }
    }
    throw new ScaleFailure(message(first), `failed to query scale subresource for ${reference}: ${message(first)}`);
  }

  /**
   * computeReplicasForMetrics: the selector checks, then each metric's proposal; a failing metric gets an event.
   * The highest proposal wins. When every metric failed, or some did and the rest would scale down, the answer is
   * -1 and ScalingActive is set from the first failure; else ScalingActive is ValidMetricFound, and the failures (if
   * any) come back as the error to report after scaling.
   */
  private async replicasForMetrics(
    hpa: KubeObject,
    scale: KubeObject,
    specs: Rec[],
  ): Promise<{ replicas: number; metric: string; statuses: Rec[] | null; error?: string }> {
    const selectorText = String(rec(scale.status).selector ?? '');
    const selectorError = this.validateSelector(hpa, selectorText);
    if (selectorError) return { replicas: -1, metric: '', statuses: null, error: selectorError };
    const namespace = hpa.metadata.namespace ?? '';
    const specReplicas = Number(rec(scale.spec).replicas ?? 0);
    const { options } = this.ctx;
    const input: MetricInput = {
      namespace,
      selector: selectorText,
      pods: () => this.pods.namespaced(namespace).list(selectorText),
      specReplicas,
      tolerance: tolerance(options.horizontalPodAutoscalerTolerance),
      timing: {
        now: this.ctx.clock.now(),
        cpuInitializationPeriodMs: options.horizontalPodAutoscalerCpuInitializationPeriodMs,
        initialReadinessDelayMs: options.horizontalPodAutoscalerInitialReadinessDelayMs,
      },
    };
    const statuses: Rec[] = specs.map(() => ({ type: '' }));
    let first: MetricFailure | undefined;
    let failed = 0;
    let replicas = 0;
    let metric = '';
    for (const [i, spec] of specs.entries()) {
      try {
        const result = await this.metrics.replicasFor(spec, input);
        statuses[i] = result.status;
        if (replicas === 0 || result.replicas > replicas) {
          replicas = result.replicas;
          metric = result.name;
        }
      } catch (err) {
        const failure =
          err instanceof MetricFailure ? err : new MetricFailure('FailedGetResourceMetric', message(err), message(err));
        this.recorder.event(hpa, 'Warning', failure.reason, failure.inner);
        first ??= failure;
        failed++;
      }
    }
    const error = first
      ? `invalid metrics (${failed} invalid out of ${specs.length}), first error is: ${first.message}`
      : undefined;
    if (first && (failed >= specs.length || replicas < specReplicas)) {
      this.setCondition(
        hpa,
        'ScalingActive',
        'False',
        first.reason,
        `the HPA was unable to compute the replica count: ${first.inner}`,
      );
      return { replicas: -1, metric: '', statuses, ...(error ? { error } : {}) };
    }
    this.setCondition(
      hpa,
      'ScalingActive',
      'True',
      'ValidMetricFound',
      `the HPA was able to successfully calculate a replica count from ${metric}`,
    );
    return { replicas, metric, statuses, ...(error ? { error } : {}) };
  }

  /** validateAndParseSelector: the error text when the selector is missing, unparseable or ambiguous. */
  private validateSelector(hpa: KubeObject, text: string): string | undefined {
    if (text === '') {
      this.recorder.event(hpa, 'Warning', 'SelectorRequired', 'selector is required');
      this.setCondition(
        hpa,
        'ScalingActive',
        'False',
        'InvalidSelector',
        "the HPA target's scale is missing a selector",
      );
      return 'selector is required';
    }
    let selector: LabelSelector;
    try {
      selector = LabelSelector.parse(text);
    } catch (err) {
      const msg = `couldn't convert selector into a corresponding internal selector object: ${message(err)}`;
      this.recorder.event(hpa, 'Warning', 'InvalidSelector', msg);
      this.setCondition(hpa, 'ScalingActive', 'False', 'InvalidSelector', msg);
      return msg;
    }
    const key = metaNamespaceKeyFunc(hpa);
    if (this.selectors.has(key)) this.selectors.set(key, selector);
    const namespace = hpa.metadata.namespace ?? '';
    const pods = this.pods.namespaced(namespace).list(selector);
    const selecting = [...this.selectors]
      .filter(
        ([other, s]) =>
          splitMetaNamespaceKey(other).namespace === namespace && pods.some((p) => s.matches(p.metadata.labels)),
      )
      .map(([other]) => other)
      .sort();
    if (selecting.length > 1) {
      const msg = `pods by selector ${text} are controlled by multiple HPAs: [${selecting.join(' ')}]`;
      this.recorder.event(hpa, 'Warning', 'AmbiguousSelector', msg);
      this.setCondition(hpa, 'ScalingActive', 'False', 'AmbiguousSelector', msg);
      return msg;
    }
    return undefined;
  }

  /** setStatus: a new status keeping lastScaleTime (now when rescaled) and the conditions. */
  private setStatus(
    hpa: KubeObject,
    currentReplicas: number,
    desiredReplicas: number,
    metrics: Rec[] | null,
    rescaled: boolean,
  ): void {
    const old = rec(hpa.status);
    const lastScaleTime = rescaled ? formatTime(this.ctx.clock.now()) : old.lastScaleTime;
    // As upstream's setStatus: a new status (observedGeneration is not kept); currentReplicas is omitempty.
    hpa.status = {
      ...(lastScaleTime !== undefined ? { lastScaleTime } : {}),
      ...(currentReplicas !== 0 ? { currentReplicas } : {}),
      desiredReplicas,
      currentMetrics: metrics,
      ...(old.conditions !== undefined ? { conditions: old.conditions } : {}),
    };
  }

  /** setConditionInList: the condition updated in place or added last; its transition time moves with its status. */
  private setCondition(hpa: KubeObject, type: string, status: string, reason: string, msg: string): void {
    const s = rec(hpa.status);
    const conditions = (Array.isArray(s.conditions) ? s.conditions : []) as Condition[];
    let condition = conditions.find((c) => c.type === type);
    if (!condition) {
      condition = { type, status: '' };
      conditions.push(condition);
    }
    if (condition.status !== status) condition.lastTransitionTime = formatTime(this.ctx.clock.now());
    condition.status = status;
    condition.reason = reason;
    condition.message = msg;
    s.conditions = conditions;
    hpa.status = s;
  }

  /** Writes the status when it differs from what the HPA had; a failed write is an event and an error. */
  private async updateStatusIfNeeded(original: Rec, hpa: KubeObject): Promise<void> {
    if (semanticEqual(original, hpa.status)) return;
    try {
      await this.ctx.client
        .resource(HPAS)
        .namespace(hpa.metadata.namespace ?? '')
        .updateStatus(hpa);
    } catch (err) {
      this.recorder.event(hpa, 'Warning', 'FailedUpdateStatus', message(err));
      throw new Error(`failed to update status for ${hpa.metadata.name}: ${message(err)}`);
    }
    this.ctx.logger.v(2).info('Successfully updated status', { HPA: metaNamespaceKeyFunc(hpa) });
  }
}
