/**
 * One pod on a simulated node: its sandbox, its init containers run one after another, its containers following
 * the pod's lifecycle (run, complete, fail, crashloop, never-ready), restarts under the restart policy with
 * upstream's crash-loop back-off (10 s doubling to 5 min, forgotten after 10 min of quiet), and graceful stop when
 * the pod is deleted. Every step runs on the shared timer wheel; each change tells the host, which reports the
 * status (status/pod-status.ts turns runtimeStatus() into the API's). No API calls are made here.
 */

import { compareQuantities, parseQuantity } from '../../../api/quantity.js';
import { semanticEqual } from '../../../api/semantic-equal.js';
import type { KubeObject } from '../../../client/types.js';
import type { Clock, TimerHandle } from '../../../util/clock.js';
import { formatGoDuration, formatPod, imageIdOf, imageSizeOf, newContainerId, normalizeImage } from '../../format.js';
import { imageReferenceError } from '../../image-reference.js';
import type {
  ContainerResources,
  RuntimeContainerStatus,
  RuntimePodStatus,
  TerminatedState,
} from '../../status/pod-status.js';
import type { TimerWheel } from '../../timer-wheel.js';
import type { ImagePull, ResolvedLifecycle } from './lifecycle-config.js';
import { ContainerLog } from './logs.js';

/** Upstream's crash-loop back-off: the first restart waits 10 s, each later one twice as long, up to 5 minutes. */
export const INITIAL_BACKOFF_MS = 10_000;
export const MAX_BACKOFF_MS = 300_000;
/** How soon the kubelet notices that a container exited (upstream's PLEG relist period). */
export const RELIST_MS = 1000;
/** How soon the kubelet syncs a pod again after a sync that failed (its pod workers' back-off period). */
export const RESYNC_MS = 10_000;

export type EventType = 'Normal' | 'Warning';

/** What a simulated pod needs from its node. */
export interface PodHost {
  readonly clock: Clock;
  readonly wheel: TimerWheel;
  readonly hostIP: string;
  /** A free address from the node's pod CIDR, or undefined when none is left. */
  allocateIP(): string | undefined;
  releaseIP(ip: string): void;
  /** Records an event about the pod, or one of its containers (fieldPath spec.containers{name}). */
  event(pod: KubeObject, fieldPath: string | undefined, type: EventType, reason: string, message: string): void;
  /** The pod's runtime state changed: its status should be reported. */
  changed(pod: SimPod): void;
  imagePresent(image: string): boolean;
  imagePulled(image: string): void;
  /** Whether pulls for the pod work, as its lifecycle says now (its annotations may have changed since it started). */
  imagePullOf?(pod: KubeObject): ImagePull;
}

interface ProbeSpec {
  initialDelaySeconds?: number;
  periodSeconds?: number;
  httpGet?: { port?: number | string };
  tcpSocket?: { port?: number | string };
  grpc?: { port?: number };
  exec?: unknown;
}

interface ContainerSpec {
  name: string;
  image?: string;
  imagePullPolicy?: string;
  restartPolicy?: string;
  ports?: { name?: string; containerPort?: number }[];
  readinessProbe?: ProbeSpec;
  resources?: ContainerResources;
  resizePolicy?: { resourceName?: string; restartPolicy?: string }[];
}

/** A copy of what a container spec asks for (requests, limits, claims). */
const resourcesOf = (spec: ContainerSpec | undefined): ContainerResources => structuredClone(spec?.resources ?? {});

/** Whether a and b give resource name the same request and the same limit (as quantities; both unset is the same). */
function sameAmounts(a: ContainerResources, b: ContainerResources, name: string): boolean {
  return (['requests', 'limits'] as const).every((list) => {
    const x = a[list]?.[name];
    const y = b[list]?.[name];
    if (x === y) return true;
    if (x === undefined || y === undefined) return false;
    return compareQuantities(parseQuantity(x as string), parseQuantity(y as string)) === 0;
  });
}

/** Whether a container runs with the cpu and memory it was allocated (upstream's isPodResizeInProgress test). */
const cpuMemorySame = (a: ContainerResources, b: ContainerResources) =>
  sameAmounts(a, b, 'cpu') && sameAmounts(a, b, 'memory');

/** The waiting reason of a container whose configuration cannot be made. */
const CONFIG_ERROR = 'CreateContainerConfigError';

/** Upstream's default probe period. */
const PROBE_PERIOD_SECONDS = 10;

/**
 * What a failed probe of this kind reports, as upstream's probers word it: an HTTP answer that is no success, a
 * refused TCP connection, a gRPC health service that is not serving, or a command's (here empty) output.
 */
export function probeFailureOutput(probe: ProbeSpec, podIP: string | undefined, container: ContainerSpec): string {
  if (probe.httpGet) return 'HTTP probe failed with statuscode: 503';
  if (probe.grpc) return 'service unhealthy (responded with "NOT_SERVING")';
  if (probe.tcpSocket) {
    const port = probe.tcpSocket.port;
    const number =
      typeof port === 'string' ? (container.ports?.find((p) => p.name === port)?.containerPort ?? port) : port;
    return `dial tcp ${podIP ?? ''}:${number ?? ''}: connect: connection refused`;
  }
  return '';
}

