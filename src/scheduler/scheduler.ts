/**
 * kube-scheduler (upstream's pkg/scheduler Scheduler and cmd/kube-scheduler's Run): informers feed the cache
 * (nodes, bound pods) and the queue (unscheduled pods of its profiles); while it leads (leader election on the
 * kube-system/kube-scheduler Lease, when on), it pops pods one at a time and schedules them (schedule-one.ts).
 * Losing the lease stops scheduling; the scheduler campaigns again and resumes when it leads once more.
 *
 * It serves /healthz, /livez, /readyz, /metrics and /debug/verdicts/<ns>/<pod> on its secure port when asked.
 */
import { performance } from 'node:perf_hooks';
import { gvrKey, SharedInformerFactory } from '../client/cache/factory.js';
import type { ResourceEventHandlerRegistration } from '../client/cache/processor.js';
import type { SharedIndexInformer } from '../client/cache/shared-informer.js';
import { waitForCacheSync } from '../client/cache/wait-for-cache-sync.js';
import { EventBroadcaster, type EventRecorder } from '../client/events/broadcaster.js';
import { defaultIdentity, LeaderElector } from '../client/leader-election.js';
import type { KubeClient } from '../client/rest.js';
import type { KubeObject, ListerWatcher, ListOptions } from '../client/types.js';
import { sharedAbortController } from '../util/abort.js';
import { type Clock, realClock } from '../util/clock.js';
import { type Logger, silentLogger } from '../util/logger.js';
import { SchedulerCache } from './cache/cache.js';
import { Snapshot } from './cache/snapshot.js';
import { defaultConfiguration } from './config/defaults.js';
import type { KubeSchedulerConfiguration, KubeSchedulerProfile } from './config/types.js';
import { clusterEventHandler, nodeEventHandler, podEventHandler } from './event-handlers.js';
import type { EventResource, Node, Pod } from './framework/types.js';
import { SchedulerMetrics } from './metrics.js';
import { newProfileMap, type ProfileMap } from './profile/profile.js';
import { type QueueingHintEntry, SchedulingQueue } from './queue/scheduling-queue.js';
import type { PluginRegistry } from './runtime/framework.js';
import { ScheduleOne } from './schedule-one.js';
import { SchedulerServer, type SecureServingOptions } from './server.js';
import { type PodVerdicts, VerdictStore } from './verdicts.js';

export const PODS = { group: '', version: 'v1', resource: 'pods' } as const;
export const NODES = { group: '', version: 'v1', resource: 'nodes' } as const;
/** The other resources whose changes plugins may register for, watched only when some plugin does. */
const OTHER_EVENT_RESOURCES: readonly [EventResource, { group: string; version: string; resource: string }][] = [
  ['PersistentVolume', { group: '', version: 'v1', resource: 'persistentvolumes' }],
  ['PersistentVolumeClaim', { group: '', version: 'v1', resource: 'persistentvolumeclaims' }],
  ['StorageClass', { group: 'storage.k8s.io', version: 'v1', resource: 'storageclasses' }],
];
/** How long the scheduling loop may keep the event loop before it lets other work in (ms). */
const SCHEDULING_SLICE_MS = 10;

/** The scheduler watches only pods that may still run (upstream's pod informer field selector). */
export const NON_TERMINAL_POD_SELECTOR = 'status.phase!=Succeeded,status.phase!=Failed';

export interface SchedulerOptions {
  client: KubeClient;
  /** Plugin name → factory (src/scheduler/plugins/registry.ts, or stubs in tests). */
  registry: PluginRegistry;
  /** The configuration; kube-scheduler's defaults (one default-scheduler profile) when absent. */
  config?: KubeSchedulerConfiguration;
  /** Replaces config.profiles. */
  profiles?: KubeSchedulerProfile[];
  clock?: Clock;
  logger?: Logger;
  /** Overrides config.leaderElection.leaderElect. */
  leaderElect?: boolean;
  /** The leader election identity (default `<hostname>_<uuid>`). */
  identity?: string;
  /** Serve the secure port (absent: no server). */
  secureServing?: SecureServingOptions;
  /** How many pods' last attempts are kept for /debug/verdicts (default 500). */
  verdictCapacity?: number;
  /** --pod-max-in-unschedulable-pods-duration (default 5 min). */
  podMaxInUnschedulablePodsMs?: number;
  /** How long an assumed pod may stay unconfirmed after its binding (default 0: forever, as upstream). */
  assumedPodTtlMs?: number;
  /** For tie breaks between equally scored nodes. */
  random?: () => number;
  /** Give the Lease up on stop, so another scheduler takes over at once (default true; false acts like a crash). */
  releaseLeaseOnStop?: boolean;
}

