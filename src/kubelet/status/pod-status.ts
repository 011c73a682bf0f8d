/**
 * The pod status a kubelet reports (upstream's generateAPIPodStatus, getPhase and the status package's condition
 * generators), computed from what the runtime says of the pod's containers. Pure: the same runtime state, pod and
 * time give the same status, so the simulated runtime and its tests can share it.
 */
import type { KubeObject } from '../../client/types.js';
import { formatTime } from '../format.js';

export interface TerminatedState {
  kind: 'terminated';
  exitCode: number;
  reason: string;
  message?: string;
  startedAt: number;
  finishedAt: number;
  containerID: string;
}

export type RuntimeContainerState =
  | { kind: 'waiting'; reason: string; message?: string }
  | { kind: 'running'; startedAt: number }
  | TerminatedState;

/** A container's requests and limits as the kubelet gave them to it or applied them (in-place resize). */
export interface ContainerResources {
  requests?: Record<string, unknown>;
  limits?: Record<string, unknown>;
}

/** What the runtime knows of one container. */
export interface RuntimeContainerStatus {
  name: string;
  /** The spec's image until the container is created, then the runtime's reference. */
  image: string;
  imageID: string;
  /** '' until created. */
  containerID: string;
  state: RuntimeContainerState;
  lastState?: TerminatedState;
  ready: boolean;
  started: boolean;
  restartCount: number;
  /** Reported with volumeMounts once created. */
  created: boolean;
  /** What the kubelet allocated to the container (regular containers and sidecars), and what it applied. */
  allocated?: ContainerResources;
  actuated?: ContainerResources;
}

/** What the runtime knows of one pod. */
export interface RuntimePodStatus {
  /** Set when the pod will run no more (deleted, or done under its restart policy). */
  terminal: boolean;
  sandboxReady: boolean;
  startTime: number | undefined;
  hostIP: string;
  podIP: string | undefined;
  initContainers: RuntimeContainerStatus[];
  containers: RuntimeContainerStatus[];
  /** The ephemeral containers started so far (kubectl debug). */
  ephemeralContainers?: RuntimeContainerStatus[];
  /** Reason and message the kubelet gives the whole pod (e.g. admission failures). */
  reason?: string;
  message?: string;
  /** Set when the kubelet failed the pod itself (e.g. DeadlineExceeded), whatever its containers say. */
  failed?: boolean;
  /** A resize the node cannot carry out now or at all (the PodResizePending condition's reason and message). */
  resizePending?: { reason: string; message: string };
  /** A resize taken but not yet applied to the containers (the PodResizeInProgress condition). */
  resizeInProgress?: boolean;
}

export interface PodCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  /** Null but on the resize conditions, which the kubelet stamps when it sets them. */
  lastProbeTime: string | null;
  lastTransitionTime: string;
  reason?: string;
  message?: string;
}

/** The conditions an in-place resize brings, while the node has not carried it out. */
export const RESIZE_CONDITIONS: ReadonlySet<string> = new Set(['PodResizePending', 'PodResizeInProgress']);

/** The condition types the kubelet owns (upstream's PodConditionByKubelet), in the order it reports them. */
export const KUBELET_CONDITIONS = [
  'PodResizePending',
  'PodResizeInProgress',
  'PodReadyToStartContainers',
  'Initialized',
  'Ready',
  'ContainersReady',
  'PodScheduled',
] as const;

export type Phase = 'Pending' | 'Running' | 'Succeeded' | 'Failed';

interface ContainerSpec {
  name: string;
  restartPolicy?: string;
}

const isSidecar = (c: ContainerSpec) => c.restartPolicy === 'Always';

