/**
 * Per-key exponential backoff as client-go's flowcontrol.Backoff keeps it: the first step is the initial delay, each
 * further step doubles it up to the maximum, and an entry untouched for twice the maximum starts over. The DaemonSet
 * controller uses it (1 s, up to 15 min) so that deleting failed daemon pods on one node does not become a hot loop.
 */
export class PerKeyBackoff {
  private readonly entries = new Map<string, { backoffMs: number; lastUpdateMs: number }>();

  constructor(
    private readonly initialMs: number,
    private readonly maxMs: number,
  ) {}

  private expired(nowMs: number, lastUpdateMs: number): boolean {
    return nowMs - lastUpdateMs > 2 * this.maxMs;
  }

  /** The key's current delay (0 when it has none). */
  get(key: string): number {
    return this.entries.get(key)?.backoffMs ?? 0;
  }

  /** Moves the key one step on at nowMs. */
  next(key: string, nowMs: number): void {
    const entry = this.entries.get(key);
    if (!entry || this.expired(nowMs, entry.lastUpdateMs)) {
      this.entries.set(key, { backoffMs: this.initialMs, lastUpdateMs: nowMs });
      return;
    }
    entry.backoffMs = Math.min(entry.backoffMs * 2, this.maxMs);
    entry.lastUpdateMs = nowMs;
  }

  /** Whether less than the key's delay has passed since its last step. */
  isInBackOffSinceUpdate(key: string, nowMs: number): boolean {
    const entry = this.entries.get(key);
    if (!entry || this.expired(nowMs, entry.lastUpdateMs)) return false;
    return nowMs - entry.lastUpdateMs < entry.backoffMs;
  }

  /** Forgets entries that have expired. */
  gc(nowMs: number): void {
    for (const [key, entry] of this.entries) if (this.expired(nowMs, entry.lastUpdateMs)) this.entries.delete(key);
  }
}