/** Drops what the scheduler never reads and makes sure each object says what it is (events need kind). */
function slim(kind: string) {
  return <T extends KubeObject>(obj: T): T => {
    if (obj.metadata?.managedFields === undefined && obj.kind) return obj;
    const { managedFields: _m, ...metadata } = obj.metadata ?? {};
    return { ...obj, apiVersion: obj.apiVersion ?? 'v1', kind: obj.kind ?? kind, metadata };
  };
}

export class Scheduler {
  readonly identity: string;
  readonly config: KubeSchedulerConfiguration;
  readonly clock: Clock;
  readonly verdicts: VerdictStore;
  private readonly log: Logger;
  private readonly client: KubeClient;
  private readonly registry: PluginRegistry;
  private readonly leaderElect: boolean;
  private readonly stopping = sharedAbortController();
  private started = false;
  private leading = false;
  private elector: LeaderElector | undefined;
  private running: Promise<void> | undefined;
  private loops = new Set<Promise<void>>();
  private synced = false;

  informers!: SharedInformerFactory;
  profiles!: ProfileMap;
  queue!: SchedulingQueue;
  cache!: SchedulerCache;
  metrics!: SchedulerMetrics;
  private snapshot = new Snapshot();
  private broadcaster!: EventBroadcaster;
  private scheduleOne!: ScheduleOne;
  private podInformer!: SharedIndexInformer<Pod>;
  private registrations: ResourceEventHandlerRegistration[] = [];
  private server: SchedulerServer | undefined;

  constructor(private readonly opts: SchedulerOptions) {
    this.client = opts.client;
    this.registry = opts.registry;
    this.clock = opts.clock ?? realClock;
    this.log = opts.logger ?? silentLogger;
    const config = opts.config ?? defaultConfiguration();
    this.config = opts.profiles ? { ...config, profiles: opts.profiles } : config;
    this.leaderElect = opts.leaderElect ?? this.config.leaderElection.leaderElect;
    this.identity = opts.identity ?? defaultIdentity();
    this.verdicts = new VerdictStore(opts.verdictCapacity);
  }

  /**
   * Builds the profiles, starts the informers and waits for their caches, starts the secure port, then schedules
   * (after winning the election, when leader election is on). Resolves once the caches have synced.
   */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    const signal = this.stopping.signal;
    this.informers = new SharedInformerFactory({
      client: this.client,
      clock: this.clock,
      logger: this.log.child('informers'),
    });
    const podsClient = this.client.resource<Pod>(PODS);
    const podsLw: ListerWatcher<Pod> = {
      list: (o?: ListOptions) => podsClient.list({ ...o, fieldSelector: NON_TERMINAL_POD_SELECTOR }),
      watch: (o?: ListOptions) => podsClient.watch({ ...o, fieldSelector: NON_TERMINAL_POD_SELECTOR }),
    };
    this.podInformer = this.informers.forResource<Pod>(gvrKey(PODS), podsLw, { transform: slim('Pod') });
    const nodeInformer = this.informers.forGroupVersionResource<Node>(NODES, { transform: slim('Node') });

    this.broadcaster = new EventBroadcaster({
      sink: this.client.events(),
      clock: this.clock,
      logger: this.log.child('events'),
    });
    const recorders = new Map<string, EventRecorder>();
    for (const p of this.config.profiles) recorders.set(p.schedulerName, this.broadcaster.recorder(p.schedulerName));

