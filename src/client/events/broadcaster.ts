/**
 * The event broadcaster and recorders (client-go's tools/record). A recorder turns `event(obj, type, reason,
 * message)` into a core/v1 Event and hands it to the broadcaster without waiting; the broadcaster fans it out to its
 * watchers, each with its own bounded queue worked one event at a time. The sink watcher
 * (startRecordingToSink) runs each event through the EventCorrelator and writes it: a create, or a strategic merge
 * patch of count/lastTimestamp/message for a repeat. Transport errors are retried (12 tries, 10 s apart, the first
 * wait randomised); an error answer from the apiserver is logged and the event given up, as upstream does.
 * Nothing here ever throws at the caller.
 */
import { type Clock, realClock, type TimerHandle } from '../../util/clock.js';
import { deepClone } from '../../util/clone.js';
import { type Logger, silentLogger } from '../../util/logger.js';
import { ApiError, isAlreadyExists, isNotFound, type KubeObject, type ResourceClient } from '../types.js';
import { type CorrelatorOptions, EventCorrelator } from './correlator.js';
import {
  type CoreEvent,
  EVENT_TYPE_NORMAL,
  EVENT_TYPE_WARNING,
  type EventSource,
  type EventSubject,
  getReference,
  makeEvent,
} from './event.js';
import { sprintf } from './sprintf.js';

export const MAX_TRIES_PER_EVENT = 12;
export const DEFAULT_SLEEP_DURATION_MS = 10_000;
export const MAX_QUEUED_EVENTS = 1000;

/** What components record events with (client-go's record.EventRecorder). */
export interface EventRecorder {
  event(subject: EventSubject, type: string, reason: string, message: string): void;
  eventf(subject: EventSubject, type: string, reason: string, messageFmt: string, ...args: unknown[]): void;
  annotatedEventf(
    subject: EventSubject,
    annotations: Record<string, string>,
    type: string,
    reason: string,
    messageFmt: string,
    ...args: unknown[]
  ): void;
}

/**
 * Where events are written: core/v1 events of any namespace, or a choice of them per event (e.g. the client of the
 * node an event's source names, when one broadcaster serves the kubelets of several nodes).
 */
export type EventSink = ResourceClient | ((event: CoreEvent) => ResourceClient);

export interface EventBroadcasterOptions {
  /** When given, events are recorded to it (startRecordingToSink). */
  sink?: EventSink;
  clock?: Clock;
  logger?: Logger;
  correlator?: CorrelatorOptions;
  /** The wait between tries of an event the apiserver could not be reached for. */
  sleepDurationMs?: number;
  maxQueuedEvents?: number;
  random?: () => number;
}

/** A consumer of the broadcast events. */
export interface EventWatcher {
  stop(): void;
}

class Watcher implements EventWatcher {
  readonly queue: CoreEvent[] = [];
  stopped = false;
  private working: Promise<void> | undefined;

  constructor(
    private readonly handler: (event: CoreEvent) => void | Promise<void>,
    private readonly logger: Logger,
    private readonly onIdle: () => void,
  ) {}

  push(event: CoreEvent): void {
    this.queue.push(event);
    // The work starts after the caller's turn: recording an event never runs the sink on the caller's stack.
    if (!this.working) this.working = Promise.resolve().then(() => this.work());
  }

  stop(): void {
    this.stopped = true;
    this.queue.length = 0;
  }

  get busy(): boolean {
    return this.working !== undefined;
  }

  private async work(): Promise<void> {
    for (let next = this.queue.shift(); next && !this.stopped; next = this.queue.shift()) {
      try {
        await this.handler(next);
      } catch (err) {
        this.logger.error('Observed a panic while handling an event', { err: String(err) });
      }
    }
    this.working = undefined;
    this.onIdle();
  }
}

export class EventBroadcaster {
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly sleepDurationMs: number;
  private readonly maxQueued: number;
  private readonly random: () => number;
  private readonly correlatorOptions: CorrelatorOptions;
  private readonly watchers = new Set<Watcher>();
  private readonly sleeps = new Set<{ timer: TimerHandle; resolve: (slept: boolean) => void }>();
  private idleWaiters: (() => void)[] = [];
  private shutDown = false;

