/**
 * The work queue of the controllers the apiserver runs inside itself (the CRD controllers, the APIService
 * registration): keys queued once however often they are added, synced by one handler, a failed sync queued again
 * after a pause. Serial syncs one key at a time; batched takes everything queued at once, so that the keys' writes
 * share storage commits. Level-triggered: a sync reads the state afresh, so a key queued again while it syncs is
 * simply synced once more.
 */
import type { Logger } from '../util/logger.js';
import type { KubeObject } from './registry/object.js';
import type { GenericStore } from './registry/store.js';

export class KeyQueue {
  private readonly queue = new Set<string>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly idle: (() => void)[] = [];
  private running = false;
  private stopped = false;

  constructor(
    private readonly sync: (key: string) => Promise<void>,
    private readonly opts: { log: Logger; retryMs: number; batched?: boolean },
  ) {}

  /** Queues key (now, or after afterMs); an empty key, or any key once stopped, is ignored. */
  add(key: string, afterMs = 0): void {
    if (this.stopped || key === '') return;
    if (afterMs > 0) {
      const t = setTimeout(() => {
        this.timers.delete(t);
        this.add(key);
      }, afterMs);
      t.unref();
      this.timers.add(t);
      return;
    }
    this.queue.add(key);
    if (!this.running) void this.drain();
  }

  /** Resolves once nothing is queued or syncing. */
  whenIdle(): Promise<void> {
    if (!this.running && this.queue.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  /** Drops what is queued and syncs nothing more; whoever waits for idleness stops waiting. */
  stop(): void {
    this.stopped = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    this.queue.clear();
    if (!this.running) for (const resolve of this.idle.splice(0)) resolve();
  }

  private async drain(): Promise<void> {
    this.running = true;
    while (!this.stopped && this.queue.size > 0) {
      const keys = this.opts.batched ? [...this.queue] : [this.queue.values().next().value as string];
      for (const key of keys) this.queue.delete(key);
      await Promise.all(keys.map((key) => this.syncOne(key)));
    }
    this.running = false;
    for (const resolve of this.idle.splice(0)) resolve();
  }

  private async syncOne(key: string): Promise<void> {
    try {
      await this.sync(key);
    } catch (err) {
      this.opts.log.error('sync failed', { key, err: String(err) });
      this.add(key, this.opts.retryMs);
    }
  }
}

/**
 * Follows every object of a store through its watch cache, as the controllers' informers do: each object there now,
 * then each change. When the cache ends the watch (it lost storage's and reloads) the store is watched again — every
 * object offered anew, and `resync` called for what may have gone meanwhile — until stopped.
 */
export async function followStore(
  store: GenericStore,
  onObject: (obj: KubeObject) => void,
  opts: { log: Logger; resync?: () => void },
): Promise<{ stop(): void }> {
  let stopped = false;
  let current: { stop(): void } | undefined;
  const watch = async (): Promise<void> => {
    current = await store.cacher.watch({
      fromRevision: undefined,
      prefix: `${store.def.storagePrefix}/`,
      everything: true,
      matches: () => true,
      onEvent: (_type, obj) => onObject(obj),
      onEnd: (reason) => {
        if (stopped || reason === 'closed') return;
        watch().then(
          () => opts.resync?.(),
          (err) => opts.log.error('watching again failed', { err: String(err) }),
        );
      },
    });
  };
  await watch();
  return {
    stop() {
      stopped = true;
      current?.stop();
    },
  };
}
