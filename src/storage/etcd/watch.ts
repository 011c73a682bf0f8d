import type { Etcd3, IEvent, IWatchRequest, IWatchResponse } from 'etcd3';
import { ExponentialBackoff } from '../../util/backoff.js';
import { realClock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import { StorageError, type WatchEvent, type WatchListener } from '../types.js';
import { ALL_FROM, EMPTY, rangeEnd, toStorageError } from './codec.js';

type Stream = Awaited<ReturnType<Etcd3['watchClient']['watch']>>;

export interface EtcdWatchOptions {
  client: Etcd3;
  prefix: string;
  afterRevision: number;
  listener: WatchListener;
  log: Logger;
}

/** Converts one etcd event; a put whose create and mod revisions agree created the key. */
export function toWatchEvent(ev: IEvent): WatchEvent {
  const key = ev.kv.key.toString('utf8');
  const revision = Number(ev.kv.mod_revision);
  if (ev.type === 'Delete') return { type: 'delete', key, prevValue: ev.prev_kv?.value ?? EMPTY, revision };
  const value = ev.kv.value ?? EMPTY;
  if (ev.kv.create_revision === ev.kv.mod_revision || !ev.prev_kv) return { type: 'create', key, value, revision };
  return { type: 'update', key, value, prevValue: ev.prev_kv.value ?? EMPTY, revision };
}

/**
 * One etcd watch on its own gRPC stream. It remembers the revision of the last event it delivered, and when the
 * stream breaks (a member died, the leader changed) it opens a new one from the next revision, so no event is lost
 * or repeated.
 */
export class EtcdWatch {
  private next: number;
  private stream: Stream | undefined;
  private closed = false;
  private readonly backoff = new ExponentialBackoff(realClock, { initialMs: 50, maxMs: 2_000, jitter: 0 });

  constructor(private readonly opts: EtcdWatchOptions) {
    this.next = opts.afterRevision + 1;
  }

  start(): void {
    void this.connect();
  }

  close(): void {
    this.closed = true;
    this.stream?.cancel();
    this.stream = undefined;
  }

  /** Ends the watch with err, once. */
  fail(err: StorageError): void {
    if (this.closed) return;
    this.close();
    this.opts.listener.onError(err);
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    let stream: Stream;
    try {
      stream = await this.opts.client.watchClient.watch();
    } catch (err) {
      this.retry(err);
      return;
    }
    if (this.closed) {
      stream.cancel();
      return;
    }
    this.stream = stream;
    const prefix = Buffer.from(this.opts.prefix);
    const req: IWatchRequest = {
      create_request: {
        key: prefix.length === 0 ? ALL_FROM : prefix,
        range_end: prefix.length === 0 ? ALL_FROM : rangeEnd(prefix),
        start_revision: this.next,
        prev_kv: true,
        progress_notify: true,
      },
    };
    stream.on('data', (res: IWatchResponse) => this.onResponse(stream, res));
    stream.on('error', (err: unknown) => this.onBroken(stream, err));
    stream.on('end', () => this.onBroken(stream, new Error('watch stream ended')));
    stream.write(req);
  }

  private onResponse(stream: Stream, res: IWatchResponse): void {
    if (this.closed || stream !== this.stream) return;
    if (res.canceled) {
      const compactRevision = Number(res.compact_revision);
      if (compactRevision > 0) {
        this.fail(new StorageError('Compacted', `revision ${this.next - 1} has been compacted`, { compactRevision }));
      } else {
        this.fail(toStorageError(new Error(res.cancel_reason || 'watch cancelled by etcd')));
      }
      return;
    }
    this.backoff.reset();
    // Events of one revision arrive in one response, so only those older than this response's start are repeats.
    const floor = this.next;
    for (const ev of res.events ?? []) {
      if (this.closed) return;
      const event = toWatchEvent(ev);
      if (event.revision < floor) continue;
      this.next = event.revision + 1;
      try {
        this.opts.listener.onEvent(event);
      } catch (err) {
        this.opts.log.error('watch listener threw', { prefix: this.opts.prefix, err: String(err) });
      }
    }
  }

  private onBroken(stream: Stream, err: unknown): void {
    if (this.closed || stream !== this.stream) return;
    this.stream = undefined;
    stream.cancel();
    this.retry(err);
  }

  private retry(err: unknown): void {
    if (this.closed) return;
    this.opts.log.v(2).info('etcd watch reconnecting', { prefix: this.opts.prefix, next: this.next, err: String(err) });
    setTimeout(() => void this.connect(), this.backoff.next()).unref();
  }
}
