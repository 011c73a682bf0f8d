/**
 * How the node lifecycle controller judges one node's health (upstream's tryUpdateNodeHealth): it remembers, per
 * node, when it last saw a sign of life — a new heartbeat in the Ready condition or a renewed Lease in
 * `kube-node-lease` — on its own clock, and after the grace period without one (--node-monitor-grace-period, or
 * --node-startup-grace-period for a node that never reported) turns Ready, MemoryPressure, DiskPressure and
 * PIDPressure to Unknown ("Kubelet stopped posting node status.").
 *
 * The functions here compute; the controller writes.
 */
import { formatTime } from '../../client/events/event.js';
import type { KubeObject } from '../../client/types.js';
import { parseTime } from '../common/pods.js';

/** core/v1 NodeCondition. */
export interface NodeCondition {
  type: string;
  status: string;
  lastHeartbeatTime?: string | null;
  lastTransitionTime?: string | null;
  reason?: string;
  message?: string;
}

/** What the controller last observed of a node, with its own timestamps (ms). */
export interface NodeHealthData {
  probeTimestamp: number;
  readyTransitionTimestamp: number;
  /** The node's status as last observed (or as the controller last wrote it). */
  status: Record<string, unknown>;
  lease?: KubeObject;
}

/** The conditions turned Unknown when a node goes silent (NetworkUnavailable is the cloud's, left alone). */
export const UNKNOWN_ON_SILENCE = ['Ready', 'MemoryPressure', 'DiskPressure', 'PIDPressure'];

export function getNodeCondition(status: unknown, type: string): NodeCondition | undefined {
  const conditions = (status as { conditions?: NodeCondition[] } | undefined)?.conditions;
  return Array.isArray(conditions) ? conditions.find((c) => c?.type === type) : undefined;
}

export function sameCondition(a: NodeCondition | undefined, b: NodeCondition | undefined): boolean {
  if (!a || !b) return a === b;
  return (
    a.type === b.type &&
    a.status === b.status &&
    (a.reason ?? '') === (b.reason ?? '') &&
    (a.message ?? '') === (b.message ?? '') &&
    (a.lastHeartbeatTime ?? null) === (b.lastHeartbeatTime ?? null) &&
    (a.lastTransitionTime ?? null) === (b.lastTransitionTime ?? null)
  );
}

const renewTimeOf = (lease: KubeObject | undefined): number | undefined => parseTime(lease?.spec?.renewTime);

export interface HealthVerdict {
  gracePeriodMs: number;
  /** The Ready condition as the node had it (a made-up Unknown one when it has none). */
  observedReady: NodeCondition;
  /** The Ready condition after this judgement (undefined when the node has none and nothing was set). */
  currentReady: NodeCondition | undefined;
  /** The new remembered health (to store whatever happens next). */
  health: NodeHealthData;
  /** Whether node.status was changed and must be written; on success, store `healthAfterWrite`. */
  needsWrite: boolean;
  healthAfterWrite?: NodeHealthData;
}

/**
 * Judges node (a copy, whose status is changed in place when it must go Unknown) against what was remembered and
 * its Lease, at nowMs. Pure: the caller writes the status when needsWrite and stores the health.
 */
