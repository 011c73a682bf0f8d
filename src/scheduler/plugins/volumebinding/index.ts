/**
 * VolumeBinding (upstream's plugins/volumebinding). PreFilter: a pod without claims is skipped at once (the cheap
 * path every other pod takes); a missing, lost or deleting claim makes the pod unresolvable, and so does an unbound
 * claim of an Immediate class ("pod has unbound immediate PersistentVolumeClaims", the binder binds those). Filter:
 * bound claims' volumes must allow the node (their node affinity), and each unbound WaitForFirstConsumer claim
 * needs an Available volume usable there or a class that can provision there. Reserve assumes the node's choice
 * in memory, Unreserve forgets it; PreBind writes it (PV claimRefs, `volume.kubernetes.io/selected-node` on the
 * claims to provision) and waits (at most bindTimeoutSeconds, 600 by default) until every claim is bound. Score is
 * upstream's StorageCapacityScoring, off by default, so PreScore skips it.
 *
 * Args (VolumeBindingArgs): `bindTimeoutSeconds`.
 */
import { podClaimNames } from '../../../api/persistent-volumes.js';
import type { SharedIndexInformer } from '../../../client/cache/shared-informer.js';
import type { KubeObject } from '../../../client/types.js';
import {
  type ClusterEventWithHint,
  type CycleState,
  type EnqueueExtensions,
  type FilterPlugin,
  type Handle,
  type NodeInfo,
  type PluginFactory,
  type Pod,
  type PreBindPlugin,
  type PreFilterPlugin,
  type PreScorePlugin,
  QueueingHint,
  type ReservePlugin,
  type ScorePlugin,
  Status,
} from '../../framework/types.js';
import {
  AssumeCache,
  bindAPIUpdate,
  checkBindings,
  claimWithSelectedNode,
  ERR_UNBOUND_IMMEDIATE,
  findPodVolumes,
  getPodVolumeClaims,
  type Obj,
  type PodVolumeClaims,
  type PodVolumes,
  podClaimsError,
  type VolumeSources,
  volumeBoundToClaim,
  waitFor,
} from './binder.js';

export const name = 'VolumeBinding';
const STATE_KEY = `PreFilter${name}`;
const DEFAULT_BIND_TIMEOUT_SECONDS = 600;

const PVS = { group: '', version: 'v1', resource: 'persistentvolumes' };
const PVCS = { group: '', version: 'v1', resource: 'persistentvolumeclaims' };
const CLASSES = { group: 'storage.k8s.io', version: 'v1', resource: 'storageclasses' };

export interface VolumeBindingArgs {
  bindTimeoutSeconds?: number;
}

/** The cycle's data: the pod's claims (absent for a pod without any) and, per feasible node, what it would take. */
class StateData {
  readonly byNode = new Map<string, PodVolumes>();
  /** What Reserve assumed, to undo in Unreserve. */
  assumedVolumes: string[] = [];
  assumedClaims: string[] = [];
  constructor(readonly claims: PodVolumeClaims | undefined) {}
  clone(): StateData {
    return this;
  }
}
const NO_CLAIMS = new StateData(undefined);

