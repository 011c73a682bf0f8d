/**
 * The resource metrics API (metrics.k8s.io/v1beta1: PodMetrics and NodeMetrics), as metrics-server serves it
 * upstream, so that `kubectl top` and the HorizontalPodAutoscaler's resource metrics work. Upstream, metrics-server
 * is an aggregated API server scraping each kubelet's CPU and memory counters; wheelhouse's nodes are simulated, so
 * this built-in one reports what simulated pods declare they use: every container of a running pod (sidecars
 * included) uses the `sim.wheelhouse.dev/cpu-usage` and `sim.wheelhouse.dev/memory-usage` annotations' quantities
 * (none: zero), and a node uses what its running pods use. Only running pods bound to a node, and Ready nodes, are
 * reported, as only those have a kubelet that measures them. Read-only: get and list (label and field selectors),
 * JSON.
 */

import type { ResourceInfo } from '../api/catalog.js';
import { rec, recs } from '../api/json-readers.js';
import { addQuantities, formatQuantity, parseQuantity, type Quantity } from '../api/quantity.js';
import { statusErrors } from '../api/status-error.js';
import { formatTime } from '../util/time.js';
import type { APIRegistry } from './api-registry.js';
import type { RequestContext } from './context.js';
import type { KubeObject } from './registry/object.js';
import { plainSelectors } from './registry/selection.js';
import { writeJson } from './respond.js';

export const METRICS_GROUP = 'metrics.k8s.io';
export const METRICS_VERSION = 'v1beta1';
/** The simulated usage of each container of a pod (a quantity of CPU cores / of bytes). */
export const CPU_USAGE_ANNOTATION = 'sim.wheelhouse.dev/cpu-usage';
export const MEMORY_USAGE_ANNOTATION = 'sim.wheelhouse.dev/memory-usage';
/** The sampling window metrics-server reports with each value (its default metric resolution). */
const WINDOW = '15s';

const ZERO: Quantity = { nanos: 0n, format: 'DecimalSI' };

/** A usage annotation's quantity; zero when absent or not a quantity. */
function usageOf(pod: Readonly<KubeObject>, annotation: string, format: Quantity['format']): Quantity {
  const text = pod.metadata.annotations?.[annotation];
  if (text === undefined) return { ...ZERO, format };
  try {
    const q = parseQuantity(text);
    return q.nanos < 0n ? { ...ZERO, format } : q;
  } catch {
    return { ...ZERO, format };
  }
}

/** Whether the metrics server measures the pod: bound to a node and running. */
function measured(pod: Readonly<KubeObject>): boolean {
  return Boolean(rec(pod.spec).nodeName) && rec(pod.status).phase === 'Running';
}

/** Whether the metrics server hears from the node's kubelet: its Ready condition is True. */
function reporting(node: Readonly<KubeObject>): boolean {
  const conditions = rec(node.status).conditions;
  return Array.isArray(conditions) && conditions.some((c) => rec(c).type === 'Ready' && rec(c).status === 'True');
}

interface Usage {
  cpu: Quantity;
  memory: Quantity;
}

function containerUsage(pod: Readonly<KubeObject>): Usage {
  return {
    cpu: usageOf(pod, CPU_USAGE_ANNOTATION, 'DecimalSI'),
    memory: usageOf(pod, MEMORY_USAGE_ANNOTATION, 'BinarySI'),
  };
}

/** The containers a kubelet runs for the pod's lifetime: the app containers and the sidecars (restartable init). */
const containersOf = (pod: Readonly<KubeObject>) => {
  const spec = rec(pod.spec);
  return [...recs(spec.containers), ...recs(spec.initContainers).filter((c) => c.restartPolicy === 'Always')];
};

/** Usage as metrics-server writes it: CPU a decimal quantity (down to nanocores), memory a binary one. */
const cpuText = (q: Quantity) => formatQuantity({ nanos: q.nanos, format: 'DecimalSI' });
const memoryText = (q: Quantity) => formatQuantity({ nanos: q.nanos, format: 'BinarySI' });

function podMetrics(pod: Readonly<KubeObject>, now: string): KubeObject {
  const usage = containerUsage(pod);
  return {
    metadata: {
      name: pod.metadata.name ?? '',
      namespace: pod.metadata.namespace ?? '',
      creationTimestamp: now,
      ...(pod.metadata.labels ? { labels: { ...pod.metadata.labels } } : {}),
    },
    timestamp: now,
    window: WINDOW,
    containers: containersOf(pod).map((c) => ({
      name: String(c.name ?? ''),
      usage: { cpu: cpuText(usage.cpu), memory: memoryText(usage.memory) },
    })),
  };
}

function nodeMetrics(node: Readonly<KubeObject>, pods: readonly Readonly<KubeObject>[], now: string): KubeObject {
  let cpu: Quantity = ZERO;
  let memory: Quantity = { ...ZERO, format: 'BinarySI' };
  for (const pod of pods) {
    const usage = containerUsage(pod);
    for (const _ of containersOf(pod)) {
      cpu = addQuantities(cpu, usage.cpu);
      memory = addQuantities(memory, usage.memory);
    }
  }
  return {
    metadata: {
      name: node.metadata.name ?? '',
      creationTimestamp: now,
      ...(node.metadata.labels ? { labels: { ...node.metadata.labels } } : {}),
    },
    timestamp: now,
    window: WINDOW,
    usage: { cpu: cpuText(cpu), memory: memoryText(memory) },
  };
}

