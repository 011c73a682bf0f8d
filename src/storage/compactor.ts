import { type Clock, realClock, type TimerHandle } from '../util/clock.js';
import { type Logger, silentLogger } from '../util/logger.js';
import { isStorageError, type Store } from './types.js';

/**
 * How much history to keep. Compaction runs every intervalMs and keeps at least the last retainRevisions revisions
 * and at least everything written in the last retainMs (whichever keeps more), so that watchers and paginated
 * lists that fall a little behind can still resume.
 */
export interface CompactionPolicy {
  intervalMs: number;
  retainRevisions: number;
  retainMs: number;
}

/** Upstream's apiserver compacts every 5 minutes; kine keeps the last 1000 revisions. We keep both. */
export const DEFAULT_COMPACTION: CompactionPolicy = {
  intervalMs: 5 * 60_000,
  retainRevisions: 1000,
  retainMs: 5 * 60_000,
};

/** Compacts a store periodically by its policy. Works on every backend, since it only uses the contract. */
export class Compactor {
  private samples: Array<{ at: number; revision: number }> = [];
  private timer: TimerHandle | undefined;
  private running: Promise<number | undefined> | undefined;
  private compactedTo = 0;

  constructor(
    private readonly store: Store,
    private readonly policy: CompactionPolicy = DEFAULT_COMPACTION,
    private readonly clock: Clock = realClock,
    private readonly log: Logger = silentLogger,
  ) {}

  start(): void {
    if (this.timer) return;
    void this.tick();
    this.timer = this.clock.every(this.policy.intervalMs, () => void this.tick());
  }

  stop(): void {
    this.timer?.cancel();
    this.timer = undefined;
  }

  /** The revision history has been compacted to by this compactor (0 before the first compaction). */
  get compactedRevision(): number {
    return this.compactedTo;
  }

  /** Samples the current revision and compacts if the policy allows; returns the revision compacted to, if any. */
  tick(): Promise<number | undefined> {
    if (!this.running) {
      this.running = this.runOnce().finally(() => {
        this.running = undefined;
      });
    }
    return this.running;
  }

  private async runOnce(): Promise<number | undefined> {
    const now = this.clock.now();
    let current: number;
    try {
      current = await this.store.currentRevision();
    } catch (err) {
      this.log.error('compaction: cannot read the current revision', { err: String(err) });
      return undefined;
    }
    this.samples.push({ at: now, revision: current });
    // The newest revision that was already current retainMs ago; older samples are no longer needed.
    const cutoff = now - this.policy.retainMs;
    let newestOld = -1;
    for (let i = 0; i < this.samples.length && (this.samples[i]?.at ?? now) <= cutoff; i++) newestOld = i;
    if (newestOld > 0) this.samples.splice(0, newestOld);
    const byTime = newestOld >= 0 ? (this.samples[0]?.revision ?? 0) : 0;
    const target = Math.min(byTime, current - this.policy.retainRevisions);
    if (target <= this.compactedTo || target <= 0) return undefined;
    try {
      await this.store.compact(target);
      this.compactedTo = target;
      this.log.v(1).info('compacted', { revision: target, current });
      return target;
    } catch (err) {
      if (isStorageError(err, 'Compacted')) {
        // Someone else (another apiserver sharing etcd) compacted at least this far.
        this.compactedTo = target;
        return undefined;
      }
      this.log.error('compaction failed', { revision: target, err: String(err) });
      return undefined;
    }
  }
}
