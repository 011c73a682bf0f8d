/**
 * What the node lifecycle controller keeps on every node besides health (TaintNodesByCondition and label
 * reconciliation): the NoSchedule taints its conditions and `spec.unschedulable` call for, and the beta os/arch
 * labels equal to their stable ones. Pure functions; the controller writes.
 */
import {
  TAINT_NODE_DISK_PRESSURE,
  TAINT_NODE_MEMORY_PRESSURE,
  TAINT_NODE_NETWORK_UNAVAILABLE,
  TAINT_NODE_NOT_READY,
  TAINT_NODE_PID_PRESSURE,
  TAINT_NODE_UNREACHABLE,
  TAINT_NODE_UNSCHEDULABLE,
  type Taint,
  taintMatches,
} from '../../api/taints.js';
import type { KubeObject } from '../../client/types.js';
import type { NodeCondition } from './node-health.js';

/** Which condition status calls for which NoSchedule taint. */
const CONDITION_TAINTS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  Ready: { False: TAINT_NODE_NOT_READY, Unknown: TAINT_NODE_UNREACHABLE },
  MemoryPressure: { True: TAINT_NODE_MEMORY_PRESSURE },
  DiskPressure: { True: TAINT_NODE_DISK_PRESSURE },
  NetworkUnavailable: { True: TAINT_NODE_NETWORK_UNAVAILABLE },
  PIDPressure: { True: TAINT_NODE_PID_PRESSURE },
};
const CONDITION_TAINT_KEYS = new Set(Object.values(CONDITION_TAINTS).flatMap((m) => Object.values(m)));

/** Beta node labels kept equal to their stable ones. */
const LABEL_RECONCILE = [
  { primary: 'kubernetes.io/os', secondary: 'beta.kubernetes.io/os' },
  { primary: 'kubernetes.io/arch', secondary: 'beta.kubernetes.io/arch' },
];

/** The NoSchedule taints the node's conditions and spec.unschedulable call for. */
export function noScheduleTaintsFor(node: KubeObject): Taint[] {
  const taints: Taint[] = [];
  for (const c of (node.status?.conditions ?? []) as NodeCondition[]) {
    const key = CONDITION_TAINTS[c?.type]?.[c.status];
    if (key) taints.push({ key, effect: 'NoSchedule' });
  }
  if (node.spec?.unschedulable) taints.push({ key: TAINT_NODE_UNSCHEDULABLE, effect: 'NoSchedule' });
  return taints;
}

/** The condition and unschedulable NoSchedule taints to add to the node and to remove from it. */
export function noScheduleTaintChanges(node: KubeObject): { toAdd: Taint[]; toRemove: Taint[] } {
  const wanted = noScheduleTaintsFor(node);
  const present = ((node.spec?.taints ?? []) as Taint[]).filter(
    (t) => t.effect === 'NoSchedule' && (t.key === TAINT_NODE_UNSCHEDULABLE || CONDITION_TAINT_KEYS.has(t.key)),
  );
  return {
    toAdd: wanted.filter((t) => !present.some((p) => taintMatches(p, t))),
    toRemove: present.filter((p) => !wanted.some((t) => taintMatches(p, t))),
  };
}

/** The beta labels to set so that they equal their stable ones (none when the stable one is missing). */
export function labelsToReconcile(node: KubeObject): Record<string, string> {
  const labels = node.metadata.labels ?? {};
  const update: Record<string, string> = {};
  for (const { primary, secondary } of LABEL_RECONCILE) {
    const value = labels[primary];
    if (value !== undefined && labels[secondary] !== value) update[secondary] = value;
  }
  return update;
}
