/**
 * kube-controller-manager: runs the enabled controllers over one set of shared informers, under leader election on
 * the `kube-system/kube-controller-manager` Lease when --leader-elect is on. Losing the lease stops every controller
 * (their signal aborts); a new term starts them again with fresh caches. The informers and leader election use the
 * manager's own client; each controller writes with it too, or with --use-service-account-credentials with the
 * client of its own ServiceAccount (and records its events with that client, as upstream's controllers do).
 */
import { Gauge, Registry } from 'prom-client';
import { dropManagedFields, SharedInformerFactory } from '../client/cache/factory.js';
import { EventBroadcaster } from '../client/events/broadcaster.js';
import { defaultIdentity, LeaderElector } from '../client/leader-election.js';
import type { KubeClient } from '../client/rest.js';
import { sharedAbortController } from '../util/abort.js';
import { type Clock, realClock } from '../util/clock.js';
import { type Logger, silentLogger } from '../util/logger.js';
import type { Controller, ControllerContext, ControllerDescriptor } from './context.js';
import { isControllerEnabled, validateControllerSelection } from './names.js';
import { type ControllerManagerOptions, DEFAULT_CONTROLLER_MANAGER_OPTIONS } from './options.js';
import { ControllerClientBuilder } from './service-account-credentials.js';

export interface ControllerManagerConfig {
  client: KubeClient;
  /** The controllers this build has, in start order. */
  descriptors: readonly ControllerDescriptor[];
  options?: Partial<ControllerManagerOptions>;
  clock?: Clock;
  logger?: Logger;
  /** The leader election identity (default `<hostname>_<uuid>`). */
  identity?: string;
}

export class ControllerManager {
  readonly options: ControllerManagerOptions;
  readonly identity: string;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly stopping = sharedAbortController();
  private running: Promise<void> | undefined;
  private leading = false;
  private elector: LeaderElector | undefined;
  /** With --use-service-account-credentials: the controllers' clients, made on first use, kept across terms. */
  private clientBuilder: ControllerClientBuilder | undefined;
  /** Names of the controllers running now. */
  readonly active = new Set<string>();
  /** /metrics of the controller manager: leader status and the controllers running, with upstream's names. */
  readonly metrics = new Registry();

  constructor(private readonly config: ControllerManagerConfig) {
    this.options = { ...DEFAULT_CONTROLLER_MANAGER_OPTIONS, ...config.options };
    const errors = validateControllerSelection(this.options.controllers);
    if (errors.length > 0) throw new Error(`validation failed for '--controllers': [${errors.join(', ')}]`);
    this.clock = config.clock ?? realClock;
    this.log = config.logger ?? silentLogger;
    this.identity = config.identity ?? defaultIdentity();
    new Gauge({
      name: 'leader_election_master_status',
      help: 'Whether this process leads (1) or not (0).',
      labelNames: ['name'],
      registers: [this.metrics],
      collect: () => {
        const g = this.metrics.getSingleMetric('leader_election_master_status') as Gauge;
        g.set({ name: this.options.leaderElectResourceName }, this.leading ? 1 : 0);
      },
    });
    new Gauge({
      name: 'running_managed_controllers',
      help: 'The controllers this manager runs now.',
      labelNames: ['manager', 'name'],
      registers: [this.metrics],
      collect: () => {
        const g = this.metrics.getSingleMetric('running_managed_controllers') as Gauge;
        g.reset();
        for (const name of this.active) g.set({ manager: 'kube-controller-manager', name }, 1);
      },
    });
  }

  /** Health checks for the secure port: leader election (a leader whose lease expired long ago is unhealthy). */
  healthChecks(): Record<string, () => boolean | string> {
    return {
      leaderElection: () => {
        const err = this.elector?.check(20_000);
        return err ? err.message : true;
      },
    };
  }

  /** The descriptors that --controllers turns on. */
  enabledDescriptors(): ControllerDescriptor[] {
    return this.config.descriptors.filter((d) => isControllerEnabled(d.name, this.options.controllers));
  }

