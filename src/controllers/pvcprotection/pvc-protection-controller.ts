/**
 * The PVC protection controller (upstream's pkg/controller/volume/pvcprotection): a PersistentVolumeClaim being
 * deleted keeps its `kubernetes.io/pvc-protection` finalizer (put there by the StorageObjectInUseProtection
 * admission plugin) while a scheduled pod of its namespace mounts it; once none does, the finalizer goes and the
 * claim with it. Claims without the finalizer that are not being deleted get it (claims made before the plugin
 * was on). Pods are looked for in the informer's cache first, then — to be sure — in a live list, as upstream.
 * A pod that is shut down (deleted with no grace left) no longer holds an ephemeral volume's claim.
 */
import { Lister, NamespaceLister } from '../../client/cache/listers.js';
import type { SharedIndexInformer } from '../../client/cache/shared-informer.js';
import { DeletedFinalStateUnknown, splitMetaNamespaceKey } from '../../client/cache/store.js';
import { waitForCacheSync } from '../../client/cache/wait-for-cache-sync.js';
import { isNotFound, type KubeObject } from '../../client/types.js';
import { createRateLimitingQueue, type RateLimitingQueue } from '../../client/workqueue/rate-limiting.js';
import type { Controller, ControllerContext } from '../context.js';
import { runWorkers } from '../worker.js';

export const PVC_PROTECTION_FINALIZER = 'kubernetes.io/pvc-protection';

const PVCS = { group: '', version: 'v1', resource: 'persistentvolumeclaims' } as const;
const PODS = { group: '', version: 'v1', resource: 'pods' } as const;

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : {});
const recs = (v: unknown): Rec[] => (Array.isArray(v) ? v.map(rec) : []);

const hasFinalizer = (obj: KubeObject, f: string) => (obj.metadata.finalizers ?? []).includes(f);

/** protectionutil.IsDeletionCandidate / NeedToAddFinalizer. */
export function isDeletionCandidate(obj: KubeObject, finalizer: string): boolean {
  return obj.metadata.deletionTimestamp !== undefined && hasFinalizer(obj, finalizer);
}
export function needsFinalizer(obj: KubeObject, finalizer: string): boolean {
  return obj.metadata.deletionTimestamp === undefined && !hasFinalizer(obj, finalizer);
}

function podIsShutDown(pod: KubeObject): boolean {
  return pod.metadata.deletionTimestamp !== undefined && pod.metadata.deletionGracePeriodSeconds === 0;
}

function podIsTerminated(pod: KubeObject): boolean {
  const phase = rec(pod.status).phase;
  return phase === 'Succeeded' || phase === 'Failed';
}

/** Whether a scheduled pod mounts the claim (directly, or as the claim of one of its ephemeral volumes). */
export function podUsesClaim(pod: KubeObject, claim: KubeObject): boolean {
  const spec = rec(pod.spec);
  if (!spec.nodeName) return false;
  const name = claim.metadata.name;
  for (const volume of recs(spec.volumes)) {
    if (rec(volume.persistentVolumeClaim).claimName === name && volume.persistentVolumeClaim !== undefined) return true;
    if (volume.ephemeral !== undefined && !podIsShutDown(pod) && `${pod.metadata.name}-${volume.name}` === name) {
      const owned = (claim.metadata.ownerReferences ?? []).some((o) => o.uid === pod.metadata.uid && o.controller);
      if (owned) return true;
    }
  }
  return false;
}

/** The claims a pod mounts, as keys. */
function claimKeysOf(pod: KubeObject): string[] {
  const keys: string[] = [];
  for (const volume of recs(rec(pod.spec).volumes)) {
    const claimName = rec(volume.persistentVolumeClaim).claimName;
    if (typeof claimName === 'string') keys.push(`${pod.metadata.namespace}/${claimName}`);
    else if (volume.ephemeral !== undefined) keys.push(`${pod.metadata.namespace}/${pod.metadata.name}-${volume.name}`);
  }
  return keys;
}

