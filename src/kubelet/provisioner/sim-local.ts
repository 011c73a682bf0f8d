/**
 * The volume provisioner of simulated nodes (`wheelhouse.dev/sim-local`), in the role kind's local-path-provisioner
 * plays: an external provisioner, outside kube-controller-manager, serving the nodes it runs with. It lives beside
 * the simulated kubelets because the "disks" it carves volumes from are theirs: whoever starts simulated nodes
 * (`wheelhouse up --nodes`, `wheelhouse kubelet --sim`) gets it, and a cluster without them has no provisioner, as
 * a real cluster without one.
 *
 * For a claim handed to it by the persistentvolume-binder (annotation `volume.kubernetes.io/storage-provisioner`)
 * whose StorageClass names it — for WaitForFirstConsumer classes once the scheduler has written
 * `volume.kubernetes.io/selected-node` — it creates PV `pvc-<claim uid>`: the claim's size, access and volume modes,
 * the class's reclaim policy and mount options, a hostPath under the node's data directory, a required node
 * affinity on that node's hostname, `pv.kubernetes.io/provisioned-by`, and a claimRef to the claim (the binder
 * finishes the binding). Events `Provisioning` and `ProvisioningSucceeded` go on the claim. A Released volume it made
 * with reclaim policy Delete is deleted.
 */
import {
  ANN_BETA_STORAGE_PROVISIONER,
  ANN_DYNAMICALLY_PROVISIONED,
  ANN_SELECTED_NODE,
  ANN_STORAGE_PROVISIONER,
  claimClass,
  isWaitForFirstConsumer,
} from '../../api/persistent-volumes.js';
import { SharedInformerFactory } from '../../client/cache/factory.js';
import type { SharedIndexInformer } from '../../client/cache/shared-informer.js';
import { DeletedFinalStateUnknown, metaNamespaceKeyFunc } from '../../client/cache/store.js';
import { waitForCacheSync } from '../../client/cache/wait-for-cache-sync.js';
import { EventBroadcaster, type EventRecorder } from '../../client/events/broadcaster.js';
import type { KubeClient } from '../../client/rest.js';
import { isAlreadyExists, isNotFound, type KubeObject } from '../../client/types.js';
import { createRateLimitingQueue, type RateLimitingQueue } from '../../client/workqueue/rate-limiting.js';
import { type Clock, realClock } from '../../util/clock.js';
import { type Logger, silentLogger } from '../../util/logger.js';

export const SIM_LOCAL_PROVISIONER = 'wheelhouse.dev/sim-local';
/** Where a simulated node keeps its volumes (a path in the PV; nothing is written on the host). */
export const SIM_LOCAL_BASE_PATH = '/var/lib/wheelhouse/sim-local';

const PVS = { group: '', version: 'v1', resource: 'persistentvolumes' };
const PVCS = { group: '', version: 'v1', resource: 'persistentvolumeclaims' };
const CLASSES = { group: 'storage.k8s.io', version: 'v1', resource: 'storageclasses' };

// biome-ignore lint/suspicious/noExplicitAny: plain API objects
type Obj = KubeObject & { spec?: any; status?: any };

export interface SimLocalProvisionerOptions {
  client: KubeClient;
  clock?: Clock;
  logger?: Logger;
  /** The provisioner name classes must carry (default wheelhouse.dev/sim-local). */
  name?: string;
}

/** The PV the provisioner makes for a claim on a node, under a class (pure, for tests). */
export function provisionedVolume(claim: Obj, sc: Obj, node: string, provisioner = SIM_LOCAL_PROVISIONER): Obj {
  const name = `pvc-${claim.metadata.uid}`;
  const ns = claim.metadata.namespace ?? '';
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name, annotations: { [ANN_DYNAMICALLY_PROVISIONED]: provisioner } },
    spec: {
      capacity: { storage: claim.spec?.resources?.requests?.storage },
      accessModes: claim.spec?.accessModes ?? [],
      volumeMode: claim.spec?.volumeMode ?? 'Filesystem',
      persistentVolumeReclaimPolicy: (sc as { reclaimPolicy?: string }).reclaimPolicy ?? 'Delete',
      storageClassName: sc.metadata.name,
      ...((sc as { mountOptions?: string[] }).mountOptions
        ? { mountOptions: (sc as { mountOptions?: string[] }).mountOptions }
        : {}),
      hostPath: { path: `${SIM_LOCAL_BASE_PATH}/${name}_${ns}_${claim.metadata.name}`, type: 'DirectoryOrCreate' },
      nodeAffinity: {
        required: {
          nodeSelectorTerms: [
            { matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [node] }] },
          ],
        },
      },
      claimRef: {
        kind: 'PersistentVolumeClaim',
        namespace: ns,
        name: claim.metadata.name,
        uid: claim.metadata.uid,
        apiVersion: 'v1',
        resourceVersion: claim.metadata.resourceVersion,
      },
    },
  };
}

export class SimLocalProvisioner {
  readonly name: string;
  private readonly client: KubeClient;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly informers: SharedInformerFactory;
  private readonly pvcInformer: SharedIndexInformer<Obj>;
  private readonly pvInformer: SharedIndexInformer<Obj>;
  private readonly classInformer: SharedIndexInformer<Obj>;
  private readonly claimQueue: RateLimitingQueue<string>;
  private readonly volumeQueue: RateLimitingQueue<string>;
  private readonly broadcaster: EventBroadcaster;
  private readonly recorder: EventRecorder;
  private readonly stopping = new AbortController();
  private running: Promise<unknown> | undefined;

