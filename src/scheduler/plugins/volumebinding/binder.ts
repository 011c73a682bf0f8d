/**
 * The scheduler's volume binder (upstream's volumebinding/binder.go, SchedulerVolumeBinder): reads a pod's claims,
 * finds for a node the volumes its unbound WaitForFirstConsumer claims would get (an Available volume usable there,
 * or a volume to provision there), assumes the choice in memory so that the next pods see it, writes it to the API
 * in PreBind (the PV's claimRef, or the claim's `volume.kubernetes.io/selected-node`), and waits until the
 * persistentvolume-binder has finished every binding.
 */
import { type NodeSelector, nodeMatchesNodeSelector } from '../../../api/node-selector.js';
import {
  ANN_BOUND_BY_CONTROLLER,
  ANN_SELECTED_NODE,
  checkNodeAffinity,
  claimClass,
  findMatchingVolume,
  isClaimFullyBound,
  isWaitForFirstConsumer,
  NOT_SUPPORTED_PROVISIONER,
  podClaimNames,
  volumeClass,
} from '../../../api/persistent-volumes.js';
import type { KubeClient } from '../../../client/rest.js';
import type { KubeObject } from '../../../client/types.js';
import type { Clock } from '../../../util/clock.js';
import type { Node, Pod } from '../../framework/types.js';

// biome-ignore lint/suspicious/noExplicitAny: PVs, PVCs and classes are plain API objects
export type Obj = KubeObject & { spec?: any; status?: any };

export const ERR_REASON_NODE_CONFLICT = 'node(s) had volume node affinity conflict';
export const ERR_REASON_BIND_CONFLICT = "node(s) didn't find available persistent volumes to bind";
export const ERR_REASON_PV_NOT_EXIST = 'node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)';
export const ERR_UNBOUND_IMMEDIATE = 'pod has unbound immediate PersistentVolumeClaims';

const PVS = { group: '', version: 'v1', resource: 'persistentvolumes' };
const PVCS = { group: '', version: 'v1', resource: 'persistentvolumeclaims' };

/** What the binder reads: the informers' objects by key. */
export interface VolumeSources {
  claim(namespace: string, name: string): Obj | undefined;
  volume(name: string): Obj | undefined;
  volumes(): Obj[];
  storageClass(name: string): Obj | undefined;
}

/** A pod's claims, sorted for the cycle (upstream's PodVolumeClaims). */
export interface PodVolumeClaims {
  bound: Obj[];
  unboundDelayBinding: Obj[];
  unboundImmediate: Obj[];
  /** Per class of the delayed claims, the volumes of that class. */
  volumesByClass: Map<string, Obj[]>;
}

/** What a node would need done for the pod (upstream's PodVolumes). */
export interface PodVolumes {
  staticBindings: { pvc: Obj; pv: Obj }[];
  dynamicProvisions: Obj[];
}

/**
 * Objects the scheduler has decided on but not written yet (upstream's AssumeCache): they shadow the informer's
 * version they were based on, until the informer has a different one or they are restored.
 */
export class AssumeCache {
  private readonly assumed = new Map<string, { obj: Obj; baseVersion: string | undefined }>();
  constructor(private readonly get: (key: string) => Obj | undefined) {}
  lookup(key: string): Obj | undefined {
    const informer = this.get(key);
    const a = this.assumed.get(key);
    if (!a) return informer;
    if (informer?.metadata.resourceVersion !== a.baseVersion) {
      this.assumed.delete(key);
      return informer;
    }
    return a.obj;
  }
  assume(key: string, obj: Obj, base: Obj | undefined): void {
    this.assumed.set(key, { obj, baseVersion: base?.metadata.resourceVersion });
  }
  restore(key: string): void {
    this.assumed.delete(key);
  }
  get size(): number {
    return this.assumed.size;
  }
}

/** Why a pod's claims keep it from being scheduled at all (PreFilter), or undefined. */
export function podClaimsError(pod: Pod, src: VolumeSources): string | undefined {
  const ns = pod.metadata?.namespace ?? '';
  for (const { name, ephemeral } of podClaimNames(pod)) {
    const pvc = src.claim(ns, name);
    if (!pvc) {
      return ephemeral
        ? `waiting for ephemeral volume controller to create the persistentvolumeclaim "${name}"`
        : `persistentvolumeclaim "${name}" not found`;
    }
    if (pvc.status?.phase === 'Lost') {
      return `persistentvolumeclaim "${name}" bound to non-existent persistentvolume "${pvc.spec?.volumeName ?? ''}"`;
    }
    if (pvc.metadata.deletionTimestamp) return `persistentvolumeclaim "${name}" is being deleted`;
    if (ephemeral && !ownedByPod(pvc, pod)) {
      return `PVC ${ns}/${name} was not created for pod ${ns}/${pod.metadata?.name ?? ''} (pod is not owner)`;
    }
  }
  return undefined;
}

