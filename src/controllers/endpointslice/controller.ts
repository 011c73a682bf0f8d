/**
 * The endpointslice controller (upstream's pkg/controller/endpointslice): keeps the EndpointSlices of every Service
 * with a selector in step with the pods it selects. Services, pods, nodes and EndpointSlices are watched; a change
 * queues the Services it concerns; a sync reads the Service, its pods and its slices from the caches and hands
 * them to the reconciler. Slices written by this controller are told apart from changes made by others through
 * their generation (EndpointSliceTracker), so that its own writes do not queue the Service again.
 */
import { LabelSelector } from '../../api/labels.js';
import { Lister } from '../../client/cache/listers.js';
import type { DeletedFinalStateUnknown } from '../../client/cache/store.js';
import { splitMetaNamespaceKey } from '../../client/cache/store.js';
import { waitForCacheSync } from '../../client/cache/wait-for-cache-sync.js';
import type { EventRecorder } from '../../client/events/broadcaster.js';
import type { KubeObject } from '../../client/types.js';
import {
  BucketRateLimiter,
  ItemExponentialFailureRateLimiter,
  MaxOfRateLimiter,
} from '../../client/workqueue/rate-limiters.js';
import { createRateLimitingQueue, type RateLimitingQueue } from '../../client/workqueue/rate-limiting.js';
import type { Controller, ControllerContext } from '../context.js';
import { runWorkers } from '../worker.js';
import { EndpointSliceReconciler } from './reconciler.js';
import { EndpointSliceTracker, TriggerTimeTracker } from './trackers.js';
import { ENDPOINT_SLICES, type EndpointSlice, NODES, PODS, type Pod, SERVICES, type Service } from './types.js';
import {
  hasSelector,
  keyOf,
  LABEL_MANAGED_BY,
  LABEL_SERVICE_NAME,
  objectFromDelete,
  serviceKeyOfSlice,
  servicesSelecting,
  servicesToUpdateOnPodChange,
} from './util.js';

/** The managed-by value of the slices this controller writes. */
export const CONTROLLER_QUALIFIED_NAME = 'endpointslice-controller.k8s.io';
/** Its event source. */
export const EVENT_COMPONENT = 'endpoint-slice-controller';
const MAX_RETRIES = 15;
/** A slice change queues its Service after at least this long, batching changes to several slices. */
const ENDPOINT_SLICE_CHANGE_MIN_SYNC_DELAY_MS = 1000;
/** --endpointslice-updates-batch-period (not among the options yet): upstream's default, no delay. */
const ENDPOINT_UPDATES_BATCH_PERIOD_MS = 0;

export class EndpointSliceController implements Controller {
  private readonly queue: RateLimitingQueue<string>;
  private readonly services: Lister<Service>;
  private readonly pods: Lister<Pod>;
  private readonly nodes: Lister<KubeObject>;
  private readonly slices: Lister<EndpointSlice>;
  private readonly tracker = new EndpointSliceTracker();
  private readonly triggerTimes = new TriggerTimeTracker();
  private readonly reconciler: EndpointSliceReconciler;
  private readonly recorder: EventRecorder;
  private readonly synced: { hasSynced(): boolean; whenSynced(): Promise<boolean> }[];

  constructor(private readonly ctx: ControllerContext) {
    this.queue = createRateLimitingQueue<string>({
      clock: ctx.clock,
      name: 'endpoint_slice',
      // Slower than the default (1 s doubling to 1000 s), so that a failing Service does not flood the apiserver.
      rateLimiter: new MaxOfRateLimiter<string>(
        new ItemExponentialFailureRateLimiter<string>(1000, 1000_000),
        new BucketRateLimiter<string>(10, 100, ctx.clock),
      ),
    });
    this.recorder = ctx.recorder(EVENT_COMPONENT);
    const serviceInformer = ctx.informers.forGroupVersionResource<Service>(SERVICES);
    const podInformer = ctx.informers.forGroupVersionResource<Pod>(PODS);
    const nodeInformer = ctx.informers.forGroupVersionResource<KubeObject>(NODES);
    const sliceInformer = ctx.informers.forGroupVersionResource<EndpointSlice>(ENDPOINT_SLICES);
    this.services = new Lister(serviceInformer.getIndexer());
    this.pods = new Lister(podInformer.getIndexer());
    this.nodes = new Lister(nodeInformer.getIndexer());
    this.slices = new Lister(sliceInformer.getIndexer());
    this.synced = [podInformer, serviceInformer, sliceInformer, nodeInformer];
    this.reconciler = new EndpointSliceReconciler(ctx.client, this.tracker, {
      maxEndpointsPerSlice: ctx.options.maxEndpointsPerSlice,
      controllerName: CONTROLLER_QUALIFIED_NAME,
      getNode: (name) => this.nodes.get(name),
    });

    const queueService = (obj: Service | DeletedFinalStateUnknown<Service>) =>
      this.queue.add(keyOf(objectFromDelete(obj)));
    serviceInformer.addEventHandler({
      onAdd: queueService,
      onUpdate: (_old, cur) => queueService(cur),
      onDelete: queueService,
    });
    podInformer.addEventHandler({
      onAdd: (pod) => this.queuePodServices(pod),
      onUpdate: (old, cur) => {
        const services = this.services.namespaced(cur.metadata.namespace ?? '').list();
        for (const key of servicesToUpdateOnPodChange(services, old, cur)) this.queueAfterPodChange(key);
      },
      onDelete: (obj) => this.queuePodServices(objectFromDelete(obj)),
    });
    sliceInformer.addEventHandler({
      onAdd: (slice) => {
        if (this.managedByMe(slice) && this.tracker.shouldSync(slice)) this.queueForSlice(slice);
      },
      onUpdate: (prev, cur) => {
        // The controller never changes the service-name label, but users may: both Services need a sync.
        if (prev.metadata.labels?.[LABEL_SERVICE_NAME] !== cur.metadata.labels?.[LABEL_SERVICE_NAME]) {
          ctx.logger.info('label changed', { label: LABEL_SERVICE_NAME, endpointslice: keyOf(cur) });
          this.queueForSlice(cur);
          this.queueForSlice(prev);
          return;
        }
        if (
          this.managedByMe(prev) !== this.managedByMe(cur) ||
          (this.managedByMe(cur) && this.tracker.shouldSync(cur))
        ) {
          this.queueForSlice(cur);
        }
      },
      onDelete: (obj) => {
        const slice = objectFromDelete(obj);
        if (this.managedByMe(slice) && this.tracker.has(slice) && !this.tracker.handleDeletion(slice)) {
          this.queueForSlice(slice);
        }
      },
    });
  }

