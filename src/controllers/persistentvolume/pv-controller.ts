/**
 * The persistentvolume-binder-controller (upstream's pkg/controller/volume/persistentvolume, PersistentVolumeController):
 * binds PersistentVolumeClaims to PersistentVolumes and keeps both phases true.
 *
 * Claims (syncClaim): an unbound claim gets the smallest Available volume that satisfies it (class, size, access
 * and volume modes, selector); without one, a claim naming no class gets the default StorageClass, a
 * WaitForFirstConsumer claim waits for the scheduler to pick a node (`WaitForFirstConsumer` / `WaitForPodScheduled`
 * events), and a claim of a class with a provisioner is handed to that (external) provisioner: the
 * `volume.kubernetes.io/storage-provisioner` annotations and the `ExternalProvisioning` event. Binding writes the
 * PV's claimRef (with `pv.kubernetes.io/bound-by-controller`), phase Bound, then the claim's volumeName with
 * `pv.kubernetes.io/bind-completed`, phase Bound with the volume's capacity and access modes. A bound claim whose
 * volume is gone is Lost (`ClaimLost`).
 *
 * Volumes (syncVolume): no claimRef → Available; a claim that is gone → Released, then the reclaim policy: Retain
 * keeps it, Delete leaves it to the provisioner named by `pv.kubernetes.io/provisioned-by` (external deleters).
 * Both kinds are resynced every --pvclaimbinder-sync-period.
 */
import {
  ANN_BETA_STORAGE_PROVISIONER,
  ANN_BIND_COMPLETED,
  ANN_BOUND_BY_CONTROLLER,
  ANN_DYNAMICALLY_PROVISIONED,
  ANN_SELECTED_NODE,
  ANN_STORAGE_PROVISIONER,
  accessModesSatisfied,
  claimClass,
  claimHasClass,
  claimRequest,
  defaultStorageClass,
  findMatchingVolume,
  isVolumeBoundToClaim,
  isWaitForFirstConsumer,
  NOT_SUPPORTED_PROVISIONER,
  podClaimNames,
  volumeCapacity,
  volumeClass,
  volumeModeMismatch,
} from '../../api/persistent-volumes.js';
import { compareQuantities } from '../../api/quantity.js';
import { Lister } from '../../client/cache/listers.js';
import type { SharedIndexInformer } from '../../client/cache/shared-informer.js';
import { DeletedFinalStateUnknown, metaNamespaceKeyFunc } from '../../client/cache/store.js';
import { waitForCacheSync } from '../../client/cache/wait-for-cache-sync.js';
import type { EventRecorder } from '../../client/events/broadcaster.js';
import { isNotFound, type KubeObject } from '../../client/types.js';
import { createRateLimitingQueue, type RateLimitingQueue } from '../../client/workqueue/rate-limiting.js';
import type { Controller, ControllerContext } from '../context.js';
import { runWorkers } from '../worker.js';

const PVS = { group: '', version: 'v1', resource: 'persistentvolumes' };
const PVCS = { group: '', version: 'v1', resource: 'persistentvolumeclaims' };
const CLASSES = { group: 'storage.k8s.io', version: 'v1', resource: 'storageclasses' };
const PODS = { group: '', version: 'v1', resource: 'pods' };

export const PV_CONTROLLER_COMPONENT = 'persistentvolume-controller';

// biome-ignore lint/suspicious/noExplicitAny: PVs and PVCs are plain API objects
type Obj = KubeObject & { spec?: any; status?: any };

const rv = (o: Obj | undefined) => {
  try {
    return BigInt(o?.metadata?.resourceVersion ?? '0');
  } catch {
    return 0n;
  }
};
const unwrap = <T>(o: T | DeletedFinalStateUnknown<T>): T => (o instanceof DeletedFinalStateUnknown ? o.obj : o);
const clone = <T>(o: T): T => structuredClone(o);
const annotate = (o: Obj, key: string, value: string) => {
  o.metadata.annotations = { ...(o.metadata.annotations ?? {}), [key]: value };
};

