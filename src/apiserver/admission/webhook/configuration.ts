/**
 * The admission webhooks a request may be sent to: every webhook of every Mutating- or ValidatingWebhookConfiguration
 * the watch cache holds (as upstream's plugins read them from an informer), configurations in name order and webhooks
 * in their configured order, each read once into the typed form the dispatchers use. The list is rebuilt only when
 * the watch cache has moved on.
 */
import { LabelSelector, type LabelSelectorObject } from '../../../api/labels.js';
import type { APIRegistry } from '../../api-registry.js';
import type { KubeObject } from '../../registry/object.js';

export const ADMISSION_REGISTRATION_GROUP = 'admissionregistration.k8s.io';

export interface WebhookRule {
  operations: string[];
  apiGroups: string[];
  apiVersions: string[];
  resources: string[];
  scope: string;
}

export interface ServiceReference {
  namespace: string;
  name: string;
  path: string;
  port: number;
}

export interface MatchCondition {
  name: string;
  expression: string;
}

/** One webhook of a configuration, with v1's defaults filled in for anything stored without them. */
export interface Webhook {
  /** Unique among the webhooks of its kind: `<configuration>/<index>/<name>` (webhook names repeat across configurations). */
  uid: string;
  configurationName: string;
  /** Its position in the full list the dispatcher walks (used in audit annotation keys). */
  index: number;
  name: string;
  rules: WebhookRule[];
  failurePolicy: 'Fail' | 'Ignore';
  matchPolicy: 'Equivalent' | 'Exact';
  /** The parsed selectors, or the error a stored selector gives (reported when the webhook's rules match). */
  namespaceSelector: LabelSelector | Error;
  objectSelector: LabelSelector | Error;
  sideEffects: string;
  timeoutSeconds: number;
  admissionReviewVersions: string[];
  url?: string;
  service?: ServiceReference;
  /** The PEM bundle the webhook's serving certificate must chain to ('' for the system roots). */
  caBundle: string;
  reinvocationPolicy: 'Never' | 'IfNeeded';
  matchConditions: MatchCondition[];
}

const rec = (v: unknown): Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
const strs = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []);
const str = (v: unknown, fallback = ''): string => (typeof v === 'string' ? v : fallback);

function selector(v: unknown): LabelSelector | Error {
  try {
    return LabelSelector.fromObject(v == null ? {} : (rec(v) as LabelSelectorObject));
  } catch (err) {
    return err instanceof Error ? err : new Error(String(err));
  }
}

function decodeCABundle(v: unknown): string {
  if (typeof v !== 'string' || v === '') return '';
  return Buffer.from(v, 'base64').toString('utf8');
}

function webhookFrom(config: KubeObject, raw: Record<string, unknown>, position: number, index: number): Webhook {
  const name = str(raw.name);
  const cc = rec(raw.clientConfig);
  const service = cc.service == null ? undefined : rec(cc.service);
  const timeout = typeof raw.timeoutSeconds === 'number' ? raw.timeoutSeconds : 10;
  return {
    uid: `${config.metadata.name ?? ''}/${position}/${name}`,
    configurationName: config.metadata.name ?? '',
    index,
    name,
    rules: (Array.isArray(raw.rules) ? raw.rules : []).map((r) => {
      const rule = rec(r);
      return {
        operations: strs(rule.operations),
        apiGroups: strs(rule.apiGroups),
        apiVersions: strs(rule.apiVersions),
        resources: strs(rule.resources),
        scope: str(rule.scope, '*'),
      };
    }),
    failurePolicy: raw.failurePolicy === 'Ignore' ? 'Ignore' : 'Fail',
    matchPolicy: raw.matchPolicy === 'Exact' ? 'Exact' : 'Equivalent',
    namespaceSelector: selector(raw.namespaceSelector),
    objectSelector: selector(raw.objectSelector),
    sideEffects: str(raw.sideEffects),
    timeoutSeconds: timeout,
    admissionReviewVersions: strs(raw.admissionReviewVersions),
    ...(typeof cc.url === 'string' ? { url: cc.url } : {}),
    ...(service
      ? {
          service: {
            namespace: str(service.namespace),
            name: str(service.name),
            path: str(service.path),
            port: typeof service.port === 'number' ? service.port : 443,
          },
        }
      : {}),
    caBundle: decodeCABundle(cc.caBundle),
    reinvocationPolicy: raw.reinvocationPolicy === 'IfNeeded' ? 'IfNeeded' : 'Never',
    matchConditions: (Array.isArray(raw.matchConditions) ? raw.matchConditions : []).map((c) => ({
      name: str(rec(c).name),
      expression: str(rec(c).expression),
    })),
  };
}

/** Reads the webhooks of one configuration resource (mutatingwebhookconfigurations or validatingwebhookconfigurations). */
export class WebhookSource {
  private cached: { revision: number; size: number; hooks: Webhook[] } | undefined;

  constructor(
    private readonly registry: APIRegistry,
    private readonly resource: 'mutatingwebhookconfigurations' | 'validatingwebhookconfigurations',
  ) {}

  /** The webhooks as the last call found them, when the configurations have not changed since (else undefined). */
  webhooksNow(): Webhook[] | undefined {
    const served = this.registry.lookup(ADMISSION_REGISTRATION_GROUP, 'v1', this.resource);
    if (!served) return [];
    const cacher = served.store.cacher;
    const last = this.cached;
    if (cacher.isLoaded && last && last.revision === cacher.revision && last.size === cacher.size) return last.hooks;
    return undefined;
  }

  async webhooks(): Promise<Webhook[]> {
    const known = this.webhooksNow();
    if (known) return known;
    const served = this.registry.lookup(ADMISSION_REGISTRATION_GROUP, 'v1', this.resource);
    if (!served) return [];
    const cacher = served.store.cacher;
    if (!cacher.isLoaded) await cacher.start();
    const revision = cacher.revision;
    const size = cacher.size;
    const { items } = await cacher.list(`${served.def.storagePrefix}/`, () => true);
    const configs = [...items].sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1));
    const hooks: Webhook[] = [];
    for (const config of configs) {
      const raws = Array.isArray(config.webhooks) ? config.webhooks : [];
      raws.forEach((raw, position) => {
        hooks.push(webhookFrom(config, rec(raw), position, hooks.length));
      });
    }
    this.cached = { revision, size, hooks };
    return hooks;
  }
}
