/**
 * Upstream's certificates.CertificateController, which the signing and approving controllers are made of: an
 * informer on CertificateSigningRequests whose every add, update and delete queues the CSR's name, and workers
 * that hand each CSR without a certificate yet (a copy, never the cached object) to the controller's handler. A
 * handler's error requeues the CSR rate-limited.
 */
import { Lister } from '../../client/cache/listers.js';
import type { SharedIndexInformer } from '../../client/cache/shared-informer.js';
import { DeletedFinalStateUnknown } from '../../client/cache/store.js';
import { waitForCacheSync } from '../../client/cache/wait-for-cache-sync.js';
import type { KubeObject } from '../../client/types.js';
import { createRateLimitingQueue, type RateLimitingQueue } from '../../client/workqueue/rate-limiting.js';
import type { Controller, ControllerContext } from '../context.js';
import { runWorkers } from '../worker.js';

export const CSR_RESOURCE = {
  group: 'certificates.k8s.io',
  version: 'v1',
  resource: 'certificatesigningrequests',
} as const;

export type CsrHandler = (csr: KubeObject) => Promise<void>;

export class CertificateController implements Controller {
  readonly queue: RateLimitingQueue<string>;
  private readonly informer: SharedIndexInformer;
  private readonly lister: Lister;

  constructor(
    private readonly ctx: ControllerContext,
    /** The queue's name (upstream: csrsigning-kube-apiserver-client, csrapproving, …). */
    readonly name: string,
    private readonly handler: CsrHandler,
    private readonly workers = 5,
  ) {
    this.queue = createRateLimitingQueue<string>({ clock: ctx.clock, name });
    this.informer = ctx.informers.forGroupVersionResource(CSR_RESOURCE);
    this.lister = new Lister(this.informer.getIndexer());
    const enqueue = (obj: KubeObject | DeletedFinalStateUnknown) => {
      const csr = obj instanceof DeletedFinalStateUnknown ? (obj.obj as KubeObject | undefined) : obj;
      const key = csr?.metadata?.name ?? (obj instanceof DeletedFinalStateUnknown ? obj.key : undefined);
      if (key) this.queue.add(key);
    };
    this.informer.addEventHandler({ onAdd: enqueue, onUpdate: (_old, csr) => enqueue(csr), onDelete: enqueue });
  }

  async run(): Promise<void> {
    const { signal, logger } = this.ctx;
    logger.info('Starting certificate controller', { name: this.name });
    try {
      if (!(await waitForCacheSync(signal, this.informer))) {
        this.queue.shutDown();
        return;
      }
      await runWorkers({ queue: this.queue, workers: this.workers, sync: (key) => this.sync(key), signal, logger });
    } finally {
      logger.info('Shutting down certificate controller', { name: this.name });
    }
  }

  async sync(name: string): Promise<void> {
    const csr = this.lister.get(name);
    if (!csr) return;
    const status = csr.status as { certificate?: string } | undefined;
    // It already has a certificate: nothing to do.
    if (status?.certificate) return;
    await this.handler(structuredClone(csr));
  }
}
