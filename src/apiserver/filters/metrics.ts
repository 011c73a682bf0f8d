import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { APIRegistry } from '../api-registry.js';
import type { Filter, RequestContext } from '../context.js';

const METRIC_VERBS: Record<string, string> = {
  get: 'GET',
  list: 'LIST',
  watch: 'WATCH',
  create: 'POST',
  update: 'PUT',
  patch: 'PATCH',
  delete: 'DELETE',
  deletecollection: 'DELETECOLLECTION',
};

function labelsOf(ctx: RequestContext) {
  const info = ctx.info;
  const scope = !info.isResourceRequest ? '' : info.name ? 'resource' : info.namespace ? 'namespace' : 'cluster';
  return {
    verb: info.isResourceRequest ? (METRIC_VERBS[info.verb] ?? info.verb.toUpperCase()) : ctx.method,
    group: info.apiGroup,
    version: info.apiVersion,
    resource: info.resource,
    subresource: info.subresource,
    scope,
    component: 'apiserver',
  };
}

/**
 * The apiserver's Prometheus metrics with upstream's names and labels: apiserver_request_total,
 * apiserver_request_duration_seconds, apiserver_longrunning_requests, apiserver_storage_objects. Each server has
 * its own registry, so several control planes in one process do not mix their figures.
 */
export class APIServerMetrics {
  readonly registry = new Registry();
  private readonly requests: Counter;
  private readonly duration: Histogram;
  private readonly longRunning: Gauge;

  constructor(private readonly resources: APIRegistry) {
    const labelNames = ['verb', 'group', 'version', 'resource', 'subresource', 'scope', 'component'];
    this.requests = new Counter({
      name: 'apiserver_request_total',
      help: 'Requests answered, by verb, resource and HTTP code.',
      labelNames: [...labelNames, 'code'],
      registers: [this.registry],
    });
    this.duration = new Histogram({
      name: 'apiserver_request_duration_seconds',
      help: 'Time to answer a request, by verb and resource (watches and other long-running requests excluded).',
      labelNames: [...labelNames, 'dry_run'],
      buckets: [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60],
      registers: [this.registry],
    });
    this.longRunning = new Gauge({
      name: 'apiserver_longrunning_requests',
      help: 'Long-running requests (watches) in flight.',
      labelNames,
      registers: [this.registry],
    });
    new Gauge({
      name: 'apiserver_storage_objects',
      help: 'Objects stored, by resource.',
      labelNames: ['resource'],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const served of resources.all()) {
          const def = served.def;
          this.set({ resource: def.group ? `${def.resource}.${def.group}` : def.resource }, served.store.cacher.size);
        }
      },
    });
  }

  filter(): Filter {
    return (next) => async (ctx) => {
      const started = process.hrtime.bigint();
      let longRunningLabels: ReturnType<typeof labelsOf> | undefined;
      const done = () => {
        const labels = labelsOf(ctx);
        if (longRunningLabels) this.longRunning.dec(longRunningLabels);
        this.requests.inc({ ...labels, code: String(ctx.res.statusCode) });
        if (!ctx.longRunning) {
          const seconds = Number(process.hrtime.bigint() - started) / 1e9;
          this.duration.observe({ ...labels, dry_run: ctx.url.searchParams.has('dryRun') ? 'All' : '' }, seconds);
        }
      };
      ctx.res.once('close', done);
      if (ctx.info.verb === 'watch') {
        longRunningLabels = labelsOf(ctx);
        this.longRunning.inc(longRunningLabels);
      }
      return next(ctx);
    };
  }

  async text(): Promise<{ contentType: string; body: string }> {
    // Admission plugins with metrics of their own (the webhooks') are served here too.
    const own = new Set<Registry>();
    for (const served of this.resources.all()) {
      for (const plugin of served.store.admission?.plugins ?? []) if (plugin.metrics) own.add(plugin.metrics);
    }
    const registry = own.size === 0 ? this.registry : Registry.merge([this.registry, ...own]);
    return { contentType: registry.contentType, body: await registry.metrics() };
  }
}
