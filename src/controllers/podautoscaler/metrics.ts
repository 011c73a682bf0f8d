/**
 * Where the horizontal-pod-autoscaler controller reads metrics, and what it makes of them (upstream's
 * pkg/controller/podautoscaler/metrics and the computeStatusFor* steps). Resource and ContainerResource metrics
 * come from metrics.k8s.io, which wheelhouse's apiserver serves (see apiserver/metrics-api.ts); custom.metrics.k8s.io
 * and external.metrics.k8s.io are not served, so Pods, Object and External metrics end in upstream's errors, as on
 * a cluster without those adapters. Every error is wrapped, step by step, as upstream wraps it.
 */
import { type Rec, rec } from '../../api/json-readers.js';
import { LabelSelector, type LabelSelectorObject } from '../../api/labels.js';
import { formatQuantity, milliValue } from '../../api/quantity.js';
import type { KubeClient } from '../../client/rest.js';
import type { KubeObject } from '../../client/types.js';
import { podMetricsInfo, resourceReplicas, type Timing, type Tolerance } from './replicas.js';

/** What a metric is computed from: the HPA's namespace, its target's pods and replica counts, and the settings. */
export interface MetricInput {
  namespace: string;
  /** The target's pod selector, as its scale reports it. */
  selector: string;
  pods: () => KubeObject[];
  specReplicas: number;
  tolerance: Tolerance;
  timing: Timing;
}

/** A metric's proposal: the replica count, the metric's name for messages, its status entry, when measured. */
export interface MetricResult {
  replicas: number;
  name: string;
  status: Rec;
  timestamp: number;
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** What wheelhouse says when a custom or external metrics API answered (only a custom resource in its group can). */
const NOT_COMPUTED = 'computing a replica count from custom or external metrics is not supported by wheelhouse';

/** A metric that could not be turned into a replica count: the reason and errors upstream's controller reports. */
export class MetricFailure extends Error {
  constructor(
    /** The HPA event's and ScalingActive condition's reason, e.g. FailedGetResourceMetric. */
    readonly reason: string,
    /** The error the event and condition carry. */
    readonly inner: string,
    /** The error computeReplicasForMetric returns (the FailedComputeMetricsReplicas event's first error). */
    outer: string,
  ) {
    super(outer);
  }
}

/** Go's `%+v` of a *metav1.LabelSelector (its generated String method). */
export function goLabelSelectorString(selector: LabelSelectorObject | null | undefined): string {
  if (!selector) return 'nil';
  const labels = selector.matchLabels ?? {};
  const keys = Object.keys(labels).sort();
  const matchLabels = `map[string]string{${keys.map((k) => `${k}: ${labels[k]},`).join('')}}`;
  const expressions = (selector.matchExpressions ?? [])
    .map(
      (e) =>
        `LabelSelectorRequirement{Key:${e.key ?? ''},Operator:${e.operator ?? ''},Values:[${(e.values ?? []).join(' ')}],},`,
    )
    .join('');
  return `&LabelSelector{MatchLabels:${matchLabels},MatchExpressions:[]LabelSelectorRequirement{${expressions}},}`;
}

export class MetricsSource {
  constructor(private readonly client: KubeClient) {}

  /** GetResourceMetric: pod metrics from metrics.k8s.io for the pods the selector picks. */
  private async resourceMetric(namespace: string, selector: string, resource: string, container: string) {
    let items: Rec[];
    try {
      const list = await this.client
        .resource({ group: 'metrics.k8s.io', version: 'v1beta1', resource: 'pods' })
        .namespace(namespace)
        .list({ labelSelector: selector });
      items = list.items as unknown as Rec[];
    } catch (err) {
      throw new Error(`unable to fetch metrics from resource metrics API: ${message(err)}`);
    }
    if (items.length === 0) throw new Error('no metrics returned from resource metrics API');
    return {
      metrics: podMetricsInfo(items, resource, container),
      timestamp: Date.parse(String(items[0]?.timestamp ?? '')) || 0,
    };
  }

  /** The custom metrics client's first step: is custom.metrics.k8s.io served at all (discovery of /apis)? */
  private async customMetric(): Promise<never> {
    let groups: string[];
    try {
      const list = await this.client.request<Rec>({ method: 'GET', path: '/apis' });
      groups = (Array.isArray(list.groups) ? list.groups : []).map((g) => String(rec(g).name));
    } catch (err) {
      throw new Error(`unable to fetch metrics from custom metrics API: ${message(err)}`);
    }
    if (!groups.includes('custom.metrics.k8s.io')) {
      throw new Error(
        'unable to fetch metrics from custom metrics API: no custom metrics API (custom.metrics.k8s.io) registered',
      );
    }
    throw new Error(NOT_COMPUTED);
  }

  /** GetExternalMetric: a GET of the metric, by name, from external.metrics.k8s.io. */
  private async externalMetric(namespace: string, name: string, selector: string): Promise<never> {
    try {
      await this.client
        .resource({ group: 'external.metrics.k8s.io', version: 'v1beta1', resource: name })
        .namespace(namespace)
        .list({ labelSelector: selector });
    } catch (err) {
      throw new Error(`unable to fetch metrics from external metrics API: ${message(err)}`);
    }
    throw new Error(NOT_COMPUTED);
  }

