/**
 * Taints and tolerations (core/v1 Taint, Toleration): whether a toleration tolerates a taint, and the lookups the
 * scheduler (TaintToleration, NodeUnschedulable), the node lifecycle controller (taint-based eviction) and the
 * kubelet (admission) share, with upstream's semantics (v1 Toleration.ToleratesTaint and v1helper).
 */

export type TaintEffect = 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';

export interface Taint {
  key: string;
  value?: string;
  effect: TaintEffect | string;
  timeAdded?: string;
}

export interface Toleration {
  key?: string;
  /** `Equal` (the default) or `Exists`. */
  operator?: string;
  value?: string;
  /** Empty tolerates every effect. */
  effect?: string;
  /** For NoExecute: how long the pod stays bound after the taint appears (unset: forever; ≤0: evict at once). */
  tolerationSeconds?: number | null;
}

/** Well-known taint keys (k8s.io/api/core/v1 well_known_taints.go). */
export const TAINT_NODE_NOT_READY = 'node.kubernetes.io/not-ready';
export const TAINT_NODE_UNREACHABLE = 'node.kubernetes.io/unreachable';
export const TAINT_NODE_UNSCHEDULABLE = 'node.kubernetes.io/unschedulable';
export const TAINT_NODE_MEMORY_PRESSURE = 'node.kubernetes.io/memory-pressure';
export const TAINT_NODE_DISK_PRESSURE = 'node.kubernetes.io/disk-pressure';
export const TAINT_NODE_NETWORK_UNAVAILABLE = 'node.kubernetes.io/network-unavailable';
export const TAINT_NODE_PID_PRESSURE = 'node.kubernetes.io/pid-pressure';
export const TAINT_NODE_OUT_OF_SERVICE = 'node.kubernetes.io/out-of-service';
export const TAINT_EXTERNAL_CLOUD_PROVIDER = 'node.cloudprovider.kubernetes.io/uninitialized';
export const TAINT_NODE_SHUTDOWN = 'node.cloudprovider.kubernetes.io/shutdown';

/**
 * Whether one toleration tolerates one taint: the effects match (or the toleration names none), the keys match
 * (or the toleration names none — which only makes sense with `Exists`), and with `Equal` (or no operator) the
 * values are equal, with `Exists` any value. An unknown operator tolerates nothing.
 */
export function toleratesTaint(toleration: Toleration, taint: Taint): boolean {
  if (toleration.effect && toleration.effect !== taint.effect) return false;
  if (toleration.key && toleration.key !== taint.key) return false;
  switch (toleration.operator ?? '') {
    case '':
    case 'Equal':
      return (toleration.value ?? '') === (taint.value ?? '');
    case 'Exists':
      return true;
    default:
      return false;
  }
}

/** v1helper.TolerationsTolerateTaint: some toleration tolerates the taint. */
export function tolerationsTolerateTaint(tolerations: readonly Toleration[] | null | undefined, taint: Taint): boolean {
  return (tolerations ?? []).some((t) => toleratesTaint(t, taint));
}

/** A taint filter: which taints a check looks at. */
export type TaintFilter = (taint: Taint) => boolean;

/** The taints that keep a pod from being scheduled: NoSchedule and NoExecute (helper.DoNotScheduleTaintsFilterFunc). */
export const doNotScheduleTaints: TaintFilter = (t) => t.effect === 'NoSchedule' || t.effect === 'NoExecute';

/**
 * v1helper.FindMatchingUntoleratedTaint: the first taint (in the node's order) that passes the filter and that no
 * toleration tolerates; undefined when every such taint is tolerated.
 */
export function findMatchingUntoleratedTaint(
  taints: readonly Taint[] | null | undefined,
  tolerations: readonly Toleration[] | null | undefined,
  filter?: TaintFilter,
): Taint | undefined {
  for (const taint of taints ?? []) {
    if (filter && !filter(taint)) continue;
    if (!tolerationsTolerateTaint(tolerations, taint)) return taint;
  }
  return undefined;
}

/** Whether a pod's tolerations tolerate every taint the filter selects. */
export function toleratesAllTaints(
  taints: readonly Taint[] | null | undefined,
  tolerations: readonly Toleration[] | null | undefined,
  filter?: TaintFilter,
): boolean {
  return findMatchingUntoleratedTaint(taints, tolerations, filter) === undefined;
}

/**
 * For taint-based eviction: for each taint, the first toleration that tolerates it; undefined when some taint is
 * not tolerated (upstream's v1helper.GetMatchingTolerations).
 */
export function getMatchingTolerations(
  taints: readonly Taint[] | null | undefined,
  tolerations: readonly Toleration[] | null | undefined,
): Toleration[] | undefined {
  const list = taints ?? [];
  if (list.length === 0) return [];
  if (!tolerations || tolerations.length === 0) return undefined;
  const out: Toleration[] = [];
  for (const taint of list) {
    const first = tolerations.find((t) => toleratesTaint(t, taint));
    if (!first) return undefined;
    out.push(first);
  }
  return out;
}

/**
 * How long a pod may stay on a node whose NoExecute taints these tolerations match (the taint-eviction
 * controller's getMinTolerationTime), in milliseconds: the smallest `tolerationSeconds`; 0 (at once) for no
 * tolerations or any non-positive value; -1 when none sets it (tolerated forever).
 */
export function minTolerationTimeMs(tolerations: readonly Toleration[]): number {
  if (tolerations.length === 0) return 0;
  let min = Number.POSITIVE_INFINITY;
  for (const t of tolerations) {
    if (t.tolerationSeconds == null) continue;
    const seconds = Number(t.tolerationSeconds);
    if (seconds <= 0) return 0;
    if (seconds < min) min = seconds;
  }
  return min === Number.POSITIVE_INFINITY ? -1 : min * 1000;
}

/** Same key and effect (taints are identified by the pair, as v1 Taint.MatchTaint). */
export function taintMatches(a: Taint, b: Taint): boolean {
  return a.key === b.key && a.effect === b.effect;
}

/** Whether the node's taints contain one with this key and effect. */
export function taintExists(taints: readonly Taint[] | null | undefined, taint: Taint): boolean {
  return (taints ?? []).some((t) => taintMatches(t, taint));
}

/** Upstream's Taint.ToString(): `key=value:effect`, `key:effect` without a value, `key=value` / `key` without effect. */
export function taintString(t: Taint): string {
  const value = t.value ? `=${t.value}` : '';
  return t.effect ? `${t.key}${value}:${t.effect}` : `${t.key}${value}`;
}
