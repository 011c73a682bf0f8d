/** Reading a Service's spec: the facts that defaulting, validation and allocation all ask about. */
import type { KubeObject } from '../object.js';
import { arr, type Rec, rec, recs, str } from './core-json.js';

export const CLUSTER_IP_NONE = 'None';

export const specOf = (svc: KubeObject): Rec => rec(svc.spec);
export const typeOf = (svc: KubeObject): string => str(specOf(svc).type);
export const clusterIPsOf = (svc: KubeObject): string[] => arr(specOf(svc).clusterIPs).map(str);
export const ipFamiliesOf = (svc: KubeObject): string[] => arr(specOf(svc).ipFamilies).map(str);
export const portsOf = (svc: KubeObject): Rec[] => recs(specOf(svc).ports);

/** Every type but ExternalName has a cluster IP (`None` counts). */
export const needsClusterIP = (svc: KubeObject): boolean => typeOf(svc) !== 'ExternalName';

export const needsNodePort = (svc: KubeObject): boolean => typeOf(svc) === 'NodePort' || typeOf(svc) === 'LoadBalancer';

/** NodePort and LoadBalancer services are reachable from outside the cluster (upstream's ExternallyAccessible). */
export const externallyAccessible = (svc: KubeObject): boolean =>
  needsNodePort(svc) || (typeOf(svc) === 'ClusterIP' && arr(specOf(svc).externalIPs).length > 0);

/** A LoadBalancer with externalTrafficPolicy Local needs a health-check node port. */
export const needsHealthCheck = (svc: KubeObject): boolean =>
  typeOf(svc) === 'LoadBalancer' && str(specOf(svc).externalTrafficPolicy) === 'Local';

export const isHeadless = (svc: KubeObject): boolean => {
  const ips = clusterIPsOf(svc);
  return ips.length === 1 && ips[0] === CLUSTER_IP_NONE;
};

/** Whether the service gets node ports for ports that do not ask for one. */
export const shouldAllocateNodePorts = (svc: KubeObject): boolean => {
  if (typeOf(svc) === 'NodePort') return true;
  if (typeOf(svc) === 'LoadBalancer') return specOf(svc).allocateLoadBalancerNodePorts !== false;
  return false;
};

export function nodePortOf(port: Rec): number {
  return typeof port.nodePort === 'number' ? port.nodePort : 0;
}

/** Node ports the service holds, the health-check one included. */
export function collectNodePorts(svc: KubeObject): number[] {
  const ports = portsOf(svc)
    .map(nodePortOf)
    .filter((p) => p !== 0);
  const hc = specOf(svc).healthCheckNodePort;
  if (typeof hc === 'number' && hc !== 0) ports.push(hc);
  return ports;
}

export const sameList = (a: readonly unknown[], b: readonly unknown[]) =>
  a.length === b.length && a.every((x, i) => x === b[i]);

export const sameClusterIPs = (a: KubeObject, b: KubeObject) => sameList(clusterIPsOf(a), clusterIPsOf(b));
export const sameIPFamilies = (a: KubeObject, b: KubeObject) => sameList(ipFamiliesOf(a), ipFamiliesOf(b));