/**
 * What discovery says of the two resources, as metrics-server registers them (an aggregated API, absent from
 * upstream's OpenAPI document and so from the built-in catalog).
 */
function discoveryOf(resource: 'pods' | 'nodes'): ResourceInfo {
  const kind = resource === 'pods' ? 'PodMetrics' : 'NodeMetrics';
  return {
    group: METRICS_GROUP,
    version: METRICS_VERSION,
    resource,
    kind,
    namespaced: resource === 'pods',
    verbs: ['get', 'list'],
    singularName: kind.toLowerCase(),
    shortNames: [],
    categories: [],
    subresources: [],
  };
}

/**
 * The ClusterRole metrics-server's manifest installs beside its API: reading pod and node metrics, aggregated into
 * admin, edit and view by the clusterrole-aggregation controller, so that whoever may view a namespace may also
 * `kubectl top` its pods. Created at start-up when missing; a changed one is left as it is.
 */
export function metricsReaderClusterRole(): KubeObject {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: {
      name: 'system:aggregated-metrics-reader',
      labels: {
        'k8s-app': 'metrics-server',
        'rbac.authorization.k8s.io/aggregate-to-admin': 'true',
        'rbac.authorization.k8s.io/aggregate-to-edit': 'true',
        'rbac.authorization.k8s.io/aggregate-to-view': 'true',
      },
    },
    rules: [{ apiGroups: [METRICS_GROUP], resources: ['pods', 'nodes'], verbs: ['get', 'list', 'watch'] }],
  };
}

/** Serves metrics.k8s.io/v1beta1 pods and nodes from the pods and nodes the server stores. */
export function addMetricsAPI(registry: APIRegistry): void {
  for (const resource of ['pods', 'nodes'] as const) {
    registry.addVirtual({
      group: METRICS_GROUP,
      version: METRICS_VERSION,
      resource,
      discovery: discoveryOf(resource),
      serve: (ctx) => serveMetrics(ctx, registry, resource),
    });
  }
}

async function serveMetrics(ctx: RequestContext, registry: APIRegistry, resource: 'pods' | 'nodes'): Promise<void> {
  const info = ctx.info;
  const gr = { group: METRICS_GROUP, resource };
  if (info.subresource || (resource === 'nodes' && info.namespace)) throw statusErrors.pathNotFound();
  if (info.verb !== 'get' && info.verb !== 'list') throw statusErrors.methodNotSupported(gr, info.verb);
  const podStore = registry.lookup('', 'v1', 'pods');
  const nodeStore = registry.lookup('', 'v1', 'nodes');
  if (!podStore || !nodeStore) throw statusErrors.pathNotFound();
  const prefix = (def: { storagePrefix?: string }, namespace?: string) =>
    `${def.storagePrefix}/${namespace ? `${namespace}/` : ''}`;
  const now = formatTime(Date.now());
  const kind = resource === 'pods' ? 'PodMetrics' : 'NodeMetrics';
  const apiVersion = `${METRICS_GROUP}/${METRICS_VERSION}`;
  const running = (namespace?: string) =>
    podStore.store.cacher.listShared(prefix(podStore.def, namespace)).then((pods) => pods.filter(measured));
  if (info.verb === 'get') {
    // Only the object asked for is measured. As metrics-server: no such object is its own NotFound (from the
    // store); one without metrics is named namespace/name.
    const obj = await (resource === 'pods' ? podStore : nodeStore).store.get(info.namespace, info.name);
    let found: KubeObject | undefined;
    if (resource === 'pods') found = measured(obj) ? podMetrics(obj, now) : undefined;
    else if (reporting(obj)) {
      found = nodeMetrics(
        obj,
        (await running()).filter((p) => rec(p.spec).nodeName === info.name),
        now,
      );
    }
    if (!found) throw statusErrors.notFound(gr, info.namespace ? `${info.namespace}/${info.name}` : info.name);
    return writeJson(ctx, 200, { kind, apiVersion, ...found });
  }
  const items: KubeObject[] = [];
  if (resource === 'pods') {
    for (const pod of await running(info.namespace)) items.push(podMetrics(pod, now));
  } else {
    // Each running pod filed under its node once, rather than every pod looked at for every node.
    const byNode = new Map<string, Readonly<KubeObject>[]>();
    for (const pod of await running()) {
      const node = String(rec(pod.spec).nodeName);
      const onNode = byNode.get(node);
      if (onNode) onNode.push(pod);
      else byNode.set(node, [pod]);
    }
    const nodes = await nodeStore.store.cacher.listShared(prefix(nodeStore.def));
    for (const node of nodes.filter(reporting)) {
      items.push(nodeMetrics(node, byNode.get(node.metadata.name ?? '') ?? [], now));
    }
  }
  const q = ctx.url.searchParams;
  const { labels, fields } = plainSelectors(q);
  const selected = items.filter(
    (m) =>
      labels.matches(m.metadata.labels ?? {}) &&
      fields.matches({ 'metadata.name': m.metadata.name ?? '', 'metadata.namespace': m.metadata.namespace ?? '' }),
  );
  writeJson(ctx, 200, {
    kind: `${kind}List`,
    apiVersion,
    metadata: {},
    items: selected.map((m) => ({ ...m })),
  });
}
