/**
 * client-go's EventCorrelator: before an event is written it is
 *  1. aggregated — once more than `maxEvents` events that differ only in their message arrive for the same
 *     source, object, type and reason within `maxIntervalInSeconds`, they are reported as one event whose message
 *     is "(combined from similar events): <latest message>";
 *  2. counted — an event identical to one already written becomes a strategic merge patch of that event's
 *     `count`, `lastTimestamp` and `message` instead of a new object;
 *  3. spam-filtered — a token bucket per source and object (burst 25, one more every 5 minutes) drops the rest.
 * The defaults are upstream's.
 */
import type { Clock } from '../../util/clock.js';
import { type CoreEvent, formatTime, generateEventName, unixNano } from './event.js';
import { EventSourceObjectSpamFilter, LruCache } from './spam-filter.js';

export const MAX_LRU_CACHE_ENTRIES = 4096;
/** Similar events (varying only in message) seen this many times within the interval are aggregated. */
export const DEFAULT_AGGREGATE_MAX_EVENTS = 10;
export const DEFAULT_AGGREGATE_INTERVAL_SECONDS = 600;
/** A source may send this many events about one object at once… */
export const DEFAULT_SPAM_BURST = 25;
/** …then one more every 300 seconds. */
export const DEFAULT_SPAM_QPS = 1 / 300;
export const AGGREGATE_MESSAGE_PREFIX = '(combined from similar events): ';

export interface CorrelatorOptions {
  lruCacheSize?: number;
  burstSize?: number;
  qps?: number;
  maxEvents?: number;
  maxIntervalInSeconds?: number;
  /** Groups events for aggregation: [aggregateKey, localKey]. */
  keyFunc?: (event: CoreEvent) => [string, string];
  messageFunc?: (event: CoreEvent) => string;
  spamKeyFunc?: (event: CoreEvent) => string;
}

/** The key of identical events: source, involved object (with fieldPath), type, reason and message. */
export function getEventKey(e: CoreEvent): string {
  const o = e.involvedObject;
  return [
    e.source.component,
    e.source.host,
    o.kind,
    o.namespace,
    o.name,
    o.fieldPath,
    o.uid,
    o.apiVersion,
    e.type,
    e.reason,
    e.message,
  ]
    .map((s) => s ?? '')
    .join('');
}

/** The spam filter's key: source, involved object and type. */
export function getSpamKey(e: CoreEvent): string {
  const o = e.involvedObject;
  return [e.source.component, e.source.host, o.kind, o.namespace, o.name, o.uid, o.apiVersion, e.type]
    .map((s) => s ?? '')
    .join('');
}

/** Aggregates by everything but the message (source, object, type, reason, reporting controller and instance). */
export function eventAggregatorByReason(e: CoreEvent): [string, string] {
  const o = e.involvedObject;
  const key = [
    e.source.component,
    e.source.host,
    o.kind,
    o.namespace,
    o.name,
    o.uid,
    o.apiVersion,
    e.type,
    e.reason,
    e.reportingComponent,
    e.reportingInstance,
  ]
    .map((s) => s ?? '')
    .join('');
  return [key, e.message];
}

export function eventAggregatorByReasonMessage(e: CoreEvent): string {
  return AGGREGATE_MESSAGE_PREFIX + e.message;
}

interface AggregateRecord {
  localKeys: Set<string>;
  lastTimestamp: number;
}

export class EventAggregator {
  private readonly cache: LruCache<AggregateRecord>;

  constructor(
    cacheSize: number,
    private readonly keyFunc: (e: CoreEvent) => [string, string],
    private readonly messageFunc: (e: CoreEvent) => string,
    private readonly maxEvents: number,
    private readonly maxIntervalInSeconds: number,
    private readonly clock: Clock,
  ) {
    this.cache = new LruCache(cacheSize);
  }