function ownedByPod(pvc: Obj, pod: Pod): boolean {
  return (pvc.metadata.ownerReferences ?? []).some(
    (r: { uid?: string; controller?: boolean }) => r.uid === pod.metadata?.uid && r.controller === true,
  );
}

/** Sorts the pod's claims into bound, unbound delayed and unbound immediate (upstream's GetPodVolumeClaims). */
export function getPodVolumeClaims(pod: Pod, src: VolumeSources): PodVolumeClaims {
  const ns = pod.metadata?.namespace ?? '';
  const out: PodVolumeClaims = { bound: [], unboundDelayBinding: [], unboundImmediate: [], volumesByClass: new Map() };
  for (const { name } of podClaimNames(pod)) {
    const pvc = src.claim(ns, name);
    if (!pvc) continue;
    if (isClaimFullyBound(pvc)) {
      out.bound.push(pvc);
      continue;
    }
    const cls = claimClass(pvc);
    const sc = cls ? src.storageClass(cls) : undefined;
    if (isWaitForFirstConsumer(sc)) out.unboundDelayBinding.push(pvc);
    else out.unboundImmediate.push(pvc);
  }
  if (out.unboundDelayBinding.length > 0) {
    const all = src.volumes();
    for (const pvc of out.unboundDelayBinding) {
      const cls = claimClass(pvc);
      if (!out.volumesByClass.has(cls))
        out.volumesByClass.set(
          cls,
          all.filter((pv) => volumeClass(pv) === cls),
        );
    }
  }
  return out;
}

/** Whether the node is in one of the class's allowedTopologies (all nodes when it has none). */
function nodeInAllowedTopologies(sc: Obj, node: Node): boolean {
  const topologies = (sc as { allowedTopologies?: { matchLabelExpressions?: { key: string; values: string[] }[] }[] })
    .allowedTopologies;
  if (!topologies || topologies.length === 0) return true;
  const selector: NodeSelector = {
    nodeSelectorTerms: topologies.map((t) => ({
      matchExpressions: (t.matchLabelExpressions ?? []).map((e) => ({ key: e.key, operator: 'In', values: e.values })),
    })),
  };
  return nodeMatchesNodeSelector(node, selector);
}

/** Upstream's FindPodVolumes for one node: the reasons it cannot host the pod's volumes, or what it would take. */
export function findPodVolumes(
  claims: PodVolumeClaims,
  node: Node,
  src: VolumeSources,
): { reasons: string[]; volumes: PodVolumes } {
  const volumes: PodVolumes = { staticBindings: [], dynamicProvisions: [] };
  let boundSatisfied = true;
  let boundFound = true;
  for (const pvc of claims.bound) {
    const pv = src.volume(pvc.spec.volumeName);
    if (!pv) {
      boundFound = false;
      break;
    }
    if (checkNodeAffinity(pv, node) !== undefined) {
      boundSatisfied = false;
      break;
    }
  }
  let unboundSatisfied = true;
  if (boundSatisfied && boundFound && claims.unboundDelayBinding.length > 0) {
    const chosen = new Set<string>();
    const nodeName = node.metadata?.name ?? '';
    for (const pvc of claims.unboundDelayBinding) {
      const selected = pvc.metadata.annotations?.[ANN_SELECTED_NODE];
      if (selected !== undefined && selected !== nodeName) {
        unboundSatisfied = false;
        break;
      }
      const candidates = claims.volumesByClass.get(claimClass(pvc)) ?? [];
      const pv = findMatchingVolume(pvc, candidates, { node, excluded: chosen });
      if (pv) {
        chosen.add(pv.metadata.name ?? '');
        volumes.staticBindings.push({ pvc, pv });
        continue;
      }
      const sc = src.storageClass(claimClass(pvc));
      const provisioner = (sc as { provisioner?: string } | undefined)?.provisioner;
      if (!sc || !provisioner || provisioner === NOT_SUPPORTED_PROVISIONER || !nodeInAllowedTopologies(sc, node)) {
        unboundSatisfied = false;
        break;
      }
      volumes.dynamicProvisions.push(pvc);
    }
  }
  const reasons: string[] = [];
  if (!boundSatisfied) reasons.push(ERR_REASON_NODE_CONFLICT);
  if (!unboundSatisfied) reasons.push(ERR_REASON_BIND_CONFLICT);
  if (!boundFound) reasons.push(ERR_REASON_PV_NOT_EXIST);
  return { reasons, volumes };
}

