/**
 * Leader election on a coordination.k8s.io/v1 Lease, as client-go's leaderelection package does it with a
 * LeaseLock. Candidates try to take the Lease every retryPeriod (jittered by a factor of 1.2); one may take it when
 * it does not exist, has no holder, is already its own, or has not changed for leaseDuration since this candidate
 * last saw it change (time is judged on the candidate's own clock from when it observed the record, never by
 * comparing clocks). Every write carries the resourceVersion last read, so a concurrent writer gets a Conflict.
 * The leader renews every retryPeriod; when renewal has not succeeded within renewDeadline it stops leading.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { sharedAbortController } from '../util/abort.js';
import { type Clock, realClock } from '../util/clock.js';
import { type Logger, silentLogger } from '../util/logger.js';
import type { EventRecorder } from './events/broadcaster.js';
import { EVENT_TYPE_NORMAL, formatMicroTime } from './events/event.js';
import { isNotFound, type KubeObject, type ResourceClient } from './types.js';

/** How far past retryPeriod the wait between tries to acquire may stretch (retryPeriod × (1 + 1.2·rand)). */
export const JITTER_FACTOR = 1.2;

/** Upstream's leader election flags (component-base), as kube-controller-manager registers them. */
export const LEADER_ELECTION_FLAGS = {
  leaderElect: 'leader-elect',
  leaseDuration: 'leader-elect-lease-duration',
  renewDeadline: 'leader-elect-renew-deadline',
  retryPeriod: 'leader-elect-retry-period',
  resourceLock: 'leader-elect-resource-lock',
  resourceName: 'leader-elect-resource-name',
  resourceNamespace: 'leader-elect-resource-namespace',
} as const;

/** kube-controller-manager's defaults for those flags. */
export const LEADER_ELECTION_DEFAULTS = {
  leaderElect: true,
  leaseDurationMs: 15_000,
  renewDeadlineMs: 10_000,
  retryPeriodMs: 2_000,
  resourceLock: 'leases',
  resourceName: 'kube-controller-manager',
  resourceNamespace: 'kube-system',
} as const;

/** `<hostname>_<uuid>`, the identity kube-controller-manager and kube-scheduler campaign with. */
export function defaultIdentity(): string {
  return `${hostname()}_${randomUUID()}`;
}

/** What a Lease's spec says about the election (client-go's LeaderElectionRecord). Times in ms since the epoch. */
export interface LeaderElectionRecord {
  holderIdentity: string;
  leaseDurationSeconds: number;
  acquireTime: number;
  renewTime: number;
  leaderTransitions: number;
  strategy?: string;
  preferredHolder?: string;
}

export interface LeaderElectorOptions {
  /** coordination.k8s.io/v1 leases, scoped to the lock's namespace. */
  leases: ResourceClient;
  lockName: string;
  /** The lock's namespace, for messages and the created Lease (the leases client's scope decides). */
  lockNamespace?: string;
  identity: string;
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  clock?: Clock;
  logger?: Logger;
  /** Runs when this candidate becomes leader; `signal` aborts when it stops leading. Not awaited. */
  onStartedLeading(signal: AbortSignal): void | Promise<void>;
  /** Runs when run() returns (as upstream: also when it never led). */
  onStoppedLeading(): void;
  /** Runs when the observed holder changes (with '' after a release). */
  onNewLeader?(identity: string): void;
  /** On cancel, give the Lease up (empty holder, 1 s duration) so another candidate takes it at once. */
  releaseOnCancel?: boolean;
  /** Records the LeaderElection events ("<identity> became leader", "<identity> stopped leading") on the Lease. */
  eventRecorder?: EventRecorder;
  /** For the jitter; Math.random by default. */
  random?: () => number;
}

class Aborted extends Error {}

/** Waits for `work`, or throws Aborted as soon as `signal` aborts. */
function unlessAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new Aborted());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new Aborted());
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

/** A controller whose signal aborts with `parent` too. */
function childController(parent: AbortSignal): { controller: AbortController; release(): void } {
  const controller = sharedAbortController();
  const onAbort = () => controller.abort(parent.reason);
  if (parent.aborted) controller.abort(parent.reason);
  else parent.addEventListener('abort', onAbort, { once: true });
  return { controller, release: () => parent.removeEventListener('abort', onAbort) };
}

function toSpec(r: LeaderElectionRecord): Record<string, unknown> {
  const spec: Record<string, unknown> = {
    holderIdentity: r.holderIdentity,
    leaseDurationSeconds: r.leaseDurationSeconds,
    acquireTime: formatMicroTime(r.acquireTime),
    renewTime: formatMicroTime(r.renewTime),
    leaseTransitions: r.leaderTransitions,
  };
  if (r.preferredHolder) spec.preferredHolder = r.preferredHolder;
  if (r.strategy) spec.strategy = r.strategy;
  return spec;
}

