/** Service defaulting as upstream's SetDefaults_Service does it, in its order. */
import type { KubeObject } from '../object.js';
import { child, rec, recs, str } from './core-json.js';
import { externallyAccessible, typeOf } from './core-service-spec.js';

/** The default ClientIP session-affinity timeout: three hours. */
export const DEFAULT_CLIENT_IP_TIMEOUT_SECONDS = 10800;

export function defaultService(svc: KubeObject): void {
  const spec = child(svc, 'spec');
  if (!spec.sessionAffinity) spec.sessionAffinity = 'None';
  if (spec.sessionAffinity === 'None') delete spec.sessionAffinityConfig;
  if (spec.sessionAffinity === 'ClientIP') {
    const timeout = rec(rec(spec.sessionAffinityConfig).clientIP).timeoutSeconds;
    if (timeout === undefined || timeout === null) {
      spec.sessionAffinityConfig = { clientIP: { timeoutSeconds: DEFAULT_CLIENT_IP_TIMEOUT_SECONDS } };
    }
  }
  if (!spec.type) spec.type = 'ClusterIP';
  if (Array.isArray(spec.ports)) {
    spec.ports = recs(spec.ports).map((port) => {
      if (!port.protocol) port.protocol = 'TCP';
      if (
        port.targetPort === undefined ||
        port.targetPort === null ||
        port.targetPort === 0 ||
        port.targetPort === ''
      ) {
        port.targetPort = port.port;
      }
      return port;
    });
  }
  if (externallyAccessible(svc) && !spec.externalTrafficPolicy) spec.externalTrafficPolicy = 'Cluster';
  const type = typeOf(svc);
  if (spec.internalTrafficPolicy === undefined || spec.internalTrafficPolicy === null) {
    if (type === 'NodePort' || type === 'LoadBalancer' || type === 'ClusterIP') spec.internalTrafficPolicy = 'Cluster';
  }
  if (type === 'LoadBalancer') {
    if (spec.allocateLoadBalancerNodePorts === undefined || spec.allocateLoadBalancerNodePorts === null) {
      spec.allocateLoadBalancerNodePorts = true;
    }
    for (const ingress of recs(rec(rec(svc.status).loadBalancer).ingress)) {
      if (str(ingress.ip) && !ingress.ipMode) ingress.ipMode = 'VIP';
    }
  }
}