/** Upstream's getPhase over the init and regular container statuses. */
export function podPhase(pod: KubeObject, rt: RuntimePodStatus): Phase {
  const spec = pod.spec ?? {};
  const restartPolicy: string = spec.restartPolicy ?? 'Always';
  const initSpecs: ContainerSpec[] = spec.initContainers ?? [];
  const specs: ContainerSpec[] = spec.containers ?? [];
  const initByName = new Map(rt.initContainers.map((c) => [c.name, c]));
  const byName = new Map(rt.containers.map((c) => [c.name, c]));
  let pendingRegularInit = 0;
  let pendingSidecars = 0;
  let failedInit = 0;
  for (const c of initSpecs) {
    if (isSidecar(c)) continue;
    const s = initByName.get(c.name);
    if (!s) pendingRegularInit++;
    else if (s.state.kind === 'running') pendingRegularInit++;
    else if (s.state.kind === 'terminated') {
      if (s.state.exitCode !== 0) failedInit++;
    } else if (s.lastState) {
      if (s.lastState.exitCode !== 0) failedInit++;
    } else pendingRegularInit++;
  }
  let unknown = 0;
  let running = 0;
  let waiting = 0;
  let stopped = 0;
  let succeeded = 0;
  for (const c of initSpecs) {
    if (!isSidecar(c)) continue;
    const s = initByName.get(c.name);
    if (!s) unknown++;
    else if (s.state.kind === 'running') {
      if (!s.started) pendingSidecars++;
      running++;
    } else if (s.state.kind === 'waiting' && !s.lastState) {
      pendingSidecars++;
      waiting++;
    }
  }
  for (const c of specs) {
    const s = byName.get(c.name);
    if (!s) unknown++;
    else if (s.state.kind === 'running') running++;
    else if (s.state.kind === 'terminated') {
      stopped++;
      if (s.state.exitCode === 0) succeeded++;
    } else if (s.lastState) stopped++;
    else waiting++;
  }
  if (failedInit > 0 && restartPolicy === 'Never') return 'Failed';
  const anyRegularStarted = rt.containers.some((s) => s.state.kind !== 'waiting' || s.lastState !== undefined);
  if (pendingRegularInit > 0 || (pendingSidecars > 0 && !anyRegularStarted) || waiting > 0) return 'Pending';
  if (running > 0 && unknown === 0) return 'Running';
  if (running === 0 && stopped > 0 && unknown === 0) {
    if (rt.terminal) return stopped === succeeded ? 'Succeeded' : 'Failed';
    if (restartPolicy === 'Always') return 'Running';
    if (stopped === succeeded) return 'Succeeded';
    if (restartPolicy === 'Never') return 'Failed';
    return 'Running';
  }
  return 'Pending';
}

type Generated = Omit<PodCondition, 'lastProbeTime' | 'lastTransitionTime'>;

function containersReady(pod: KubeObject, rt: RuntimePodStatus, phase: Phase): Generated {
  const unknown: string[] = [];
  const unready: string[] = [];
  const initByName = new Map(rt.initContainers.map((c) => [c.name, c]));
  const byName = new Map(rt.containers.map((c) => [c.name, c]));
  for (const c of (pod.spec?.initContainers ?? []) as ContainerSpec[]) {
    if (!isSidecar(c)) continue;
    const s = initByName.get(c.name);
    if (!s) unknown.push(c.name);
    else if (!s.ready) unready.push(c.name);
  }
  for (const c of (pod.spec?.containers ?? []) as ContainerSpec[]) {
    const s = byName.get(c.name);
    if (!s) unknown.push(c.name);
    else if (!s.ready) unready.push(c.name);
  }
  if ((phase === 'Succeeded' && unknown.length === 0) || phase === 'Failed') {
    return { type: 'ContainersReady', status: 'False', reason: phase === 'Failed' ? 'PodFailed' : 'PodCompleted' };
  }
  const messages: string[] = [];
  if (unknown.length > 0) messages.push(`containers with unknown status: [${unknown.join(' ')}]`);
  if (unready.length > 0) messages.push(`containers with unready status: [${unready.join(' ')}]`);
  if (messages.length > 0) {
    return { type: 'ContainersReady', status: 'False', reason: 'ContainersNotReady', message: messages.join(', ') };
  }
  return { type: 'ContainersReady', status: 'True' };
}

