/**
 * The kubeconfig-format files of kube-apiserver's webhooks (--authentication-token-webhook-config-file,
 * --authorization-webhook-config-file): the cluster is the remote service (server URL, CA), the user is the
 * apiserver's own credentials there (client certificate, token, or basic auth). Paths are relative to the file, as
 * clientcmd resolves them. The request goes to the server URL exactly as written; transient failures are retried
 * with upstream's webhook backoff.
 */
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { parse } from 'yaml';
import { formatGoDuration } from '../../../api/protobuf/go-time.js';
import {
  DEFAULT_TIMEOUT_MS,
  DEFAULT_WEBHOOK_RETRY_BACKOFF,
  HTTPSJSONClient,
  type TLSClientConfig,
} from '../https-json.js';

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : {});
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

export interface WebhookEndpoint {
  /** The URL requests are POSTed to. */
  server: string;
  client: HTTPSJSONClient;
}

function named(list: unknown, name: string, what: string, file: string): Rec {
  const items = Array.isArray(list) ? list.map(rec) : [];
  const found = name ? items.find((i) => i.name === name) : items.length === 1 ? items[0] : undefined;
  if (!found) {
    throw new Error(
      name
        ? `invalid configuration in ${file}: ${what} ${JSON.stringify(name)} not found`
        : `invalid configuration in ${file}: no ${what} chosen (set current-context)`,
    );
  }
  return found;
}

/** Reads a webhook's kubeconfig; throws (kube-apiserver refuses to start) when it is unreadable or incomplete. */
export function loadWebhookEndpoint(file: string, timeoutMs?: number): WebhookEndpoint {
  let config: Rec;
  try {
    config = rec(parse(readFileSync(file, 'utf8')));
  } catch (err) {
    throw new Error(`unable to load webhook kubeconfig ${file}: ${(err as Error).message}`);
  }
  const base = dirname(file);
  const at = (p: string) => (isAbsolute(p) ? p : resolve(base, p));
  const contextName = str(config['current-context']);
  const contexts = Array.isArray(config.contexts) ? config.contexts : [];
  let clusterName = '';
  let userName = '';
  if (contextName || contexts.length > 0) {
    const ctx = rec(named(contexts, contextName, 'context', file).context);
    clusterName = str(ctx.cluster);
    userName = str(ctx.user);
  }
  const cluster = rec(named(config.clusters, clusterName, 'cluster', file).cluster);
  const users = Array.isArray(config.users) ? config.users : [];
  const user = userName || users.length > 0 ? rec(named(users, userName, 'user', file).user) : {};
  const server = str(cluster.server);
  if (!server) throw new Error(`invalid configuration in ${file}: the cluster has no server`);
  const data = (inline: unknown, path: unknown): Buffer | undefined => {
    if (str(inline)) return Buffer.from(str(inline), 'base64');
    if (str(path)) return readFileSync(at(str(path)));
    return undefined;
  };
  const tls: TLSClientConfig = {};
  const ca = data(cluster['certificate-authority-data'], cluster['certificate-authority']);
  if (ca) tls.ca = ca;
  const cert = data(user['client-certificate-data'], user['client-certificate']);
  const key = data(user['client-key-data'], user['client-key']);
  if (cert) tls.cert = cert;
  if (key) tls.key = key;
  if (str(cluster['tls-server-name'])) tls.serverName = str(cluster['tls-server-name']);
  if (cluster['insecure-skip-tls-verify'] === true) tls.insecureSkipVerify = true;
  const token = str(user.token) || (str(user.tokenFile) ? readFileSync(at(str(user.tokenFile)), 'utf8').trim() : '');
  const client = new HTTPSJSONClient({
    tls,
    ...(token ? { bearerToken: token } : {}),
    ...(str(user.username) ? { basicAuth: { username: str(user.username), password: str(user.password) } } : {}),
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    retry: DEFAULT_WEBHOOK_RETRY_BACKOFF,
  });
  // client-go's REST client sends its timeout with every request (`?timeout=30s`), and names that URL in errors.
  const url = new URL(server);
  url.searchParams.set('timeout', formatGoDuration(BigInt(timeoutMs ?? DEFAULT_TIMEOUT_MS) * 1_000_000n));
  return { server: url.toString(), client };
}
