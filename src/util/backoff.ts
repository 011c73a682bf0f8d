/**
 * Exponential backoff (apimachinery's exponential backoff manager): each delay is factor times the last, up to a
 * cap, plus up to jitter × the delay at random; it starts over once no backoff was asked for resetMs (the other side
 * is taken to be healthy again), or when reset() says so. The defaults are the reflector's: start at 800 ms, double
 * up to 30 s, up to 100% jitter, start over after two quiet minutes.
 */
import type { Clock } from './clock.js';

export interface BackoffOptions {
  initialMs?: number;
  maxMs?: number;
  /** Time without a backoff after which the next one starts from initialMs again. */
  resetMs?: number;
  factor?: number;
  /** Adds up to jitter × the delay, at random; 0 for none. */
  jitter?: number;
  /** [0, 1); Math.random by default. */
  random?: () => number;
}

export const REFLECTOR_BACKOFF = { initialMs: 800, maxMs: 30_000, resetMs: 120_000, factor: 2, jitter: 1 } as const;

export class ExponentialBackoff {
  private readonly initialMs: number;
  private readonly maxMs: number;
  private readonly resetMs: number;
  private readonly factor: number;
  private readonly jitter: number;
  private readonly random: () => number;
  private current: number;
  private lastStart = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly clock: Clock,
    opts: BackoffOptions = {},
  ) {
    this.initialMs = opts.initialMs ?? REFLECTOR_BACKOFF.initialMs;
    this.maxMs = opts.maxMs ?? REFLECTOR_BACKOFF.maxMs;
    this.resetMs = opts.resetMs ?? REFLECTOR_BACKOFF.resetMs;
    this.factor = opts.factor ?? REFLECTOR_BACKOFF.factor;
    this.jitter = opts.jitter ?? REFLECTOR_BACKOFF.jitter;
    this.random = opts.random ?? Math.random;
    this.current = this.initialMs;
  }

  /** The next delay in milliseconds. */
  next(): number {
    const now = this.clock.now();
    if (now - this.lastStart > this.resetMs) this.current = this.initialMs;
    this.lastStart = now;
    const delay = this.current;
    this.current = Math.min(this.maxMs, this.current * this.factor);
    return this.jitter > 0 ? delay + this.random() * this.jitter * delay : delay;
  }

  /** Starts over: the next delay is initialMs again (after a success). */
  reset(): void {
    this.current = this.initialMs;
  }
}
