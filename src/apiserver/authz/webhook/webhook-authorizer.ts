/**
 * The Webhook authorization mode (--authorization-mode=…,Webhook with --authorization-webhook-config-file): each
 * request the modes before it did not decide is sent to a remote service as a SubjectAccessReview
 * (authorization.k8s.io v1, or v1beta1), and the service's `allowed`, `denied` and `reason` decide it, as upstream's
 * webhook authorizer does. Answers are cached — allowed ones for --authorization-webhook-cache-authorized-ttl (5m),
 * others for --authorization-webhook-cache-unauthorized-ttl (30s). A service that cannot be reached has no opinion,
 * with the error (a request nothing else allows is then answered 500, as upstream's).
 */
import { type Clock, realClock } from '../../../util/clock.js';
import { loadWebhookEndpoint } from '../../authn/webhook/kubeconfig.js';
import { TTLCache } from '../../authn/webhook/ttl-cache.js';
import type { AuthorizationAttributes, AuthorizationResult, ModeAuthorizer, RulesForUser } from '../attributes.js';

export const AUTHORIZATION_WEBHOOK_VERSIONS = ['v1', 'v1beta1'];
/** Upstream's defaults. */
export const DEFAULT_AUTHORIZATION_WEBHOOK_VERSION = 'v1beta1';
export const DEFAULT_AUTHORIZED_TTL_MS = 5 * 60_000;
export const DEFAULT_UNAUTHORIZED_TTL_MS = 30_000;

/** Requests whose attributes are this large are not cached (upstream guards its cache the same way). */
const MAX_CACHED_ATTRIBUTES_SIZE = 10_000;

export interface WebhookAuthorizerOptions {
  /** --authorization-webhook-config-file (kubeconfig format). */
  configFile: string;
  /** --authorization-webhook-version (v1 or v1beta1; default v1beta1 as upstream). */
  version?: string;
  /** --authorization-webhook-cache-authorized-ttl (default 5m). */
  authorizedTTLMs?: number;
  /** --authorization-webhook-cache-unauthorized-ttl (default 30s). */
  unauthorizedTTLMs?: number;
  clock?: Clock;
  timeoutMs?: number;
}

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : {});

interface ReviewStatus {
  allowed: boolean;
  denied: boolean;
  reason: string;
}

export function checkAuthorizationWebhookVersion(version: string): void {
  if (!AUTHORIZATION_WEBHOOK_VERSIONS.includes(version)) {
    throw new Error(
      `unsupported webhook authorizer version ${JSON.stringify(version)}, supported versions are "v1", "v1beta1"`,
    );
  }
}

/** The spec of the SubjectAccessReview that asks about attrs (v1beta1 names the groups `group`). */
function reviewSpec(attrs: AuthorizationAttributes, version: string): Rec {
  const user = attrs.user;
  const spec: Rec = {};
  // Empty attributes are left out, as upstream's JSON (omitempty) leaves them.
  const present = (fields: Record<string, string>) => Object.fromEntries(Object.entries(fields).filter(([, v]) => v));
  if (attrs.isResourceRequest) {
    spec.resourceAttributes = present({
      namespace: attrs.namespace,
      verb: attrs.verb,
      group: attrs.apiGroup,
      version: attrs.apiVersion,
      resource: attrs.resource,
      subresource: attrs.subresource,
      name: attrs.name,
    });
  } else {
    spec.nonResourceAttributes = present({ path: attrs.path, verb: attrs.verb });
  }
  spec.user = user.name;
  spec[version === 'v1beta1' ? 'group' : 'groups'] = user.groups;
  if (user.extra && Object.keys(user.extra).length > 0) spec.extra = user.extra;
  if (user.uid) spec.uid = user.uid;
  return spec;
}

function attributesSize(attrs: AuthorizationAttributes): number {
  return (
    attrs.namespace.length +
    attrs.verb.length +
    attrs.apiGroup.length +
    attrs.apiVersion.length +
    attrs.resource.length +
    attrs.subresource.length +
    attrs.name.length +
    attrs.path.length
  );
}

export class WebhookAuthorizer implements ModeAuthorizer {
  private readonly server: string;
  private readonly client: ReturnType<typeof loadWebhookEndpoint>['client'];
  private readonly version: string;
  private readonly cache: TTLCache<ReviewStatus>;
  private readonly authorizedTTL: number;
  private readonly unauthorizedTTL: number;

  constructor(opts: WebhookAuthorizerOptions) {
    this.version = opts.version ?? DEFAULT_AUTHORIZATION_WEBHOOK_VERSION;
    checkAuthorizationWebhookVersion(this.version);
    ({ server: this.server, client: this.client } = loadWebhookEndpoint(opts.configFile, opts.timeoutMs));
    this.cache = new TTLCache(opts.clock ?? realClock);
    this.authorizedTTL = opts.authorizedTTLMs ?? DEFAULT_AUTHORIZED_TTL_MS;
    this.unauthorizedTTL = opts.unauthorizedTTLMs ?? DEFAULT_UNAUTHORIZED_TTL_MS;
  }

  async authorize(attrs: AuthorizationAttributes): Promise<AuthorizationResult> {
    const spec = reviewSpec(attrs, this.version);
    const key = JSON.stringify(spec);
    let status = this.cache.get(key);
    if (!status) {
      let answer: unknown;
      try {
        answer = await this.client.post(this.server, {
          apiVersion: `authorization.k8s.io/${this.version}`,
          kind: 'SubjectAccessReview',
          metadata: { creationTimestamp: null },
          spec,
          status: { allowed: false },
        });
      } catch (err) {
        return { decision: 'no-opinion', reason: '', error: (err as Error).message };
      }
      const s = rec(rec(answer).status);
      status = {
        allowed: s.allowed === true,
        denied: s.denied === true,
        reason: typeof s.reason === 'string' ? s.reason : '',
      };
      if (attributesSize(attrs) < MAX_CACHED_ATTRIBUTES_SIZE) {
        const ttl = status.allowed ? this.authorizedTTL : this.unauthorizedTTL;
        if (ttl > 0) this.cache.set(key, status, ttl);
      }
    }
    if (status.allowed && status.denied) {
      return {
        decision: 'deny',
        reason: status.reason,
        error: 'webhook subject access review returned both allow and deny response',
      };
    }
    if (status.denied) return { decision: 'deny', reason: status.reason };
    if (status.allowed) return { decision: 'allow', reason: status.reason };
    return { decision: 'no-opinion', reason: status.reason };
  }

  rulesFor(): RulesForUser {
    return {
      resourceRules: [],
      nonResourceRules: [],
      incomplete: true,
      errors: ['webhook authorizer does not support user rule resolution'],
    };
  }

  stop(): void {
    this.client.close();
  }
}