function podReady(pod: KubeObject, rt: RuntimePodStatus, phase: Phase, existing: readonly PodCondition[]): Generated {
  const cr = containersReady(pod, rt, phase);
  if (cr.status !== 'True') {
    return {
      type: 'Ready',
      status: cr.status,
      ...(cr.reason ? { reason: cr.reason } : {}),
      ...(cr.message ? { message: cr.message } : {}),
    };
  }
  const messages: string[] = [];
  for (const gate of (pod.spec?.readinessGates ?? []) as { conditionType?: string }[]) {
    const type = gate.conditionType ?? '';
    const c = existing.find((e) => e.type === type);
    if (!c) messages.push(`corresponding condition of pod readiness gate "${type}" does not exist.`);
    else if (c.status !== 'True')
      messages.push(`the status of pod readiness gate "${type}" is not "True", but ${c.status}`);
  }
  if (messages.length > 0) {
    return { type: 'Ready', status: 'False', reason: 'ReadinessGatesNotReady', message: messages.join(', ') };
  }
  return { type: 'Ready', status: 'True' };
}

function initialized(pod: KubeObject, rt: RuntimePodStatus, phase: Phase): Generated {
  const unknown: string[] = [];
  const incomplete: string[] = [];
  const initByName = new Map(rt.initContainers.map((c) => [c.name, c]));
  for (const c of (pod.spec?.initContainers ?? []) as ContainerSpec[]) {
    const s = initByName.get(c.name);
    if (!s) {
      unknown.push(c.name);
      continue;
    }
    const done = isSidecar(c) ? s.started : s.ready;
    if (!done) incomplete.push(c.name);
  }
  if (phase === 'Succeeded' && unknown.length === 0) {
    return { type: 'Initialized', status: 'True', reason: 'PodCompleted' };
  }
  if (rt.containers.some((s) => s.state.kind !== 'waiting' || s.lastState !== undefined)) {
    return { type: 'Initialized', status: 'True' };
  }
  const messages: string[] = [];
  if (unknown.length > 0) messages.push(`containers with unknown status: [${unknown.join(' ')}]`);
  if (incomplete.length > 0) messages.push(`containers with incomplete status: [${incomplete.join(' ')}]`);
  if (messages.length > 0) {
    return { type: 'Initialized', status: 'False', reason: 'ContainersNotInitialized', message: messages.join(', ') };
  }
  return { type: 'Initialized', status: 'True' };
}

function stateJson(state: RuntimeContainerState | undefined): Record<string, unknown> {
  if (!state) return {};
  switch (state.kind) {
    case 'waiting':
      return { waiting: { reason: state.reason, ...(state.message ? { message: state.message } : {}) } };
    case 'running':
      return { running: { startedAt: formatTime(state.startedAt) } };
    default:
      return {
        terminated: {
          exitCode: state.exitCode,
          reason: state.reason,
          ...(state.message ? { message: state.message } : {}),
          startedAt: formatTime(state.startedAt),
          finishedAt: formatTime(state.finishedAt),
          ...(state.containerID ? { containerID: state.containerID } : {}),
        },
      };
  }
}

interface MountSpec {
  name?: string;
  mountPath?: string;
  readOnly?: boolean;
}

function containerStatusJson(
  s: RuntimeContainerStatus,
  spec: { volumeMounts?: MountSpec[] } | undefined,
): Record<string, unknown> {
  const out: Record<string, unknown> = {
    name: s.name,
    state: stateJson(s.state),
    lastState: stateJson(s.lastState),
    ready: s.ready,
    restartCount: s.restartCount,
    image: s.image,
    imageID: s.imageID,
  };
  if (s.containerID) out.containerID = s.containerID;
  out.started = s.started;
  if (s.allocated && s.created) {
    if (s.allocated.requests && Object.keys(s.allocated.requests).length > 0) {
      out.allocatedResources = s.allocated.requests;
    }
    // A running container shows what was applied to it; one not running, what it will get.
    out.resources = (s.state.kind === 'running' ? s.actuated : undefined) ?? s.allocated;
  }
  const mounts = spec?.volumeMounts ?? [];
  if (s.created && mounts.length > 0) {
    out.volumeMounts = mounts.map((m) => ({
      name: m.name,
      mountPath: m.mountPath,
      ...(m.readOnly ? { readOnly: true, recursiveReadOnly: 'Disabled' } : {}),
    }));
  }
  return out;
}

/** The status fields the kubelet sets, and its conditions in the order it reports them. */
export interface GeneratedPodStatus {
  phase: Phase;
  /** The kubelet's conditions; lastTransitionTime kept from `previous` when the status did not change. */
  conditions: PodCondition[];
  fields: Record<string, unknown>;
}