  /** The event to write (the same one, or a new aggregate event) and its key for counting. */
  aggregate(event: CoreEvent): [CoreEvent, string] {
    const now = this.clock.now();
    const eventKey = getEventKey(event);
    const [aggregateKey, localKey] = this.keyFunc(event);
    let record = this.cache.get(aggregateKey);
    if (!record || now - record.lastTimestamp > this.maxIntervalInSeconds * 1000) {
      record = { localKeys: new Set(), lastTimestamp: 0 };
    }
    record.localKeys.add(localKey);
    record.lastTimestamp = now;
    this.cache.add(aggregateKey, record);
    if (record.localKeys.size < this.maxEvents) return [event, eventKey];

    // Keep the set from growing past the limit: forget one of the messages seen.
    const any = record.localKeys.values().next().value;
    if (any !== undefined) record.localKeys.delete(any);
    const t = formatTime(now);
    const aggregated: CoreEvent = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: {
        name: generateEventName(event.involvedObject.name ?? '', unixNano(now)),
        namespace: event.metadata.namespace,
      },
      count: 1,
      firstTimestamp: t,
      involvedObject: event.involvedObject,
      lastTimestamp: t,
      message: this.messageFunc(event),
      type: event.type,
      reason: event.reason,
      source: event.source,
      reportingComponent: '',
      reportingInstance: '',
    };
    return [aggregated, aggregateKey];
  }
}

interface EventLog {
  count: number;
  firstTimestamp: string;
  name: string;
  resourceVersion: string;
}

const EPOCH = formatTime(0);

/** Remembers what was written under each key, so a repeat becomes a patch of the first occurrence. */
export class EventObserver {
  private readonly cache: LruCache<EventLog>;

  constructor(cacheSize: number) {
    this.cache = new LruCache(cacheSize);
  }

  observe(newEvent: CoreEvent, key: string): { event: CoreEvent; patch?: Record<string, unknown> } {
    const event: CoreEvent = { ...newEvent, metadata: { ...newEvent.metadata } };
    let patch: Record<string, unknown> | undefined;
    const last = this.cache.get(key);
    if (last && last.count > 0) {
      event.metadata.name = last.name;
      event.metadata.resourceVersion = last.resourceVersion;
      event.firstTimestamp = last.firstTimestamp;
      event.count = last.count + 1;
      // The two-way patch from a copy with count, lastTimestamp and message zeroed to this event.
      patch = { count: event.count };
      if (event.lastTimestamp !== EPOCH) patch.lastTimestamp = event.lastTimestamp;
      if (event.message !== '') patch.message = event.message;
    }
    this.cache.add(key, this.logOf(event));
    return patch ? { event, patch } : { event };
  }

  /** Takes in what the server answered (name, resourceVersion, count) for the event's key. */
  updateState(event: CoreEvent): void {
    this.cache.add(getEventKey(event), this.logOf(event));
  }

  private logOf(event: CoreEvent): EventLog {
    return {
      count: event.count ?? 0,
      firstTimestamp: event.firstTimestamp,
      name: event.metadata.name ?? '',
      resourceVersion: event.metadata.resourceVersion ?? '',
    };
  }
}

export interface EventCorrelateResult {
  event?: CoreEvent;
  /** When set, a strategic merge patch of the existing event named event.metadata.name. */
  patch?: Record<string, unknown>;
  skip: boolean;
}

export class EventCorrelator {
  private readonly filter: EventSourceObjectSpamFilter<CoreEvent>;
  private readonly aggregator: EventAggregator;
  private readonly observer: EventObserver;

  constructor(clock: Clock, options: CorrelatorOptions = {}) {
    const size = options.lruCacheSize || MAX_LRU_CACHE_ENTRIES;
    this.filter = new EventSourceObjectSpamFilter(
      size,
      options.burstSize || DEFAULT_SPAM_BURST,
      options.qps || DEFAULT_SPAM_QPS,
      clock,
      options.spamKeyFunc ?? getSpamKey,
    );
    this.aggregator = new EventAggregator(
      size,
      options.keyFunc ?? eventAggregatorByReason,
      options.messageFunc ?? eventAggregatorByReasonMessage,
      options.maxEvents || DEFAULT_AGGREGATE_MAX_EVENTS,
      options.maxIntervalInSeconds || DEFAULT_AGGREGATE_INTERVAL_SECONDS,
      clock,
    );
    this.observer = new EventObserver(size);
  }

  /** Aggregates, counts and filters one event (in that order, as upstream). */
  correlate(newEvent: CoreEvent): EventCorrelateResult {
    const [aggregated, key] = this.aggregator.aggregate(newEvent);
    const observed = this.observer.observe(aggregated, key);
    if (this.filter.filter(observed.event)) return { skip: true };
    return { ...observed, skip: false };
  }

  /** Records the server's copy of a written event. */
  updateState(event: CoreEvent): void {
    this.observer.updateState(event);
  }
}
