/**
 * The events of a watch response, decoded as the bytes arrive (client-go's StreamWatcher over the JSON framer).
 */
import { constants } from 'node:http2';
import { StringDecoder } from 'node:string_decoder';
import type { Logger } from '../util/logger.js';
import type { TransportResponse } from './transport.js';
import type { KubeObject, StatusObject, WatchEvent, WatchEventType, WatchStream } from './types.js';

/** How many decoded events may wait for the consumer before the stream is paused. */
const MAX_QUEUED_EVENTS = 256;
const WATCH_EVENT_TYPES: ReadonlySet<string> = new Set(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR']);

/**
 * The events of a watch response: one JSON object per line ({"type":…,"object":…}), decoded as the bytes arrive,
 * whatever the chunking. Ends when the server ends the response, the connection drops, or close() is called.
 */
export class HttpWatchStream<T extends KubeObject> implements WatchStream<T> {
  private readonly queue: WatchEvent<T>[] = [];
  private readonly decoder = new StringDecoder('utf8');
  private pending = '';
  private ended = false;
  private waiter: ((result: IteratorResult<WatchEvent<T>>) => void) | undefined;

  constructor(
    private readonly response: TransportResponse,
    private readonly logger: Logger,
  ) {
    const stream = response.stream;
    stream.on('data', (chunk: Buffer) => this.feed(this.decoder.write(chunk)));
    stream.once('end', () => {
      this.feed(`${this.decoder.end()}\n`);
      this.finish();
    });
    stream.once('close', () => this.finish());
    stream.on('error', (error) => {
      this.logger.v(5).info('watch stream ended with an error', { error: String(error) });
      this.finish();
    });
  }

  close(): void {
    this.queue.length = 0;
    if (!this.response.stream.closed) this.response.stream.close(constants.NGHTTP2_CANCEL);
    this.finish();
  }

  [Symbol.asyncIterator](): AsyncIterator<WatchEvent<T>> {
    return {
      next: () => this.next(),
      return: async () => {
        this.close();
        return { done: true, value: undefined };
      },
    };
  }

  private next(): Promise<IteratorResult<WatchEvent<T>>> {
    const event = this.queue.shift();
    if (event !== undefined) {
      if (this.queue.length < MAX_QUEUED_EVENTS / 2 && this.response.stream.isPaused()) this.response.stream.resume();
      return Promise.resolve({ done: false, value: event });
    }
    if (this.ended) return Promise.resolve({ done: true, value: undefined });
    return new Promise((resolve) => {
      this.waiter = resolve;
    });
  }

  private feed(text: string): void {
    if (this.ended) return;
    // Only the new text can hold the next newline: an event spread over many chunks is not scanned again.
    let newline = text.indexOf('\n');
    if (newline >= 0) newline += this.pending.length;
    this.pending += text;
    while (newline >= 0) {
      const line = this.pending.slice(0, newline).trim();
      this.pending = this.pending.slice(newline + 1);
      if (line !== '') this.decodeLine(line);
      if (this.ended) return;
      newline = this.pending.indexOf('\n');
    }
    if (this.queue.length >= MAX_QUEUED_EVENTS) this.response.stream.pause();
  }

  private decodeLine(line: string): void {
    let event: unknown;
    try {
      event = JSON.parse(line);
    } catch (error) {
      this.decodeFailed(error instanceof Error ? error.message : String(error));
      return;
    }
    const type = (event as { type?: unknown } | null)?.type;
    const object = (event as { object?: unknown } | null)?.object;
    if (typeof type !== 'string' || !WATCH_EVENT_TYPES.has(type) || typeof object !== 'object' || object === null) {
      this.decodeFailed(`not a watch event: ${line.slice(0, 200)}`);
      return;
    }
    this.push({ type: type as WatchEventType, object: object as T });
  }

  /** As client-go's StreamWatcher: an ERROR event with an InternalError Status, then the end. */
  private decodeFailed(detail: string): void {
    const status: StatusObject = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      code: 500,
      reason: 'InternalError',
      message: `unable to decode an event from the watch stream: ${detail}`,
    };
    this.push({ type: 'ERROR', object: status as unknown as T });
    if (!this.response.stream.closed) this.response.stream.close(constants.NGHTTP2_CANCEL);
    this.finish();
  }

  private push(event: WatchEvent<T>): void {
    const waiter = this.waiter;
    if (waiter !== undefined) {
      this.waiter = undefined;
      waiter({ done: false, value: event });
    } else {
      this.queue.push(event);
    }
  }

  private finish(): void {
    if (this.ended) return;
    this.ended = true;
    const waiter = this.waiter;
    if (waiter !== undefined && this.queue.length === 0) {
      this.waiter = undefined;
      waiter({ done: true, value: undefined });
    }
  }
}
