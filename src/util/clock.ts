/**
 * Time as the components see it. Every timed component takes a Clock so that tests can drive time by hand.
 */
export interface TimerHandle {
  cancel(): void;
}

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Runs fn once after ms milliseconds. */
  after(ms: number, fn: () => void): TimerHandle;
  /** Runs fn every ms milliseconds until cancelled. */
  every(ms: number, fn: () => void): TimerHandle;
}

export const realClock: Clock = {
  now: () => Date.now(),
  after(ms, fn) {
    const t = setTimeout(fn, ms);
    t.unref?.();
    return { cancel: () => clearTimeout(t) };
  },
  every(ms, fn) {
    const t = setInterval(fn, ms);
    t.unref?.();
    return { cancel: () => clearInterval(t) };
  },
};

interface FakeTimer {
  due: number;
  period: number | undefined;
  fn: () => void;
  cancelled: boolean;
  seq: number;
}

/** A clock that moves only when step() is called; timers fire in due order. */
export class FakeClock implements Clock {
  private current: number;
  private timers: FakeTimer[] = [];
  private seq = 0;

  constructor(start = 0) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  after(ms: number, fn: () => void): TimerHandle {
    return this.add(ms, undefined, fn);
  }

  every(ms: number, fn: () => void): TimerHandle {
    return this.add(ms, Math.max(1, ms), fn);
  }

  /** Advances time by ms, firing every timer that falls due on the way, in order. */
  step(ms: number): void {
    const end = this.current + ms;
    for (;;) {
      const next = this.nextDue(end);
      if (!next) break;
      this.current = next.due;
      if (next.period === undefined) next.cancelled = true;
      else next.due += next.period;
      next.fn();
    }
    this.current = end;
    this.timers = this.timers.filter((t) => !t.cancelled);
  }

  /** How many timers are waiting. */
  pending(): number {
    return this.timers.filter((t) => !t.cancelled).length;
  }

  private nextDue(limit: number): FakeTimer | undefined {
    let best: FakeTimer | undefined;
    for (const t of this.timers) {
      if (t.cancelled || t.due > limit) continue;
      if (!best || t.due < best.due || (t.due === best.due && t.seq < best.seq)) best = t;
    }
    return best;
  }

  private add(ms: number, period: number | undefined, fn: () => void): TimerHandle {
    const timer: FakeTimer = { due: this.current + Math.max(0, ms), period, fn, cancelled: false, seq: this.seq++ };
    this.timers.push(timer);
    return {
      cancel: () => {
        timer.cancelled = true;
      },
    };
  }
}