/** The PV as it is once bound to the claim by the scheduler (upstream's GetBindVolumeToClaim). */
export function volumeBoundToClaim(pv: Obj, pvc: Obj): Obj {
  const next = structuredClone(pv);
  next.spec = {
    ...next.spec,
    claimRef: {
      kind: 'PersistentVolumeClaim',
      namespace: pvc.metadata.namespace,
      name: pvc.metadata.name,
      uid: pvc.metadata.uid,
      apiVersion: 'v1',
      resourceVersion: pvc.metadata.resourceVersion,
    },
  };
  next.metadata.annotations = { ...(next.metadata.annotations ?? {}), [ANN_BOUND_BY_CONTROLLER]: 'yes' };
  return next;
}

/** The claim with the node chosen for its provisioning. */
export function claimWithSelectedNode(pvc: Obj, nodeName: string): Obj {
  const next = structuredClone(pvc);
  next.metadata.annotations = { ...(next.metadata.annotations ?? {}), [ANN_SELECTED_NODE]: nodeName };
  return next;
}

/** Writes the assumed decisions (bindAPIUpdate): PVs' claimRefs, then the claims' selected nodes. */
export async function bindAPIUpdate(client: KubeClient, volumes: PodVolumes, nodeName: string): Promise<void> {
  for (const { pvc, pv } of volumes.staticBindings) {
    await client.resource<Obj>(PVS).update(volumeBoundToClaim(pv, pvc));
  }
  for (const pvc of volumes.dynamicProvisions) {
    await client
      .resource<Obj>(PVCS)
      .namespace(pvc.metadata.namespace ?? '')
      .update(claimWithSelectedNode(pvc, nodeName));
  }
}

/**
 * Whether every claim of the pod is bound now (upstream's checkBindings); throws when a binding went wrong for
 * good (a claim deleted, or its selected node taken away by a provisioner that gave up).
 */
export function checkBindings(pod: Pod, volumes: PodVolumes, src: VolumeSources): boolean {
  const ns = pod.metadata?.namespace ?? '';
  for (const { pvc, pv } of volumes.staticBindings) {
    const current = src.volume(pv.metadata.name ?? '');
    if (!current) throw new Error(`failed to check binding: PersistentVolume "${pv.metadata.name}" not found`);
    const ref = current.spec?.claimRef;
    if (!ref || ref.name !== pvc.metadata.name || ref.namespace !== ns) {
      throw new Error(`pv "${pv.metadata.name}" was unbound from pvc "${ns}/${pvc.metadata.name}"`);
    }
  }
  for (const { name } of podClaimNames(pod)) {
    const pvc = src.claim(ns, name);
    if (!pvc) throw new Error(`failed to check binding: persistentvolumeclaim "${name}" not found`);
    if (isClaimFullyBound(pvc)) {
      if (!src.volume(pvc.spec.volumeName)) return false;
      continue;
    }
    const provisioning = volumes.dynamicProvisions.some((p) => p.metadata.name === name);
    if (provisioning && pvc.metadata.annotations?.[ANN_SELECTED_NODE] === undefined) {
      throw new Error(`selectedNode annotation reset for PVC "${name}"`);
    }
    return false;
  }
  return true;
}

/** Waits for `check` to say true, re-checking whenever `subscribe` calls back, for at most timeoutMs. */
export function waitFor(
  check: () => boolean,
  subscribe: (onChange: () => void) => () => void,
  clock: Clock,
  timeoutMs: number,
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let done = false;
    const finish = (err?: Error) => {
      if (done) return;
      done = true;
      unsubscribe();
      timer.cancel();
      if (err) reject(err);
      else resolve();
    };
    const test = () => {
      try {
        if (check()) finish();
      } catch (err) {
        finish(err instanceof Error ? err : new Error(String(err)));
      }
    };
    const unsubscribe = subscribe(test);
    const timer = clock.after(timeoutMs, () => finish(new Error('context deadline exceeded')));
    test();
  });
}
