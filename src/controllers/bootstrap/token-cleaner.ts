/**
 * kube-controller-manager's token-cleaner-controller (upstream's pkg/controller/bootstrap TokenCleaner): deletes
 * bootstrap token Secrets (type `bootstrap.kubernetes.io/token` in kube-system) whose `expiration` has passed, with
 * their uid as a precondition; one that expires later is looked at again then. Off unless `--controllers` names it,
 * as upstream (`wheelhouse up` turns it on, as kubeadm does).
 */
import { bootstrapTokenTimeLeft, isBootstrapTokenSecret } from '../../api/bootstrap-token.js';
import { Lister } from '../../client/cache/listers.js';
import type { SharedIndexInformer } from '../../client/cache/shared-informer.js';
import { metaNamespaceKeyFunc, splitMetaNamespaceKey } from '../../client/cache/store.js';
import { waitForCacheSync } from '../../client/cache/wait-for-cache-sync.js';
import { isConflict, isNotFound, type KubeObject } from '../../client/types.js';
import { createRateLimitingQueue, type RateLimitingQueue } from '../../client/workqueue/rate-limiting.js';
import type { Controller, ControllerContext, ControllerDescriptor } from '../context.js';
import { runWorkers } from '../worker.js';

const SECRETS = { group: '', version: 'v1', resource: 'secrets' };

export class TokenCleaner implements Controller {
  private readonly queue: RateLimitingQueue<string>;
  private readonly informer: SharedIndexInformer<KubeObject>;
  private readonly secrets: Lister<KubeObject>;

  constructor(private readonly ctx: ControllerContext) {
    this.queue = createRateLimitingQueue<string>({ clock: ctx.clock, name: 'token_cleaner' });
    this.informer = ctx.informers.forGroupVersionResource(SECRETS);
    this.secrets = new Lister(this.informer.getIndexer());
    const enqueue = (secret: KubeObject) => {
      if (isBootstrapTokenSecret(secret)) this.queue.add(metaNamespaceKeyFunc(secret));
    };
    this.informer.addEventHandler({ onAdd: enqueue, onUpdate: (_old, cur) => enqueue(cur) });
  }

  async run(): Promise<void> {
    const { ctx } = this;
    ctx.logger.info('Starting token cleaner controller');
    if (await waitForCacheSync(ctx.signal, this.informer)) {
      await runWorkers({
        queue: this.queue,
        workers: 1,
        sync: (key) => this.syncSecret(key),
        signal: ctx.signal,
        logger: ctx.logger,
      });
    }
    ctx.logger.info('Shutting down token cleaner controller');
  }

  async syncSecret(key: string): Promise<void> {
    const { namespace, name } = splitMetaNamespaceKey(key);
    const secret = this.secrets.namespaced(namespace).get(name);
    if (!secret) {
      this.ctx.logger.v(3).info('Secret has been deleted', { secret: key });
      return;
    }
    if (!isBootstrapTokenSecret(secret)) return;
    const left = bootstrapTokenTimeLeft(secret, this.ctx.clock.now());
    if (left === undefined) return;
    if (left > 0) {
      this.queue.addAfter(key, left);
      return;
    }
    this.ctx.logger.v(3).info('Deleting expired secret', { secret: key });
    try {
      await this.ctx.client
        .secrets(namespace)
        .delete(name, secret.metadata.uid ? { preconditions: { uid: secret.metadata.uid } } : {});
    } catch (err) {
      // Gone already, or replaced by a Secret of the same name (the uid precondition failed): nothing to do.
      if (!isNotFound(err) && !isConflict(err))
        this.ctx.logger.v(3).info('Error deleting secret', { err: String(err) });
    }
  }
}

export const tokenCleanerController: ControllerDescriptor = {
  name: 'token-cleaner-controller',
  serviceAccount: 'token-cleaner',
  create: (ctx) => new TokenCleaner(ctx),
};