  constructor(opts: EventBroadcasterOptions = {}) {
    this.clock = opts.clock ?? realClock;
    this.logger = opts.logger ?? silentLogger;
    this.sleepDurationMs = opts.sleepDurationMs ?? DEFAULT_SLEEP_DURATION_MS;
    this.maxQueued = opts.maxQueuedEvents ?? MAX_QUEUED_EVENTS;
    this.random = opts.random ?? Math.random;
    this.correlatorOptions = opts.correlator ?? {};
    if (opts.sink) this.startRecordingToSink(opts.sink);
  }

  /** Writes every event to `events` (core/v1 Events of any namespace), through a correlator of its own. */
  startRecordingToSink(events: EventSink): EventWatcher {
    const correlator = new EventCorrelator(this.clock, this.correlatorOptions);
    return this.startEventWatcher((event) => this.recordToSink(events, event, correlator));
  }

  /** Logs every event at verbosity `verbosity`. */
  startStructuredLogging(verbosity: number): EventWatcher {
    return this.startEventWatcher((e) => {
      const o = e.involvedObject;
      this.logger.v(verbosity).info('Event occurred', {
        object: o.namespace ? `${o.namespace}/${o.name ?? ''}` : (o.name ?? ''),
        fieldPath: o.fieldPath ?? '',
        kind: o.kind ?? '',
        apiVersion: o.apiVersion ?? '',
        type: e.type,
        reason: e.reason,
        message: e.message,
      });
    });
  }

  /** Calls `handler` with every event, one at a time, in order. */
  startEventWatcher(handler: (event: CoreEvent) => void | Promise<void>): EventWatcher {
    const watcher = new Watcher(handler, this.logger, () => this.checkIdle());
    if (this.shutDown) watcher.stopped = true;
    else this.watchers.add(watcher);
    return {
      stop: () => {
        watcher.stop();
        this.watchers.delete(watcher);
        this.checkIdle();
      },
    };
  }

  /** A recorder that reports as `source` (client-go's NewRecorder). */
  newRecorder(source: EventSource): EventRecorder {
    const generate = (
      subject: EventSubject,
      annotations: Record<string, string> | undefined,
      type: string,
      reason: string,
      message: string,
    ): void => {
      try {
        let ref: ReturnType<typeof getReference>;
        try {
          ref = getReference(subject);
        } catch (err) {
          this.logger.error('Could not construct reference, will not report event', {
            err: String(err),
            eventType: type,
            reason,
            message,
          });
          return;
        }
        if (type !== EVENT_TYPE_NORMAL && type !== EVENT_TYPE_WARNING) {
          this.logger.error('Unsupported event type', { eventType: type });
          return;
        }
        this.action(makeEvent(ref, source, annotations, type, reason, message, this.clock.now()));
      } catch (err) {
        this.logger.error('Unable to record event (will not retry!)', { err: String(err) });
      }
    };
    return {
      event: (subject, type, reason, message) => generate(subject, undefined, type, reason, message),
      eventf: (subject, type, reason, fmt, ...args) =>
        generate(subject, undefined, type, reason, sprintf(fmt, ...args)),
      annotatedEventf: (subject, annotations, type, reason, fmt, ...args) =>
        generate(subject, annotations, type, reason, sprintf(fmt, ...args)),
    };
  }

  /** newRecorder({ component, host }). */
  recorder(component: string, host?: string): EventRecorder {
    return this.newRecorder(host ? { component, host } : { component });
  }

