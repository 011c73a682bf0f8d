/**
 * kube-scheduler's metrics with upstream's names and labels, in a registry of their own (several schedulers may
 * share a process): scheduler_schedule_attempts_total{result,profile},
 * scheduler_scheduling_attempt_duration_seconds{result,profile}, scheduler_pending_pods{queue}.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';

export type AttemptResult = 'scheduled' | 'unschedulable' | 'error';

export class SchedulerMetrics {
  readonly registry = new Registry();
  private readonly attempts: Counter;
  private readonly duration: Histogram;

  /** `pending` is read at each scrape. */
  constructor(pending: () => { active: number; backoff: number; unschedulable: number; gated: number }) {
    this.attempts = new Counter({
      name: 'scheduler_schedule_attempts_total',
      help: "Number of attempts to schedule pods, by the result. 'unschedulable' means a pod could not be scheduled, while 'error' means an internal scheduler problem.",
      labelNames: ['result', 'profile'],
      registers: [this.registry],
    });
    this.duration = new Histogram({
      name: 'scheduler_scheduling_attempt_duration_seconds',
      help: 'Scheduling attempt latency in seconds (scheduling algorithm + binding)',
      labelNames: ['result', 'profile'],
      buckets: Array.from({ length: 15 }, (_, i) => 0.001 * 2 ** i),
      registers: [this.registry],
    });
    new Gauge({
      name: 'scheduler_pending_pods',
      help: "Number of pending pods, by the queue type. 'active' means number of pods in activeQ; 'backoff' means number of pods in backoffQ; 'unschedulable' means number of pods in unschedulablePods that the scheduler attempted to schedule and failed; 'gated' is the number of unschedulable pods that the scheduler never attempted to schedule because they are gated.",
      labelNames: ['queue'],
      registers: [this.registry],
      collect() {
        const p = pending();
        this.set({ queue: 'active' }, p.active);
        this.set({ queue: 'backoff' }, p.backoff);
        this.set({ queue: 'unschedulable' }, p.unschedulable);
        this.set({ queue: 'gated' }, p.gated);
      },
    });
  }

  /** One attempt ended (a pod bound, found unschedulable, or failed by an error), `seconds` after it began. */
  observeAttempt(result: AttemptResult, profile: string, seconds: number): void {
    this.attempts.inc({ result, profile });
    this.duration.observe({ result, profile }, seconds);
  }

  metrics(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