class SimContainer implements RuntimeContainerStatus {
  image: string;
  imageID = '';
  containerID = '';
  state: RuntimeContainerStatus['state'];
  lastState: TerminatedState | undefined;
  ready = false;
  started = false;
  restartCount = 0;
  created = false;
  backoffMs = 0;
  backoffUpdatedAt = 0;
  /** The image pull back-off (upstream keeps one per pod and image; here one per container), and its pull's error. */
  pullBackoffMs = 0;
  pullBackoffUpdatedAt = 0;
  pullError = '';
  /** While the container waits for its image: the image it tried, and the retry the kubelet's next sync makes. */
  imageWait: { image: string; timer: TimerHandle; retry: () => void } | undefined;
  timers: TimerHandle[] = [];
  /** What the kubelet gave the container (changed by an in-place resize), and what it runs with. */
  allocated: ContainerResources;
  actuated: ContainerResources;
  /** The next failing readiness probe of a never-ready container. */
  probeTimer: TimerHandle | undefined;
  log = new ContainerLog();
  previousLog: ContainerLog | undefined;

  constructor(
    readonly spec: ContainerSpec,
    readonly init: boolean,
    readonly index: number,
    waitingReason: string,
  ) {
    this.name = spec.name;
    this.image = spec.image ?? '';
    // The spec's own object, read only: a resize replaces it with a copy.
    this.allocated = spec.resources ?? {};
    this.actuated = this.allocated;
    this.state = { kind: 'waiting', reason: waitingReason };
  }

  readonly name: string;

  get sidecar(): boolean {
    return this.init && this.spec.restartPolicy === 'Always';
  }

  /** Added to the running pod through pods/ephemeralcontainers (kubectl debug). */
  ephemeral = false;

  /** What a previous kubelet applied, as its status shows it, stands (its allocation checkpoint). */
  adoptResources(status: Record<string, unknown> | undefined): void {
    const reported = status?.resources;
    if (!reported || typeof reported !== 'object') return;
    this.allocated = structuredClone(reported) as ContainerResources;
    this.actuated = this.allocated;
  }

  /** Whether an in-place resize may change it: a regular container or a sidecar. */
  get resizable(): boolean {
    return !this.ephemeral && (!this.init || this.sidecar);
  }

  get fieldPath(): string {
    const list = this.ephemeral ? 'ephemeralContainers' : this.init ? 'initContainers' : 'containers';
    return `spec.${list}{${this.name}}`;
  }

  cancelTimers(): void {
    for (const t of this.timers) t.cancel();
    this.timers = [];
    this.probeTimer?.cancel();
    this.probeTimer = undefined;
    this.imageWait?.timer.cancel();
    this.imageWait = undefined;
  }
}

export class SimPod {
  readonly uid: string;
  pod: KubeObject;
  terminal = false;
  sandboxReady = false;
  startTime: number | undefined;
  podIP: string | undefined;
  reason: string | undefined;
  message: string | undefined;
  /** Deletion seen: containers are stopping or stopped. */
  terminating = false;
  private ipHeld: string | undefined;
  private podTimer: TimerHandle | undefined;
  private pullStartedAt = 0;
  private stopDeadline: number | undefined;
  private deadlineTimer: TimerHandle | undefined;
  private failed = false;
  readonly initContainers: SimContainer[];
  readonly containers: SimContainer[];
  /** The ephemeral containers started so far, in the order they were added. */
  readonly ephemeralContainers: SimContainer[] = [];

  constructor(
    pod: KubeObject,
    readonly lifecycle: ResolvedLifecycle,
    private readonly host: PodHost,
  ) {
    this.pod = pod;
    this.uid = pod.metadata.uid ?? '';
    const inits: ContainerSpec[] = pod.spec?.initContainers ?? [];
    const waiting = inits.length > 0 ? 'PodInitializing' : 'ContainerCreating';
    this.initContainers = inits.map((c, i) => new SimContainer(c, true, i, waiting));
    this.containers = ((pod.spec?.containers ?? []) as ContainerSpec[]).map(
      (c, i) => new SimContainer(c, false, i, waiting),
    );
  }

  private get now(): number {
    return this.host.clock.now();
  }

  private get restartPolicy(): string {
    return this.pod.spec?.restartPolicy ?? 'Always';
  }

  /**
   * Why each regular container cannot be created yet (a ConfigMap, Secret or key its environment needs is missing:
   * upstream's CreateContainerConfigError), by name; set by the node before start() and on each retry.
   */
  private configErrors = new Map<string, string>();

  /** The pod is admitted but its volumes cannot be mounted yet: Pending, with its start time, nothing created. */
  holdForVolumes(): void {
    this.startTime ??= this.now;
    this.host.changed(this);
  }

  /** Sets what blocks which containers (see configErrors); used by start() and retryBlocked(). */
  setConfigErrors(errors: ReadonlyMap<string, string>): void {
    this.configErrors = new Map(errors);
  }

