/**
 * The endpointslice-mirroring controller (upstream's pkg/controller/endpointslicemirroring): for Services without a
 * selector, whose Endpoints are written by someone else, mirrors those Endpoints into EndpointSlices so that
 * consumers of slices see them too. Endpoints labelled `endpointslice.kubernetes.io/skip-mirror: "true"` (the
 * apiserver's own `kubernetes` Endpoints) and leader election locks are not mirrored; mirrored slices are deleted
 * when the Endpoints or the Service go away, or the Service gains a selector.
 */
import { LabelSelector } from '../../api/labels.js';
import { Lister } from '../../client/cache/listers.js';
import { splitMetaNamespaceKey } from '../../client/cache/store.js';
import { waitForCacheSync } from '../../client/cache/wait-for-cache-sync.js';
import {
  BucketRateLimiter,
  ItemExponentialFailureRateLimiter,
  MaxOfRateLimiter,
} from '../../client/workqueue/rate-limiters.js';
import { createRateLimitingQueue, type RateLimitingQueue } from '../../client/workqueue/rate-limiting.js';
import type { Controller, ControllerContext } from '../context.js';
import { EndpointSliceTracker } from '../endpointslice/trackers.js';
import {
  ENDPOINT_SLICES,
  ENDPOINTS,
  type EndpointSlice,
  type Endpoints,
  SERVICES,
  type Service,
} from '../endpointslice/types.js';
import {
  ANNOTATION_LEADER_ELECTION,
  hasSelector,
  keyOf,
  LABEL_MANAGED_BY,
  LABEL_SERVICE_NAME,
  LABEL_SKIP_MIRROR,
  objectFromDelete,
  serviceKeyOfSlice,
} from '../endpointslice/util.js';
import { runWorkers } from '../worker.js';
import { MIRRORING_CONTROLLER_NAME, MirroringReconciler } from './reconciler.js';

/** Its event source. */
export const EVENT_COMPONENT = 'endpoint-slice-mirroring-controller';
const MAX_RETRIES = 15;
/** --mirroring-endpointslice-updates-batch-period (not among the options yet): upstream's default, no delay. */
const ENDPOINT_UPDATES_BATCH_PERIOD_MS = 0;

/** Whether Endpoints are mirrored at all: not marked skip-mirror, not a leader election lock. */
export function shouldMirror(ep: Endpoints | undefined): boolean {
  if (!ep) return false;
  if (ep.metadata.labels?.[LABEL_SKIP_MIRROR] === 'true') return false;
  return !Object.hasOwn(ep.metadata.annotations ?? {}, ANNOTATION_LEADER_ELECTION);
}

const managedByMe = (slice: EndpointSlice) => slice.metadata.labels?.[LABEL_MANAGED_BY] === MIRRORING_CONTROLLER_NAME;

export class EndpointSliceMirroringController implements Controller {
  private readonly queue: RateLimitingQueue<string>;
  private readonly endpoints: Lister<Endpoints>;
  private readonly slices: Lister<EndpointSlice>;
  private readonly services: Lister<Service>;
  private readonly tracker = new EndpointSliceTracker();
  private readonly reconciler: MirroringReconciler;
  private readonly synced: { hasSynced(): boolean; whenSynced(): Promise<boolean> }[];