    this.profiles = newProfileMap(this.config.profiles, this.registry, (profile) => ({
      client: this.client,
      clock: this.clock,
      logger: this.log.child(profile.schedulerName),
      recorder: recorders.get(profile.schedulerName) as EventRecorder,
      snapshot: () => this.snapshot,
      nominatedPodsForNode: (nodeName: string) => this.queue.nominatedPodsForNode(nodeName),
      hasNominatedPods: () => this.queue.nominator.size > 0,
      informers: this.informers,
    }));
    const first = [...this.profiles.values()][0];
    if (!first) throw new Error('at least one profile is required');
    const preEnqueue = new Map([...this.profiles].map(([name, fwk]) => [name, fwk.preEnqueuePlugins]));
    const hints = new Map<string, QueueingHintEntry[]>(
      [...this.profiles].map(([name, fwk]) => [name, fwk.queueingHints()]),
    );
    this.queue = new SchedulingQueue({
      less: (a, b) => first.less(a, b),
      clock: this.clock,
      logger: this.log.child('queue'),
      podInitialBackoffMs: this.config.podInitialBackoffSeconds * 1000,
      podMaxBackoffMs: this.config.podMaxBackoffSeconds * 1000,
      ...(this.opts.podMaxInUnschedulablePodsMs !== undefined
        ? { podMaxInUnschedulablePodsMs: this.opts.podMaxInUnschedulablePodsMs }
        : {}),
      preEnqueuePlugins: preEnqueue,
      queueingHints: hints,
      isStillPending: (pod) => {
        const current = this.getPod(pod.metadata?.namespace ?? '', pod.metadata?.name ?? '');
        return current !== undefined && !current.spec?.nodeName;
      },
    });
    this.cache = new SchedulerCache({
      clock: this.clock,
      logger: this.log.child('cache'),
      ...(this.opts.assumedPodTtlMs !== undefined ? { assumedPodTtlMs: this.opts.assumedPodTtlMs } : {}),
    });
    this.metrics = new SchedulerMetrics(() => this.queue.pendingCounts());
    this.scheduleOne = new ScheduleOne({
      cache: this.cache,
      queue: this.queue,
      snapshot: this.snapshot,
      profiles: this.profiles,
      recorders,
      client: this.client,
      clock: this.clock,
      logger: this.log,
      metrics: this.metrics,
      verdicts: this.verdicts,
      percentageOfNodesToScore: this.config.percentageOfNodesToScore ?? 0,
      getPod: (ns, name) => this.getPod(ns, name),
      ...(this.opts.random ? { random: this.opts.random } : {}),
    });

    const deps = { cache: this.cache, queue: this.queue, profiles: this.profiles, logger: this.log };
    this.registrations.push(nodeInformer.addEventHandler(nodeEventHandler(deps)));
    this.registrations.push(this.podInformer.addEventHandler(podEventHandler(deps)));
    const registered = new Set([...hints.values()].flatMap((entries) => entries.map((e) => e.event.resource)));
    for (const [resource, gvr] of OTHER_EVENT_RESOURCES) {
      if (!registered.has(resource)) continue;
      const informer = this.informers.forGroupVersionResource(gvr);
      this.registrations.push(informer.addEventHandler(clusterEventHandler(resource, deps)));
    }

    if (this.opts.secureServing) {
      this.server = new SchedulerServer(this.opts.secureServing, {
        livez: this.leaderElect ? { leaderElection: () => this.elector?.check(20_000)?.message ?? true } : {},
        readyz: { 'sched-handler-sync': () => (this.synced ? true : 'waiting for handlers to sync') },
        metrics: this.metrics.registry,
        verdicts: (ns, name) => this.verdictsFor(ns, name),
      });
      await this.server.start();
    }

