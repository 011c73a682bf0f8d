/**
 * The endpoints controller (upstream's pkg/controller/endpoint): keeps the core/v1 Endpoints of every Service with a
 * selector in step with the pods it selects (deprecated in favour of EndpointSlices, still run by
 * kube-controller-manager 1.33). The Endpoints carry the Service's labels (plus the headless label), the
 * last-change-trigger-time annotation, and are truncated at 1000 addresses with the over-capacity annotation. The
 * Endpoints of a deleted Service are deleted; at start, Endpoints left without a Service are cleaned up.
 */
import { LabelSelector } from '../../api/labels.js';
import { Lister } from '../../client/cache/listers.js';
import { splitMetaNamespaceKey } from '../../client/cache/store.js';
import { waitForCacheSync } from '../../client/cache/wait-for-cache-sync.js';
import type { EventRecorder } from '../../client/events/broadcaster.js';
import { ApiError, isNotFound } from '../../client/types.js';
import { createRateLimitingQueue, type RateLimitingQueue } from '../../client/workqueue/rate-limiting.js';
import type { Controller, ControllerContext } from '../context.js';
import { StaleEndpointsTracker, TriggerTimeTracker } from '../endpointslice/trackers.js';
import {
  ENDPOINTS,
  type EndpointSubset,
  type Endpoints,
  PODS,
  type Pod,
  SERVICES,
  type Service,
} from '../endpointslice/types.js';
import {
  ANNOTATION_LAST_CHANGE_TRIGGER_TIME,
  ANNOTATION_LEADER_ELECTION,
  ANNOTATION_OVER_CAPACITY,
  formatRFC3339Nano,
  hasSelector,
  isNamespaceTerminating,
  isServiceIPSet,
  keyOf,
  LABEL_HEADLESS_SERVICE,
  normalSubsets,
  objectFromDelete,
  servicesSelecting,
  servicesToUpdateOnPodChange,
  stringMapsEqual,
  withoutKeys,
} from '../endpointslice/util.js';
import { runWorkers } from '../worker.js';
import { capacityAnnotationSetCorrectly, computeSubsets, truncateEndpoints } from './subsets.js';

/** Its event source. */
export const EVENT_COMPONENT = 'endpoint-controller';
const MAX_RETRIES = 15;
/** --endpoint-updates-batch-period (not among the options yet): upstream's default, no delay. */
const ENDPOINT_UPDATES_BATCH_PERIOD_MS = 0;

/** Subsets as written: empty lists left out, as Go's omitempty does. */
function tidy(subsets: EndpointSubset[]): EndpointSubset[] {
  return subsets.map((s) => {
    const out: EndpointSubset = {};
    if (s.addresses?.length) out.addresses = s.addresses;
    if (s.notReadyAddresses?.length) out.notReadyAddresses = s.notReadyAddresses;
    if (s.ports?.length) out.ports = s.ports;
    return out;
  });
}

export class EndpointsController implements Controller {
  private readonly queue: RateLimitingQueue<string>;
  private readonly services: Lister<Service>;
  private readonly pods: Lister<Pod>;
  private readonly endpoints: Lister<Endpoints>;
  private readonly triggerTimes = new TriggerTimeTracker();
  private readonly stale = new StaleEndpointsTracker();
  private readonly recorder: EventRecorder;
  private readonly synced: { hasSynced(): boolean; whenSynced(): Promise<boolean> }[];

  constructor(private readonly ctx: ControllerContext) {
    this.queue = createRateLimitingQueue<string>({ clock: ctx.clock, name: 'endpoint' });
    this.recorder = ctx.recorder(EVENT_COMPONENT);
    const serviceInformer = ctx.informers.forGroupVersionResource<Service>(SERVICES);
    const podInformer = ctx.informers.forGroupVersionResource<Pod>(PODS);
    const endpointsInformer = ctx.informers.forGroupVersionResource<Endpoints>(ENDPOINTS);
    this.services = new Lister(serviceInformer.getIndexer());
    this.pods = new Lister(podInformer.getIndexer());
    this.endpoints = new Lister(endpointsInformer.getIndexer());
    this.synced = [podInformer, serviceInformer, endpointsInformer];

    serviceInformer.addEventHandler({
      onAdd: (svc) => this.queue.add(keyOf(svc)),
      onUpdate: (_old, cur) => this.queue.add(keyOf(cur)),
      onDelete: (obj) => this.queue.add(keyOf(objectFromDelete(obj))),
    });
    podInformer.addEventHandler({
      onAdd: (pod) => this.queuePodServices(pod),
      onUpdate: (old, cur) => {
        const services = this.services.namespaced(cur.metadata.namespace ?? '').list();
        for (const key of servicesToUpdateOnPodChange(services, old, cur)) this.queueAfterPodChange(key);
      },
      onDelete: (obj) => this.queuePodServices(objectFromDelete(obj)),
    });
    endpointsInformer.addEventHandler({
      onDelete: (obj) => this.queue.add(keyOf(objectFromDelete(obj))),
    });
  }

