/**
 * Cluster events as the scheduling queue sees them (upstream's framework/events.go): what a change of a node or a
 * pod means for scheduling (NodeSchedulingPropertiesChange, PodSchedulingPropertiesChange), and whether an event
 * a plugin registered interest in (EnqueueExtensions) matches one that happened (MatchClusterEvents).
 *
 * Incoming pod events name the kind of pod: `AssignedPod` (bound to a node) or `UnschedulablePod` (waiting); a
 * plugin registers plain `Pod`, which matches both.
 */
import { podRequestAmounts } from '../framework/resources.js';
import type { ActionType, ClusterEvent, EventResource, Node, Pod } from '../framework/types.js';

export type IncomingResource = EventResource | 'AssignedPod' | 'UnschedulablePod';

/** An event that happened: one resource, one action (the most specific one known). */
export interface IncomingEvent {
  resource: IncomingResource;
  action: ActionType;
  /** Names the special wildcard events (UnschedulableTimeout, ForceActivate). */
  label?: string;
}

export const EVENT_ASSIGNED_POD_ADD: IncomingEvent = { resource: 'AssignedPod', action: 'Add' };
export const EVENT_ASSIGNED_POD_UPDATE: IncomingEvent = { resource: 'AssignedPod', action: 'Update' };
export const EVENT_ASSIGNED_POD_DELETE: IncomingEvent = { resource: 'AssignedPod', action: 'Delete' };
export const EVENT_UNSCHEDULED_POD_ADD: IncomingEvent = { resource: 'UnschedulablePod', action: 'Add' };
export const EVENT_UNSCHEDULED_POD_UPDATE: IncomingEvent = { resource: 'UnschedulablePod', action: 'Update' };
export const EVENT_UNSCHEDULED_POD_DELETE: IncomingEvent = { resource: 'UnschedulablePod', action: 'Delete' };
export const EVENT_NODE_ADD: IncomingEvent = { resource: 'Node', action: 'Add' };
export const EVENT_NODE_DELETE: IncomingEvent = { resource: 'Node', action: 'Delete' };
export const EVENT_UNSCHEDULABLE_TIMEOUT: IncomingEvent = {
  resource: '*',
  action: 'All',
  label: 'UnschedulableTimeout',
};
export const EVENT_FORCE_ACTIVATE: IncomingEvent = { resource: '*', action: 'All', label: 'ForceActivate' };

/** Labels of the queue's own moves, as upstream logs them. */
export const SCHEDULE_ATTEMPT_FAILURE = 'ScheduleAttemptFailure';
export const BACKOFF_COMPLETE = 'BackoffComplete';
export const POP_FROM_BACKOFF_Q = 'PopFromBackoffQ';

export function eventLabel(e: IncomingEvent): string {
  return e.label ?? `${e.resource}${e.action}`;
}

export function isWildCard(e: { resource: string; action?: ActionType; actions?: ActionType[] }): boolean {
  if (e.resource !== '*') return false;
  return e.action === 'All' || (e.actions?.includes('All') ?? false);
}

function resourceMatches(registered: EventResource, incoming: IncomingResource): boolean {
  return (
    registered === '*' ||
    registered === incoming ||
    (registered === 'Pod' && (incoming === 'AssignedPod' || incoming === 'UnschedulablePod'))
  );
}

/**
 * Whether a registered action covers an incoming one. A general `Update` covers every specific UpdateXxx; an
 * incoming general `Update` (a change no specific kind describes) is covered only by `Update` or `All`.
 */
function actionMatches(registered: ActionType, incoming: ActionType): boolean {
  if (registered === 'All' || registered === incoming) return true;
  return registered === 'Update' && incoming.startsWith('Update');
}

/** upstream's MatchClusterEvents(registered, incoming). */
export function matchClusterEvent(registered: ClusterEvent, incoming: IncomingEvent): boolean {
  if (isWildCard(registered)) return true;
  if (!resourceMatches(registered.resource, incoming.resource)) return false;
  return registered.actions.some((a) => actionMatches(a, incoming.action));
}

// --- what changed -----------------------------------------------------------------------------------------

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}

/** Maps compared as upstream's Semantic.DeepEqual does for labels (nil and empty are the same). */
function sameMap(a: Record<string, string> | undefined, b: Record<string, string> | undefined): boolean {
  const ka = Object.keys(a ?? {});
  const kb = Object.keys(b ?? {});
  if (ka.length !== kb.length) return false;
  for (const k of ka) if ((a as Record<string, string>)[k] !== b?.[k]) return false;
  return true;
}

function podScaledDown(newPod: Pod, oldPod: Pod): boolean {
  const next = podRequestAmounts(newPod, false);
  for (const [name, old] of podRequestAmounts(oldPod, false)) {
    const now = next.get(name);
    if (now === undefined || now < old) return true;
  }
  return false;
}

/** The events an update of a pod means (upstream's PodSchedulingPropertiesChange); never empty. */
export function podSchedulingPropertiesChange(newPod: Pod, oldPod: Pod): IncomingEvent[] {
  const resource: IncomingResource = newPod.spec?.nodeName ? 'AssignedPod' : 'UnschedulablePod';
  const actions: ActionType[] = [];
  if (!sameMap(newPod.metadata?.labels, oldPod.metadata?.labels)) actions.push('UpdatePodLabel');
  if (podScaledDown(newPod, oldPod)) actions.push('UpdatePodScaleDown');
  if ((newPod.spec?.schedulingGates ?? []).length === 0 && (oldPod.spec?.schedulingGates ?? []).length !== 0) {
    actions.push('UpdatePodSchedulingGatesEliminated');
  }
  if ((newPod.spec?.tolerations ?? []).length !== (oldPod.spec?.tolerations ?? []).length) {
    actions.push('UpdatePodTolerations');
  }
  if (actions.length === 0) actions.push('Update');
  return actions.map((action) => ({ resource, action }));
}

function conditionStatuses(node: Node): Record<string, string> {
  const out: Record<string, string> = {};
  for (const c of node.status?.conditions ?? []) if (c?.type) out[c.type] = c.status;
  return out;
}

/** The events an update of a node means (upstream's NodeSchedulingPropertiesChange); may be empty. */
export function nodeSchedulingPropertiesChange(newNode: Node, oldNode: Node): IncomingEvent[] {
  const actions: ActionType[] = [];
  const wasUnschedulable = oldNode.spec?.unschedulable === true;
  const isUnschedulable = newNode.spec?.unschedulable === true;
  // Becoming schedulable is reported as a taint change, as upstream does.
  if (wasUnschedulable !== isUnschedulable && !isUnschedulable) actions.push('UpdateNodeTaint');
  if (!sameJson(newNode.status?.allocatable, oldNode.status?.allocatable)) actions.push('UpdateNodeAllocatable');
  if (!sameMap(newNode.metadata?.labels, oldNode.metadata?.labels)) actions.push('UpdateNodeLabel');
  if (!sameJson(newNode.spec?.taints ?? [], oldNode.spec?.taints ?? []) && !actions.includes('UpdateNodeTaint')) {
    actions.push('UpdateNodeTaint');
  }
  if (!sameMap(conditionStatuses(newNode), conditionStatuses(oldNode))) actions.push('UpdateNodeCondition');
  if (!sameMap(newNode.metadata?.annotations, oldNode.metadata?.annotations)) actions.push('UpdateNodeAnnotation');
  return actions.map((action) => ({ resource: 'Node', action }));
}
