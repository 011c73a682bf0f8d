/**
 * The root CA certificate publisher (upstream's rootcacertpublisher.Publisher): every namespace has a ConfigMap
 * `kube-root-ca.crt` whose `ca.crt` is the cluster CA, so that pods can verify the apiserver. A missing ConfigMap is
 * created, and one whose data or description annotation was changed is put back. Namespaces being deleted refuse
 * new content; such refusals are not retried.
 */
import { Lister } from '../../client/cache/listers.js';
import type { SharedIndexInformer } from '../../client/cache/shared-informer.js';
import { DeletedFinalStateUnknown } from '../../client/cache/store.js';
import { waitForCacheSync } from '../../client/cache/wait-for-cache-sync.js';
import { isNotFound, type KubeObject } from '../../client/types.js';
import { createRateLimitingQueue, type RateLimitingQueue } from '../../client/workqueue/rate-limiting.js';
import type { Controller, ControllerContext } from '../context.js';
import { isNamespaceActive, isNamespaceTerminatingError } from '../namespace/terminating.js';
import { runWorkers } from '../worker.js';

export const ROOT_CA_CERT_CONFIGMAP_NAME = 'kube-root-ca.crt';
export const ROOT_CA_CERT_KEY = 'ca.crt';
export const DESCRIPTION_ANNOTATION = 'kubernetes.io/description';
/** Upstream's description of the ConfigMap, word for word (clients may compare it). */
export const DESCRIPTION =
  'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the ' +
  'internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes ' +
  'clusters.';

/** upstream runs this controller with one worker. */
const WORKERS = 1;

const NAMESPACES = { group: '', version: 'v1', resource: 'namespaces' } as const;
const CONFIG_MAPS = { group: '', version: 'v1', resource: 'configmaps' } as const;

export class RootCaCertPublisher implements Controller {
  readonly queue: RateLimitingQueue<string>;
  private readonly configMaps: SharedIndexInformer;
  private readonly namespaces: SharedIndexInformer;
  private readonly cmLister: Lister;

  constructor(
    private readonly ctx: ControllerContext,
    private readonly rootCaPem: string,
  ) {
    this.queue = createRateLimitingQueue<string>({ clock: ctx.clock, name: 'root_ca_cert_publisher' });
    this.configMaps = ctx.informers.forGroupVersionResource(CONFIG_MAPS);
    this.namespaces = ctx.informers.forGroupVersionResource(NAMESPACES);
    this.cmLister = new Lister(this.configMaps.getIndexer());
    const onConfigMap = (obj: KubeObject | DeletedFinalStateUnknown) => {
      const cm = obj instanceof DeletedFinalStateUnknown ? (obj.obj as KubeObject | undefined) : obj;
      if (cm?.metadata?.name !== ROOT_CA_CERT_CONFIGMAP_NAME || !cm.metadata.namespace) return;
      this.queue.add(cm.metadata.namespace);
    };
    this.configMaps.addEventHandler({ onUpdate: (_old, cm) => onConfigMap(cm), onDelete: onConfigMap });
    this.namespaces.addEventHandler({
      onAdd: (ns) => this.queue.add(ns.metadata.name ?? ''),
      onUpdate: (_old, ns) => {
        if (isNamespaceActive(ns)) this.queue.add(ns.metadata.name ?? '');
      },
    });
  }

  async run(): Promise<void> {
    const { signal, logger } = this.ctx;
    logger.info('Starting root CA cert publisher controller');
    try {
      if (!(await waitForCacheSync(signal, this.configMaps, this.namespaces))) {
        this.queue.shutDown();
        return;
      }
      await runWorkers({ queue: this.queue, workers: WORKERS, sync: (key) => this.sync(key), signal, logger });
    } finally {
      logger.info('Shutting down root CA cert publisher controller');
    }
  }

  /** Makes the namespace's kube-root-ca.crt exist with the CA and the description annotation. */
  async sync(namespace: string): Promise<void> {
    const data = { [ROOT_CA_CERT_KEY]: this.rootCaPem };
    const cm = this.cmLister.namespaced(namespace).get(ROOT_CA_CERT_CONFIGMAP_NAME);
    const client = this.ctx.client.configMaps(namespace);
    if (!cm) {
      try {
        await client.create({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: {
            name: ROOT_CA_CERT_CONFIGMAP_NAME,
            namespace,
            annotations: { [DESCRIPTION_ANNOTATION]: DESCRIPTION },
          },
          data,
        });
      } catch (err) {
        // The namespace is gone or going: nothing to publish there.
        if (isNotFound(err) || isNamespaceTerminatingError(err)) return;
        throw err;
      }
      return;
    }
    if (sameData(cm.data, data) && cm.metadata.annotations?.[DESCRIPTION_ANNOTATION]) return;
    const next = structuredClone(cm);
    next.data = data;
    next.metadata.annotations = { ...next.metadata.annotations, [DESCRIPTION_ANNOTATION]: DESCRIPTION };
    await client.update(next);
  }
}

function sameData(actual: unknown, wanted: Record<string, string>): boolean {
  if (!actual || typeof actual !== 'object') return false;
  const entries = Object.entries(actual as Record<string, unknown>);
  return entries.length === Object.keys(wanted).length && entries.every(([k, v]) => wanted[k] === v);
}