  /**
   * Tries the blocked containers again with the errors as they are now: those no longer blocked start, the others
   * report their error once more (a Failed event each time, as the kubelet's retries do).
   */
  retryBlocked(errors: ReadonlyMap<string, string>): void {
    if (this.terminal || this.terminating) return;
    this.setConfigErrors(errors);
    for (const c of this.containers) {
      if (c.state.kind !== 'waiting' || c.state.reason !== CONFIG_ERROR) continue;
      this.startRegular(c);
    }
    this.host.changed(this);
  }

  /** Starts the pod: the sandbox now, or after the lifecycle's startSeconds (reporting Pending meanwhile). */
  start(): void {
    this.startTime ??= this.now;
    this.pullStartedAt = this.now;
    this.watchDeadline();
    const delay = this.lifecycle.startSeconds * 1000;
    if (delay > 0) {
      this.podTimer = this.host.wheel.after(delay, () => this.createSandbox());
      this.host.changed(this);
    } else this.createSandbox();
  }

  /**
   * Takes over a pod a previous kubelet process started (its status shows running containers): the containers keep
   * their IDs, start times and restart counts, and follow the lifecycle from now on. False when there is nothing
   * to take over (the pod is then started afresh).
   */
  adopt(reserveIP: (ip: string) => boolean): boolean {
    const status = this.pod.status ?? {};
    const statuses: Record<string, unknown>[] = status.containerStatuses ?? [];
    if (status.phase !== 'Running' || statuses.length === 0) return false;
    const parse = (t: unknown) => (typeof t === 'string' ? Date.parse(t) : Number.NaN);
    const byName = new Map(statuses.map((s) => [s.name as string, s]));
    if (!this.containers.every((c) => byName.has(c.name))) return false;
    const startTime = parse(status.startTime);
    this.startTime = Number.isNaN(startTime) ? this.now : startTime;
    const podIP = typeof status.podIP === 'string' ? status.podIP : undefined;
    if (podIP && this.pod.spec?.hostNetwork !== true) {
      if (reserveIP(podIP)) this.ipHeld = podIP;
    }
    this.podIP = podIP ?? (this.pod.spec?.hostNetwork === true ? this.host.hostIP : undefined);
    this.sandboxReady = true;
    const initStatuses = new Map(
      ((status.initContainerStatuses ?? []) as Record<string, unknown>[]).map((s) => [s.name as string, s]),
    );
    for (const c of this.initContainers) {
      const s = initStatuses.get(c.name);
      c.image = normalizeImage(c.spec.image ?? '');
      c.imageID = imageIdOf(c.spec.image ?? '');
      c.created = true;
      c.containerID = typeof s?.containerID === 'string' ? s.containerID : newContainerId(`${this.uid}/${c.name}`);
      c.restartCount = typeof s?.restartCount === 'number' ? s.restartCount : 0;
      if (c.sidecar) {
        c.state = { kind: 'running', startedAt: this.startTime };
        c.started = true;
        c.ready = true;
        c.adoptResources(s);
      } else {
        c.state = {
          kind: 'terminated',
          exitCode: 0,
          reason: 'Completed',
          startedAt: this.startTime,
          finishedAt: this.startTime,
          containerID: c.containerID,
        };
        c.ready = true;
      }
    }
    for (const c of this.containers) {
      const s = byName.get(c.name) as Record<string, unknown>;
      const running = (s.state as { running?: { startedAt?: string } } | undefined)?.running;
      c.image = normalizeImage(c.spec.image ?? '');
      c.imageID = imageIdOf(c.spec.image ?? '');
      c.created = true;
      c.containerID = typeof s.containerID === 'string' ? s.containerID : newContainerId(`${this.uid}/${c.name}`);
      c.restartCount = typeof s.restartCount === 'number' ? s.restartCount : 0;
      const startedAt = parse(running?.startedAt);
      c.state = { kind: 'running', startedAt: Number.isNaN(startedAt) ? this.now : startedAt };
      c.started = true;
      c.adoptResources(s);
      c.ready = this.lifecycle.lifecycle !== 'never-ready';
      if (!c.ready) this.failReadiness(c);
      this.scheduleLifecycle(c);
    }
    this.allocatedView = undefined;
    this.host.changed(this);
    return true;
  }

  /** spec.activeDeadlineSeconds, counted from the pod's start on the node (upstream's activeDeadlineHandler). */
  private watchDeadline(): void {
    const seconds = this.pod.spec?.activeDeadlineSeconds;
    if (typeof seconds !== 'number' || seconds <= 0 || this.startTime === undefined) return;
    this.deadlineTimer = this.host.wheel.at(this.startTime + seconds * 1000, () => {
      if (this.terminal || this.terminating) return;
      const message = 'Pod was active on the node longer than the specified deadline';
      this.host.event(this.pod, undefined, 'Warning', 'DeadlineExceeded', message);
      this.reason = 'DeadlineExceeded';
      this.message = message;
      this.failed = true;
      this.podTimer?.cancel();
      for (const c of this.all()) {
        if (c.state.kind === 'running') {
          this.host.event(this.pod, c.fieldPath, 'Normal', 'Killing', `Stopping container ${c.name}`);
        }
      }
      this.stopAll(true);
    });
  }

