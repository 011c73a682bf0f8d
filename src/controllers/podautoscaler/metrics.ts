/**
 * Where the horizontal-pod-autoscaler controller reads metrics, and the errors it gets when it cannot (upstream's
 * pkg/controller/podautoscaler/metrics and the replica calculator's first step). wheelhouse serves none of the
 * metrics APIs (metrics.k8s.io, custom.metrics.k8s.io, external.metrics.k8s.io), so on a wheelhouse cluster every
 * metric ends in one of these errors, worded as upstream's, as on any cluster without a metrics server. Computing a
 * replica count from metrics an API did answer is not built: it is reported as an error of its own.
 */
import { LabelSelector, type LabelSelectorObject } from '../../api/labels.js';
import type { KubeClient } from '../../client/rest.js';

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : {});

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** What wheelhouse says when a metrics API answered (only a custom resource squatting its group can). */
const NOT_COMPUTED = 'computing a replica count from metrics is not supported by wheelhouse yet';

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
  private async resourceMetric(namespace: string, selector: string): Promise<never> {
    try {
      await this.client
        .resource({ group: 'metrics.k8s.io', version: 'v1beta1', resource: 'pods' })
        .namespace(namespace)
        .list({ labelSelector: selector });
    } catch (err) {
      throw new Error(`unable to fetch metrics from resource metrics API: ${message(err)}`);
    }
    throw new Error(NOT_COMPUTED);
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
  async replicasFor(metric: Rec, namespace: string, podSelector: string): Promise<number> {
    const type = metric.type;
    const attempt = async (reason: string, run: () => Promise<never>, wrap: (inner: string) => string) => {
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
      const target = rec(source.target);
      const reason = type === 'Resource' ? 'FailedGetResourceMetric' : 'FailedGetContainerResourceMetric';
      const outer = (inner: string) =>
        type === 'Resource'
          ? `failed to get ${resource} resource metric value: ${inner}`
          : `failed to get ${String(source.container ?? '')} container metric value: ${inner}`;
      const step = target.averageValue !== undefined ? 'usage' : 'utilization';
      return attempt(
        reason,
        async () => {
          if (target.averageValue === undefined && target.averageUtilization === undefined) {
            throw new Error(
              'invalid resource metric source: neither an average utilization target nor an average value (usage) target was set',
            );
          }
          try {
            return await this.resourceMetric(namespace, podSelector);
          } catch (err) {
            throw new Error(
              `failed to get ${resource} ${step}: unable to get metrics for resource ${resource}: ${message(err)}`,
            );
          }
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
        inner = `unable to get metric ${name}: ${message(err)} on ${String(described.kind ?? '')} ${namespace}/${String(described.name ?? '')}`;
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
