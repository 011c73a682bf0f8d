/**
 * The log of one run of a simulated container: the lines its lifecycle steps wrote, kept in a small ring buffer
 * (the oldest dropped first), with followers for `kubectl logs -f`. A container that restarts starts a new log; the
 * last one stays readable as the previous instance (`kubectl logs --previous`).
 */

export interface LogLine {
  /** Milliseconds since the epoch on the kubelet's clock. */
  time: number;
  text: string;
  stream: 'stdout' | 'stderr';
}

export interface LogFollower {
  onLine(line: LogLine): void;
  /** The container stopped: no more lines will come. */
  onEnd(): void;
}

export const DEFAULT_LOG_LINES = 1000;

export class ContainerLog {
  private readonly ring: LogLine[] = [];
  private start = 0;
  private finished = false;
  private readonly followers = new Set<LogFollower>();

  constructor(private readonly capacity = DEFAULT_LOG_LINES) {}

  write(time: number, text: string, stream: 'stdout' | 'stderr' = 'stdout'): void {
    if (this.finished) return;
    for (const piece of text.split('\n')) {
      const line: LogLine = { time, text: piece, stream };
      if (this.ring.length < this.capacity) this.ring.push(line);
      else {
        this.ring[this.start] = line;
        this.start = (this.start + 1) % this.capacity;
      }
      for (const f of this.followers) f.onLine(line);
    }
  }

  /** The kept lines, oldest first. */
  lines(): LogLine[] {
    return [...this.ring.slice(this.start), ...this.ring.slice(0, this.start)];
  }

  /** True once the container has stopped. */
  get ended(): boolean {
    return this.finished;
  }

  /** Marks the run as over and tells the followers. */
  end(): void {
    if (this.finished) return;
    this.finished = true;
    for (const f of this.followers) f.onEnd();
    this.followers.clear();
  }

  /** Hears every later line until the run ends (at once if it has); returns how to stop listening. */
  follow(follower: LogFollower): () => void {
    if (this.finished) {
      follower.onEnd();
      return () => {};
    }
    this.followers.add(follower);
    return () => this.followers.delete(follower);
  }
}