  async run(): Promise<void> {
    const { ctx } = this;
    ctx.logger.info('Starting controller', { controller: 'endpointslice-controller' });
    if (!(await waitForCacheSync(ctx.signal, ...this.synced))) {
      this.queue.shutDown();
      return;
    }
    await runWorkers({
      queue: this.queue,
      workers: ctx.options.concurrentServiceEndpointSyncs,
      sync: (key) => this.syncService(key),
      signal: ctx.signal,
      logger: ctx.logger,
      maxRetries: MAX_RETRIES,
    });
    ctx.logger.info('Shutting down controller', { controller: 'endpointslice-controller' });
  }

  private managedByMe(slice: EndpointSlice): boolean {
    return slice.metadata.labels?.[LABEL_MANAGED_BY] === CONTROLLER_QUALIFIED_NAME;
  }

  private queuePodServices(pod: Pod): void {
    const services = this.services.namespaced(pod.metadata.namespace ?? '').list();
    for (const key of servicesSelecting(services, pod.metadata.labels)) this.queueAfterPodChange(key);
  }

  private queueAfterPodChange(key: string): void {
    if (ENDPOINT_UPDATES_BATCH_PERIOD_MS > 0) this.queue.addAfter(key, ENDPOINT_UPDATES_BATCH_PERIOD_MS);
    else this.queue.add(key);
  }

  private queueForSlice(slice: EndpointSlice): void {
    const key = serviceKeyOfSlice(slice);
    if (!key) {
      this.ctx.logger.info("Couldn't get key for EndpointSlice", { endpointslice: keyOf(slice) });
      return;
    }
    this.queue.addAfter(key, Math.max(ENDPOINT_SLICE_CHANGE_MIN_SYNC_DELAY_MS, ENDPOINT_UPDATES_BATCH_PERIOD_MS));
  }

  /** One sync of a Service's slices. */
  async syncService(key: string): Promise<void> {
    const { namespace, name } = splitMetaNamespaceKey(key);
    const svc = this.services.namespaced(namespace).get(name);
    if (!svc) {
      this.triggerTimes.deleteService(namespace, name);
      this.tracker.deleteService(namespace, name);
      return;
    }
    // ExternalName Services and Services without a selector get no slices from this controller.
    if (svc.spec?.type === 'ExternalName' || !hasSelector(svc)) return;

    const pods = this.pods.namespaced(namespace).list(LabelSelector.fromSet(svc.spec?.selector));
    const selector = LabelSelector.fromSet({
      [LABEL_SERVICE_NAME]: name,
      [LABEL_MANAGED_BY]: CONTROLLER_QUALIFIED_NAME,
    });
    // Slices already being deleted are left alone, so that a slow deletion cannot stall the Service.
    const slices = this.slices
      .namespaced(namespace)
      .list(selector)
      .filter((s) => !s.metadata.deletionTimestamp);
    if (this.tracker.staleSlices(svc, slices)) throw new Error('EndpointSlice informer cache is out of date');

    // Computed on every sync, so that the tracker's state moves on even when nothing is written.
    const triggerTime = this.triggerTimes.compute(namespace, svc, pods);
    try {
      await this.reconciler.reconcile(svc, pods, slices, triggerTime);
    } catch (err) {
      this.recorder.eventf(
        svc,
        'Warning',
        'FailedToUpdateEndpointSlices',
        'Error updating Endpoint Slices for Service %s/%s: %v',
        namespace,
        name,
        (err as Error).message,
      );
      throw err;
    }
  }
}