/** The informer's objects, overlaid with what this controller wrote last when the informer has not seen it yet. */
class NewestView {
  private readonly written = new Map<string, Obj>();
  constructor(private readonly get: (key: string) => Obj | undefined) {}
  lookup(key: string): Obj | undefined {
    const cached = this.get(key);
    const mine = this.written.get(key);
    if (!mine) return cached;
    if (!cached || rv(cached) >= rv(mine)) {
      this.written.delete(key);
      return cached;
    }
    return mine;
  }
  store(key: string, obj: Obj): void {
    this.written.set(key, obj);
  }
  forget(key: string): void {
    this.written.delete(key);
  }
}

export class PersistentVolumeController implements Controller {
  private readonly volumeQueue: RateLimitingQueue<string>;
  private readonly claimQueue: RateLimitingQueue<string>;
  private readonly pvInformer: SharedIndexInformer<Obj>;
  private readonly pvcInformer: SharedIndexInformer<Obj>;
  private readonly classInformer: SharedIndexInformer<Obj>;
  private readonly podInformer: SharedIndexInformer<Obj>;
  private readonly volumes: NewestView;
  private readonly claims: NewestView;
  private readonly classes: Lister<Obj>;
  private readonly pods: Lister<Obj>;
  private readonly recorder: EventRecorder;

  constructor(private readonly ctx: ControllerContext) {
    this.volumeQueue = createRateLimitingQueue<string>({ clock: ctx.clock, name: 'volumes' });
    this.claimQueue = createRateLimitingQueue<string>({ clock: ctx.clock, name: 'claims' });
    this.pvInformer = ctx.informers.forGroupVersionResource<Obj>(PVS);
    this.pvcInformer = ctx.informers.forGroupVersionResource<Obj>(PVCS);
    this.classInformer = ctx.informers.forGroupVersionResource<Obj>(CLASSES);
    this.podInformer = ctx.informers.forGroupVersionResource<Obj>(PODS);
    this.volumes = new NewestView((k) => this.pvInformer.getIndexer().getByKey(k));
    this.claims = new NewestView((k) => this.pvcInformer.getIndexer().getByKey(k));
    this.classes = new Lister(this.classInformer.getIndexer());
    this.pods = new Lister(this.podInformer.getIndexer());
    this.recorder = ctx.recorder(PV_CONTROLLER_COMPONENT);

    const addVolume = (pv: Obj) => this.volumeQueue.add(pv.metadata.name ?? '');
    this.pvInformer.addEventHandler({
      onAdd: addVolume,
      onUpdate: (_o, pv) => addVolume(pv),
      onDelete: (obj) => {
        const pv = unwrap(obj);
        this.volumes.forget(pv.metadata.name ?? '');
        const ref = pv.spec?.claimRef;
        // The claim bound to a deleted volume becomes Lost.
        if (ref?.name) this.claimQueue.add(`${ref.namespace}/${ref.name}`);
      },
    });
    const addClaim = (pvc: Obj) => this.claimQueue.add(metaNamespaceKeyFunc(pvc));
    this.pvcInformer.addEventHandler({
      onAdd: addClaim,
      onUpdate: (_o, pvc) => addClaim(pvc),
      onDelete: (obj) => {
        const pvc = unwrap(obj);
        this.claims.forget(metaNamespaceKeyFunc(pvc));
        // Its volume is released now.
        if (pvc.spec?.volumeName) this.volumeQueue.add(pvc.spec.volumeName);
      },
    });
    // A new default class may be assigned to claims that have none; a new class may let claims provision.
    this.classInformer.addEventHandler({
      onAdd: () => this.enqueueAllClaims(),
      onUpdate: () => this.enqueueAllClaims(),
    });
  }

