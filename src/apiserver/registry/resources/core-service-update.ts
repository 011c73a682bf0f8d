/**
 * What a Service update keeps or drops before it is validated: allocated values the client left out are kept
 * (so `kubectl replace` of a manifest without clusterIP works), clusterIP and clusterIPs are kept in step, and
 * fields that no longer apply after a type change are dropped when the client did not touch them.
 */
import type { KubeObject } from '../object.js';
import { str } from './core-json.js';
import {
  clusterIPsOf,
  needsClusterIP,
  needsHealthCheck,
  needsNodePort,
  nodePortOf,
  portsOf,
  sameClusterIPs,
  sameIPFamilies,
  sameList,
  specOf,
  typeOf,
} from './core-service-spec.js';

/** clusterIPs follows clusterIP for clients that only know the singular field. */
export function normalizeClusterIPs(svc: KubeObject, old?: KubeObject): void {
  const spec = specOf(svc);
  const ip = str(spec.clusterIP);
  if (!old) {
    if (ip !== '' && clusterIPsOf(svc).length === 0) spec.clusterIPs = [ip];
    return;
  }
  const oldSpec = specOf(old);
  if (clusterIPsOf(old).length > 0 && clusterIPsOf(svc).length === 0 && str(oldSpec.clusterIP) === ip) {
    spec.clusterIPs = clusterIPsOf(old);
  }
  if (str(oldSpec.clusterIP) !== ip) {
    if (str(oldSpec.clusterIP) !== '' && ip === '' && sameClusterIPs(old, svc)) delete spec.clusterIPs;
    if (ip !== '' && sameClusterIPs(old, svc)) spec.clusterIPs = [ip];
  }
}

/** Upstream's patchAllocatedValues: allocated values the update left empty come from the stored object. */
export function keepAllocatedValues(svc: KubeObject, old: KubeObject): void {
  const spec = specOf(svc);
  const oldSpec = specOf(old);
  if (needsClusterIP(old) && needsClusterIP(svc)) {
    if (!str(spec.clusterIP)) {
      if (oldSpec.clusterIP === undefined) delete spec.clusterIP;
      else spec.clusterIP = oldSpec.clusterIP;
    }
    if (clusterIPsOf(svc).length === 0 && clusterIPsOf(old).length > 0) spec.clusterIPs = clusterIPsOf(old);
  }
  if (needsNodePort(old) && needsNodePort(svc)) {
    const inNew = new Set(portsOf(svc).map(nodePortOf));
    const used = new Set(
      portsOf(old)
        .map(nodePortOf)
        .filter((p) => p !== 0 && inNew.has(p)),
    );
    const byName = new Map(portsOf(old).map((p) => [str(p.name), nodePortOf(p)]));
    const ports = portsOf(svc);
    for (const p of ports) {
      const previous = byName.get(str(p.name)) ?? 0;
      if (nodePortOf(p) === 0 && previous !== 0 && !used.has(previous)) p.nodePort = previous;
    }
    if (ports.length > 0) spec.ports = ports;
  }
  if (needsHealthCheck(old) && needsHealthCheck(svc) && !spec.healthCheckNodePort && oldSpec.healthCheckNodePort) {
    spec.healthCheckNodePort = oldSpec.healthCheckNodePort;
  }
}

/** Upstream's dropTypeDependentFields: after a type change, fields the new type has no use for, if unchanged. */
export function dropTypeDependentFields(svc: KubeObject, old: KubeObject): void {
  const spec = specOf(svc);
  const oldSpec = specOf(old);
  if (needsClusterIP(old) && !needsClusterIP(svc)) {
    if (sameClusterIPs(old, svc)) {
      delete spec.clusterIP;
      delete spec.clusterIPs;
    }
    if (sameIPFamilies(old, svc)) delete spec.ipFamilies;
    if ((spec.ipFamilyPolicy ?? null) === (oldSpec.ipFamilyPolicy ?? null)) delete spec.ipFamilyPolicy;
  }
  if (needsNodePort(old) && !needsNodePort(svc)) {
    if (sameList(portsOf(old).map(nodePortOf), portsOf(svc).map(nodePortOf))) {
      const ports = portsOf(svc);
      for (const p of ports) delete p.nodePort;
      if (ports.length > 0) spec.ports = ports;
    }
  }
  if (needsHealthCheck(old) && !needsHealthCheck(svc) && spec.healthCheckNodePort === oldSpec.healthCheckNodePort) {
    delete spec.healthCheckNodePort;
  }
  if (typeOf(old) === 'LoadBalancer' && typeOf(svc) !== 'LoadBalancer') {
    if (
      typeof spec.allocateLoadBalancerNodePorts === 'boolean' &&
      spec.allocateLoadBalancerNodePorts === oldSpec.allocateLoadBalancerNodePorts
    ) {
      delete spec.allocateLoadBalancerNodePorts;
    }
    if ((spec.loadBalancerClass ?? null) === (oldSpec.loadBalancerClass ?? null)) delete spec.loadBalancerClass;
  }
  if (needsNodePort(old) && !needsNodePort(svc) && spec.externalTrafficPolicy === oldSpec.externalTrafficPolicy) {
    delete spec.externalTrafficPolicy;
  }
}
