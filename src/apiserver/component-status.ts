/**
 * componentstatuses (core v1 ComponentStatus, deprecated since v1.19 and still served in v1.33): what
 * `kubectl get componentstatuses` (`cs`) shows — the health of the controller manager, the scheduler and the
 * storage, probed at the moment they are asked for, as upstream's componentstatus REST does. Nothing is stored.
 *
 * Upstream probes https://127.0.0.1:10257/healthz and https://127.0.0.1:10259/healthz without verifying their
 * certificates, and one `etcd-N` per storage backend. A control plane started in one process gives the
 * components it runs itself (the scheduler's actual port, the controller manager's own checks).
 */
import { request } from 'node:https';
import { stringify as toYaml } from 'yaml';
import { StatusError, statusErrors } from '../api/status-error.js';
import type { Store } from '../storage/types.js';
import type { APIRegistry } from './api-registry.js';
import { logResponseObject } from './audit/request-audit.js';
import type { RequestContext } from './context.js';
import { respondPrinted, writeMetaList } from './handlers/rest.js';
import { writeJsonList } from './handlers/write-list.js';
import { contentTypeFor, negotiateOutput } from './negotiate.js';
import { nameColumn, type Printer } from './printers/table.js';
import { addWarnings } from './registry/field-validation.js';
import type { KubeObject } from './registry/object.js';
import { plainSelectors } from './registry/selection.js';

/** One ComponentCondition (type Healthy) as a probe leaves it. */
export interface ComponentCondition {
  status: 'True' | 'False' | 'Unknown';
  message: string;
  error: string;
}

/** A component whose health componentstatuses reports, by the name it is listed under. */
export interface ComponentProbe {
  name: string;
  probe(): Promise<ComponentCondition>;
}

const DEPRECATION = 'v1 ComponentStatus is deprecated in v1.19+';
/** Upstream's probeTimeOut for these checks. */
const PROBE_TIMEOUT_MS = 20_000;

/** The Go error text Go's HTTP client gives for a failed GET, for the errors a loopback probe meets. */
function getError(url: string, err: NodeJS.ErrnoException): string {
  const host = new URL(url).host;
  switch (err.code) {
    case 'ECONNREFUSED':
      return `Get ${JSON.stringify(url)}: dial tcp ${host}: connect: connection refused`;
    case 'ETIMEDOUT':
      return `Get ${JSON.stringify(url)}: context deadline exceeded (Client.Timeout exceeded while awaiting headers)`;
    default:
      return `Get ${JSON.stringify(url)}: ${err.message}`;
  }
}

/**
 * An HTTPS health endpoint probed as upstream's HTTP prober does (the certificate is not checked): 2xx is healthy
 * with the body as message; another code unhealthy with `HTTP probe failed with statuscode: <code>`; no answer
 * unhealthy with the client's error as message.
 */
export function httpsHealthProbe(name: string, url: string): ComponentProbe {
  return {
    name,
    probe: () =>
      new Promise((resolve) => {
        const req = request(url, { method: 'GET', rejectUnauthorized: false, timeout: PROBE_TIMEOUT_MS }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const code = res.statusCode ?? 0;
            const body = Buffer.concat(chunks).toString('utf8');
            if (code >= 200 && code < 300) resolve({ status: 'True', message: body, error: '' });
            else if (code >= 300 && code < 400) {
              resolve({ status: 'Unknown', message: `Probe terminated redirects, Response body: ${body}`, error: '' });
            } else resolve({ status: 'False', message: `HTTP probe failed with statuscode: ${code}`, error: '' });
          });
          res.on('error', (err) => resolve({ status: 'False', message: getError(url, err), error: '' }));
        });
        req.on('timeout', () => req.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })));
        req.on('error', (err) => resolve({ status: 'False', message: getError(url, err), error: '' }));
        req.end();
      }),
  };
}

/**
 * A probe that asks in-process health checks: healthy when every one passes, else what the HTTP probe of the
 * component's /healthz would say (the endpoint answers 500 when a check fails).
 */
export function inProcessProbe(name: string, checks: () => Record<string, () => boolean | string>): ComponentProbe {
  return {
    name,
    probe: async () => {
      const failed = Object.entries(checks()).filter(([, check]) => check() !== true);
      if (failed.length === 0) return { status: 'True', message: 'ok', error: '' };
      return { status: 'False', message: 'HTTP probe failed with statuscode: 500', error: '' };
    },
  };
}