  constructor(private readonly ctx: ControllerContext) {
    this.queue = createRateLimitingQueue<string>({
      clock: ctx.clock,
      name: 'endpoint_slice_mirroring',
      // 1 s doubling to 100 s per Endpoints, and at most 10 retries a second overall.
      rateLimiter: new MaxOfRateLimiter<string>(
        new ItemExponentialFailureRateLimiter<string>(1000, 100_000),
        new BucketRateLimiter<string>(10, 100, ctx.clock),
      ),
    });
    const endpointsInformer = ctx.informers.forGroupVersionResource<Endpoints>(ENDPOINTS);
    const sliceInformer = ctx.informers.forGroupVersionResource<EndpointSlice>(ENDPOINT_SLICES);
    const serviceInformer = ctx.informers.forGroupVersionResource<Service>(SERVICES);
    this.endpoints = new Lister(endpointsInformer.getIndexer());
    this.slices = new Lister(sliceInformer.getIndexer());
    this.services = new Lister(serviceInformer.getIndexer());
    this.synced = [endpointsInformer, sliceInformer, serviceInformer];
    this.reconciler = new MirroringReconciler(
      ctx.client,
      this.tracker,
      ctx.recorder(EVENT_COMPONENT),
      ctx.options.mirroringMaxEndpointsPerSubset,
      ctx.logger,
    );

    endpointsInformer.addEventHandler({
      onAdd: (ep) => {
        if (shouldMirror(ep)) this.queue.add(keyOf(ep));
      },
      onUpdate: (prev, cur) => {
        if (shouldMirror(cur) || shouldMirror(prev)) this.queue.add(keyOf(cur));
      },
      onDelete: (obj) => {
        const ep = objectFromDelete(obj);
        if (shouldMirror(ep)) this.queue.add(keyOf(ep));
      },
    });
    serviceInformer.addEventHandler({
      onAdd: (svc) => {
        if (!hasSelector(svc)) this.queue.add(keyOf(svc));
      },
      onUpdate: (prev, cur) => {
        if (hasSelector(prev) !== hasSelector(cur)) this.queue.add(keyOf(cur));
      },
      onDelete: (obj) => {
        const svc = objectFromDelete(obj);
        if (!hasSelector(svc)) this.queue.add(keyOf(svc));
      },
    });
    sliceInformer.addEventHandler({
      onAdd: (slice) => {
        if (managedByMe(slice) && this.tracker.shouldSync(slice)) this.queueForSlice(slice);
      },
      onUpdate: (prev, cur) => {
        if (prev.metadata.labels?.[LABEL_SERVICE_NAME] !== cur.metadata.labels?.[LABEL_SERVICE_NAME]) {
          ctx.logger.info('LabelServiceName changed', { endpointSlice: keyOf(cur) });
          this.queueForSlice(cur);
          this.queueForSlice(prev);
          return;
        }
        if (managedByMe(prev) !== managedByMe(cur) || (managedByMe(cur) && this.tracker.shouldSync(cur))) {
          this.queueForSlice(cur);
        }
      },
      onDelete: (obj) => {
        const slice = objectFromDelete(obj);
        if (managedByMe(slice) && this.tracker.has(slice) && !this.tracker.handleDeletion(slice)) {
          this.queueForSlice(slice);
        }
      },
    });
  }

  async run(): Promise<void> {
    const { ctx } = this;
    ctx.logger.info('Starting controller', { controller: 'endpointslice-mirroring-controller' });
    if (!(await waitForCacheSync(ctx.signal, ...this.synced))) {
      this.queue.shutDown();
      return;
    }
    await runWorkers({
      queue: this.queue,
      workers: ctx.options.mirroringConcurrentServiceEndpointSyncs,
      sync: (key) => this.syncEndpoints(key),
      signal: ctx.signal,
      logger: ctx.logger,
      maxRetries: MAX_RETRIES,
    });
    ctx.logger.info('Shutting down controller', { controller: 'endpointslice-mirroring-controller' });
  }

  private queueForSlice(slice: EndpointSlice): void {
    const key = serviceKeyOfSlice(slice);
    if (!key) return;
    if (ENDPOINT_UPDATES_BATCH_PERIOD_MS > 0) this.queue.addAfter(key, ENDPOINT_UPDATES_BATCH_PERIOD_MS);
    else this.queue.add(key);
  }

  private mirroredSlices(namespace: string, name: string): EndpointSlice[] {
    const selector = LabelSelector.fromSet({
      [LABEL_SERVICE_NAME]: name,
      [LABEL_MANAGED_BY]: MIRRORING_CONTROLLER_NAME,
    });
    return this.slices.namespaced(namespace).list(selector);
  }

  private async deleteMirrored(namespace: string, name: string): Promise<void> {
    this.tracker.deleteService(namespace, name);
    await this.reconciler.deleteSlices(namespace, name, this.mirroredSlices(namespace, name));
  }

  /** One sync of the slices mirrored from an Endpoints object. */
  async syncEndpoints(key: string): Promise<void> {
    const { namespace, name } = splitMetaNamespaceKey(key);
    const endpoints = this.endpoints.namespaced(namespace).get(name);
    // Gone, not to be mirrored, without a Service, or the Service has a selector: no mirrored slices.
    if (!endpoints || !shouldMirror(endpoints)) return this.deleteMirrored(namespace, name);
    const svc = this.services.namespaced(namespace).get(name);
    if (!svc || hasSelector(svc)) return this.deleteMirrored(namespace, name);

    const slices = this.mirroredSlices(namespace, name);
    if (this.tracker.staleSlices(svc, slices)) throw new Error('EndpointSlice informer cache is out of date');
    await this.reconciler.reconcile(endpoints, slices);
  }
}