  constructor(opts: SimLocalProvisionerOptions) {
    this.name = opts.name ?? SIM_LOCAL_PROVISIONER;
    this.client = opts.client;
    this.clock = opts.clock ?? realClock;
    this.log = opts.logger ?? silentLogger;
    this.informers = new SharedInformerFactory({ client: this.client, clock: this.clock, logger: this.log });
    this.pvcInformer = this.informers.forGroupVersionResource<Obj>(PVCS);
    this.pvInformer = this.informers.forGroupVersionResource<Obj>(PVS);
    this.classInformer = this.informers.forGroupVersionResource<Obj>(CLASSES);
    this.claimQueue = createRateLimitingQueue<string>({ clock: this.clock, name: 'claims' });
    this.volumeQueue = createRateLimitingQueue<string>({ clock: this.clock, name: 'volumes' });
    this.broadcaster = new EventBroadcaster({ sink: this.client.events(), clock: this.clock, logger: this.log });
    this.recorder = this.broadcaster.recorder(this.name);
    const claim = (o: Obj) => this.claimQueue.add(metaNamespaceKeyFunc(o));
    this.pvcInformer.addEventHandler({ onAdd: claim, onUpdate: (_o, n) => claim(n) });
    const volume = (o: Obj) => this.volumeQueue.add(o.metadata.name ?? '');
    this.pvInformer.addEventHandler({
      onAdd: volume,
      onUpdate: (_o, n) => volume(n),
      onDelete: (o) => {
        const pv = o instanceof DeletedFinalStateUnknown ? o.obj : o;
        this.log.v(4).info('volume deleted', { volumeName: pv.metadata.name });
      },
    });
  }

  async start(): Promise<void> {
    const signal = this.stopping.signal;
    this.informers.start();
    await waitForCacheSync(signal, this.pvcInformer, this.pvInformer, this.classInformer);
    const loop = async (queue: RateLimitingQueue<string>, sync: (key: string) => Promise<void>) => {
      for (;;) {
        const item = await queue.get();
        if (item.shutdown) return;
        try {
          await sync(item.key);
          queue.forget(item.key);
        } catch (err) {
          this.log.v(2).info('error syncing; requeuing', { key: item.key, err: String(err) });
          queue.addRateLimited(item.key);
        } finally {
          queue.done(item.key);
        }
      }
    };
    this.running = Promise.all([
      loop(this.claimQueue, (k) => this.syncClaim(k)),
      loop(this.volumeQueue, (k) => this.syncVolume(k)),
    ]);
    this.log.info('Started provisioner controller', { provisioner: this.name });
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    this.claimQueue.shutDown();
    this.volumeQueue.shutDown();
    await this.running;
    await this.informers.shutdown();
    await this.broadcaster.shutdown();
  }

  private async syncClaim(key: string): Promise<void> {
    const claim = this.pvcInformer.getIndexer().getByKey(key);
    if (!claim || claim.metadata.deletionTimestamp || claim.spec?.volumeName) return;
    const a = claim.metadata.annotations ?? {};
    if ((a[ANN_STORAGE_PROVISIONER] ?? a[ANN_BETA_STORAGE_PROVISIONER]) !== this.name) return;
    const sc = this.classInformer.getIndexer().getByKey(claimClass(claim));
    if (!sc || (sc as { provisioner?: string }).provisioner !== this.name) return;
    const node = a[ANN_SELECTED_NODE];
    if (!node) {
      // Only a WaitForFirstConsumer class gives a node; an Immediate claim cannot be placed on a simulated disk.
      if (!isWaitForFirstConsumer(sc)) {
        this.recorder.event(
          claim,
          'Warning',
          'ProvisioningFailed',
          `failed to provision volume with StorageClass "${sc.metadata.name}": configuration error, no node was specified`,
        );
      }
      return;
    }
    const pvName = `pvc-${claim.metadata.uid}`;
    if (this.pvInformer.getIndexer().getByKey(pvName)) return;
    this.recorder.event(
      claim,
      'Normal',
      'Provisioning',
      `External provisioner is provisioning volume for claim "${key}"`,
    );
    try {
      await this.client.resource<Obj>(PVS).create(provisionedVolume(claim, sc, node, this.name));
    } catch (err) {
      if (!isAlreadyExists(err)) {
        this.recorder.event(
          claim,
          'Warning',
          'ProvisioningFailed',
          `failed to provision volume with StorageClass "${sc.metadata.name}": ${String(err)}`,
        );
        throw err;
      }
    }
    this.recorder.event(claim, 'Normal', 'ProvisioningSucceeded', `Successfully provisioned volume ${pvName}`);
  }

  private async syncVolume(name: string): Promise<void> {
    const pv = this.pvInformer.getIndexer().getByKey(name);
    if (!pv || pv.metadata.deletionTimestamp) return;
    if (pv.metadata.annotations?.[ANN_DYNAMICALLY_PROVISIONED] !== this.name) return;
    if (pv.status?.phase !== 'Released' || pv.spec?.persistentVolumeReclaimPolicy !== 'Delete') return;
    // A simulated disk has nothing to wipe: the volume goes with its object.
    try {
      await this.client.resource<Obj>(PVS).delete(name, {
        preconditions: { ...(pv.metadata.uid ? { uid: pv.metadata.uid } : {}) },
      });
      this.log.v(2).info('Volume deleted', { volumeName: name });
    } catch (err) {
      if (isNotFound(err)) return;
      this.recorder.event(pv, 'Warning', 'VolumeFailedDelete', String(err));
      throw err;
    }
  }
}