  async run(): Promise<void> {
    const { ctx } = this;
    ctx.logger.info('Starting persistent volume controller');
    if (await waitForCacheSync(ctx.signal, this.pvInformer, this.pvcInformer, this.classInformer, this.podInformer)) {
      const resync = this.resyncLoop();
      const workers = ctx.options.concurrentPvBinderSyncs ?? 1;
      await Promise.all([
        runWorkers({
          queue: this.volumeQueue,
          workers,
          sync: (name) => this.syncVolumeKey(name),
          signal: ctx.signal,
          logger: ctx.logger,
        }),
        runWorkers({
          queue: this.claimQueue,
          workers,
          sync: (key) => this.syncClaimKey(key),
          signal: ctx.signal,
          logger: ctx.logger,
        }),
        resync,
      ]);
    }
    ctx.logger.info('Shutting down persistent volume controller');
  }

  /** Every --pvclaimbinder-sync-period, all volumes and claims are synced again (upstream's resync). */
  private async resyncLoop(): Promise<void> {
    const period = this.ctx.options.pvClaimBinderSyncPeriodMs ?? 15_000;
    while (!this.ctx.signal.aborted) {
      await new Promise<void>((resolve) => {
        const t = this.ctx.clock.after(period, resolve);
        this.ctx.signal.addEventListener(
          'abort',
          () => {
            t.cancel();
            resolve();
          },
          { once: true },
        );
      });
      if (this.ctx.signal.aborted) return;
      for (const pv of this.pvInformer.getIndexer().list()) this.volumeQueue.add(pv.metadata.name ?? '');
      this.enqueueAllClaims();
    }
  }

  private enqueueAllClaims(): void {
    for (const pvc of this.pvcInformer.getIndexer().list()) this.claimQueue.add(metaNamespaceKeyFunc(pvc));
  }

  private allVolumes(): Obj[] {
    return this.pvInformer
      .getIndexer()
      .list()
      .map((pv) => this.volumes.lookup(pv.metadata.name ?? '') ?? pv);
  }

  private classOf(pvc: Obj): Obj | undefined {
    const name = claimClass(pvc);
    return name ? this.classes.get(name) : undefined;
  }

  // --- claims -----------------------------------------------------------------------------------------------

  private async syncClaimKey(key: string): Promise<void> {
    const claim = this.claims.lookup(key);
    if (!claim || claim.metadata.deletionTimestamp) return;
    if (claim.metadata.annotations?.[ANN_BIND_COMPLETED] === undefined) await this.syncUnboundClaim(claim);
    else await this.syncBoundClaim(claim);
  }

  private async syncUnboundClaim(claim: Obj): Promise<void> {
    const volumeName: string = claim.spec?.volumeName ?? '';
    if (!volumeName) {
      const sc = this.classOf(claim);
      const delayBinding = isWaitForFirstConsumer(sc);
      const volume = findMatchingVolume(claim, this.allVolumes(), { delayBinding });
      if (volume) {
        await this.bind(volume, claim);
        return;
      }
      if (await this.assignDefaultStorageClass(claim)) return;
      if (delayBinding && !claim.metadata.annotations?.[ANN_SELECTED_NODE]) {
        this.emitUnboundDelayBindingEvent(claim);
      } else if (claimClass(claim) !== '') {
        await this.provisionClaim(claim, sc);
        return;
      } else {
        this.recorder.event(
          claim,
          'Normal',
          'FailedBinding',
          'no persistent volumes available for this claim and no storage class is set',
        );
      }
      await this.updateClaimStatus(claim, 'Pending', undefined);
      return;
    }
    // The user asked for a particular volume.
    const volume = this.volumes.lookup(volumeName);
    if (!volume) {
      await this.updateClaimStatus(claim, 'Pending', undefined);
      return;
    }
    if (!volume.spec?.claimRef) {
      const mismatch = volumeSatisfiesClaim(volume, claim);
      if (mismatch) {
        this.recorder.event(
          claim,
          'Warning',
          'VolumeMismatch',
          `Cannot bind to requested volume "${volumeName}": ${mismatch}`,
        );
        await this.updateClaimStatus(claim, 'Pending', undefined);
        return;
      }
      await this.bind(volume, claim);
      return;
    }
    if (isVolumeBoundToClaim(volume, claim)) {
      await this.bind(volume, claim);
      return;
    }
    this.recorder.event(
      claim,
      'Warning',
      'FailedBinding',
      `volume "${volumeName}" already bound to a different claim.`,
    );
    if (claim.metadata.annotations?.[ANN_BOUND_BY_CONTROLLER] === undefined) {
      await this.updateClaimStatus(claim, 'Pending', undefined);
    }
  }

