/**
 * What the endpoints controller computes for a Service (upstream's pkg/controller/endpoint syncService, without the
 * API calls): the Endpoints subsets from the selected pods, and the truncation of Endpoints over capacity.
 */
import type {
  EndpointAddress,
  EndpointSubset,
  Endpoints,
  EndpointsPort,
  Pod,
  Service,
} from '../endpointslice/types.js';
import {
  findPort,
  isIPv6String,
  isPodReady,
  isServiceIPSet,
  podIPs,
  repackSubsets,
  shouldPodBeInEndpoints,
  shouldSetHostname,
} from '../endpointslice/util.js';

/** The most addresses an Endpoints object holds; beyond it the controller truncates. */
export const MAX_CAPACITY = 1000;

/**
 * The pod's address for the Service: the pod IP of the Service's (first) IP family, with node and target. Undefined
 * when the pod has no IP of that family.
 */
export function podToEndpointAddress(svc: Service, pod: Pod): EndpointAddress | undefined {
  let v6: boolean;
  const families = svc.spec?.ipFamilies ?? [];
  if (families.length > 0) v6 = families[0] === 'IPv6';
  else if (isServiceIPSet(svc)) v6 = isIPv6String(svc.spec?.clusterIP);
  else v6 = isIPv6String(pod.status?.podIP);
  const ip = podIPs(pod).find((text) => isIPv6String(text) === v6);
  if (!ip) return undefined;
  const addr: EndpointAddress = { ip };
  if (pod.spec?.nodeName) addr.nodeName = pod.spec.nodeName;
  addr.targetRef = {
    kind: 'Pod',
    namespace: pod.metadata.namespace ?? '',
    name: pod.metadata.name ?? '',
    uid: pod.metadata.uid ?? '',
  };
  return addr;
}

/**
 * The Service's subsets: each selected pod (terminating ones only when the Service publishes not-ready addresses)
 * under addresses or notReadyAddresses for each port it serves, packed canonically.
 */
export function computeSubsets(
  svc: Service,
  pods: readonly Pod[],
): { subsets: EndpointSubset[]; ready: number; notReady: number } {
  const tolerateUnready = svc.spec?.publishNotReadyAddresses === true;
  const raw: EndpointSubset[] = [];
  let ready = 0;
  let notReady = 0;
  const add = (pod: Pod, addr: EndpointAddress, port: EndpointsPort | undefined) => {
    const ports = port ? [port] : [];
    if (tolerateUnready || isPodReady(pod)) {
      raw.push({ addresses: [addr], ports });
      ready++;
    } else {
      raw.push({ notReadyAddresses: [addr], ports });
      notReady++;
    }
  };
  for (const pod of pods) {
    if (!shouldPodBeInEndpoints(pod, tolerateUnready)) continue;
    const addr = podToEndpointAddress(svc, pod);
    if (!addr) continue;
    if (shouldSetHostname(pod, svc)) addr.hostname = pod.spec?.hostname ?? '';
    const svcPorts = svc.spec?.ports ?? [];
    if (svcPorts.length === 0) {
      // A headless Service may have no ports.
      if (svc.spec?.clusterIP === 'None') add(pod, addr, undefined);
      continue;
    }
    for (const sp of svcPorts) {
      const port = findPort(pod, sp);
      if (port === undefined) continue;
      const epp: EndpointsPort = { port };
      if (sp.name) epp.name = sp.name;
      epp.protocol = sp.protocol ?? 'TCP';
      if (sp.appProtocol !== undefined) epp.appProtocol = sp.appProtocol;
      add(pod, addr, epp);
    }
  }
  return { subsets: repackSubsets(raw), ready, notReady };
}

const countAddresses = (subsets: readonly EndpointSubset[] | undefined): number =>
  (subsets ?? []).reduce((n, s) => n + (s.addresses?.length ?? 0) + (s.notReadyAddresses?.length ?? 0), 0);

/** Whether the over-capacity annotation is as it should be: absent, and the Endpoints within capacity. */
export function capacityAnnotationSetCorrectly(
  annotations: Record<string, string> | undefined,
  subsets: readonly EndpointSubset[] | undefined,
): boolean {
  if (countAddresses(subsets) > MAX_CAPACITY) return false;
  return !Object.hasOwn(annotations ?? {}, 'endpoints.kubernetes.io/over-capacity');
}

/**
 * Truncates Endpoints over MAX_CAPACITY addresses in place, keeping ready addresses first and sharing the room among
 * subsets in proportion to their size (rounded up, the last subsets get what is left). Answers whether it did.
 */
export function truncateEndpoints(ep: Endpoints): boolean {
  const subsets = ep.subsets ?? [];
  let totalReady = 0;
  let totalNotReady = 0;
  for (const s of subsets) {
    totalReady += s.addresses?.length ?? 0;
    totalNotReady += s.notReadyAddresses?.length ?? 0;
  }
  if (totalReady + totalNotReady <= MAX_CAPACITY) return false;
  const truncateReady = totalReady > MAX_CAPACITY;
  const max = truncateReady ? MAX_CAPACITY : MAX_CAPACITY - totalReady;
  const numTotal = truncateReady ? totalReady : totalNotReady;
  let canBeAdded = max;
  for (const subset of subsets) {
    const inSubset = truncateReady ? (subset.addresses?.length ?? 0) : (subset.notReadyAddresses?.length ?? 0);
    const toBeAdded = Math.min(Math.ceil((inSubset / numTotal) * max), canBeAdded);
    if (truncateReady) {
      subset.addresses = (subset.addresses ?? []).slice(0, toBeAdded);
      subset.notReadyAddresses = [];
      canBeAdded -= subset.addresses.length;
    } else {
      subset.notReadyAddresses = (subset.notReadyAddresses ?? []).slice(0, toBeAdded);
      canBeAdded -= subset.notReadyAddresses.length;
    }
  }
  return true;
}
