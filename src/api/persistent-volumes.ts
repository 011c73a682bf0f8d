/**
 * How PersistentVolumes and PersistentVolumeClaims fit together (upstream's k8s.io/component-helpers/storage/volume,
 * shared by the persistentvolume-binder controller and the scheduler's VolumeBinding plugin): the annotations both
 * write, the class of a claim or volume, volume-mode and access-mode checks, a PV's node affinity, and the choice of
 * the smallest Available volume that satisfies a claim.
 */
import { LabelSelector, type LabelSelectorObject } from './labels.js';
import { type NodeLike, type NodeSelector, nodeMatchesNodeSelector } from './node-selector.js';
import { compareQuantities, isQuantity, parseQuantity, type Quantity } from './quantity.js';

/** The claim's binding was finished by the binder (value "yes"). */
export const ANN_BIND_COMPLETED = 'pv.kubernetes.io/bind-completed';
/** The binding (PV claimRef or PVC volumeName) was made by a controller, not the user (value "yes"). */
export const ANN_BOUND_BY_CONTROLLER = 'pv.kubernetes.io/bound-by-controller';
/** The provisioner that created a PV. */
export const ANN_DYNAMICALLY_PROVISIONED = 'pv.kubernetes.io/provisioned-by';
/** The provisioner asked to provision a claim (set by the binder). */
export const ANN_STORAGE_PROVISIONER = 'volume.kubernetes.io/storage-provisioner';
export const ANN_BETA_STORAGE_PROVISIONER = 'volume.beta.kubernetes.io/storage-provisioner';
/** The node the scheduler picked for a WaitForFirstConsumer claim. */
export const ANN_SELECTED_NODE = 'volume.kubernetes.io/selected-node';
/** The deprecated class annotation, still honoured. */
export const ANN_BETA_STORAGE_CLASS = 'volume.beta.kubernetes.io/storage-class';
export const ANN_DEFAULT_STORAGE_CLASS = 'storageclass.kubernetes.io/is-default-class';
export const ANN_BETA_DEFAULT_STORAGE_CLASS = 'storageclass.beta.kubernetes.io/is-default-class';
/** A StorageClass provisioner that provisions nothing (local volumes made by hand). */
export const NOT_SUPPORTED_PROVISIONER = 'kubernetes.io/no-provisioner';

// biome-ignore lint/suspicious/noExplicitAny: plain API objects
type Obj = { metadata?: any; spec?: any; status?: any };

const annotations = (o: Obj): Record<string, string> => o.metadata?.annotations ?? {};

/** The claim's class: spec.storageClassName, else the beta annotation, else "" (no class). */
export function claimClass(pvc: Obj): string {
  const a = annotations(pvc)[ANN_BETA_STORAGE_CLASS];
  if (a !== undefined) return a;
  return typeof pvc.spec?.storageClassName === 'string' ? pvc.spec.storageClassName : '';
}

/** Whether the claim names a class at all (even ""): upstream's PersistentVolumeClaimHasClass. */
export function claimHasClass(pvc: Obj): boolean {
  return annotations(pvc)[ANN_BETA_STORAGE_CLASS] !== undefined || typeof pvc.spec?.storageClassName === 'string';
}

/** The volume's class: the beta annotation, else spec.storageClassName, else "". */
export function volumeClass(pv: Obj): string {
  const a = annotations(pv)[ANN_BETA_STORAGE_CLASS];
  if (a !== undefined) return a;
  return typeof pv.spec?.storageClassName === 'string' ? pv.spec.storageClassName : '';
}

/** Whether a StorageClass is marked default (the GA or the beta annotation, "true"). */
export function isDefaultStorageClass(sc: Obj): boolean {
  const a = annotations(sc);
  return a[ANN_DEFAULT_STORAGE_CLASS] === 'true' || a[ANN_BETA_DEFAULT_STORAGE_CLASS] === 'true';
}

/** The default StorageClass: of several, the newest, then the first by name (upstream's GetDefaultClass). */
export function defaultStorageClass<T extends Obj>(classes: readonly T[]): T | undefined {
  const defaults = classes.filter(isDefaultStorageClass);
  defaults.sort((a, b) => {
    const ta = Date.parse(a.metadata?.creationTimestamp ?? '') || 0;
    const tb = Date.parse(b.metadata?.creationTimestamp ?? '') || 0;
    if (ta !== tb) return tb - ta;
    return String(a.metadata?.name ?? '').localeCompare(String(b.metadata?.name ?? ''));
  });
  return defaults[0];
}

/** Whether the class delays binding until a pod uses the claim. */
export function isWaitForFirstConsumer(sc: Obj | undefined): boolean {
  return (sc as { volumeBindingMode?: string } | undefined)?.volumeBindingMode === 'WaitForFirstConsumer';
}

const storageOf = (rl: unknown): Quantity | undefined => {
  const v = (rl as Record<string, unknown> | undefined)?.storage;
  return isQuantity(v) ? parseQuantity(v as string) : undefined;
};