  private async syncBoundClaim(claim: Obj): Promise<void> {
    const volumeName: string = claim.spec?.volumeName ?? '';
    if (!volumeName) {
      await this.claimLost(
        claim,
        'ClaimLost',
        'Bound claim has lost reference to PersistentVolume. Data on the volume is lost!',
      );
      return;
    }
    const volume = this.volumes.lookup(volumeName);
    if (!volume) {
      await this.claimLost(
        claim,
        'ClaimLost',
        'Bound claim has lost its PersistentVolume. Data on the volume is lost!',
      );
      return;
    }
    const ref = volume.spec?.claimRef;
    if (!ref || ref.uid === claim.metadata.uid) {
      await this.bind(volume, claim);
      return;
    }
    await this.claimLost(
      claim,
      'ClaimMisbound',
      'Two claims are bound to the same volume, this one is bound incorrectly',
    );
  }

  private async claimLost(claim: Obj, reason: string, message: string): Promise<void> {
    if (claim.status?.phase === 'Lost') return;
    const updated = await this.updateClaimStatus(claim, 'Lost', undefined);
    this.recorder.event(updated, 'Warning', reason, message);
  }

  /** Upstream's emitEventForUnboundDelayBindingClaim: which pods the claim waits for, if any. */
  private emitUnboundDelayBindingEvent(claim: Obj): void {
    const ns = claim.metadata.namespace ?? '';
    const waiting = this.pods
      .namespaced(ns)
      .list()
      .filter(
        (p) =>
          !p.spec?.nodeName &&
          p.status?.phase !== 'Succeeded' &&
          p.status?.phase !== 'Failed' &&
          podClaimNames(p).some((c) => c.name === claim.metadata.name),
      )
      .map((p) => p.metadata.name ?? '');
    if (waiting.length === 0) {
      this.recorder.event(
        claim,
        'Normal',
        'WaitForFirstConsumer',
        'waiting for first consumer to be created before binding',
      );
    } else if (waiting.length === 1) {
      this.recorder.event(claim, 'Normal', 'WaitForPodScheduled', `waiting for pod ${waiting[0]} to be scheduled`);
    } else {
      this.recorder.event(
        claim,
        'Normal',
        'WaitForPodScheduled',
        `waiting for pods ${waiting.join(',')} to be scheduled`,
      );
    }
  }

  /** A claim without any class gets the default StorageClass (retroactive assignment); true when it was updated. */
  private async assignDefaultStorageClass(claim: Obj): Promise<boolean> {
    if (claimHasClass(claim)) return false;
    const sc = defaultStorageClass(this.classes.list());
    if (!sc?.metadata.name) return false;
    const next = clone(claim);
    next.spec = { ...next.spec, storageClassName: sc.metadata.name };
    const updated = await this.ctx.client
      .resource<Obj>(PVCS)
      .namespace(claim.metadata.namespace ?? '')
      .update(next);
    this.claims.store(metaNamespaceKeyFunc(updated), updated);
    return true;
  }