  async run(): Promise<void> {
    const { ctx } = this;
    ctx.logger.info('Starting controller', { controller: 'endpoints-controller' });
    if (!(await waitForCacheSync(ctx.signal, ...this.synced))) {
      this.queue.shutDown();
      return;
    }
    this.checkLeftoverEndpoints();
    await runWorkers({
      queue: this.queue,
      workers: ctx.options.concurrentEndpointSyncs,
      sync: (key) => this.syncService(key),
      signal: ctx.signal,
      logger: ctx.logger,
      maxRetries: MAX_RETRIES,
    });
    ctx.logger.info('Shutting down controller', { controller: 'endpoints-controller' });
  }

  /**
   * Queues the Service of every Endpoints once, so that Endpoints whose Service went away while the controller was
   * not running are deleted. Leader election locks are not Service endpoints and are left alone.
   */
  private checkLeftoverEndpoints(): void {
    for (const ep of this.endpoints.list()) {
      if (Object.hasOwn(ep.metadata.annotations ?? {}, ANNOTATION_LEADER_ELECTION)) continue;
      this.queue.add(keyOf(ep));
    }
  }

  private queuePodServices(pod: Pod): void {
    const services = this.services.namespaced(pod.metadata.namespace ?? '').list();
    for (const key of servicesSelecting(services, pod.metadata.labels)) this.queueAfterPodChange(key);
  }

  private queueAfterPodChange(key: string): void {
    if (ENDPOINT_UPDATES_BATCH_PERIOD_MS > 0) this.queue.addAfter(key, ENDPOINT_UPDATES_BATCH_PERIOD_MS);
    else this.queue.add(key);
  }

  /** One sync of a Service's Endpoints. */
  async syncService(key: string): Promise<void> {
    const { namespace, name } = splitMetaNamespaceKey(key);
    const client = this.ctx.client.endpoints(namespace);
    const svc = this.services.namespaced(namespace).get(name);
    if (!svc) {
      // The Service is gone: so are its Endpoints.
      try {
        await client.delete(name);
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
      this.triggerTimes.deleteService(namespace, name);
      this.stale.delete(namespace, name);
      return;
    }
    // ExternalName Services and Services without a selector get no Endpoints from this controller.
    if (svc.spec?.type === 'ExternalName' || !hasSelector(svc)) return;

    const pods = this.pods.namespaced(namespace).list(LabelSelector.fromSet(svc.spec?.selector));
    // Computed on every sync, so that the tracker's state moves on even when nothing is written.
    const triggerTime = this.triggerTimes.compute(namespace, svc, pods);
    const { subsets } = computeSubsets(svc, pods);

    let current = this.endpoints.namespaced(namespace).get(name);
    if (current && this.stale.isStale(current)) {
      throw new Error(
        `endpoints informer cache is out of date, resource version ${current.metadata.resourceVersion} already processed for endpoints ${key}`,
      );
    }
    const create = !current;
    current ??= { apiVersion: 'v1', kind: 'Endpoints', metadata: { name, namespace, labels: svc.metadata.labels } };

    // The headless label is the controller's own, not the Service's: leave it out of the comparison.
    const compareLabels = withoutKeys(current.metadata.labels, LABEL_HEADLESS_SERVICE);
    if (
      !create &&
      normalSubsets(current.subsets) === normalSubsets(subsets) &&
      stringMapsEqual(compareLabels, svc.metadata.labels) &&
      capacityAnnotationSetCorrectly(current.metadata.annotations, current.subsets)
    ) {
      return;
    }

    const next: Endpoints = structuredClone(current);
    next.apiVersion = 'v1';
    next.kind = 'Endpoints';
    next.subsets = subsets;
    const labels: Record<string, string> = { ...svc.metadata.labels };
    if (!isServiceIPSet(svc)) labels[LABEL_HEADLESS_SERVICE] = '';
    else delete labels[LABEL_HEADLESS_SERVICE];
    next.metadata.labels = labels;
    const annotations: Record<string, string> = { ...next.metadata.annotations };
    if (triggerTime !== undefined) annotations[ANNOTATION_LAST_CHANGE_TRIGGER_TIME] = formatRFC3339Nano(triggerTime);
    else delete annotations[ANNOTATION_LAST_CHANGE_TRIGGER_TIME];
    if (truncateEndpoints(next)) annotations[ANNOTATION_OVER_CAPACITY] = 'truncated';
    else delete annotations[ANNOTATION_OVER_CAPACITY];
    next.metadata.annotations = annotations;
    next.subsets = tidy(next.subsets ?? []);
    if (next.subsets.length === 0) delete next.subsets;

    let updated: Endpoints | undefined;
    try {
      if (create) await client.create(next);
      else updated = (await client.update(next)) as Endpoints;
    } catch (err) {
      // Creates keep failing in a namespace being deleted: drop the Service.
      if (create && err instanceof ApiError && err.code === 403 && isNamespaceTerminating(err)) return;
      if (create) {
        this.recorder.eventf(
          next,
          'Warning',
          'FailedToCreateEndpoint',
          'Failed to create endpoint for service %v/%v: %v',
          namespace,
          name,
          (err as Error).message,
        );
      } else {
        this.recorder.eventf(
          next,
          'Warning',
          'FailedToUpdateEndpoint',
          'Failed to update endpoint %v/%v: %v',
          namespace,
          name,
          (err as Error).message,
        );
      }
      throw err;
    }
    // The cache may still show the version just replaced; a sync that sees it must wait for the cache.
    if (updated && updated.metadata.resourceVersion !== current.metadata.resourceVersion) this.stale.markStale(current);
  }
}
