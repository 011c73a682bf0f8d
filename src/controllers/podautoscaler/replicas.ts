/**
 * The replica calculator of upstream's HPA controller for resource metrics (replica_calculator.go and the resource
 * metrics client): pod metrics summed per pod (or one container's), pods grouped into ready, unready (pending, or
 * for CPU not yet ready long enough), missing (no metric) and ignored (deleted or failed), then
 * ceil(usageRatio × ready pods), with unready and missing pods counted so as to damp the change, within the
 * tolerance and never against the direction of the first estimate.
 */
import { type Rec, rec, recs } from '../../api/json-readers.js';
import { milliValue } from '../../api/quantity.js';
import type { KubeObject } from '../../client/types.js';

export interface PodMetric {
  /** Milli-units (millicores, millibytes). */
  value: number;
  /** When it was measured, and over how long (ms). */
  timestamp: number;
  windowMs: number;
}

/** Go's time.ParseDuration for the simple forms metrics-server writes (`15s`, `1m0.5s`, `250ms`). */
function durationMs(text: unknown): number {
  let ms = 0;
  for (const [, n, unit] of String(text ?? '').matchAll(/([0-9.]+)(ms|s|m|h)/g)) {
    ms += Number(n) * (unit === 'ms' ? 1 : unit === 's' ? 1000 : unit === 'm' ? 60_000 : 3_600_000);
  }
  return ms;
}

/**
 * PodMetrics items as a pod → metric map (getPodMetrics / getContainerMetrics): a pod's containers summed, and a
 * pod missing the resource in any container left out; with `container`, that container's value only.
 */
export function podMetricsInfo(items: readonly Rec[], resource: string, container: string): Map<string, PodMetric> {
  const out = new Map<string, PodMetric>();
  for (const m of items) {
    const name = String(rec(m.metadata).name ?? '');
    const at = { timestamp: Date.parse(String(m.timestamp ?? '')) || 0, windowMs: durationMs(m.window) };
    const containers = recs(m.containers);
    if (container !== '') {
      const usage = rec(containers.find((c) => c.name === container)?.usage);
      if (usage[resource] !== undefined) out.set(name, { value: milliValue(usage[resource]), ...at });
      continue;
    }
    if (containers.length === 0 || containers.some((c) => rec(c.usage)[resource] === undefined)) continue;
    out.set(name, { value: containers.reduce((sum, c) => sum + milliValue(rec(c.usage)[resource]), 0), ...at });
  }
  return out;
}

export interface Timing {
  now: number;
  /** --horizontal-pod-autoscaler-cpu-initialization-period and --horizontal-pod-autoscaler-initial-readiness-delay. */
  cpuInitializationPeriodMs: number;
  initialReadinessDelayMs: number;
}

/** groupPods: how many pods count as ready, and which are unready, missing a metric, or ignored. */
export function groupPods(pods: readonly KubeObject[], metrics: Map<string, PodMetric>, resource: string, t: Timing) {
  let ready = 0;
  const unready = new Set<string>();
  const missing = new Set<string>();
  const ignored = new Set<string>();
  for (const pod of pods) {
    const name = pod.metadata.name ?? '';
    const status = rec(pod.status);
    if (pod.metadata.deletionTimestamp || status.phase === 'Failed') {
      ignored.add(name);
      continue;
    }
    if (status.phase === 'Pending') {
      unready.add(name);
      continue;
    }
    const metric = metrics.get(name);
    if (!metric) {
      missing.add(name);
      continue;
    }
    if (resource === 'cpu') {
      const condition = recs(status.conditions).find((c) => c.type === 'Ready');
      const start = Date.parse(String(status.startTime ?? ''));
      let isUnready: boolean;
      if (!condition || Number.isNaN(start)) isUnready = true;
      else {
        const transition = Date.parse(String(condition.lastTransitionTime ?? '')) || 0;
        if (start + t.cpuInitializationPeriodMs > t.now) {
          // Still starting: a sample is only trusted from a whole window after the pod's last readiness change.
          isUnready = condition.status === 'False' || metric.timestamp < transition + metric.windowMs;
        } else {
          // Never became ready.
          isUnready = condition.status === 'False' && start + t.initialReadinessDelayMs > transition;
        }
      }
      if (isUnready) {
        unready.add(name);
        continue;
      }
    }
    ready++;
  }
  return { ready, unready, missing, ignored };
}