  /**
   * A replica count for one entry of spec.metrics, or the MetricFailure upstream's controller would make of it
   * (computeReplicasForMetric and the computeStatusFor* functions, each wrapping the one below as upstream does).
   */
  async replicasFor(metric: Rec, input: MetricInput): Promise<MetricResult> {
    const { namespace } = input;
    const type = metric.type;
    const attempt = async <T>(reason: string, run: () => Promise<T>, wrap: (inner: string) => string) => {
      try {
        return await run();
      } catch (err) {
        const inner = message(err);
        throw new MetricFailure(reason, inner, wrap(inner));
      }
    };
    if (type === 'Resource' || type === 'ContainerResource') {
      const source = rec(type === 'Resource' ? metric.resource : metric.containerResource);
      const resource = String(source.name ?? '');
      const container = type === 'Resource' ? '' : String(source.container ?? '');
      const target = rec(source.target);
      const reason = type === 'Resource' ? 'FailedGetResourceMetric' : 'FailedGetContainerResourceMetric';
      const outer = (inner: string) =>
        type === 'Resource'
          ? `failed to get ${resource} resource metric value: ${inner}`
          : `failed to get ${container} container metric value: ${inner}`;
      const byValue = target.averageValue !== undefined;
      return attempt(
        reason,
        async () => {
          if (!byValue && target.averageUtilization === undefined) {
            throw new Error(
              'invalid resource metric source: neither an average utilization target nor an average value (usage) target was set',
            );
          }
          let computed: ReturnType<typeof resourceReplicas>;
          let timestamp: number;
          try {
            let read: Awaited<ReturnType<typeof this.resourceMetric>>;
            try {
              read = await this.resourceMetric(namespace, input.selector, resource, container);
            } catch (err) {
              throw new Error(`unable to get metrics for resource ${resource}: ${message(err)}`);
            }
            timestamp = read.timestamp;
            computed = resourceReplicas({
              current: input.specReplicas,
              pods: input.pods(),
              metrics: read.metrics,
              resource,
              container,
              target: byValue
                ? { averageMilli: milliValue(target.averageValue) }
                : { utilization: Number(target.averageUtilization) },
              tolerance: input.tolerance,
              timing: input.timing,
            });
          } catch (err) {
            throw new Error(`failed to get ${resource} ${byValue ? 'usage' : 'utilization'}: ${message(err)}`);
          }
          const current = {
            ...(computed.utilization !== undefined ? { averageUtilization: computed.utilization } : {}),
            averageValue: formatQuantity({ nanos: BigInt(computed.raw) * 1_000_000n, format: 'DecimalSI' }),
          };
          const what = type === 'Resource' ? 'resource' : 'container resource';
          return {
            replicas: computed.replicas,
            name: byValue ? `${resource} resource` : `${resource} ${what} utilization (percentage of request)`,
            status:
              type === 'Resource'
                ? { type, resource: { name: resource, current } }
                : { type, containerResource: { name: resource, container, current } },
            timestamp,
          };
        },
        outer,
      );
    }
    if (type === 'Pods') {
      const name = String(rec(rec(metric.pods).metric).name ?? '');
      return attempt(
        'FailedGetPodsMetric',
        async () => {
          try {
            return await this.customMetric();
          } catch (err) {
            throw new Error(`unable to get metric ${name}: ${message(err)}`);
          }
        },
        (inner) => `failed to get pods metric value: ${inner}`,
      );
    }
    if (type === 'Object') {
      const object = rec(metric.object);
      const name = String(rec(object.metric).name ?? '');
      const described = rec(object.describedObject);
      const target = rec(object.target);
      const perPod = !(target.type === 'Value' && target.value !== undefined);
      if (perPod && !(target.type === 'AverageValue' && target.averageValue !== undefined)) {
        const inner = 'invalid object metric source: neither a value target nor an average value target was set';
        throw new MetricFailure('FailedGetObjectMetric', inner, `failed to get object metric value: ${inner}`);
      }
      let inner = '';
      try {
        return await this.customMetric();
      } catch (err) {
        // Upstream's format string takes its arguments out of order; the text is what it prints.
        inner = `unable to get metric ${name}: ${String(described.kind ?? '')} on ${namespace} ${String(described.name ?? '')}/${message(err)}`;
      }
      const returned = perPod ? `failed to get ${name} object metric: ${inner}` : inner;
      throw new MetricFailure('FailedGetObjectMetric', inner, `failed to get object metric value: ${returned}`);
    }
    if (type === 'External') {
      const external = rec(metric.external);
      const id = rec(external.metric);
      const name = String(id.name ?? '');
      const target = rec(external.target);
      const selector = id.selector as LabelSelectorObject | undefined;
      const wrapper =
        target.averageValue !== undefined
          ? (e: string) => `failed to get ${name} external metric: ${e}`
          : target.value !== undefined
            ? (e: string) => `failed to get external metric ${name}: ${e}`
            : undefined;
      if (!wrapper) {
        const inner = 'invalid external metric source: neither a value target nor an average value target was set';
        throw new MetricFailure(
          'FailedGetExternalMetric',
          inner,
          `failed to get ${name} external metric value: ${inner}`,
        );
      }
      let inner = '';
      try {
        return await this.externalMetric(namespace, name, LabelSelector.fromObject(selector).toString());
      } catch (err) {
        inner = `unable to get external metric ${namespace}/${name}/${goLabelSelectorString(selector)}: ${message(err)}`;
      }
      throw new MetricFailure(
        'FailedGetExternalMetric',
        inner,
        `failed to get ${name} external metric value: ${wrapper(inner)}`,
      );
    }
    const inner = `unknown metric source type "${String(type ?? '')}"`;
    throw new MetricFailure('InvalidMetricSourceType', inner, inner);
  }
}
