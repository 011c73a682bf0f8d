/**
 * A scriptable ListerWatcher for tests of reflectors, informers and controllers: it holds objects and a
 * resourceVersion counter, answers list (with limit/continue paging) from them, and hands out watches the test
 * drives by hand (push events, end the stream, send an ERROR). It records every call's options, and can be told
 * to fail the next calls.
 */
import {
  ApiError,
  type KubeObject,
  type ListerWatcher,
  type ListOptions,
  type ObjectList,
  type StatusObject,
  type WatchEvent,
  type WatchEventType,
  type WatchStream,
} from '../client/types.js';

/** One watch handed out by FakeListerWatcher; the test pushes its events. */
export class FakeWatch<T extends KubeObject = KubeObject> implements WatchStream<T> {
  closed = false;
  private readonly buffered: ({ event: WatchEvent<T> } | { error: unknown })[] = [];
  private wake: (() => void) | undefined;

  constructor(readonly opts: ListOptions) {}

  push(type: WatchEventType, object: T): void {
    if (this.closed) return;
    this.buffered.push({ event: { type, object: structuredClone(object) } });
    this.notify();
  }

  /** Sends an ERROR event carrying a Status, as the server does for 410 Gone. */
  pushError(status: Partial<StatusObject>): void {
    this.push('ERROR', { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', ...status } as never);
  }

  /** Makes the iteration throw, as a broken stream does. */
  fail(error: unknown): void {
    if (this.closed) return;
    this.buffered.push({ error });
    this.notify();
  }

  /** The server ends the stream (e.g. its timeoutSeconds passed). */
  end(): void {
    this.close();
  }

  close(): void {
    this.closed = true;
    this.notify();
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<WatchEvent<T>> {
    for (;;) {
      const next = this.buffered.shift();
      if (next && 'error' in next) {
        this.closed = true;
        throw next.error;
      }
      if (next) {
        yield next.event;
        continue;
      }
      if (this.closed) return;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
    }
  }
}

const keyOf = (obj: KubeObject) =>
  obj.metadata.namespace ? `${obj.metadata.namespace}/${obj.metadata.name}` : (obj.metadata.name ?? '');

export class FakeListerWatcher<T extends KubeObject = KubeObject> implements ListerWatcher<T> {
  /** The last resourceVersion handed out. */
  rv: number;
  readonly objects = new Map<string, T>();
  readonly listCalls: ListOptions[] = [];
  readonly watchCalls: ListOptions[] = [];
  readonly watches: FakeWatch<T>[] = [];
  /** Errors the next list calls throw, one each, in order. */
  readonly listErrors: unknown[] = [];
  /** Errors the next watch calls throw, one each, in order. */
  readonly watchErrors: unknown[] = [];
  private watchWaiters: ((w: FakeWatch<T>) => void)[] = [];
  private listWaiters: (() => void)[] = [];
  private watchCallWaiters: (() => void)[] = [];

  constructor(initial: T[] = [], startRv = 100) {
    this.rv = startRv;
    for (const obj of initial) this.create(obj, { notify: false });
  }

  async list(opts: ListOptions = {}): Promise<ObjectList<T>> {
    this.listCalls.push({ ...opts });
    for (const resolve of this.listWaiters.splice(0)) resolve();
    const error = this.listErrors.shift();
    if (error !== undefined) throw error;
    const all = [...this.objects.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, o]) => o);
    let start = 0;
    let listRv = String(this.rv);
    if (opts.continue) {
      const [rv, offset] = opts.continue.split(':');
      listRv = rv ?? listRv;
      start = Number(offset);
    }
    const end = opts.limit ? start + opts.limit : all.length;
    const items = all.slice(start, end).map((o) => structuredClone(o));
    const metadata =
      end < all.length ? { resourceVersion: listRv, continue: `${listRv}:${end}` } : { resourceVersion: listRv };
    return { apiVersion: 'v1', kind: 'List', metadata, items };
  }

  async watch(opts: ListOptions = {}): Promise<WatchStream<T>> {
    this.watchCalls.push({ ...opts });
    for (const resolve of this.watchCallWaiters.splice(0)) resolve();
    const error = this.watchErrors.shift();
    if (error !== undefined) throw error;
    const w = new FakeWatch<T>({ ...opts });
    this.watches.push(w);
    for (const resolve of this.watchWaiters.splice(0)) resolve(w);
    return w;
  }

  /** The newest watch that is still open. */
  currentWatch(): FakeWatch<T> | undefined {
    const w = this.watches.at(-1);
    return w && !w.closed ? w : undefined;
  }

  /** Resolves with the next watch opened from now on. */
  nextWatch(): Promise<FakeWatch<T>> {
    return new Promise((resolve) => this.watchWaiters.push(resolve));
  }

  /** Resolves with the n-th watch opened (counting from 1), at once if it is open already. */
  async watchNumber(n: number): Promise<FakeWatch<T>> {
    while (this.watches.length < n) await this.nextWatch();
    return this.watches[n - 1] as FakeWatch<T>;
  }

  /** Resolves when watch is called next, whether it fails or not. */
  nextWatchCall(): Promise<void> {
    return new Promise((resolve) => this.watchCallWaiters.push(resolve));
  }

  /** Resolves when list is called next. */
  nextList(): Promise<void> {
    return new Promise((resolve) => this.listWaiters.push(resolve));
  }

  /** Stores obj with the next resourceVersion and sends ADDED to open watches (unless notify is false). */
  create(obj: T, opts: { notify?: boolean } = {}): T {
    return this.write('ADDED', obj, opts);
  }

  modify(obj: T, opts: { notify?: boolean } = {}): T {
    return this.write('MODIFIED', obj, opts);
  }

  remove(obj: T, opts: { notify?: boolean } = {}): T {
    return this.write('DELETED', obj, opts);
  }

  /** Sends a BOOKMARK at a new resourceVersion to open watches. */
  bookmark(): string {
    this.rv++;
    const rv = String(this.rv);
    this.currentWatch()?.push('BOOKMARK', {
      kind: 'ConfigMap',
      apiVersion: 'v1',
      metadata: { resourceVersion: rv },
    } as T);
    return rv;
  }

  private write(type: WatchEventType, obj: T, opts: { notify?: boolean }): T {
    this.rv++;
    const stored = structuredClone(obj);
    stored.metadata = { ...stored.metadata, resourceVersion: String(this.rv) };
    if (type === 'DELETED') this.objects.delete(keyOf(stored));
    else this.objects.set(keyOf(stored), stored);
    if (opts.notify !== false) this.currentWatch()?.push(type, stored);
    return structuredClone(stored);
  }
}

/** An ApiError as the server sends it for a resourceVersion that is too old. */
export function goneError(message = 'too old resource version: 1 (100)'): ApiError {
  return new ApiError({ kind: 'Status', apiVersion: 'v1', status: 'Failure', message, reason: 'Expired', code: 410 });
}

/** Lets promise callbacks and pending I/O callbacks run a few rounds. */
export async function settle(rounds = 5): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

/** Waits (in event-loop rounds, not time) until cond() holds; throws when it does not within `rounds`. */
export async function eventually(cond: () => boolean, rounds = 200): Promise<void> {
  for (let i = 0; i < rounds; i++) {
    if (cond()) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  if (!cond()) throw new Error('condition not reached');
}