  /** Marks the pod as refused by admission: it never runs. */
  reject(reason: string, message: string): void {
    this.startTime = this.now;
    this.terminal = true;
    this.reason = reason;
    this.message = `Pod was rejected: ${message}`;
    this.host.changed(this);
  }

  /** A newer version of the pod object; a deletionTimestamp starts the graceful stop. */
  update(pod: KubeObject): void {
    this.pod = pod;
    this.allocatedView = undefined;
    if (pod.metadata.deletionTimestamp) this.terminate();
    else {
      this.startEphemeral();
      this.retryChangedImages();
    }
  }

  /** A container waiting for an image the spec no longer names (kubectl set image) is tried at once, as a sync would. */
  private retryChangedImages(): void {
    let retried = false;
    for (const c of this.all()) {
      const wait = c.imageWait;
      if (!wait || (this.specNow(c)?.image ?? wait.image) === wait.image) continue;
      wait.timer.cancel();
      c.imageWait = undefined;
      c.pullBackoffMs = 0;
      wait.retry();
      retried = true;
    }
    if (retried) this.host.changed(this);
  }

  // ---- in-place resize (pods/resize) ----

  /** A resize the node cannot take (PodResizePending's reason and message), while the spec asks for it. */
  private resizePending: { reason: string; message: string } | undefined;
  private actuation: TimerHandle | undefined;
  private allocatedView: KubeObject | undefined;

  /**
   * The pod as the node has allocated it (upstream's allocated pod): its spec, with each resizable container's
   * resources as allocated — what it counts for beside other pods, whatever a resize not taken asks. The pod object
   * itself when nothing differs, so that what is remembered per object (its requests) stays.
   */
  allocatedPod(): KubeObject {
    if (this.allocatedView) return this.allocatedView;
    const spec = this.pod.spec ?? {};
    const differs = (c: SimContainer) => c.resizable && !semanticEqual(this.specNow(c)?.resources ?? {}, c.allocated);
    if (!this.all().some(differs)) {
      this.allocatedView = this.pod;
      return this.pod;
    }
    const allocated = (list: ContainerSpec[] | undefined, init: boolean) =>
      list?.map((spec) => {
        const c = (init ? this.initContainers : this.containers).find((x) => x.name === spec.name);
        return c?.resizable ? { ...spec, resources: c.allocated } : spec;
      });
    this.allocatedView = {
      ...this.pod,
      spec: {
        ...spec,
        containers: allocated(spec.containers, false),
        ...(spec.initContainers ? { initContainers: allocated(spec.initContainers, true) } : {}),
      },
    };
    return this.allocatedView;
  }

  /** The spec of a container as the pod object has it now. */
  private specNow(c: SimContainer): ContainerSpec | undefined {
    const list: ContainerSpec[] = (c.init ? this.pod.spec?.initContainers : this.pod.spec?.containers) ?? [];
    return list.find((s) => s.name === c.name);
  }

  /**
   * Whether the spec asks a container for other resources than it was allocated (upstream's allocation manager
   * compares the whole requirements); false once the pod is finished or stopping.
   */
  resizeRequested(): boolean {
    if (this.terminal || this.rejected) return false;
    return this.allocatedPod() !== this.pod;
  }

  /**
   * The node takes the resize: the containers are allocated what the spec asks, and the runtime applies it at its
   * next relist (the pod shows PodResizeInProgress meanwhile).
   */
  acceptResize(): void {
    this.resizePending = undefined;
    for (const c of this.all()) {
      if (!c.resizable) continue;
      c.allocated = resourcesOf(this.specNow(c));
      // A resize taken resets the container's crash-loop back-off, as upstream's kubelet does.
      c.backoffMs = 0;
    }
    this.allocatedView = undefined;
    this.actuation?.cancel();
    this.actuation = this.host.wheel.after(RELIST_MS, () => {
      this.actuation = undefined;
      for (const c of this.all()) {
        const restart = c.state.kind === 'running' && this.resizeRestarts(c);
        c.actuated = c.allocated;
        if (restart) this.restartForResize(c);
      }
      this.host.changed(this);
    });
    this.host.changed(this);
  }

  /**
   * Whether applying a container's new allocation needs it restarted: a cpu or memory value changed whose
   * resizePolicy is RestartContainer (upstream's computePodResizeAction; without a policy, NotRequired).
   */
  private resizeRestarts(c: SimContainer): boolean {
    if (!c.resizable || cpuMemorySame(c.allocated, c.actuated)) return false;
    const policies = this.specNow(c)?.resizePolicy ?? [];
    return ['cpu', 'memory'].some(
      (name) =>
        !sameAmounts(c.allocated, c.actuated, name) &&
        policies.find((p) => p.resourceName === name)?.restartPolicy === 'RestartContainer',
    );
  }