function fromSpec(spec: Record<string, unknown> | undefined): LeaderElectionRecord {
  const s = spec ?? {};
  const time = (v: unknown) => (typeof v === 'string' && !Number.isNaN(Date.parse(v)) ? Date.parse(v) : 0);
  const record: LeaderElectionRecord = {
    holderIdentity: typeof s.holderIdentity === 'string' ? s.holderIdentity : '',
    leaseDurationSeconds: typeof s.leaseDurationSeconds === 'number' ? s.leaseDurationSeconds : 0,
    acquireTime: time(s.acquireTime),
    renewTime: time(s.renewTime),
    leaderTransitions: typeof s.leaseTransitions === 'number' ? s.leaseTransitions : 0,
  };
  if (typeof s.strategy === 'string') record.strategy = s.strategy;
  if (typeof s.preferredHolder === 'string') record.preferredHolder = s.preferredHolder;
  return record;
}

/** The record as upstream compares it between reads: JSON with times in whole seconds (meta/v1 Time). */
function rawRecord(r: LeaderElectionRecord): string {
  const seconds = (ms: number) => Math.floor(ms / 1000);
  return JSON.stringify([
    r.holderIdentity,
    r.leaseDurationSeconds,
    seconds(r.acquireTime),
    seconds(r.renewTime),
    r.leaderTransitions,
    r.strategy ?? '',
    r.preferredHolder ?? '',
  ]);
}

/** The Lease itself: get, create and update it, keeping the last copy read for its resourceVersion. */
class LeaseLock {
  lease: KubeObject | undefined;

  constructor(
    private readonly leases: ResourceClient,
    private readonly name: string,
    private readonly namespace: string | undefined,
    readonly identity: string,
    private readonly recorder: EventRecorder | undefined,
  ) {}

  async get(): Promise<LeaderElectionRecord> {
    this.lease = await this.leases.get(this.name);
    return fromSpec(this.lease.spec);
  }

  async create(record: LeaderElectionRecord): Promise<void> {
    const metadata: KubeObject['metadata'] = { name: this.name };
    if (this.namespace) metadata.namespace = this.namespace;
    this.lease = await this.leases.create({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata,
      spec: toSpec(record),
    });
  }

  async update(record: LeaderElectionRecord): Promise<void> {
    if (!this.lease) throw new Error('lease not initialized, call get or create first');
    const next: KubeObject = { ...this.lease, spec: toSpec(record) };
    this.lease = await this.leases.update(next);
  }

  recordEvent(what: string): void {
    if (!this.recorder || !this.lease) return;
    const subject: KubeObject = {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: this.lease.metadata,
    };
    this.recorder.eventf(subject, EVENT_TYPE_NORMAL, 'LeaderElection', '%v %v', this.identity, what);
  }

  describe(): string {
    return `${this.namespace ?? this.lease?.metadata.namespace ?? ''}/${this.name}`;
  }
}

export class LeaderElector {
  private readonly lock: LeaseLock;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly leaseDurationMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;
  private readonly random: () => number;
  private observedRecord: LeaderElectionRecord | undefined;
  private observedRawRecord: string | undefined;
  private observedTime = 0;
  private reportedLeader = '';

  constructor(private readonly opts: LeaderElectorOptions) {
    this.leaseDurationMs = opts.leaseDurationMs ?? LEADER_ELECTION_DEFAULTS.leaseDurationMs;
    this.renewDeadlineMs = opts.renewDeadlineMs ?? LEADER_ELECTION_DEFAULTS.renewDeadlineMs;
    this.retryPeriodMs = opts.retryPeriodMs ?? LEADER_ELECTION_DEFAULTS.retryPeriodMs;
    if (this.leaseDurationMs <= this.renewDeadlineMs)
      throw new Error('leaseDuration must be greater than renewDeadline');
    if (this.renewDeadlineMs <= JITTER_FACTOR * this.retryPeriodMs) {
      throw new Error('renewDeadline must be greater than retryPeriod*JitterFactor');
    }
    if (this.leaseDurationMs < 1) throw new Error('leaseDuration must be greater than zero');
    if (this.renewDeadlineMs < 1) throw new Error('renewDeadline must be greater than zero');
    if (this.retryPeriodMs < 1) throw new Error('retryPeriod must be greater than zero');
    if (typeof opts.onStartedLeading !== 'function') throw new Error('OnStartedLeading callback must not be nil');
    if (typeof opts.onStoppedLeading !== 'function') throw new Error('OnStoppedLeading callback must not be nil');
    if (!opts.leases) throw new Error('Lock must not be nil.');
    if (!opts.identity) throw new Error('Lock identity is empty');
    this.clock = opts.clock ?? realClock;
    this.logger = opts.logger ?? silentLogger;
    this.random = opts.random ?? Math.random;
    this.lock = new LeaseLock(opts.leases, opts.lockName, opts.lockNamespace, opts.identity, opts.eventRecorder);
  }

