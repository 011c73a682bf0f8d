/**
 * kube-controller-manager's bootstrap-signer-controller (upstream's pkg/controller/bootstrap Signer): keeps, in the
 * ConfigMap kube-public/cluster-info, one `jws-kubeconfig-<id>` key per bootstrap token that may sign (see
 * signingToken) holding the detached JWS of the ConfigMap's `kubeconfig` under that token, and no others. A node
 * joining with a token checks it to trust the cluster-info it read anonymously (`kubeadm join`'s discovery). Off
 * unless `--controllers` names it, as upstream (`wheelhouse up` turns it on, as kubeadm does).
 */
import {
  BOOTSTRAP_TOKEN_NAMESPACE,
  CLUSTER_INFO_KUBECONFIG_KEY,
  CLUSTER_INFO_NAME,
  CLUSTER_INFO_NAMESPACE,
  detachedSignature,
  isBootstrapTokenSecret,
  JWS_SIGNATURE_KEY_PREFIX,
  signingToken,
} from '../../api/bootstrap-token.js';
import { Lister } from '../../client/cache/listers.js';
import type { SharedIndexInformer } from '../../client/cache/shared-informer.js';
import { waitForCacheSync } from '../../client/cache/wait-for-cache-sync.js';
import { isConflict, isNotFound, type KubeObject } from '../../client/types.js';
import { createRateLimitingQueue, type RateLimitingQueue } from '../../client/workqueue/rate-limiting.js';
import type { Controller, ControllerContext, ControllerDescriptor } from '../context.js';
import { runWorkers } from '../worker.js';

const SECRETS = { group: '', version: 'v1', resource: 'secrets' };
const CONFIG_MAPS = { group: '', version: 'v1', resource: 'configmaps' };
const KEY = `${CLUSTER_INFO_NAMESPACE}/${CLUSTER_INFO_NAME}`;

export class BootstrapSigner implements Controller {
  private readonly queue: RateLimitingQueue<string>;
  private readonly secretInformer: SharedIndexInformer<KubeObject>;
  private readonly configMapInformer: SharedIndexInformer<KubeObject>;
  private readonly secrets: Lister<KubeObject>;
  private readonly configMaps: Lister<KubeObject>;

  constructor(private readonly ctx: ControllerContext) {
    this.queue = createRateLimitingQueue<string>({ clock: ctx.clock, name: 'bootstrap_signer_queue' });
    this.secretInformer = ctx.informers.forGroupVersionResource(SECRETS);
    this.configMapInformer = ctx.informers.forGroupVersionResource(CONFIG_MAPS);
    this.secrets = new Lister(this.secretInformer.getIndexer());
    this.configMaps = new Lister(this.configMapInformer.getIndexer());
    const poke = () => this.queue.add(KEY);
    const clusterInfo = (cm: KubeObject) =>
      cm.metadata.namespace === CLUSTER_INFO_NAMESPACE && cm.metadata.name === CLUSTER_INFO_NAME;
    this.configMapInformer.addEventHandler({
      onAdd: (cm) => clusterInfo(cm) && poke(),
      onUpdate: (_old, cm) => clusterInfo(cm) && poke(),
    });
    this.secretInformer.addEventHandler({
      onAdd: (s) => isBootstrapTokenSecret(s) && poke(),
      onUpdate: (_old, s) => isBootstrapTokenSecret(s) && poke(),
      onDelete: (s) => {
        // A tombstone's object may be unknown: look again in any case.
        if (!('metadata' in s) || isBootstrapTokenSecret(s as KubeObject)) poke();
      },
    });
  }

  async run(): Promise<void> {
    const { ctx } = this;
    if (await waitForCacheSync(ctx.signal, this.secretInformer, this.configMapInformer)) {
      await runWorkers({
        queue: this.queue,
        workers: 1,
        sync: () => this.signConfigMap(),
        signal: ctx.signal,
        logger: ctx.logger,
      });
    }
    ctx.logger.v(1).info('Shutting down');
  }

  /** Recomputes cluster-info's signatures from the cached objects and writes them back when they changed. */
  async signConfigMap(): Promise<void> {
    const cm = this.configMaps.namespaced(CLUSTER_INFO_NAMESPACE).get(CLUSTER_INFO_NAME);
    if (!cm) return;
    const data = { ...((cm.data ?? {}) as Record<string, string>) };
    const content = data[CLUSTER_INFO_KUBECONFIG_KEY];
    if (content === undefined) {
      this.ctx.logger.v(3).info('No key in ConfigMap', { key: CLUSTER_INFO_KUBECONFIG_KEY, configMap: KEY });
      return;
    }
    const old = new Map<string, string>();
    for (const key of Object.keys(data)) {
      if (!key.startsWith(JWS_SIGNATURE_KEY_PREFIX)) continue;
      old.set(key, data[key] as string);
      delete data[key];
    }
    let changed = false;
    const now = this.ctx.clock.now();
    for (const secret of this.secrets.namespaced(BOOTSTRAP_TOKEN_NAMESPACE).list()) {
      if (!isBootstrapTokenSecret(secret)) continue;
      const token = signingToken(secret, now);
      const key = token && `${JWS_SIGNATURE_KEY_PREFIX}${token.id}`;
      if (!token || !key || data[key] !== undefined) continue;
      data[key] = detachedSignature(content, token.id, token.secret);
      if (old.get(key) !== data[key]) changed = true;
      old.delete(key);
    }
    if (!changed && old.size === 0) return;
    try {
      await this.ctx.client.configMaps(CLUSTER_INFO_NAMESPACE).update({ ...cm, data } as KubeObject);
    } catch (err) {
      if (!isConflict(err) && !isNotFound(err)) {
        this.ctx.logger.v(3).info('Error updating ConfigMap', { err: String(err) });
      }
    }
  }
}

export const bootstrapSignerController: ControllerDescriptor = {
  name: 'bootstrap-signer-controller',
  serviceAccount: 'bootstrap-signer',
  create: (ctx) => new BootstrapSigner(ctx),
};
