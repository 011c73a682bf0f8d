/**
 * The PV protection controller (upstream's pkg/controller/volume/pvprotection): a PersistentVolume being deleted
 * keeps its `kubernetes.io/pv-protection` finalizer (put there by the StorageObjectInUseProtection admission
 * plugin) while it is Bound to a claim; once it is not, the finalizer goes and the volume with it. Volumes without
 * the finalizer that are not being deleted get it.
 */
import { Lister } from '../../client/cache/listers.js';
import type { SharedIndexInformer } from '../../client/cache/shared-informer.js';
import { waitForCacheSync } from '../../client/cache/wait-for-cache-sync.js';
import { isNotFound, type KubeObject } from '../../client/types.js';
import { createRateLimitingQueue, type RateLimitingQueue } from '../../client/workqueue/rate-limiting.js';
import type { Controller, ControllerContext } from '../context.js';
import { isDeletionCandidate, needsFinalizer } from '../pvcprotection/pvc-protection-controller.js';
import { runWorkers } from '../worker.js';

export const PV_PROTECTION_FINALIZER = 'kubernetes.io/pv-protection';

const PVS = { group: '', version: 'v1', resource: 'persistentvolumes' } as const;

function isBound(pv: KubeObject): boolean {
  return (pv.status as { phase?: unknown } | undefined)?.phase === 'Bound';
}

export class PvProtectionController implements Controller {
  readonly queue: RateLimitingQueue<string>;
  private readonly volumes: SharedIndexInformer;
  private readonly lister: Lister;

  constructor(private readonly ctx: ControllerContext) {
    this.queue = createRateLimitingQueue<string>({ clock: ctx.clock, name: 'pvprotection' });
    this.volumes = ctx.informers.forGroupVersionResource(PVS);
    this.lister = new Lister(this.volumes.getIndexer());
    const onVolume = (pv: KubeObject) => {
      if (needsFinalizer(pv, PV_PROTECTION_FINALIZER) || isDeletionCandidate(pv, PV_PROTECTION_FINALIZER)) {
        this.queue.add(pv.metadata.name ?? '');
      }
    };
    this.volumes.addEventHandler({ onAdd: onVolume, onUpdate: (_old, pv) => onVolume(pv) });
  }

  async run(): Promise<void> {
    const { signal, logger } = this.ctx;
    logger.info('Starting PV protection controller');
    try {
      if (!(await waitForCacheSync(signal, this.volumes))) {
        this.queue.shutDown();
        return;
      }
      await runWorkers({ queue: this.queue, workers: 1, sync: (key) => this.sync(key), signal, logger });
    } finally {
      logger.info('Shutting down PV protection controller');
    }
  }

  async sync(name: string): Promise<void> {
    const pv = this.lister.get(name);
    if (!pv) return;
    if (isDeletionCandidate(pv, PV_PROTECTION_FINALIZER)) {
      if (isBound(pv)) return;
      await this.setFinalizer(pv, false);
      return;
    }
    if (needsFinalizer(pv, PV_PROTECTION_FINALIZER)) await this.setFinalizer(pv, true);
  }

  private async setFinalizer(pv: KubeObject, present: boolean): Promise<void> {
    const others = (pv.metadata.finalizers ?? []).filter((f) => f !== PV_PROTECTION_FINALIZER);
    const finalizers = present ? [...others, PV_PROTECTION_FINALIZER] : others;
    try {
      await this.ctx.client.resource(PVS).update({ ...pv, metadata: { ...pv.metadata, finalizers } });
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
  }
}