  /** Hands the claim to its class's provisioner (all provisioners are external here). */
  private async provisionClaim(claim: Obj, sc: Obj | undefined): Promise<void> {
    const className = claimClass(claim);
    if (!sc) {
      this.recorder.event(
        claim,
        'Warning',
        'ProvisioningFailed',
        `storageclass.storage.k8s.io "${className}" not found`,
      );
      await this.updateClaimStatus(claim, 'Pending', undefined);
      return;
    }
    const provisioner: string = (sc as { provisioner?: string }).provisioner ?? '';
    if (provisioner === NOT_SUPPORTED_PROVISIONER || !provisioner) {
      this.recorder.event(claim, 'Warning', 'ProvisioningFailed', `no volume plugin matched name: ${provisioner}`);
      await this.updateClaimStatus(claim, 'Pending', undefined);
      return;
    }
    let current = claim;
    const a = claim.metadata.annotations ?? {};
    if (a[ANN_STORAGE_PROVISIONER] !== provisioner || a[ANN_BETA_STORAGE_PROVISIONER] !== provisioner) {
      const next = clone(claim);
      annotate(next, ANN_BETA_STORAGE_PROVISIONER, provisioner);
      annotate(next, ANN_STORAGE_PROVISIONER, provisioner);
      current = await this.ctx.client
        .resource<Obj>(PVCS)
        .namespace(claim.metadata.namespace ?? '')
        .update(next);
      this.claims.store(metaNamespaceKeyFunc(current), current);
    }
    this.recorder.event(
      current,
      'Normal',
      'ExternalProvisioning',
      `Waiting for a volume to be created either by the external provisioner '${provisioner}' or manually by the system administrator. If volume creation is delayed, please verify that the provisioner is running and correctly registered.`,
    );
    await this.updateClaimStatus(current, 'Pending', undefined);
  }

  // --- binding ----------------------------------------------------------------------------------------------

  /** Volume first (claimRef, then phase), then the claim (volumeName and annotations, then phase). */
  private async bind(volume: Obj, claim: Obj): Promise<void> {
    let pv = volume;
    const ref = pv.spec?.claimRef;
    const refDone =
      ref &&
      ref.name === claim.metadata.name &&
      ref.namespace === claim.metadata.namespace &&
      ref.uid === claim.metadata.uid;
    if (!refDone) {
      const next = clone(pv);
      next.spec.claimRef = {
        kind: 'PersistentVolumeClaim',
        namespace: claim.metadata.namespace,
        name: claim.metadata.name,
        uid: claim.metadata.uid,
        apiVersion: 'v1',
        resourceVersion: claim.metadata.resourceVersion,
      };
      if (!isVolumeBoundToClaim(pv, claim)) annotate(next, ANN_BOUND_BY_CONTROLLER, 'yes');
      pv = await this.ctx.client.resource<Obj>(PVS).update(next);
      this.volumes.store(pv.metadata.name ?? '', pv);
      this.ctx.logger.v(2).info('Claim bound to volume', {
        PVC: metaNamespaceKeyFunc(claim),
        volumeName: pv.metadata.name,
      });
    }
    pv = await this.updateVolumePhase(pv, 'Bound');

    let pvc = claim;
    const a = pvc.metadata.annotations ?? {};
    if (pvc.spec?.volumeName !== pv.metadata.name || a[ANN_BIND_COMPLETED] === undefined) {
      const next = clone(pvc);
      if (next.spec?.volumeName !== pv.metadata.name) {
        next.spec = { ...next.spec, volumeName: pv.metadata.name };
        if (a[ANN_BOUND_BY_CONTROLLER] === undefined) annotate(next, ANN_BOUND_BY_CONTROLLER, 'yes');
      }
      if (a[ANN_BIND_COMPLETED] === undefined) annotate(next, ANN_BIND_COMPLETED, 'yes');
      pvc = await this.ctx.client
        .resource<Obj>(PVCS)
        .namespace(pvc.metadata.namespace ?? '')
        .update(next);
      this.claims.store(metaNamespaceKeyFunc(pvc), pvc);
      this.ctx.logger
        .v(2)
        .info('Volume bound to claim', { PVC: metaNamespaceKeyFunc(pvc), volumeName: pv.metadata.name });
    }
    await this.updateClaimStatus(pvc, 'Bound', pv);
  }

