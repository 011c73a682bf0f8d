import type { CacheWatch, WatchEventType } from '../cacher/cacher.js';
import type { RequestContext } from '../context.js';
import type { OutputForm } from '../negotiate.js';
import type { KubeObject } from '../registry/object.js';
import { corkable } from '../respond.js';

/** A watcher whose socket has this much unsent data is too slow and is cut off rather than allowed to grow. */
const MAX_BUFFERED_BYTES = 16 * 1024 * 1024;

/** `{"type":"<type>","object":` and `}` and the newline around an object's JSON: the line of one watch event. */
const EVENT_PREFIX: Record<WatchEventType, Buffer> = {
  ADDED: Buffer.from('{"type":"ADDED","object":'),
  MODIFIED: Buffer.from('{"type":"MODIFIED","object":'),
  DELETED: Buffer.from('{"type":"DELETED","object":'),
  BOOKMARK: Buffer.from('{"type":"BOOKMARK","object":'),
};
const EVENT_SUFFIX = Buffer.from('}\n');

export interface WatchStreamOptions {
  form: OutputForm;
  /** Turns an object into what this client asked for (a one-row Table, metadata only, or as is). */
  render(obj: KubeObject, type: WatchEventType): unknown;
  timeoutMs: number;
  /** Sends a BOOKMARK with this object every bookmarkMs, when the client allows bookmarks. */
  bookmark?: { everyMs: number; object: () => KubeObject };
}

/**
 * Streams watch events to the client as upstream does: HTTP 200, then one JSON object per line
 * ({"type":"ADDED","object":{…}}), until the timeout, the client leaving, or an ERROR event.
 */
export class WatchStream {
  private ended = false;
  private corked = false;
  private watch: CacheWatch | undefined;
  private timers: NodeJS.Timeout[] = [];

  constructor(
    private readonly ctx: RequestContext,
    private readonly opts: WatchStreamOptions,
  ) {
    const contentType =
      opts.form.as === 'object'
        ? 'application/json'
        : `application/json;as=${opts.form.as};v=${opts.form.version};g=meta.k8s.io`;
    ctx.res.writeHead(200, {
      'content-type': contentType,
      'cache-control': 'no-cache, private',
      'audit-id': ctx.auditId,
    });
    // Flush the headers now: clients wait for them before they consider the watch established.
    ctx.res.write('');
    ctx.res.on('close', () => this.finish());
    this.timers.push(setTimeout(() => this.finish(), opts.timeoutMs));
    if (opts.bookmark) {
      const b = opts.bookmark;
      this.timers.push(setInterval(() => this.send('BOOKMARK', b.object()), b.everyMs));
    }
  }

  attach(watch: CacheWatch | undefined): void {
    this.watch = watch;
    if (this.ended) watch?.stop();
  }

  send(type: WatchEventType, object: KubeObject): void {
    if (this.ended) return;
    const body = type === 'BOOKMARK' ? object : this.opts.render(object, type);
    this.write(`${JSON.stringify({ type, object: body })}\n`);
  }

  /**
   * Sends an event whose object is already JSON (only for the plain object form, where render changes nothing). The
   * line goes out as three writes rather than a joined copy: the stream is corked until the end of this turn, so the
   * lines of the changes delivered in one turn (a storage commit's) leave together, in one write of many buffers.
   */
  sendEncoded(type: WatchEventType, json: Buffer): void {
    if (this.ended || !this.hasRoom()) return;
    this.corkForTurn();
    const res = this.ctx.res;
    res.write(EVENT_PREFIX[type]);
    res.write(json);
    res.write(EVENT_SUFFIX);
  }

  /** Sends an ERROR event carrying a Status (if given) and ends the stream. */
  end(error?: { code: number; reason: string; message: string }): void {
    if (this.ended) return;
    if (error) {
      const status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', ...error };
      this.write(`${JSON.stringify({ type: 'ERROR', object: status })}\n`);
    }
    this.finish();
  }

  private write(line: string | Buffer): void {
    if (this.hasRoom()) this.ctx.res.write(line);
  }

  /** False (and the stream ended) for a slow reader: it is cut off rather than buffered for without bound. */
  private hasRoom(): boolean {
    if (this.ctx.res.writableLength <= MAX_BUFFERED_BYTES) return true;
    // The client will watch again.
    this.finish();
    return false;
  }

  /** Corks the response's stream until the end of this turn of the event loop (once per turn). */
  private corkForTurn(): void {
    if (this.corked) return;
    const stream = corkable(this.ctx.res);
    this.corked = true;
    stream.cork();
    process.nextTick(() => {
      this.corked = false;
      stream.uncork();
    });
  }

  private finish(): void {
    if (this.ended) return;
    this.ended = true;
    for (const t of this.timers) clearTimeout(t);
    this.watch?.stop();
    if (!this.ctx.res.writableEnded) this.ctx.res.end();
  }
}