export class VolumeBinding
  implements PreFilterPlugin, FilterPlugin, PreScorePlugin, ScorePlugin, ReservePlugin, PreBindPlugin, EnqueueExtensions
{
  readonly name = name;
  private readonly bindTimeoutMs: number;
  private readonly pvInformer: SharedIndexInformer<Obj> | undefined;
  private readonly pvcInformer: SharedIndexInformer<Obj> | undefined;
  private readonly classInformer: SharedIndexInformer<Obj> | undefined;
  private readonly pvCache: AssumeCache;
  private readonly pvcCache: AssumeCache;
  private readonly sources: VolumeSources;
  private readonly listeners = new Set<() => void>();

  constructor(
    args: VolumeBindingArgs,
    private readonly handle: Handle,
  ) {
    const seconds = args.bindTimeoutSeconds ?? DEFAULT_BIND_TIMEOUT_SECONDS;
    if (!Number.isInteger(seconds) || seconds < 0) {
      throw new Error(
        `bindTimeoutSeconds: Invalid value: ${seconds}: invalid BindTimeoutSeconds, should not be a negative value`,
      );
    }
    this.bindTimeoutMs = seconds * 1000;
    this.pvInformer = handle.informers?.forGroupVersionResource<Obj>(PVS);
    this.pvcInformer = handle.informers?.forGroupVersionResource<Obj>(PVCS);
    this.classInformer = handle.informers?.forGroupVersionResource<Obj>(CLASSES);
    this.pvCache = new AssumeCache((k) => this.pvInformer?.getIndexer().getByKey(k));
    this.pvcCache = new AssumeCache((k) => this.pvcInformer?.getIndexer().getByKey(k));
    const notify = () => {
      for (const l of [...this.listeners]) l();
    };
    for (const inf of [this.pvInformer, this.pvcInformer]) {
      inf?.addEventHandler({ onAdd: notify, onUpdate: notify, onDelete: notify });
    }
    this.sources = {
      claim: (ns, n) => this.pvcCache.lookup(`${ns}/${n}`),
      volume: (n) => this.pvCache.lookup(n),
      volumes: () =>
        (this.pvInformer?.getIndexer().list() ?? []).map((pv) => this.pvCache.lookup(pv.metadata.name ?? '') ?? pv),
      storageClass: (n) => this.classInformer?.getIndexer().getByKey(n),
    };
  }

  preFilter(state: CycleState, pod: Pod): { status: Status } {
    const volumes = pod.spec?.volumes;
    if (!volumes || volumes.length === 0 || podClaimNames(pod).length === 0) {
      state.write(STATE_KEY, NO_CLAIMS);
      return { status: Status.skip() };
    }
    const err = podClaimsError(pod, this.sources);
    if (err) return { status: Status.unresolvable(err) };
    const claims = getPodVolumeClaims(pod, this.sources);
    if (claims.unboundImmediate.length > 0) return { status: Status.unresolvable(ERR_UNBOUND_IMMEDIATE) };
    state.write(STATE_KEY, new StateData(claims));
    return { status: Status.success() };
  }

  filter(state: CycleState, _pod: Pod, nodeInfo: NodeInfo): Status {
    const s = state.read<StateData>(STATE_KEY);
    if (!s) return Status.error(`error reading "${STATE_KEY}" from cycleState: not found`);
    if (!s.claims) return Status.success();
    const { reasons, volumes } = findPodVolumes(s.claims, nodeInfo.node, this.sources);
    if (reasons.length > 0) return Status.unresolvable(...reasons);
    s.byNode.set(nodeInfo.node.metadata?.name ?? '', volumes);
    return Status.success();
  }

  preScore(): Status {
    // StorageCapacityScoring is off by default in v1.33: nothing to score.
    return Status.skip();
  }

  score(): { score: number; status: Status } {
    return { score: 0, status: Status.success() };
  }

  reserve(state: CycleState, pod: Pod, nodeName: string): Status {
    const s = state.read<StateData>(STATE_KEY);
    const volumes = s?.byNode.get(nodeName);
    if (!s || !volumes) return Status.success();
    for (const { pvc, pv } of volumes.staticBindings) {
      const key = pv.metadata.name ?? '';
      this.pvCache.assume(key, volumeBoundToClaim(pv, pvc), this.pvInformer?.getIndexer().getByKey(key));
      s.assumedVolumes.push(key);
    }
    for (const pvc of volumes.dynamicProvisions) {
      const key = `${pvc.metadata.namespace}/${pvc.metadata.name}`;
      this.pvcCache.assume(key, claimWithSelectedNode(pvc, nodeName), this.pvcInformer?.getIndexer().getByKey(key));
      s.assumedClaims.push(key);
    }
    this.handle.logger.v(5).info('Assumed pod volumes', { pod: pod.metadata?.name, node: nodeName });
    return Status.success();
  }

  unreserve(state: CycleState): void {
    const s = state.read<StateData>(STATE_KEY);
    if (!s) return;
    for (const key of s.assumedVolumes) this.pvCache.restore(key);
    for (const key of s.assumedClaims) this.pvcCache.restore(key);
    s.assumedVolumes = [];
    s.assumedClaims = [];
  }

  async preBind(state: CycleState, pod: Pod, nodeName: string): Promise<Status> {
    const s = state.read<StateData>(STATE_KEY);
    if (!s?.claims) return Status.success();
    const volumes = s.byNode.get(nodeName) ?? { staticBindings: [], dynamicProvisions: [] };
    try {
      await bindAPIUpdate(this.handle.client, volumes, nodeName);
      await waitFor(
        () => checkBindings(pod, volumes, this.sources),
        (onChange) => {
          this.listeners.add(onChange);
          return () => this.listeners.delete(onChange);
        },
        this.handle.clock,
        this.bindTimeoutMs,
      );
    } catch (err) {
      return Status.error(`binding volumes: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      for (const key of s.assumedVolumes) this.pvCache.restore(key);
      for (const key of s.assumedClaims) this.pvcCache.restore(key);
    }
    return Status.success();
  }

  eventsToRegister(): ClusterEventWithHint[] {
    return [
      {
        event: { resource: 'StorageClass', actions: ['Add', 'Update'] },
        hint: (_pod, oldObj, newObj) => this.isSchedulableAfterStorageClassChange(oldObj, newObj),
      },
      {
        event: { resource: 'PersistentVolumeClaim', actions: ['Add', 'Update'] },
        hint: (pod, _oldObj, newObj) => this.isSchedulableAfterClaimChange(pod, newObj),
      },
      { event: { resource: 'PersistentVolume', actions: ['Add', 'Update'] } },
      { event: { resource: 'Node', actions: ['Add', 'UpdateNodeLabel'] } },
    ];
  }

  /** A claim the pod uses was created or changed. */
  private isSchedulableAfterClaimChange(pod: Pod, newObj: KubeObject | undefined): QueueingHint {
    if (!newObj || newObj.metadata?.namespace !== pod.metadata?.namespace) return QueueingHint.Skip;
    return podClaimNames(pod).some((c) => c.name === newObj.metadata?.name) ? QueueingHint.Queue : QueueingHint.Skip;
  }

  /** Any new class; an update only when its allowedTopologies changed (the binding mode is immutable). */
  private isSchedulableAfterStorageClassChange(
    oldObj: KubeObject | undefined,
    newObj: KubeObject | undefined,
  ): QueueingHint {
    if (!oldObj) return QueueingHint.Queue;
    const before = JSON.stringify((oldObj as { allowedTopologies?: unknown }).allowedTopologies ?? null);
    const after = JSON.stringify((newObj as { allowedTopologies?: unknown } | undefined)?.allowedTopologies ?? null);
    return before === after ? QueueingHint.Skip : QueueingHint.Queue;
  }
}

export const factory: PluginFactory = (args, handle) => new VolumeBinding((args ?? {}) as VolumeBindingArgs, handle);
