/**
 * A PodRuntime kept in memory, for tests of the kubelet server and of what proxies to it: pods set by hand and
 * container logs written by hand.
 */
import type { KubeObject } from '../../client/types.js';
import type { ContainerLogSource, LogFollower, LogLine, PodRuntime } from './types.js';

export class FakeContainerLog implements ContainerLogSource {
  private readonly kept: LogLine[] = [];
  private readonly followers = new Set<LogFollower>();
  private done = false;

  constructor(private readonly now: () => number = Date.now) {}

  write(text: string, opts: { time?: number; stream?: 'stdout' | 'stderr' } = {}): void {
    if (this.done) return;
    const line: LogLine = { time: opts.time ?? this.now(), text, stream: opts.stream ?? 'stdout' };
    this.kept.push(line);
    for (const f of this.followers) f.onLine(line);
  }

  end(): void {
    if (this.done) return;
    this.done = true;
    for (const f of this.followers) f.onEnd();
    this.followers.clear();
  }

  lines(): LogLine[] {
    return [...this.kept];
  }

  get ended(): boolean {
    return this.done;
  }

  get followerCount(): number {
    return this.followers.size;
  }

  follow(follower: LogFollower): () => void {
    if (this.done) {
      follower.onEnd();
      return () => {};
    }
    this.followers.add(follower);
    return () => this.followers.delete(follower);
  }
}

export class FakePodRuntime implements PodRuntime {
  private readonly pods = new Map<string, KubeObject>();
  private readonly logs = new Map<string, FakeContainerLog>();

  constructor(private readonly now: () => number = Date.now) {}

  setPod(pod: KubeObject): void {
    this.pods.set(`${pod.metadata.namespace ?? 'default'}/${pod.metadata.name ?? ''}`, pod);
  }

  removePod(namespace: string, name: string): void {
    this.pods.delete(`${namespace}/${name}`);
  }

  pod(namespace: string, name: string): KubeObject | undefined {
    return this.pods.get(`${namespace}/${name}`);
  }

  /** The log of a container's current (or previous) run, made on first use. */
  log(namespace: string, name: string, container: string, previous = false): FakeContainerLog {
    const key = `${namespace}/${name}/${container}/${previous ? 'previous' : 'current'}`;
    let log = this.logs.get(key);
    if (!log) {
      log = new FakeContainerLog(this.now);
      this.logs.set(key, log);
    }
    return log;
  }

  containerLog(namespace: string, name: string, container: string, previous: boolean): ContainerLogSource | undefined {
    return this.logs.get(`${namespace}/${name}/${container}/${previous ? 'previous' : 'current'}`);
  }
}