/** The claim's requested storage (0 when absent). */
export function claimRequest(pvc: Obj): Quantity {
  return storageOf(pvc.spec?.resources?.requests) ?? parseQuantity('0');
}

/** The volume's capacity (0 when absent). */
export function volumeCapacity(pv: Obj): Quantity {
  return storageOf(pv.spec?.capacity) ?? parseQuantity('0');
}

/** Whether claim and volume disagree on Filesystem/Block (both default to Filesystem). */
export function volumeModeMismatch(pvc: Obj, pv: Obj): boolean {
  return (pvc.spec?.volumeMode ?? 'Filesystem') !== (pv.spec?.volumeMode ?? 'Filesystem');
}

/** Whether the volume offers every access mode the claim asks for. */
export function accessModesSatisfied(pvc: Obj, pv: Obj): boolean {
  const offered = new Set<string>(pv.spec?.accessModes ?? []);
  return ((pvc.spec?.accessModes ?? []) as string[]).every((m) => offered.has(m));
}

/** Whether the volume's claimRef points at this claim (by namespace and name, and uid when it has one). */
export function isVolumeBoundToClaim(pv: Obj, pvc: Obj): boolean {
  const ref = pv.spec?.claimRef;
  if (!ref) return false;
  if (ref.name !== pvc.metadata?.name || ref.namespace !== pvc.metadata?.namespace) return false;
  return !ref.uid || ref.uid === pvc.metadata?.uid;
}

/** Why the volume cannot be used on the node (its required node affinity does not match), or undefined. */
export function checkNodeAffinity(pv: Obj, node: NodeLike): string | undefined {
  const required = pv.spec?.nodeAffinity?.required as NodeSelector | undefined;
  if (!required) return undefined;
  return nodeMatchesNodeSelector(node, required) ? undefined : 'no matching NodeSelectorTerms';
}

export interface FindVolumeOptions {
  /** The scheduler's view: only volumes usable on this node (and the access modes checked). */
  node?: NodeLike;
  /** Volumes already chosen for other claims of the pod. */
  excluded?: ReadonlySet<string>;
  /** The claim's class is WaitForFirstConsumer: without a node, only a volume pre-bound to it may be chosen. */
  delayBinding?: boolean;
}

/**
 * The volume for a claim (upstream's FindMatchingVolume): one already bound to it (if usable on the node), else the
 * smallest Available, unclaimed volume big enough, of the claim's class and volume mode, with the access modes,
 * matching the claim's selector and (for the scheduler) the node.
 */
export function findMatchingVolume<T extends Obj>(
  pvc: Obj,
  volumes: Iterable<T>,
  opts: FindVolumeOptions = {},
): T | undefined {
  const requested = claimRequest(pvc);
  const requestedClass = claimClass(pvc);
  const selector: LabelSelector | undefined = pvc.spec?.selector
    ? LabelSelector.fromObject(pvc.spec.selector as LabelSelectorObject)
    : undefined;
  let smallest: T | undefined;
  let smallestQty: Quantity | undefined;
  for (const pv of volumes) {
    const name = pv.metadata?.name ?? '';
    if (opts.excluded?.has(name)) continue;
    const qty = volumeCapacity(pv);
    if (compareQuantities(qty, requested) < 0) continue;
    if (volumeModeMismatch(pvc, pv)) continue;
    if (pv.metadata?.deletionTimestamp) continue;
    const affinityOk = opts.node ? checkNodeAffinity(pv, opts.node) === undefined : true;
    if (isVolumeBoundToClaim(pv, pvc)) return affinityOk ? pv : undefined;
    if (!opts.node && opts.delayBinding) continue;
    if (pv.spec?.claimRef) continue;
    if (pv.status?.phase !== 'Available') continue;
    if (selector && !selector.matches(pv.metadata?.labels ?? {})) continue;
    if (volumeClass(pv) !== requestedClass) continue;
    if (!affinityOk) continue;
    if (!accessModesSatisfied(pvc, pv)) continue;
    if (!smallestQty || compareQuantities(smallestQty, qty) > 0) {
      smallest = pv;
      smallestQty = qty;
    }
  }
  return smallest;
}

/** Whether the claim's binding is complete: a volumeName and the bind-completed annotation. */
export function isClaimFullyBound(pvc: Obj): boolean {
  return Boolean(pvc.spec?.volumeName) && annotations(pvc)[ANN_BIND_COMPLETED] !== undefined;
}

/** The claims a pod uses, by name: persistentVolumeClaim volumes and generic ephemeral volumes (`<pod>-<volume>`). */
export function podClaimNames(pod: Obj): { name: string; ephemeral: boolean }[] {
  const volumes = pod.spec?.volumes;
  if (!volumes || volumes.length === 0) return [];
  const out: { name: string; ephemeral: boolean }[] = [];
  for (const v of volumes) {
    if (v.persistentVolumeClaim) out.push({ name: v.persistentVolumeClaim.claimName, ephemeral: false });
    else if (v.ephemeral) out.push({ name: `${pod.metadata?.name ?? ''}-${v.name}`, ephemeral: true });
  }
  return out;
}