  /** Starts campaigning (or, without leader election, the controllers); returns at once. */
  start(): void {
    if (this.running) return;
    const o = this.options;
    if (!o.leaderElect) {
      this.leading = true;
      this.running = this.runControllers(this.stopping.signal);
      return;
    }
    const leases = this.config.client.leases(o.leaderElectResourceNamespace);
    this.elector = new LeaderElector({
      leases,
      lockName: o.leaderElectResourceName,
      lockNamespace: o.leaderElectResourceNamespace,
      identity: this.identity,
      leaseDurationMs: o.leaderElectLeaseDurationMs,
      renewDeadlineMs: o.leaderElectRenewDeadlineMs,
      retryPeriodMs: o.leaderElectRetryPeriodMs,
      clock: this.clock,
      logger: this.log.child('leaderelection'),
      releaseOnCancel: true,
      onStartedLeading: async (signal) => {
        this.leading = true;
        await this.runControllers(signal);
      },
      onStoppedLeading: () => {
        if (this.leading) this.log.info('leaderelection lost', { identity: this.identity });
        this.leading = false;
      },
    });
    this.running = this.elector.run(this.stopping.signal);
  }

  /** Whether this manager runs the controllers now (always, without leader election). */
  isLeader(): boolean {
    return this.leading;
  }

  /** Stops every controller (and gives up the lease); resolves when they have stopped. */
  async stop(): Promise<void> {
    this.stopping.abort();
    await this.running;
    this.clientBuilder?.close();
  }

  /**
   * The client a controller acts with: its ServiceAccount's with --use-service-account-credentials (when it names
   * one), else the manager's own.
   */
  clientFor(descriptor: ControllerDescriptor): KubeClient {
    if (!this.options.useServiceAccountCredentials || descriptor.serviceAccount === undefined) {
      return this.config.client;
    }
    if (!this.clientBuilder) {
      if (!this.options.serviceAccountPrivateKeyPem) {
        // As upstream: another controller manager may be making the legacy tokens; requests simply work or fail.
        this.log.info(
          'Warning: --use-service-account-credentials was specified without providing a --service-account-private-key-file',
        );
      }
      this.clientBuilder = new ControllerClientBuilder({
        root: this.config.client,
        clock: this.clock,
        logger: this.log.child('client-builder'),
      });
    }
    return this.clientBuilder.client(descriptor.serviceAccount);
  }

  /** One term: creates the enabled controllers, starts the informers, runs the controllers until signal aborts. */
  private async runControllers(signal: AbortSignal): Promise<void> {
    const informers = new SharedInformerFactory({
      client: this.config.client,
      clock: this.clock,
      logger: this.log.child('informers'),
      // As upstream: informers resync at a random period between --min-resync-period and twice it.
      defaultResync: this.options.minResyncPeriodMs * (1 + Math.random()),
      // As upstream's controller manager: cached objects carry no managedFields.
      transform: dropManagedFields,
    });
    // One event broadcaster per identity, writing with that identity's client.
    const broadcasters = new Map<KubeClient, EventBroadcaster>();
    const broadcasterOf = (client: KubeClient): EventBroadcaster => {
      let broadcaster = broadcasters.get(client);
      if (!broadcaster) {
        broadcaster = new EventBroadcaster({
          sink: client.events(),
          clock: this.clock,
          logger: this.log.child('events'),
        });
        broadcasters.set(client, broadcaster);
      }
      return broadcaster;
    };
    const controllers: { name: string; controller: Controller }[] = [];
    for (const d of this.enabledDescriptors()) {
      const client = this.clientFor(d);
      const ctx: ControllerContext = {
        client,
        informers,
        clock: this.clock,
        logger: this.log.child(d.name),
        recorder: (component) => broadcasterOf(client).recorder(component),
        options: this.options,
        signal,
      };
      try {
        controllers.push({ name: d.name, controller: await d.create(ctx) });
        this.log.info('Started controller', { controller: d.name });
      } catch (err) {
        this.log.error('Error starting controller', { controller: d.name, err: String(err) });
      }
    }
    informers.start();
    const runs = controllers.map(async ({ name, controller }) => {
      this.active.add(name);
      try {
        await controller.run();
      } catch (err) {
        this.log.error('controller failed', { controller: name, err: String(err) });
      } finally {
        this.active.delete(name);
      }
    });
    // Informers asked for by controllers after the first start (e.g. discovered resources) are started by them.
    await Promise.all(runs);
    await informers.shutdown();
    await Promise.all([...broadcasters.values()].map((b) => b.shutdown()));
  }
}