  /** Stops a container whose resize needs a restart, and starts it again at once with its new resources. */
  private restartForResize(c: SimContainer): void {
    const s = c.state;
    if (s.kind !== 'running') return;
    this.host.event(this.pod, c.fieldPath, 'Normal', 'Killing', `Container ${c.name} resize requires restart`);
    c.cancelTimers();
    c.log.end();
    const now = this.now;
    c.lastState = {
      kind: 'terminated',
      exitCode: 0,
      reason: 'Completed',
      startedAt: s.startedAt,
      finishedAt: now,
      containerID: c.containerID,
    };
    c.restartCount++;
    c.previousLog = c.log;
    c.log = new ContainerLog();
    this.launch(c, () => {
      if (!c.init) this.scheduleLifecycle(c);
    });
  }

  /** Starts c once its image is there, then runs started; tried again as the kubelet would while it is not. */
  private launch(c: SimContainer, started: () => void): void {
    if (!this.ensureImage(c, () => this.launch(c, started))) return;
    this.startContainer(c);
    started();
  }

  /** The node cannot take the resize now (Deferred) or at all (Infeasible); the pod keeps what it has. */
  holdResize(reason: string, message: string): void {
    if (this.resizePending?.reason === reason && this.resizePending.message === message) return;
    this.resizePending = { reason, message };
    this.host.changed(this);
  }

  /** The spec asks for what the containers have (again): no resize is pending. */
  settleResize(): void {
    if (!this.resizePending) return;
    this.resizePending = undefined;
    this.host.changed(this);
  }

  /** Whether a running resizable container does not run with the cpu and memory it was allocated yet. */
  private resizeInProgress(): boolean {
    return this.all().some((c) => c.resizable && c.state.kind === 'running' && !cpuMemorySame(c.allocated, c.actuated));
  }

  /**
   * Starts the ephemeral containers the pod has gained (kubectl debug), as the kubelet runs them: at once, in the
   * running sandbox, never ready and never restarted.
   */
  private startEphemeral(): void {
    if (this.terminal || this.terminating || !this.sandboxReady || this.rejected) return;
    const specs: ContainerSpec[] = this.pod.spec?.ephemeralContainers ?? [];
    let started = false;
    specs.forEach((spec, i) => {
      if (this.ephemeralContainers.some((c) => c.name === spec.name)) return;
      const c = new SimContainer(spec, false, i, 'ContainerCreating');
      c.ephemeral = true;
      this.ephemeralContainers.push(c);
      this.launch(c, () => {
        c.ready = false;
      });
      started = true;
    });
    if (started) this.host.changed(this);
  }

  /** Refused by admission: never ran. */
  get rejected(): boolean {
    return this.reason !== undefined && this.message?.startsWith('Pod was rejected: ') === true;
  }

  /** True while the pod counts against the node's resources. */
  get active(): boolean {
    return !this.terminal;
  }

  /** The runtime's view of the pod, for status/pod-status.ts. */
  runtimeStatus(): RuntimePodStatus {
    return {
      terminal: this.terminal,
      sandboxReady: this.sandboxReady,
      startTime: this.startTime,
      hostIP: this.host.hostIP,
      podIP: this.podIP,
      initContainers: this.rejected ? [] : this.initContainers,
      containers: this.rejected ? [] : this.containers,
      ephemeralContainers: this.rejected ? [] : this.ephemeralContainers,
      ...(this.reason ? { reason: this.reason } : {}),
      ...(this.message ? { message: this.message } : {}),
      ...(this.failed ? { failed: true } : {}),
      ...(this.resizePending && !this.terminal ? { resizePending: this.resizePending } : {}),
      ...(!this.terminal && this.resizeInProgress() ? { resizeInProgress: true } : {}),
    };
  }

  /** The log of a container's current run (previous: the run before its last restart). */
  logOf(container: string, previous = false): ContainerLog | undefined {
    const c = [...this.containers, ...this.initContainers, ...this.ephemeralContainers].find(
      (x) => x.name === container,
    );
    if (!c) return undefined;
    return previous ? c.previousLog : c.log;
  }

  /** The names of the containers, regular ones first. */
  containerNames(): string[] {
    return [...this.containers, ...this.initContainers, ...this.ephemeralContainers].map((c) => c.name);
  }

  /** The pod is gone from the API: stop everything and give the address back. */
  dispose(): void {
    this.podTimer?.cancel();
    this.actuation?.cancel();
    this.deadlineTimer?.cancel();
    for (const c of this.all()) {
      c.cancelTimers();
      c.log.end();
    }
    this.releaseIP();
  }

  private all(): SimContainer[] {
    return [...this.initContainers, ...this.containers, ...this.ephemeralContainers];
  }

  private releaseIP(): void {
    if (this.ipHeld !== undefined) this.host.releaseIP(this.ipHeld);
    this.ipHeld = undefined;
  }

  private createSandbox(): void {
    this.podTimer = undefined;
    if (this.terminating || this.terminal) return;
    if (this.pod.spec?.hostNetwork === true) this.podIP = this.host.hostIP;
    else {
      const ip = this.host.allocateIP();
      if (ip === undefined) {
        this.host.event(
          this.pod,
          undefined,
          'Warning',
          'FailedCreatePodSandBox',
          'Failed to create pod sandbox: failed to set up pod network: no IP addresses available in range set',
        );
        this.podTimer = this.host.wheel.after(10_000, () => this.createSandbox());
        return;
      }
      this.podIP = ip;
      this.ipHeld = ip;
    }
    this.sandboxReady = true;
    if (this.initContainers.length > 0) this.runInit(0);
    else this.startRegulars();
    this.host.changed(this);
  }

