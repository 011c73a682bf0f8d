/**
 * The serviceaccount controller (upstream's ServiceAccountsController): every active namespace has the
 * ServiceAccounts it should (`default`). A namespace is looked at when it appears or changes and when one of its
 * ServiceAccounts is deleted; a missing account is created again. Namespaces that are not Active (being deleted)
 * are left alone.
 */
import { Lister } from '../../client/cache/listers.js';
import type { SharedIndexInformer } from '../../client/cache/shared-informer.js';
import { DeletedFinalStateUnknown } from '../../client/cache/store.js';
import { waitForCacheSync } from '../../client/cache/wait-for-cache-sync.js';
import { isAlreadyExists, type KubeObject } from '../../client/types.js';
import { createRateLimitingQueue, type RateLimitingQueue } from '../../client/workqueue/rate-limiting.js';
import type { Controller, ControllerContext } from '../context.js';
import { isNamespaceActive, isNamespaceTerminatingError } from '../namespace/terminating.js';
import { runWorkers } from '../worker.js';

/** upstream's DefaultServiceAccountsControllerOptions: the accounts every namespace gets. */
export const SERVICE_ACCOUNTS_TO_ENSURE: readonly string[] = ['default'];

/** upstream runs this controller with one worker. */
const WORKERS = 1;

const NAMESPACES = { group: '', version: 'v1', resource: 'namespaces' } as const;
const SERVICE_ACCOUNTS = { group: '', version: 'v1', resource: 'serviceaccounts' } as const;

export class ServiceAccountsController implements Controller {
  readonly queue: RateLimitingQueue<string>;
  private readonly namespaces: SharedIndexInformer;
  private readonly serviceAccounts: SharedIndexInformer;
  private readonly nsLister: Lister;
  private readonly saLister: Lister;

  constructor(
    private readonly ctx: ControllerContext,
    private readonly accounts: readonly string[] = SERVICE_ACCOUNTS_TO_ENSURE,
  ) {
    this.queue = createRateLimitingQueue<string>({ clock: ctx.clock, name: 'serviceaccount' });
    this.serviceAccounts = ctx.informers.forGroupVersionResource(SERVICE_ACCOUNTS);
    this.namespaces = ctx.informers.forGroupVersionResource(NAMESPACES);
    this.saLister = new Lister(this.serviceAccounts.getIndexer());
    this.nsLister = new Lister(this.namespaces.getIndexer());
    this.serviceAccounts.addEventHandler({
      onDelete: (obj) => {
        const sa = obj instanceof DeletedFinalStateUnknown ? obj.obj : obj;
        const namespace = (sa as KubeObject | undefined)?.metadata?.namespace;
        if (namespace) this.queue.add(namespace);
      },
    });
    this.namespaces.addEventHandler({
      onAdd: (ns) => this.queue.add(ns.metadata.name ?? ''),
      onUpdate: (_old, ns) => this.queue.add(ns.metadata.name ?? ''),
    });
  }

  async run(): Promise<void> {
    const { signal, logger } = this.ctx;
    logger.info('Starting service account controller');
    try {
      if (!(await waitForCacheSync(signal, this.serviceAccounts, this.namespaces))) {
        this.queue.shutDown();
        return;
      }
      await runWorkers({ queue: this.queue, workers: WORKERS, sync: (key) => this.sync(key), signal, logger });
    } finally {
      logger.info('Shutting down service account controller');
    }
  }

  /** Creates the accounts the namespace lacks, if it exists and is Active. */
  async sync(namespace: string): Promise<void> {
    const ns = this.nsLister.get(namespace);
    if (!ns || !isNamespaceActive(ns)) return;
    const failures: string[] = [];
    for (const name of this.accounts) {
      if (this.saLister.namespaced(namespace).get(name)) continue;
      try {
        await this.ctx.client
          .serviceAccounts(namespace)
          .create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace } });
      } catch (err) {
        if (isAlreadyExists(err) || isNamespaceTerminatingError(err)) continue;
        failures.push(err instanceof Error ? err.message : String(err));
      }
    }
    if (failures.length === 1) throw new Error(failures[0]);
    if (failures.length > 1) throw new Error(`[${failures.join(', ')}]`);
  }
}