/** calculatePodRequests: each pod's request of the resource (its containers and sidecars, or one container). */
export function podRequests(pods: readonly KubeObject[], container: string, resource: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const pod of pods) {
    const spec = rec(pod.spec);
    const containers = [
      ...recs(spec.containers),
      ...recs(spec.initContainers).filter((c) => c.restartPolicy === 'Always'),
    ];
    let sum = 0;
    for (const c of containers) {
      if (container !== '' && c.name !== container) continue;
      const request = rec(rec(c.resources).requests)[resource];
      if (request === undefined) {
        throw new Error(`missing request for ${resource} in container ${String(c.name)} of Pod ${pod.metadata.name}`);
      }
      sum += milliValue(request);
    }
    out.set(pod.metadata.name ?? '', sum);
  }
  return out;
}

/** GetResourceUtilizationRatio: usage over requests of the pods with both, as a ratio to the target. */
function utilizationRatio(metrics: Map<string, PodMetric>, requests: Map<string, number>, target: number) {
  let used = 0;
  let requested = 0;
  let n = 0;
  for (const [name, m] of metrics) {
    const request = requests.get(name);
    if (request === undefined) continue;
    used += m.value;
    requested += request;
    n++;
  }
  if (requested === 0) throw new Error('no metrics returned matched known pods');
  const utilization = Math.trunc((used * 100) / requested);
  return { ratio: utilization / target, utilization, raw: Math.trunc(used / n) };
}

/** GetMetricUsageRatio: the average usage as a ratio to the target value. */
function usageRatio(metrics: Map<string, PodMetric>, target: number) {
  let total = 0;
  for (const m of metrics.values()) total += m.value;
  const usage = Math.trunc(total / metrics.size);
  return { ratio: usage / target, usage };
}

export interface Tolerance {
  within(ratio: number): boolean;
}

export const tolerance = (t: number): Tolerance => ({ within: (r) => 1 - t <= r && r <= 1 + t });

/**
 * GetResourceReplicas (a utilization target, percent of requests) and GetRawResourceReplicas (an average value
 * target) after the metrics were read: the proposed replica count and the current utilization / average usage.
 */
export function resourceReplicas(args: {
  current: number;
  pods: readonly KubeObject[];
  metrics: Map<string, PodMetric>;
  resource: string;
  container: string;
  /** A utilization percentage, or an average value in milli-units. */
  target: { utilization: number } | { averageMilli: number };
  tolerance: Tolerance;
  timing: Timing;
}): { replicas: number; utilization?: number; raw: number } {
  const { current, pods, metrics, resource, container, target } = args;
  if (pods.length === 0) throw new Error('no pods returned by selector while calculating replica count');
  const groups = groupPods(pods, metrics, resource, args.timing);
  for (const name of [...groups.ignored, ...groups.unready]) metrics.delete(name);
  if (metrics.size === 0) throw new Error('did not receive metrics for targeted pods (pods might be unready)');
  let measure: () => { ratio: number; utilization?: number; raw: number };
  let missingFallback: number | ((pod: string) => number);
  if ('utilization' in target) {
    const requests = podRequests(pods, container, resource);
    measure = () => utilizationRatio(metrics, requests, target.utilization);
    // On a scale-down a missing pod counts as using all its request (or the target, when above 100%).
    missingFallback = (pod) => Math.trunc(((requests.get(pod) ?? 0) * Math.max(100, target.utilization)) / 100);
  } else {
    measure = () => {
      const u = usageRatio(metrics, target.averageMilli);
      return { ratio: u.ratio, raw: u.usage };
    };
    missingFallback = target.averageMilli;
  }
  const first = measure();
  const answer = (replicas: number) => ({
    replicas,
    ...(first.utilization !== undefined ? { utilization: first.utilization } : {}),
    raw: first.raw,
  });
  const scaleUpWithUnready = groups.unready.size > 0 && first.ratio > 1;
  if (!scaleUpWithUnready && groups.missing.size === 0) {
    if (args.tolerance.within(first.ratio)) return answer(current);
    return answer(Math.ceil(first.ratio * groups.ready));
  }
  const zero = { value: 0, timestamp: 0, windowMs: 0 };
  if (groups.missing.size > 0) {
    for (const pod of groups.missing) {
      if (first.ratio < 1) {
        const value = typeof missingFallback === 'number' ? missingFallback : missingFallback(pod);
        metrics.set(pod, { ...zero, value });
      } else if (first.ratio > 1) metrics.set(pod, zero);
    }
  }
  if (scaleUpWithUnready) for (const pod of groups.unready) metrics.set(pod, zero);
  const next = measure().ratio;
  if (args.tolerance.within(next) || (first.ratio < 1 && next > 1) || (first.ratio > 1 && next < 1)) {
    return answer(current);
  }
  const replicas = Math.ceil(next * metrics.size);
  if ((next < 1 && replicas > current) || (next > 1 && replicas < current)) return answer(current);
  return answer(replicas);
}