  private runInit(from: number): void {
    for (let i = from; i < this.initContainers.length; i++) {
      const c = this.initContainers[i] as SimContainer;
      // Later init containers wait for this one's image.
      if (!this.ensureImage(c, () => this.runInit(i))) return;
      this.startContainer(c);
      if (c.sidecar) continue;
      c.timers.push(this.host.wheel.after(this.lifecycle.initSeconds * 1000, () => this.exit(c, 0)));
      return;
    }
    this.startRegulars();
  }

  private startRegulars(): void {
    for (const c of this.containers) this.startRegular(c);
  }

  /**
   * Starts a regular container once its image is there, unless its configuration cannot be made: then it waits, as
   * upstream's does.
   */
  private startRegular(c: SimContainer): void {
    // The image comes first (a retry of the configuration does not pull again); the configuration is what fails.
    const configRetry = c.state.kind === 'waiting' && c.state.reason === CONFIG_ERROR;
    if (!configRetry && !this.ensureImage(c, () => this.startRegular(c))) return;
    const error = this.configErrors.get(c.name);
    if (error === undefined) {
      this.startContainer(c);
      this.scheduleLifecycle(c);
      return;
    }
    c.state = { kind: 'waiting', reason: CONFIG_ERROR, message: error };
    this.host.event(this.pod, c.fieldPath, 'Warning', 'Failed', `Error: ${error}`);
  }

  private scheduleLifecycle(c: SimContainer): void {
    const { lifecycle, exitCode, runSeconds } = this.lifecycle;
    if (lifecycle === 'run' || lifecycle === 'never-ready') return;
    c.timers.push(this.host.wheel.after(runSeconds * 1000, () => this.exit(c, exitCode)));
  }

  /**
   * The kubelet's EnsureImageExists for c, with its events: true when the image is there (present, or pulled now).
   * Otherwise c waits with upstream's reason and message — InvalidImageName for a reference that does not parse,
   * ErrImageNeverPull for an absent image under pull policy Never, ErrImagePull for a pull that failed and
   * ImagePullBackOff until its back-off (10 s doubling to 5 min, per container) is over — and `retry` runs when the
   * kubelet would sync the pod again.
   */
  private ensureImage(c: SimContainer, retry: () => void): boolean {
    const spec = this.specNow(c) ?? c.spec;
    const image = spec.image ?? '';
    const q = JSON.stringify;
    const invalid = imageReferenceError(image);
    if (invalid !== undefined) {
      const message = `Failed to apply default image tag ${q(image)}: couldn't parse image name ${q(image)}: ${invalid}`;
      this.host.event(this.pod, c.fieldPath, 'Warning', 'InspectFailed', message);
      return this.imageMissing(c, image, 'InvalidImageName', message, RESYNC_MS, retry);
    }
    const policy = spec.imagePullPolicy ?? 'IfNotPresent';
    if (policy !== 'Always' && this.host.imagePresent(image)) {
      this.host.event(
        this.pod,
        c.fieldPath,
        'Normal',
        'Pulled',
        `Container image ${q(image)} already present on machine`,
      );
      this.pullStartedAt = this.now;
      return true;
    }
    if (policy === 'Never') {
      const message = `Container image ${q(image)} is not present with pull policy of Never`;
      this.host.event(this.pod, c.fieldPath, 'Warning', 'ErrImageNeverPull', message);
      return this.imageMissing(c, image, 'ErrImageNeverPull', message, RESYNC_MS, retry);
    }
    const now = this.now;
    const backoffLeft = c.pullBackoffUpdatedAt + c.pullBackoffMs - now;
    if (c.pullBackoffMs > 0 && backoffLeft > 0) {
      const backOff = `Back-off pulling image ${q(image)}`;
      this.host.event(this.pod, c.fieldPath, 'Normal', 'BackOff', backOff);
      const message = c.pullError ? `${backOff}: ${c.pullError}` : backOff;
      return this.imageMissing(c, image, 'ImagePullBackOff', message, Math.min(RESYNC_MS, backoffLeft), retry);
    }
    this.host.event(this.pod, c.fieldPath, 'Normal', 'Pulling', `Pulling image ${q(image)}`);
    if ((this.host.imagePullOf?.(this.pod) ?? this.lifecycle.imagePull) === 'fail') {
      // containerd's answer for a reference its registry does not have.
      const ref = normalizeImage(image);
      const error = `rpc error: code = NotFound desc = failed to pull and unpack image ${q(ref)}: failed to resolve reference ${q(ref)}: ${ref}: not found`;
      this.host.event(this.pod, c.fieldPath, 'Warning', 'Failed', `Failed to pull image ${q(image)}: ${error}`);
      const expired = now - c.pullBackoffUpdatedAt > 2 * MAX_BACKOFF_MS;
      c.pullBackoffMs =
        c.pullBackoffMs === 0 || expired ? INITIAL_BACKOFF_MS : Math.min(MAX_BACKOFF_MS, c.pullBackoffMs * 2);
      c.pullBackoffUpdatedAt = now;
      c.pullError = `ErrImagePull: ${error}`;
      return this.imageMissing(c, image, 'ErrImagePull', error, RELIST_MS, retry);
    }
    const took = formatGoDuration(Math.max(0, now - this.pullStartedAt));
    this.host.event(
      this.pod,
      c.fieldPath,
      'Normal',
      'Pulled',
      `Successfully pulled image ${q(image)} in ${took} (${took} including waiting). Image size: ${imageSizeOf(image)} bytes.`,
    );
    this.host.imagePulled(image);
    c.pullBackoffMs = 0;
    c.pullError = '';
    this.pullStartedAt = now;
    return true;
  }