/**
 * The pod status for `rt`. `previous` holds the conditions last reported (the kubelet's own memory, else the API
 * object's), so that lastTransitionTime changes only when a condition's status does. A pod the API already shows
 * in a terminal phase keeps that phase.
 */
export function generatePodStatus(
  pod: KubeObject,
  rt: RuntimePodStatus,
  previous: readonly PodCondition[],
  now: number,
): GeneratedPodStatus {
  const apiPhase = pod.status?.phase as Phase | undefined;
  let phase = rt.failed ? 'Failed' : podPhase(pod, rt);
  if ((apiPhase === 'Succeeded' || apiPhase === 'Failed') && phase !== apiPhase) phase = apiPhase;
  const existing: PodCondition[] = (pod.status?.conditions ?? []) as PodCondition[];
  const generated: Generated[] = [
    ...(rt.resizePending
      ? [{ type: 'PodResizePending', status: 'True', ...rt.resizePending } satisfies Generated]
      : []),
    ...(rt.resizeInProgress ? [{ type: 'PodResizeInProgress', status: 'True' } satisfies Generated] : []),
    { type: 'PodReadyToStartContainers', status: rt.sandboxReady ? 'True' : 'False' },
    initialized(pod, rt, phase),
    podReady(pod, rt, phase, existing),
    containersReady(pod, rt, phase),
    { type: 'PodScheduled', status: 'True' },
  ];
  const stamp = formatTime(now);
  const conditions = generated.map((g): PodCondition => {
    const before = previous.find((p) => p.type === g.type) ?? existing.find((p) => p.type === g.type);
    if (RESIZE_CONDITIONS.has(g.type)) {
      // Stamped when set and when its reason changes. Upstream's updatedPodResizeCondition stamps lastProbeTime at
      // every sync, which reaches the API only when something else in the status changes; this keeps it steady.
      const kept = before && (before.reason ?? '') === (g.reason ?? '') && before.lastTransitionTime;
      return {
        type: g.type,
        status: g.status,
        lastProbeTime: kept ? (before.lastProbeTime ?? stamp) : stamp,
        lastTransitionTime: kept ? before.lastTransitionTime : stamp,
        ...(g.reason ? { reason: g.reason } : {}),
        ...(g.message ? { message: g.message } : {}),
      };
    }
    const lastTransitionTime =
      before && before.status === g.status && before.lastTransitionTime ? before.lastTransitionTime : stamp;
    return {
      type: g.type,
      status: g.status,
      lastProbeTime: null,
      lastTransitionTime,
      ...(g.reason ? { reason: g.reason } : {}),
      ...(g.message ? { message: g.message } : {}),
    };
  });
  const initSpecs = new Map(
    ((pod.spec?.initContainers ?? []) as (ContainerSpec & { volumeMounts?: MountSpec[] })[]).map((c) => [c.name, c]),
  );
  const specs = new Map(
    ((pod.spec?.containers ?? []) as (ContainerSpec & { volumeMounts?: MountSpec[] })[]).map((c) => [c.name, c]),
  );
  const fields: Record<string, unknown> = {
    phase,
    hostIP: rt.hostIP,
    hostIPs: [{ ip: rt.hostIP }],
  };
  if (rt.podIP) {
    fields.podIP = rt.podIP;
    fields.podIPs = [{ ip: rt.podIP }];
  }
  if (rt.startTime !== undefined) fields.startTime = formatTime(rt.startTime);
  if (rt.initContainers.length > 0) {
    fields.initContainerStatuses = rt.initContainers.map((s) => containerStatusJson(s, initSpecs.get(s.name)));
  }
  fields.containerStatuses = rt.containers.map((s) => containerStatusJson(s, specs.get(s.name)));
  if (rt.ephemeralContainers?.length) {
    const ephemeralSpecs = new Map(
      ((pod.spec?.ephemeralContainers ?? []) as (ContainerSpec & { volumeMounts?: MountSpec[] })[]).map((c) => [
        c.name,
        c,
      ]),
    );
    fields.ephemeralContainerStatuses = rt.ephemeralContainers.map((s) =>
      containerStatusJson(s, ephemeralSpecs.get(s.name)),
    );
  }
  if (rt.reason) fields.reason = rt.reason;
  if (rt.message) fields.message = rt.message;
  return { phase, conditions, fields };
}