  /**
   * Campaigns until this candidate leads, then leads until renewal fails or `signal` aborts. Resolves when done;
   * onStoppedLeading has run by then. Never rejects.
   */
  async run(signal: AbortSignal = new AbortController().signal): Promise<void> {
    try {
      if (!(await this.acquire(signal))) return;
      const leading = childController(signal);
      try {
        Promise.resolve()
          .then(() => this.opts.onStartedLeading(leading.controller.signal))
          .catch((err) => this.logger.error('onStartedLeading failed', { err: String(err) }));
        await this.renew(leading.controller.signal);
      } finally {
        leading.controller.abort(new Error('stopped leading'));
        leading.release();
      }
    } catch (err) {
      this.logger.error('leader election failed', { err: String(err) });
    } finally {
      try {
        this.opts.onStoppedLeading();
      } catch (err) {
        this.logger.error('onStoppedLeading failed', { err: String(err) });
      }
    }
  }

  /** The identity of the holder last observed ('' when none). */
  getLeader(): string {
    return this.observedRecord?.holderIdentity ?? '';
  }

  isLeader(): boolean {
    return this.observedRecord?.holderIdentity === this.opts.identity;
  }

  /**
   * For a health check (upstream's HealthzAdaptor): an error when this candidate believes it leads but has not
   * renewed for longer than leaseDuration + maxTolerableExpiredLease.
   */
  check(maxTolerableExpiredLeaseMs: number): Error | undefined {
    if (!this.isLeader()) return undefined;
    if (this.clock.now() - this.observedTime > this.leaseDurationMs + maxTolerableExpiredLeaseMs) {
      return new Error(`failed election to renew leadership on lease ${this.opts.lockName}`);
    }
    return undefined;
  }

  private async acquire(signal: AbortSignal): Promise<boolean> {
    const desc = this.lock.describe();
    this.logger.info(`attempting to acquire leader lease ${desc}...`);
    while (!signal.aborted) {
      const succeeded = await this.tryAcquireOrRenew(signal);
      this.maybeReportTransition();
      if (succeeded) {
        this.lock.recordEvent('became leader');
        this.logger.info(`successfully acquired lease ${this.lock.describe()}`);
        return true;
      }
      this.logger.v(4).info(`failed to acquire lease ${desc}`);
      const wait = this.retryPeriodMs + this.random() * JITTER_FACTOR * this.retryPeriodMs;
      if (!(await this.sleep(wait, signal))) break;
    }
    return false;
  }

  private async renew(signal: AbortSignal): Promise<void> {
    try {
      while (!signal.aborted) {
        const failure = await this.renewWithinDeadline(signal);
        this.maybeReportTransition();
        const desc = this.lock.describe();
        if (failure === undefined) {
          this.logger.v(5).info(`successfully renewed lease ${desc}`);
        } else {
          this.logger.info(`failed to renew lease ${desc}: ${failure}`);
          break;
        }
        if (!(await this.sleep(this.retryPeriodMs, signal))) break;
      }
      if (this.opts.releaseOnCancel) await this.release();
    } finally {
      this.lock.recordEvent('stopped leading');
    }
  }

  /** Tries now and then every retryPeriod until a renewal succeeds (undefined) or renewDeadline passes (why not). */
  private async renewWithinDeadline(signal: AbortSignal): Promise<string | undefined> {
    const attempt = childController(signal);
    const deadline = this.clock.after(this.renewDeadlineMs, () =>
      attempt.controller.abort(new Error('context deadline exceeded')),
    );
    const attemptSignal = attempt.controller.signal;
    try {
      for (;;) {
        if (await this.tryAcquireOrRenew(attemptSignal)) return undefined;
        if (!(await this.sleep(this.retryPeriodMs, attemptSignal))) break;
      }
      return signal.aborted ? 'context canceled' : 'context deadline exceeded';
    } finally {
      deadline.cancel();
      attempt.release();
    }
  }

  /** One try to take or keep the Lease; true when this candidate holds it now. */
  private async tryAcquireOrRenew(signal: AbortSignal): Promise<boolean> {
    try {
      return await this.tryAcquireOrRenewOnce(signal);
    } catch (err) {
      if (!(err instanceof Aborted)) this.logger.error('leader election try failed', { err: String(err) });
      return false;
    }
  }