  private async updateClaimStatus(claim: Obj, phase: string, volume: Obj | undefined): Promise<Obj> {
    const status = { ...(claim.status ?? {}) };
    let dirty = false;
    if (status.phase !== phase) {
      status.phase = phase;
      dirty = true;
    }
    if (!volume) {
      if (status.accessModes !== undefined) {
        delete status.accessModes;
        dirty = true;
      }
      if (status.capacity !== undefined) {
        delete status.capacity;
        dirty = true;
      }
    } else {
      const modes = volume.spec?.accessModes ?? [];
      if (JSON.stringify(status.accessModes ?? null) !== JSON.stringify(modes)) {
        status.accessModes = modes;
        dirty = true;
      }
      // The capacity is taken when the claim becomes Bound, not later (a resize may differ on purpose).
      if (
        claim.status?.phase !== phase &&
        JSON.stringify(status.capacity ?? null) !== JSON.stringify(volume.spec?.capacity)
      ) {
        status.capacity = volume.spec?.capacity;
        dirty = true;
      }
    }
    if (!dirty) return claim;
    const updated = await this.ctx.client
      .resource<Obj>(PVCS)
      .namespace(claim.metadata.namespace ?? '')
      .updateStatus({ ...claim, status });
    this.claims.store(metaNamespaceKeyFunc(updated), updated);
    this.ctx.logger.v(2).info('Claim entered phase', { PVC: metaNamespaceKeyFunc(claim), phase });
    return updated;
  }

  private async updateVolumePhase(volume: Obj, phase: string, message = ''): Promise<Obj> {
    if (volume.status?.phase === phase) return volume;
    const status: Record<string, unknown> = { ...(volume.status ?? {}), phase };
    if (message) status.message = message;
    else delete status.message;
    const updated = await this.ctx.client.resource<Obj>(PVS).updateStatus({ ...volume, status });
    this.volumes.store(updated.metadata.name ?? '', updated);
    this.ctx.logger.v(2).info('Volume entered phase', { volumeName: volume.metadata.name, phase });
    return updated;
  }

  // --- volumes ----------------------------------------------------------------------------------------------

  private async syncVolumeKey(name: string): Promise<void> {
    const volume = this.volumes.lookup(name);
    if (!volume) return;
    await this.syncVolume(volume);
  }

  private async syncVolume(volume: Obj): Promise<void> {
    const ref = volume.spec?.claimRef;
    if (!ref?.uid) {
      // Unused, or reserved for a claim that has not bound yet.
      await this.updateVolumePhase(volume, 'Available');
      return;
    }
    const key = `${ref.namespace}/${ref.name}`;
    let claim = this.claims.lookup(key);
    const settled = volume.status?.phase === 'Released' || volume.status?.phase === 'Failed';
    if ((!claim && !settled) || (claim && claim.metadata.uid !== ref.uid)) {
      // The cache may lag behind a claim just made (by a provisioner or the scheduler): ask the API.
      claim = await this.fetchClaim(ref.namespace, ref.name);
    }
    if (claim && claim.metadata.uid !== ref.uid) claim = undefined;

    if (!claim) {
      let pv = volume;
      if (!settled) {
        this.ctx.logger.v(2).info('Volume is released and reclaim policy will be executed', {
          volumeName: volume.metadata.name,
          reclaimPolicy: volume.spec?.persistentVolumeReclaimPolicy,
        });
        pv = await this.updateVolumePhase(volume, 'Released');
      }
      await this.reclaimVolume(pv);
      return;
    }
    if (!claim.spec?.volumeName) {
      if (volumeModeMismatch(claim, volume)) {
        this.recorder.event(
          volume,
          'Warning',
          'VolumeMismatch',
          `Cannot bind PersistentVolume to requested PersistentVolumeClaim "${claim.metadata.name}" due to incompatible volumeMode.`,
        );
        this.recorder.event(
          claim,
          'Warning',
          'VolumeMismatch',
          `Cannot bind PersistentVolume "${volume.metadata.name}" to requested PersistentVolumeClaim due to incompatible volumeMode.`,
        );
        return;
      }
      // The claim's sync finishes the binding (e.g. of a volume a provisioner just made for it).
      this.claimQueue.add(key);
      return;
    }
    if (claim.spec.volumeName === volume.metadata.name) {
      await this.updateVolumePhase(volume, 'Bound');
      return;
    }
    // The claim is bound to another volume.
    const provisioned = volume.metadata.annotations?.[ANN_DYNAMICALLY_PROVISIONED] !== undefined;
    if (provisioned && volume.spec?.persistentVolumeReclaimPolicy === 'Delete') {
      const pv = settled ? volume : await this.updateVolumePhase(volume, 'Released');
      await this.reclaimVolume(pv);
      return;
    }
    await this.unbindVolume(volume);
  }

