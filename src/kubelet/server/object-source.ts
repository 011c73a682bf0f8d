/**
 * ConfigMaps, Secrets, Services and service account tokens read through the API, for exec's environment and mounted files:
 * with one client, or as the kubelet of the pod's node (a client per node, e.g. its system:node:<name> identity).
 */
import type { KubeClient } from '../../client/rest.js';
import { parseTokenRequest } from '../../client/token-request.js';
import { isNotFound, type KubeObject } from '../../client/types.js';
import type { ObjectSource, ServiceAccountTokenSource } from './types.js';

/** A token is asked for again once it is this old (upstream's kubelet token manager: 24 hours at most). */
const MAX_TOKEN_AGE_MS = 24 * 60 * 60 * 1000;

export function apiObjectSource(
  client: KubeClient | ((node: string | undefined) => KubeClient),
  now: () => number = Date.now,
): ObjectSource {
  const clientOf = typeof client === 'function' ? client : () => client;
  const get = async (read: () => Promise<KubeObject>): Promise<KubeObject | undefined> => {
    try {
      return await read();
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  };
  // Tokens by service account, pod, audience and lifetime, kept until 80% of their lifetime has passed, as the
  // kubelet's token manager keeps them: a command run in a container reads the same token until then.
  const tokens = new Map<string, { token: string; refreshAt: number }>();
  const requestToken = async (pod: KubeObject, source: ServiceAccountTokenSource, node: string | undefined) => {
    const namespace = pod.metadata.namespace ?? 'default';
    const account = typeof pod.spec?.serviceAccountName === 'string' ? pod.spec.serviceAccountName : 'default';
    const key = JSON.stringify([namespace, account, pod.metadata.uid, source.audience, source.expirationSeconds]);
    const kept = tokens.get(key);
    if (kept && now() < kept.refreshAt) return kept.token;
    const answer = await clientOf(node)
      .serviceAccounts(namespace)
      .createSubresource(account, 'token', {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenRequest',
        metadata: {},
        spec: {
          ...(source.audience ? { audiences: [source.audience] } : {}),
          expirationSeconds: source.expirationSeconds,
          boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: pod.metadata.name, uid: pod.metadata.uid },
        },
      } as KubeObject);
    const { token, expiresAt } = parseTokenRequest(answer);
    const issuedAt = now();
    const refreshAt = Math.min(expiresAt - (expiresAt - issuedAt) * 0.2, issuedAt + MAX_TOKEN_AGE_MS);
    // Tokens of pods that are gone are dropped as the map is next written, once they would be refreshed anyway.
    for (const [k, v] of tokens) if (v.refreshAt <= issuedAt) tokens.delete(k);
    tokens.set(key, { token, refreshAt });
    return token;
  };
  return {
    configMap: (namespace, name, node) => get(() => clientOf(node).configMaps(namespace).get(name)),
    secret: (namespace, name, node) => get(() => clientOf(node).secrets(namespace).get(name)),
    services: async (namespace, node) => (await clientOf(node).services(namespace).list()).items,
    serviceAccountToken: (pod, source, node) => requestToken(pod, source, node),
  };
}