  /** Resolves once every queued event has been handled (retry waits run on the clock). */
  flush(): Promise<void> {
    if (![...this.watchers].some((w) => w.busy)) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /**
   * Stops taking events and resolves once those already queued were handled; an event waiting to be retried is
   * given up.
   */
  async shutdown(): Promise<void> {
    this.shutDown = true;
    for (const s of [...this.sleeps]) {
      s.timer.cancel();
      s.resolve(false);
    }
    this.sleeps.clear();
    await this.flush();
    for (const w of this.watchers) w.stop();
    this.watchers.clear();
  }

  /** Queues a new event (made for this call alone) for every watcher: each gets a copy of its own, the last it. */
  private action(event: CoreEvent): void {
    if (this.shutDown) return;
    let left = this.watchers.size;
    for (const w of this.watchers) {
      left--;
      if (w.queue.length >= this.maxQueued) {
        this.logger.error('Unable to record event: too many queued events, dropped event', { event: describe(event) });
        continue;
      }
      w.push(left === 0 ? event : deepClone(event));
    }
  }

  private checkIdle(): void {
    if ([...this.watchers].some((w) => w.busy)) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }

  private async recordToSink(events: EventSink, event: CoreEvent, correlator: EventCorrelator): Promise<void> {
    const result = correlator.correlate(event);
    if (result.skip || !result.event) return;
    const toWrite = result.event;
    const sink = typeof events === 'function' ? events(event) : events;
    for (let tries = 0; ; ) {
      if (await this.recordEvent(sink, toWrite, result.patch, correlator)) return;
      tries++;
      if (tries >= MAX_TRIES_PER_EVENT) {
        this.logger.error('Unable to write event (retry limit exceeded!)', { event: describe(event) });
        return;
      }
      // The first wait is random so that clients do not all come back at once when the apiserver does.
      const delay = tries === 1 ? this.sleepDurationMs * this.random() : this.sleepDurationMs;
      if (!(await this.sleep(delay))) {
        this.logger.error('Unable to write event (broadcaster is shut down)', { event: describe(event) });
        return;
      }
    }
  }

  /** One try; true when done with the event (written, or refused for good). */
  private async recordEvent(
    sink: ResourceClient,
    event: CoreEvent,
    patch: Record<string, unknown> | undefined,
    correlator: EventCorrelator,
  ): Promise<boolean> {
    const namespace = event.metadata.namespace ?? 'default';
    const client = sink.namespace(namespace);
    const update = patch !== undefined && event.count > 1;
    let written: KubeObject | undefined;
    let error: unknown;
    if (update) {
      try {
        written = await client.patch(event.metadata.name ?? '', 'strategic', patch);
      } catch (err) {
        error = err;
      }
    }
    // The event may have been deleted since: then it is created anew.
    if (!update || isNotFound(error)) {
      // The event without its resourceVersion (clients encode what they send, and keep nothing of it).
      const { resourceVersion: _, ...metadata } = event.metadata;
      const body = { ...event, metadata };
      error = undefined;
      try {
        written = await client.create(body);
      } catch (err) {
        error = err;
      }
    }
    if (error === undefined && written) {
      correlator.updateState(written as CoreEvent);
      return true;
    }
    if (error instanceof ApiError) {
      const terminating = error.status.details?.causes?.some((c) => c.type === 'NamespaceTerminating') ?? false;
      const fields = { event: describe(event), err: error.message };
      if (isAlreadyExists(error) || terminating) {
        this.logger.v(5).info('Server rejected event (will not retry!)', fields);
      } else {
        this.logger.error('Server rejected event (will not retry!)', fields);
      }
      return true;
    }
    this.logger.error('Unable to write event (may retry after sleeping)', {
      event: describe(event),
      err: String(error),
    });
    return false;
  }

  private sleep(ms: number): Promise<boolean> {
    if (this.shutDown) return Promise.resolve(false);
    return new Promise((resolve) => {
      const entry = {
        timer: this.clock.after(ms, () => {
          this.sleeps.delete(entry);
          resolve(true);
        }),
        resolve,
      };
      this.sleeps.add(entry);
    });
  }
}

function describe(e: CoreEvent): string {
  const o = e.involvedObject;
  return `${e.metadata.namespace ?? ''}/${e.metadata.name ?? ''} (${o.kind ?? ''} ${o.name ?? ''}: ${e.type} ${e.reason} ${e.message})`;
}