    this.informers.start();
    await this.informers.waitForCacheSync(signal);
    this.synced = await waitForCacheSync(signal, ...this.registrations);
    if (signal.aborted) return;
    this.queue.run();
    this.cache.run();
    this.running = this.leaderElect ? this.campaign(signal) : this.runLoop(signal);
    this.log.info('Scheduler started', { identity: this.identity, leaderElect: this.leaderElect });
  }

  /** Stops scheduling (giving up the lease), waits for bindings in flight, stops the informers and the server. */
  async stop(): Promise<void> {
    this.stopping.abort();
    if (!this.started) return;
    this.queue?.close();
    await this.running;
    await Promise.allSettled([...this.loops]);
    await this.scheduleOne?.drain();
    this.cache?.stop();
    await this.informers?.shutdown();
    await this.broadcaster?.shutdown();
    await this.server?.stop();
  }

  /** Whether this scheduler schedules now (always, without leader election, once started). */
  isLeader(): boolean {
    return this.leading;
  }

  /** The pod's last scheduling attempt, as /debug/verdicts serves it. */
  verdictsFor(namespace: string, name: string): PodVerdicts | undefined {
    return this.verdicts.get(namespace, name);
  }

  /** https://host:port of the secure port, once started with secureServing. */
  get url(): string | undefined {
    return this.server?.url;
  }

  /** The pod as the informer has it now. */
  getPod(namespace: string, name: string): Pod | undefined {
    return this.podInformer?.getIndexer().getByKey(`${namespace}/${name}`);
  }

  // --- running ---------------------------------------------------------------------------------------------

  private async campaign(signal: AbortSignal): Promise<void> {
    const le = this.config.leaderElection;
    while (!signal.aborted) {
      const elector = new LeaderElector({
        leases: this.client.leases(le.resourceNamespace),
        lockName: le.resourceName,
        lockNamespace: le.resourceNamespace,
        identity: this.identity,
        leaseDurationMs: le.leaseDurationMs,
        renewDeadlineMs: le.renewDeadlineMs,
        retryPeriodMs: le.retryPeriodMs,
        clock: this.clock,
        logger: this.log.child('leaderelection'),
        releaseOnCancel: this.opts.releaseLeaseOnStop ?? true,
        eventRecorder: this.broadcaster.recorder(this.config.profiles[0]?.schedulerName ?? 'default-scheduler'),
        onStartedLeading: (leading) => {
          const loop = this.runLoop(leading);
          this.loops.add(loop);
          void loop.finally(() => this.loops.delete(loop));
        },
        onStoppedLeading: () => {
          if (this.leading) this.log.info('leaderelection lost', { identity: this.identity });
          this.leading = false;
        },
      });
      this.elector = elector;
      await elector.run(signal);
      if (signal.aborted) break;
      await new Promise<void>((resolve) => {
        const t = this.clock.after(le.retryPeriodMs, resolve);
        signal.addEventListener(
          'abort',
          () => {
            t.cancel();
            resolve();
          },
          { once: true },
        );
      });
    }
  }

  /** Pops and schedules pods until signal aborts. */
  private async runLoop(signal: AbortSignal): Promise<void> {
    this.leading = true;
    let sliceStart = performance.now();
    try {
      while (!signal.aborted) {
        const qp = await this.queue.pop(signal);
        if (!qp) break;
        if (signal.aborted) {
          this.queue.restore(qp);
          break;
        }
        let bound = false;
        try {
          bound = await this.scheduleOne.scheduleOne(qp);
        } catch (err) {
          this.log.error('scheduling attempt failed', { err: String(err) });
        }
        // Let informer events (and whatever else shares the process) in between pods, as upstream's goroutines
        // would. While pods keep going to binding, only after a slice of a few milliseconds, so that a scheduler
        // sharing its process with an apiserver, controllers and kubelets still gets its turn often enough; after
        // every failed attempt, and whenever no pod is ready in activeQ, at once, so that what the attempt set off
        // (a preemption's deletions) and the events that may change the next pod's fate are seen first.
        if (!bound || this.queue.activeCount() === 0 || performance.now() - sliceStart >= SCHEDULING_SLICE_MS) {
          await new Promise<void>((resolve) => setImmediate(resolve));
          sliceStart = performance.now();
        }
      }
    } finally {
      this.leading = false;
    }
  }
}