  private async fetchClaim(namespace: string, name: string): Promise<Obj | undefined> {
    try {
      return await this.ctx.client.resource<Obj>(PVCS).namespace(namespace).get(name);
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  /** Rolls a binding back: the controller's own claimRef goes, a user's pre-binding keeps its name but not its uid. */
  private async unbindVolume(volume: Obj): Promise<void> {
    const next = clone(volume);
    if (next.metadata.annotations?.[ANN_BOUND_BY_CONTROLLER] !== undefined) {
      delete next.spec.claimRef;
      delete next.metadata.annotations[ANN_BOUND_BY_CONTROLLER];
    } else if (next.spec.claimRef) {
      delete next.spec.claimRef.uid;
    }
    const updated = await this.ctx.client.resource<Obj>(PVS).update(next);
    this.volumes.store(updated.metadata.name ?? '', updated);
    await this.updateVolumePhase(updated, 'Available');
  }

  /** The reclaim policy of a Released volume. */
  private async reclaimVolume(volume: Obj): Promise<void> {
    const policy = volume.spec?.persistentVolumeReclaimPolicy;
    switch (policy) {
      case 'Retain':
        this.ctx.logger
          .v(4)
          .info('ReclaimVolume: policy is Retain, nothing to do', { volumeName: volume.metadata.name });
        return;
      case 'Delete': {
        // Every provisioner is external here: the one that made the volume deletes it. A volume no provisioner
        // made has no plugin that could delete it.
        if (volume.metadata.annotations?.[ANN_DYNAMICALLY_PROVISIONED] !== undefined) return;
        await this.failVolume(
          volume,
          'VolumeFailedDelete',
          `error getting deleter volume plugin for volume "${volume.metadata.name}": no deletable volume plugin matched`,
        );
        return;
      }
      case 'Recycle':
        await this.failVolume(volume, 'VolumeFailedRecycle', 'No recycler plugin found for the volume!');
        return;
      default:
        await this.failVolume(
          volume,
          'VolumeUnknownReclaimPolicy',
          'Volume has unrecognized PersistentVolumeReclaimPolicy',
        );
    }
  }

  private async failVolume(volume: Obj, reason: string, message: string): Promise<void> {
    if (volume.status?.phase === 'Failed') return;
    const updated = await this.updateVolumePhase(volume, 'Failed', message);
    this.recorder.event(updated, 'Warning', reason, message);
  }
}

/** Why a volume the claim asked for by name cannot serve it (upstream's checkVolumeSatisfyClaim), or undefined. */
export function volumeSatisfiesClaim(volume: Obj, claim: Obj): string | undefined {
  if (compareQuantities(volumeCapacity(volume), claimRequest(claim)) < 0) return 'requested PV is too small';
  if (volumeClass(volume) !== claimClass(claim)) return 'storageClassName does not match';
  if (volumeModeMismatch(claim, volume)) return 'incompatible volumeMode';
  if (!accessModesSatisfied(claim, volume)) return 'incompatible accessMode';
  return undefined;
}