  /** c waits for its image (reason, message, with upstream's `Error: <reason>` event); retry runs after delayMs. */
  private imageMissing(
    c: SimContainer,
    image: string,
    reason: string,
    message: string,
    delayMs: number,
    retry: () => void,
  ): false {
    c.state = { kind: 'waiting', reason, message };
    this.host.event(this.pod, c.fieldPath, 'Warning', 'Failed', `Error: ${reason}`);
    c.imageWait?.timer.cancel();
    const timer = this.host.wheel.after(delayMs, () => {
      c.imageWait = undefined;
      if (this.terminal || this.terminating) return;
      retry();
      this.host.changed(this);
    });
    c.imageWait = { image, timer, retry };
    return false;
  }

  /** Creates and starts c, its image there. */
  private startContainer(c: SimContainer): void {
    const image = (this.specNow(c) ?? c.spec).image ?? '';
    c.image = normalizeImage(image);
    c.imageID = imageIdOf(image);
    c.containerID = newContainerId(`${this.uid}/${c.name}`);
    c.created = true;
    this.host.event(this.pod, c.fieldPath, 'Normal', 'Created', `Created container: ${c.name}`);
    this.host.event(this.pod, c.fieldPath, 'Normal', 'Started', `Started container ${c.name}`);
    const now = this.now;
    c.state = { kind: 'running', startedAt: now };
    c.started = true;
    for (const line of this.lifecycle.logs) c.log.write(now, line);
    if (c.init && !c.sidecar) c.ready = false;
    else if (this.lifecycle.lifecycle === 'never-ready' && !c.sidecar) {
      c.ready = false;
      this.failReadiness(c);
    } else {
      const delay = (c.spec.readinessProbe?.initialDelaySeconds ?? 0) * 1000;
      if (delay > 0) {
        c.ready = false;
        c.timers.push(
          this.host.wheel.after(delay, () => {
            if (c.state.kind !== 'running') return;
            c.ready = true;
            this.host.changed(this);
          }),
        );
      } else c.ready = true;
    }
  }

  /**
   * A never-ready container's readiness probe fails every period from its initial delay (the first one at once when
   * there is none), each failure a Warning Unhealthy event as upstream's prober records it. Without a probe there is
   * nothing to fail: the container is just not ready.
   */
  private failReadiness(c: SimContainer): void {
    const probe = c.spec.readinessProbe;
    if (!probe) return;
    const period = Math.max(1, probe.periodSeconds ?? PROBE_PERIOD_SECONDS) * 1000;
    const fail = () => {
      if (c.state.kind !== 'running' || this.terminating) return;
      const output = probeFailureOutput(probe, this.podIP, c.spec);
      this.host.event(this.pod, c.fieldPath, 'Warning', 'Unhealthy', `Readiness probe failed: ${output}`);
      c.probeTimer = this.host.wheel.after(period, fail);
    };
    c.probeTimer = this.host.wheel.after(Math.max(0, probe.initialDelaySeconds ?? 0) * 1000, fail);
  }

  private exit(c: SimContainer, exitCode: number, reason?: string): void {
    if (c.state.kind !== 'running') return;
    c.cancelTimers();
    const now = this.now;
    c.state = {
      kind: 'terminated',
      exitCode,
      reason: reason ?? (exitCode === 0 ? 'Completed' : 'Error'),
      startedAt: c.state.startedAt,
      finishedAt: now,
      containerID: c.containerID,
    };
    c.ready = c.init && !c.sidecar && exitCode === 0;
    c.started = false;
    c.log.end();
    if (c.init && !c.sidecar) {
      if (exitCode === 0) this.runInit(c.index + 1);
      else if (this.restartPolicy !== 'Never') this.scheduleRestart(c);
      else this.finish();
    } else {
      const policy = c.sidecar ? 'Always' : this.restartPolicy;
      if (policy === 'Always' || (policy === 'OnFailure' && exitCode !== 0)) this.scheduleRestart(c);
      else if (this.containers.every((x) => x.state.kind === 'terminated')) this.finish();
    }
    this.host.changed(this);
  }

  private scheduleRestart(c: SimContainer): void {
    c.timers.push(this.host.wheel.after(RELIST_MS, () => this.restartOrBackOff(c)));
  }