export class PvcProtectionController implements Controller {
  readonly queue: RateLimitingQueue<string>;
  private readonly claims: SharedIndexInformer;
  private readonly pods: SharedIndexInformer;
  private readonly claimLister: Lister;

  constructor(private readonly ctx: ControllerContext) {
    this.queue = createRateLimitingQueue<string>({ clock: ctx.clock, name: 'pvcprotection' });
    this.claims = ctx.informers.forGroupVersionResource(PVCS);
    this.pods = ctx.informers.forGroupVersionResource(PODS);
    this.claimLister = new Lister(this.claims.getIndexer());
    const onClaim = (pvc: KubeObject) => {
      if (needsFinalizer(pvc, PVC_PROTECTION_FINALIZER) || isDeletionCandidate(pvc, PVC_PROTECTION_FINALIZER)) {
        this.queue.add(`${pvc.metadata.namespace}/${pvc.metadata.name}`);
      }
    };
    this.claims.addEventHandler({ onAdd: onClaim, onUpdate: (_old, pvc) => onClaim(pvc) });
    const onPod = (pod: KubeObject, deleted: boolean) => {
      // Only a pod that is gone, finished or unscheduled can let a claim go.
      if (!deleted && !podIsTerminated(pod) && rec(pod.spec).nodeName) return;
      for (const key of claimKeysOf(pod)) this.queue.add(key);
    };
    this.pods.addEventHandler({
      onAdd: (pod) => onPod(pod, false),
      onUpdate: (old, pod) => {
        onPod(pod, false);
        if (old.metadata.uid !== pod.metadata.uid) onPod(old, true);
      },
      onDelete: (obj) => onPod(obj instanceof DeletedFinalStateUnknown ? (obj.obj as KubeObject) : obj, true),
    });
  }

  async run(): Promise<void> {
    const { signal, logger } = this.ctx;
    logger.info('Starting PVC protection controller');
    try {
      if (!(await waitForCacheSync(signal, this.claims, this.pods))) {
        this.queue.shutDown();
        return;
      }
      await runWorkers({ queue: this.queue, workers: 1, sync: (key) => this.sync(key), signal, logger });
    } finally {
      logger.info('Shutting down PVC protection controller');
    }
  }

  async sync(key: string): Promise<void> {
    const { namespace, name } = splitMetaNamespaceKey(key);
    const pvc = this.claimLister.namespaced(namespace ?? '').get(name);
    if (!pvc) return;
    if (isDeletionCandidate(pvc, PVC_PROTECTION_FINALIZER)) {
      if (await this.isBeingUsed(pvc)) {
        this.ctx.logger.v(2).info('Keeping PVC because it is being used', { pvc: key });
        return;
      }
      await this.setFinalizer(pvc, false);
      return;
    }
    if (needsFinalizer(pvc, PVC_PROTECTION_FINALIZER)) await this.setFinalizer(pvc, true);
  }

  private async isBeingUsed(pvc: KubeObject): Promise<boolean> {
    const namespace = pvc.metadata.namespace ?? '';
    const cached = new NamespaceLister(this.pods.getIndexer(), namespace).list();
    if (cached.some((pod) => podUsesClaim(pod, pvc))) return true;
    const live = await this.ctx.client.pods(namespace).list();
    return live.items.some((pod) => podUsesClaim(pod, pvc));
  }

  private async setFinalizer(pvc: KubeObject, present: boolean): Promise<void> {
    const others = (pvc.metadata.finalizers ?? []).filter((f) => f !== PVC_PROTECTION_FINALIZER);
    const finalizers = present ? [...others, PVC_PROTECTION_FINALIZER] : others;
    try {
      await this.ctx.client
        .resource(PVCS)
        .namespace(pvc.metadata.namespace ?? '')
        .update({ ...pvc, metadata: { ...pvc.metadata, finalizers } });
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
  }
}