/**
 * The storage: healthy when it answers a read of its current revision. Upstream lists one `etcd-N` per storage
 * configuration; here the name says which backend it is (`etcd-0`, `sqlite-0`, `memory-0`).
 */
export function storageProbe(store: Store): ComponentProbe {
  return {
    name: `${store.backend}-0`,
    probe: async () => {
      try {
        await store.currentRevision();
        return { status: 'True', message: 'ok', error: '' };
      } catch (err) {
        return { status: 'False', message: '', error: err instanceof Error ? err.message : String(err) };
      }
    },
  };
}

/** What a kube-apiserver on its own probes: the components on their default ports, and its storage. */
export function defaultComponentProbes(store: Store): ComponentProbe[] {
  return [
    httpsHealthProbe('controller-manager', 'https://127.0.0.1:10257/healthz'),
    httpsHealthProbe('scheduler', 'https://127.0.0.1:10259/healthz'),
    storageProbe(store),
  ];
}

const componentStatusPrinter: Printer = {
  columns: [
    nameColumn,
    { name: 'Status', type: 'string', format: '', description: 'Status of the component conditions', priority: 0 },
    { name: 'Message', type: 'string', format: '', description: 'Message of the component conditions', priority: 0 },
    { name: 'Error', type: 'string', format: '', description: 'Error of the component conditions', priority: 0 },
  ],
  cells(obj) {
    const conditions = Array.isArray(obj.conditions) ? (obj.conditions as Record<string, string>[]) : [];
    const healthy = conditions.find((c) => c.type === 'Healthy');
    const status = healthy === undefined ? 'Unknown' : healthy.status === 'True' ? 'Healthy' : 'Unhealthy';
    return [obj.metadata.name ?? '', status, healthy?.message ?? '', healthy?.error ?? ''];
  },
};

/** A ComponentStatus as upstream encodes it (creationTimestamp null: it was never stored). */
async function statusOf(component: ComponentProbe): Promise<KubeObject> {
  const c = await component.probe();
  return {
    metadata: { name: component.name, creationTimestamp: null as unknown as string },
    conditions: [
      {
        type: 'Healthy',
        status: c.status,
        ...(c.message ? { message: c.message } : {}),
        ...(c.error ? { error: c.error } : {}),
      },
    ],
  };
}

/** Serves componentstatuses (get and list) from the probes' answers. */
export function addComponentStatuses(registry: APIRegistry, probes: () => ComponentProbe[]): void {
  registry.addVirtual({
    group: '',
    version: 'v1',
    resource: 'componentstatuses',
    serve: (ctx) => serveComponentStatuses(ctx, probes()),
  });
}

async function serveComponentStatuses(ctx: RequestContext, probes: ComponentProbe[]): Promise<void> {
  const info = ctx.info;
  if (info.namespace || info.subresource) throw statusErrors.pathNotFound();
  if (info.verb !== 'get' && info.verb !== 'list') {
    throw statusErrors.methodNotSupported({ group: '', resource: 'componentstatuses' }, info.verb);
  }
  addWarnings(ctx.res, [DEPRECATION]);
  if (info.verb === 'get') {
    const component = probes.find((p) => p.name === info.name);
    // Upstream's REST answers a plain error here, which the server passes on as a 500 without a reason.
    if (!component) throw new StatusError(500, '', `Component not found: ${info.name}`);
    return respondPrinted(ctx, componentStatusPrinter, {
      kind: 'ComponentStatus',
      apiVersion: 'v1',
      ...(await statusOf(component)),
    });
  }
  const q = ctx.url.searchParams;
  const { labels, fields } = plainSelectors(q);
  // Every component is probed at once; the selectors see a name and no labels (upstream's default predicate).
  const items = (await Promise.all(probes.map(statusOf))).filter(
    (obj) => labels.matches({}) && fields.matches({ 'metadata.name': obj.metadata.name ?? '' }),
  );
  const form = negotiateOutput(ctx.req.headers.accept);
  if (form.as !== 'object') return writeMetaList(ctx, componentStatusPrinter, form, items);
  const head = { kind: 'ComponentStatusList', apiVersion: 'v1', metadata: {} };
  if (form.yaml) {
    const list = { ...head, items };
    logResponseObject(ctx, list);
    ctx.res.writeHead(200, { 'content-type': 'application/yaml', 'audit-id': ctx.auditId });
    ctx.res.end(toYaml(list));
    return;
  }
  return writeJsonList(ctx, head, items, contentTypeFor(form));
}