  /** Upstream's doBackOff: restart at once unless the last exit is within the current back-off window. */
  private restartOrBackOff(c: SimContainer): void {
    if (this.terminating || this.terminal) return;
    const now = this.now;
    const last = c.state.kind === 'terminated' ? c.state : c.lastState;
    const finishedAt = last?.finishedAt ?? now;
    if (c.backoffMs > 0 && finishedAt - c.backoffUpdatedAt > 2 * MAX_BACKOFF_MS) c.backoffMs = 0;
    if (c.backoffMs > 0 && now - finishedAt < c.backoffMs) {
      if (c.state.kind === 'terminated') c.lastState = c.state;
      const message = `back-off ${formatGoDuration(c.backoffMs)} restarting failed container=${c.name} pod=${formatPod(this.pod)}`;
      c.state = { kind: 'waiting', reason: 'CrashLoopBackOff', message };
      this.host.event(
        this.pod,
        c.fieldPath,
        'Warning',
        'BackOff',
        `Back-off restarting failed container ${c.name} in pod ${formatPod(this.pod)}`,
      );
      c.timers.push(this.host.wheel.at(finishedAt + c.backoffMs, () => this.restartOrBackOff(c)));
      this.host.changed(this);
      return;
    }
    c.backoffMs = c.backoffMs > 0 ? Math.min(MAX_BACKOFF_MS, c.backoffMs * 2) : INITIAL_BACKOFF_MS;
    c.backoffUpdatedAt = now;
    if (c.state.kind === 'terminated') c.lastState = c.state;
    this.pullStartedAt = now;
    if (this.ensureImage(c, () => this.restartOrBackOff(c))) {
      c.restartCount++;
      c.previousLog = c.log;
      c.log = new ContainerLog();
      this.startContainer(c);
      if (c.init && !c.sidecar) {
        c.timers.push(this.host.wheel.after(this.lifecycle.initSeconds * 1000, () => this.exit(c, 0)));
      } else if (!c.init) this.scheduleLifecycle(c);
    }
    this.host.changed(this);
  }

  /** The pod is done under its restart policy: stop the sidecars and tear the sandbox down. */
  private finish(): void {
    const now = this.now;
    for (const c of this.initContainers) {
      if (!c.sidecar || c.state.kind !== 'running') continue;
      this.host.event(this.pod, c.fieldPath, 'Normal', 'Killing', `Stopping container ${c.name}`);
      c.cancelTimers();
      c.state = {
        kind: 'terminated',
        exitCode: 0,
        reason: 'Completed',
        startedAt: c.state.startedAt,
        finishedAt: now,
        containerID: c.containerID,
      };
      c.ready = false;
      c.started = false;
      c.log.end();
    }
    this.terminal = true;
    this.sandboxReady = false;
    this.podTimer?.cancel();
    this.deadlineTimer?.cancel();
    this.releaseIP();
  }

  /**
   * Graceful deletion: Killing events at once, the containers stopped after the lifecycle's stopSeconds or at the
   * end of the grace period (exit code 137 when the grace period ran out, as a SIGKILL gives).
   */
  private terminate(): void {
    if (this.terminal) return;
    const grace = Math.max(0, this.pod.metadata.deletionGracePeriodSeconds ?? 0);
    const stop = Math.min(grace, this.lifecycle.stopSeconds ?? grace);
    const deadline = this.now + stop * 1000;
    if (this.terminating) {
      if (this.stopDeadline !== undefined && deadline < this.stopDeadline) this.scheduleStop(deadline, stop >= grace);
      return;
    }
    this.terminating = true;
    this.podTimer?.cancel();
    let running = 0;
    for (const c of this.all()) {
      c.cancelTimers();
      if (c.state.kind !== 'running') continue;
      running++;
      this.host.event(this.pod, c.fieldPath, 'Normal', 'Killing', `Stopping container ${c.name}`);
    }
    if (running === 0 || stop === 0) this.stopAll(stop >= grace && grace > 0 && running > 0);
    else this.scheduleStop(deadline, stop >= grace);
  }

  private scheduleStop(deadline: number, killed: boolean): void {
    this.podTimer?.cancel();
    this.stopDeadline = deadline;
    this.podTimer = this.host.wheel.at(deadline, () => this.stopAll(killed));
  }

  private stopAll(killed: boolean): void {
    this.podTimer = undefined;
    const now = this.now;
    for (const c of this.all()) {
      c.cancelTimers();
      const s = c.state;
      if (s.kind === 'running') {
        c.state = {
          kind: 'terminated',
          exitCode: killed ? 137 : 0,
          reason: killed ? 'Error' : 'Completed',
          startedAt: s.startedAt,
          finishedAt: now,
          containerID: c.containerID,
        };
      } else if (s.kind === 'waiting') {
        if (c.lastState) {
          c.state = c.lastState;
          c.lastState = undefined;
        } else {
          c.state = {
            kind: 'terminated',
            exitCode: 137,
            reason: 'ContainerStatusUnknown',
            message: 'The container could not be located when the pod was terminated',
            startedAt: now,
            finishedAt: now,
            containerID: '',
          };
        }
      }
      c.ready = false;
      c.started = false;
      c.log.end();
    }
    this.terminal = true;
    this.sandboxReady = false;
    this.deadlineTimer?.cancel();
    this.releaseIP();
    this.host.changed(this);
  }
}