export function judgeNodeHealth(
  node: KubeObject,
  saved: NodeHealthData | undefined,
  observedLease: KubeObject | undefined,
  nowMs: number,
  opts: { monitorGracePeriodMs: number; startupGracePeriodMs: number },
): HealthVerdict {
  node.status ??= {};
  const created = parseTime(node.metadata.creationTimestamp) ?? nowMs;
  let currentReady = getNodeCondition(node.status, 'Ready');
  let health = saved ? { ...saved } : undefined;
  let observedReady: NodeCondition;
  let gracePeriodMs: number;
  if (!currentReady) {
    // Never reported: a made-up Unknown condition as of the node's creation, and the startup grace period.
    observedReady = {
      type: 'Ready',
      status: 'Unknown',
      lastHeartbeatTime: node.metadata.creationTimestamp ?? null,
      lastTransitionTime: node.metadata.creationTimestamp ?? null,
    };
    gracePeriodMs = opts.startupGracePeriodMs;
    if (health) health.status = node.status;
    else health = { status: node.status, probeTimestamp: created, readyTransitionTimestamp: created };
  } else {
    observedReady = { ...currentReady };
    gracePeriodMs = opts.monitorGracePeriodMs;
  }
  const savedCondition = saved ? getNodeCondition(saved.status, 'Ready') : undefined;
  const savedLease = saved?.lease;
  if (!health) {
    health = { status: node.status, probeTimestamp: nowMs, readyTransitionTimestamp: nowMs };
  } else if (!savedCondition && currentReady) {
    // First report seen (or the controller restarted with the node already there).
    health = { status: node.status, probeTimestamp: nowMs, readyTransitionTimestamp: nowMs };
  } else if (savedCondition && !currentReady) {
    health = { status: node.status, probeTimestamp: nowMs, readyTransitionTimestamp: nowMs };
  } else if (savedCondition && currentReady && savedCondition.lastHeartbeatTime !== currentReady.lastHeartbeatTime) {
    // A new heartbeat; a new transition time too when Ready itself moved.
    const transition =
      savedCondition.lastTransitionTime !== currentReady.lastTransitionTime ? nowMs : health.readyTransitionTimestamp;
    health = { status: node.status, probeTimestamp: nowMs, readyTransitionTimestamp: transition };
  }
  // A renewed Lease is a heartbeat too.
  const observedRenew = renewTimeOf(observedLease);
  if (observedLease && (savedLease === undefined || (renewTimeOf(savedLease) ?? -1) < (observedRenew ?? -1))) {
    health = { ...health, lease: observedLease, probeTimestamp: nowMs };
  }

  const verdict: HealthVerdict = { gracePeriodMs, observedReady, currentReady, health, needsWrite: false };
  if (!(nowMs > health.probeTimestamp + gracePeriodMs)) return verdict;

  // Silent for longer than the grace period: everything the kubelet reports becomes Unknown.
  const now = formatTime(nowMs);
  const status = node.status as { conditions?: NodeCondition[] };
  status.conditions ??= [];
  for (const type of UNKNOWN_ON_SILENCE) {
    const current = getNodeCondition(status, type);
    if (!current) {
      status.conditions.push({
        type,
        status: 'Unknown',
        lastHeartbeatTime: node.metadata.creationTimestamp ?? null,
        lastTransitionTime: now,
        reason: 'NodeStatusNeverUpdated',
        message: 'Kubelet never posted node status.',
      });
    } else if (current.status !== 'Unknown') {
      current.status = 'Unknown';
      current.reason = 'NodeStatusUnknown';
      current.message = 'Kubelet stopped posting node status.';
      current.lastTransitionTime = now;
    }
  }
  currentReady = getNodeCondition(status, 'Ready');
  verdict.currentReady = currentReady;
  if (!sameCondition(currentReady, observedReady)) {
    verdict.needsWrite = true;
    verdict.healthAfterWrite = {
      status: node.status,
      probeTimestamp: health.probeTimestamp,
      readyTransitionTimestamp: nowMs,
      ...(observedLease ? { lease: observedLease } : {}),
    };
  }
  return verdict;
}

/** The zone a node counts in for disruption (upstream's GetZoneKey): '' without region and zone labels. */
export function zoneKeyOf(node: KubeObject): string {
  const labels = node.metadata.labels ?? {};
  const zone = labels['topology.kubernetes.io/zone'] ?? labels['failure-domain.beta.kubernetes.io/zone'] ?? '';
  const region = labels['topology.kubernetes.io/region'] ?? labels['failure-domain.beta.kubernetes.io/region'] ?? '';
  if (region === '' && zone === '') return '';
  return `${region}:\u0000:${zone}`;
}