  private async tryAcquireOrRenewOnce(signal: AbortSignal): Promise<boolean> {
    const now = this.clock.now();
    const record: LeaderElectionRecord = {
      holderIdentity: this.opts.identity,
      leaseDurationSeconds: Math.floor(this.leaseDurationMs / 1000),
      renewTime: now,
      acquireTime: now,
      leaderTransitions: 0,
    };

    // 1. The leader's fast path: update the copy read last time, assuming nobody else wrote since.
    if (this.isLeader() && this.isLeaseValid(now) && this.observedRecord) {
      record.acquireTime = this.observedRecord.acquireTime;
      record.leaderTransitions = this.observedRecord.leaderTransitions;
      try {
        await unlessAborted(this.lock.update(record), signal);
        this.setObservedRecord(record);
        return true;
      } catch (err) {
        if (err instanceof Aborted) throw err;
        this.logger.error(`Failed to update lock optimistically: ${errorText(err)}, falling back to slow path`);
      }
    }

    // 2. Read the record, or create it.
    let old: LeaderElectionRecord;
    try {
      old = await unlessAborted(this.lock.get(), signal);
    } catch (err) {
      if (err instanceof Aborted) throw err;
      if (!isNotFound(err)) {
        this.logger.error(`error retrieving resource lock ${this.lock.describe()}: ${errorText(err)}`);
        return false;
      }
      try {
        await unlessAborted(this.lock.create(record), signal);
      } catch (createErr) {
        if (createErr instanceof Aborted) throw createErr;
        this.logger.error(`error initially creating leader election record: ${errorText(createErr)}`);
        return false;
      }
      this.setObservedRecord(record);
      return true;
    }

    // 3. Note when the record last changed, and leave a valid lease held by someone else alone.
    const raw = rawRecord(old);
    if (raw !== this.observedRawRecord) {
      this.setObservedRecord(old);
      this.observedRawRecord = raw;
    }
    if (old.holderIdentity.length > 0 && this.isLeaseValid(now) && !this.isLeader()) {
      this.logger.v(4).info(`lock is held by ${old.holderIdentity} and has not yet expired`);
      return false;
    }

    // 4. Take or renew it.
    if (this.isLeader()) {
      record.acquireTime = old.acquireTime;
      record.leaderTransitions = old.leaderTransitions;
    } else {
      record.leaderTransitions = old.leaderTransitions + 1;
    }
    try {
      await unlessAborted(this.lock.update(record), signal);
    } catch (err) {
      if (err instanceof Aborted) throw err;
      this.logger.error(`Failed to update lock: ${errorText(err)}`);
      return false;
    }
    this.setObservedRecord(record);
    return true;
  }

  /** Gives the Lease up: no holder, a one-second duration, the transitions count kept. */
  private async release(): Promise<boolean> {
    if (!this.isLeader()) return true;
    const now = this.clock.now();
    const record: LeaderElectionRecord = {
      holderIdentity: '',
      leaseDurationSeconds: 1,
      renewTime: now,
      acquireTime: now,
      leaderTransitions: this.observedRecord?.leaderTransitions ?? 0,
    };
    const timeout = new AbortController();
    const timer = this.clock.after(this.renewDeadlineMs, () => timeout.abort());
    try {
      await unlessAborted(this.lock.update(record), timeout.signal);
    } catch (err) {
      this.logger.error(
        `Failed to release lock: ${err instanceof Aborted ? 'context deadline exceeded' : errorText(err)}`,
      );
      return false;
    } finally {
      timer.cancel();
    }
    this.setObservedRecord(record);
    return true;
  }

  private maybeReportTransition(): void {
    const holder = this.observedRecord?.holderIdentity ?? '';
    if (holder === this.reportedLeader) return;
    this.reportedLeader = holder;
    const onNewLeader = this.opts.onNewLeader;
    if (!onNewLeader) return;
    queueMicrotask(() => {
      try {
        onNewLeader(holder);
      } catch (err) {
        this.logger.error('onNewLeader failed', { err: String(err) });
      }
    });
  }

  private isLeaseValid(now: number): boolean {
    return this.observedTime + (this.observedRecord?.leaseDurationSeconds ?? 0) * 1000 > now;
  }

  private setObservedRecord(record: LeaderElectionRecord): void {
    this.observedRecord = { ...record };
    this.observedTime = this.clock.now();
  }

  /** Waits ms on the clock: true when the time passed, false when `signal` aborted first. */
  private sleep(ms: number, signal: AbortSignal): Promise<boolean> {
    if (signal.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const onAbort = () => {
        timer.cancel();
        resolve(false);
      };
      const timer = this.clock.after(ms, () => {
        signal.removeEventListener('abort', onAbort);
        resolve(true);
      });
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
