/**
 * What the endpointslice, endpoints and endpointslice-mirroring controllers share (upstream's k8s.io/endpointslice
 * util, pkg/api/v1/endpoints and pkg/api/v1/pod helpers): the label and annotation keys, which pods belong in
 * endpoints and how, which Services a pod change concerns, endpoint identity (the hash that lets a slice be
 * updated in place), port-set keys, and the canonical packing of Endpoints subsets.
 */
import { LabelSelector } from '../../api/labels.js';
import { formatIP, isIPv4, parseIP } from '../../api/validation/ip.js';
import { DeletedFinalStateUnknown } from '../../client/cache/store.js';
import { ApiError, type KubeObject, type OwnerReference } from '../../client/types.js';
import type {
  Endpoint,
  EndpointAddress,
  EndpointSubset,
  EndpointsPort,
  Pod,
  Service,
  ServicePort,
  SlicePort,
} from './types.js';

export const LABEL_SERVICE_NAME = 'kubernetes.io/service-name';
export const LABEL_MANAGED_BY = 'endpointslice.kubernetes.io/managed-by';
export const LABEL_SKIP_MIRROR = 'endpointslice.kubernetes.io/skip-mirror';
export const LABEL_HEADLESS_SERVICE = 'service.kubernetes.io/headless';
export const LABEL_TOPOLOGY_ZONE = 'topology.kubernetes.io/zone';
export const ANNOTATION_LAST_CHANGE_TRIGGER_TIME = 'endpoints.kubernetes.io/last-change-trigger-time';
export const ANNOTATION_OVER_CAPACITY = 'endpoints.kubernetes.io/over-capacity';
/** resourcelock.LeaderElectionRecordAnnotationKey: Endpoints used as a leader election lock. */
export const ANNOTATION_LEADER_ELECTION = 'control-plane.alpha.kubernetes.io/leader';
export const ANNOTATION_LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

// ---------------------------------------------------------------------------------------------------------------
// Values

/** JSON with object keys sorted and undefined dropped: equal values give equal text. */
export function canonicalJSON(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(v).sort()) out[key] = (v as Record<string, unknown>)[key];
    return out;
  });
}

/** Whether two string maps hold the same entries; missing and empty are the same (apimachinery's Semantic). */
export function stringMapsEqual(
  a: Record<string, string> | null | undefined,
  b: Record<string, string> | null | undefined,
): boolean {
  const ak = Object.keys(a ?? {});
  if (ak.length !== Object.keys(b ?? {}).length) return false;
  return ak.every((k) => Object.hasOwn(b ?? {}, k) && b?.[k] === a?.[k]);
}

/** A copy of m without keys. */
export function withoutKeys(m: Record<string, string> | null | undefined, ...keys: string[]): Record<string, string> {
  const out: Record<string, string> = { ...m };
  for (const key of keys) delete out[key];
  return out;
}

/** meta/v1 Time as Go's RFC3339Nano prints it in UTC: fractional seconds only when there are some. */
export function formatRFC3339Nano(ms: number): string {
  return new Date(ms).toISOString().replace(/\.?0*Z$/, 'Z');
}

/** A controller ownerReference to obj (metav1.NewControllerRef). */
export function controllerRef(obj: KubeObject, apiVersion: string, kind: string): OwnerReference {
  return {
    apiVersion,
    kind,
    name: obj.metadata.name ?? '',
    uid: obj.metadata.uid ?? '',
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** The object of a delete notification, unwrapping a tombstone. */
export function objectFromDelete<T extends KubeObject>(obj: T | DeletedFinalStateUnknown<T>): T {
  return obj instanceof DeletedFinalStateUnknown ? obj.obj : obj;
}

/** Whether a create failed because the namespace is being deleted (the NamespaceTerminating cause). */
export function isNamespaceTerminating(err: unknown): boolean {
  return err instanceof ApiError && (err.status.details?.causes ?? []).some((c) => c.type === 'NamespaceTerminating');
}

// ---------------------------------------------------------------------------------------------------------------
// IP addresses

/**
 * Parses an IP as Go's ParseIPSloppy does (IPv4 parts with leading zeros are decimal) and prints it as Go's
 * net.IP does: dotted IPv4 (also for IPv4-mapped IPv6), canonical IPv6. Undefined when it is not an IP.
 */
export function parseIPSloppy(text: string): { ip: string; ipv6: boolean } | undefined {
  const bytes = parseIP(text);
  return bytes && { ip: formatIP(bytes), ipv6: !isIPv4(bytes) };
}

export const isIPv6String = (text: string | undefined): boolean => parseIPSloppy(text ?? '')?.ipv6 ?? false;

// ---------------------------------------------------------------------------------------------------------------
// Pods

export function podReadyCondition(pod: Pod) {
  return pod.status?.conditions?.find((c) => c.type === 'Ready');
}

/** The pod's Ready condition is True. */
export const isPodReady = (pod: Pod): boolean => podReadyCondition(pod)?.status === 'True';

/** Succeeded or Failed: its containers will never run again. */
export const isPodTerminal = (pod: Pod): boolean => pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';

/** The pod's IPs (status.podIPs, or status.podIP alone). */
export function podIPs(pod: Pod): string[] {
  const ips = (pod.status?.podIPs ?? []).map((p) => p.ip).filter((ip) => !!ip);
  if (ips.length === 0 && pod.status?.podIP) ips.push(pod.status.podIP);
  return ips;
}

/** Whether the pod has a place in Endpoints or EndpointSlices: not terminal, has an IP, terminating only if asked. */
export function shouldPodBeInEndpoints(pod: Pod, includeTerminating: boolean): boolean {
  if (isPodTerminal(pod)) return false;
  if (!pod.status?.podIP && (pod.status?.podIPs ?? []).length === 0) return false;
  if (!includeTerminating && pod.metadata.deletionTimestamp) return false;
  return true;
}

/** A pod gets a hostname in a Service's endpoints when its subdomain names that Service. */
export function shouldSetHostname(pod: Pod, svc: Service): boolean {
  return (
    !!pod.spec?.hostname &&
    pod.spec?.subdomain === svc.metadata.name &&
    svc.metadata.namespace === pod.metadata.namespace
  );
}

/**
 * The pod port a Service port targets: a numeric targetPort as is; a named one looked up in the containers' ports
 * (and in sidecar init containers) with the Service port's protocol. Undefined when the pod has no such port.
 */
export function findPort(pod: Pod, svcPort: ServicePort): number | undefined {
  const target = svcPort.targetPort ?? svcPort.port;
  if (typeof target === 'number') return target;
  const protocol = svcPort.protocol ?? 'TCP';
  const sidecars = (pod.spec?.initContainers ?? []).filter((c) => c.restartPolicy === 'Always');
  for (const container of [...(pod.spec?.containers ?? []), ...sidecars]) {
    for (const port of container.ports ?? []) {
      if (port.name === target && (port.protocol ?? 'TCP') === protocol) return port.containerPort;
    }
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------------------------
// Services

/** Whether the Service selects pods. An empty selector counts as none: the API does not keep an empty map. */
export function hasSelector(svc: Service): boolean {
  const selector = svc.spec?.selector;
  return selector != null && Object.keys(selector).length > 0;
}

/** A ClusterIP is set (neither headless nor unset). */
export function isServiceIPSet(svc: Service): boolean {
  const ip = svc.spec?.clusterIP ?? '';
  return ip !== 'None' && ip !== '';
}

export const keyOf = (obj: KubeObject): string => `${obj.metadata.namespace ?? ''}/${obj.metadata.name ?? ''}`;

/** Keys of the Services (among services, those of the pod's namespace) whose selector matches labels. */
export function servicesSelecting(
  services: readonly Service[],
  labels: Record<string, string> | undefined,
): Set<string> {
  const keys = new Set<string>();
  for (const svc of services) {
    if (!hasSelector(svc)) continue;
    if (LabelSelector.fromSet(svc.spec?.selector).matches(labels ?? {})) keys.add(keyOf(svc));
  }
  return keys;
}

/**
 * Whether a pod update can change endpoints: [pod changed (deletion, readiness, IPs), labels or hostname changed
 * (which Services it belongs to)].
 */
export function podEndpointsChanged(oldPod: Pod, newPod: Pod): [podChanged: boolean, labelsChanged: boolean] {
  const labelsChanged =
    !stringMapsEqual(oldPod.metadata.labels, newPod.metadata.labels) ||
    oldPod.spec?.hostname !== newPod.spec?.hostname ||
    oldPod.spec?.subdomain !== newPod.spec?.subdomain;
  if (oldPod.metadata.deletionTimestamp !== newPod.metadata.deletionTimestamp) return [true, labelsChanged];
  if (isPodReady(oldPod) !== isPodReady(newPod)) return [true, labelsChanged];
  const a = oldPod.status?.podIPs ?? [];
  const b = newPod.status?.podIPs ?? [];
  if (a.length !== b.length || a.some((ip, i) => ip.ip !== b[i]?.ip)) return [true, labelsChanged];
  if ((oldPod.status?.podIP ?? '') !== (newPod.status?.podIP ?? '')) return [true, labelsChanged];
  return [false, labelsChanged];
}

/**
 * The Services to sync after a pod update (upstream's GetServicesToUpdateOnPodChange): none for a resync or an
 * irrelevant change; the union of old and new memberships when the pod changed; otherwise only the Services it
 * joined or left.
 */
export function servicesToUpdateOnPodChange(services: readonly Service[], oldPod: Pod, newPod: Pod): Set<string> {
  if (oldPod.metadata.resourceVersion === newPod.metadata.resourceVersion) return new Set();
  const [podChanged, labelsChanged] = podEndpointsChanged(oldPod, newPod);
  if (!podChanged && !labelsChanged) return new Set();
  const now = servicesSelecting(services, newPod.metadata.labels);
  if (!labelsChanged) return now;
  const before = servicesSelecting(services, oldPod.metadata.labels);
  if (podChanged) return new Set([...now, ...before]);
  const out = new Set<string>();
  for (const k of now) if (!before.has(k)) out.add(k);
  for (const k of before) if (!now.has(k)) out.add(k);
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Endpoint identity

/**
 * What identifies an endpoint across syncs: its addresses, hostname and target. Conditions, node and zone are not
 * part of it, so that their changes update the endpoint in place.
 */
export function endpointHash(ep: Endpoint): string {
  return canonicalJSON([
    [...ep.addresses].sort(),
    ep.hostname ?? '',
    ep.targetRef?.namespace ?? '',
    ep.targetRef?.name ?? '',
  ]);
}

/** A set of endpoints by endpointHash, in insertion order. */
export class EndpointSet {
  private readonly items = new Map<string, Endpoint>();

  insert(ep: Endpoint): void {
    this.items.set(endpointHash(ep), ep);
  }

  get(ep: Endpoint): Endpoint | undefined {
    return this.items.get(endpointHash(ep));
  }

  delete(ep: Endpoint): void {
    this.items.delete(endpointHash(ep));
  }

  /** Removes and answers one endpoint. */
  pop(): Endpoint | undefined {
    for (const [key, ep] of this.items) {
      this.items.delete(key);
      return ep;
    }
    return undefined;
  }

  get size(): number {
    return this.items.size;
  }
}

const sameRef = (a: Endpoint['targetRef'], b: Endpoint['targetRef']): boolean =>
  canonicalJSON(a ? { ...a, resourceVersion: undefined } : null) ===
  canonicalJSON(b ? { ...b, resourceVersion: undefined } : null);

/** Equal in what endpointHash leaves out (node, zone, conditions, target ignoring its resourceVersion). */
export function endpointsEqualBeyondHash(a: Endpoint, b: Endpoint): boolean {
  return (
    a.nodeName === b.nodeName &&
    a.zone === b.zone &&
    a.conditions?.ready === b.conditions?.ready &&
    a.conditions?.serving === b.conditions?.serving &&
    a.conditions?.terminating === b.conditions?.terminating &&
    sameRef(a.targetRef, b.targetRef)
  );
}

/** Normalised as the API defaults them: a missing name is "", a missing protocol TCP. */
function normalPort(p: SlicePort): SlicePort {
  return { name: p.name ?? '', port: p.port, protocol: p.protocol ?? 'TCP', appProtocol: p.appProtocol };
}

/** Identifies a set of ports, whatever their order (upstream's PortMapKey). */
export function portMapKey(ports: readonly SlicePort[] | null | undefined): string {
  return canonicalJSON((ports ?? []).map((p) => canonicalJSON(normalPort(p))).sort());
}

/** The Service whose slice this is, as `namespace/name` from the service-name label; undefined without it. */
export function serviceKeyOfSlice(slice: KubeObject): string | undefined {
  const name = slice.metadata.labels?.[LABEL_SERVICE_NAME];
  return name ? `${slice.metadata.namespace ?? ''}/${name}` : undefined;
}

// ---------------------------------------------------------------------------------------------------------------
// Endpoints subsets

const addressLess = (a: EndpointAddress, b: EndpointAddress): number => {
  if (a.ip !== b.ip) return a.ip < b.ip ? -1 : 1;
  const ua = a.targetRef?.uid;
  const ub = b.targetRef?.uid;
  if (ub === undefined) return ua === undefined ? 0 : 1;
  if (ua === undefined) return -1;
  return ua < ub ? -1 : ua > ub ? 1 : 0;
};

/** Ports as they are compared: the protocol defaulted, empty fields dropped. */
function endpointsPortKey(p: EndpointsPort): string {
  return canonicalJSON({
    name: p.name || undefined,
    port: p.port,
    protocol: p.protocol || 'TCP',
    appProtocol: p.appProtocol,
  });
}

/**
 * Expands subsets to (address, port, ready) and packs them again in the canonical layout (upstream's
 * RepackSubsets): one subset per distinct set of addresses sharing the same ports; an address that is not ready
 * for a port stays not ready; addresses sorted by IP then target UID, ports and subsets in a fixed order. Subsets
 * without ports (headless Services) keep their addresses, without ports.
 */
export function repackSubsets(subsets: readonly EndpointSubset[] | undefined): EndpointSubset[] {
  const addressesByKey = new Map<string, EndpointAddress>();
  // port key -> (address key -> ready)
  const readiness = new Map<string, { port: EndpointsPort | undefined; ready: Map<string, boolean> }>();
  const note = (addr: EndpointAddress, port: EndpointsPort | undefined, ready: boolean) => {
    const addrKey = `${addr.ip}\u0000${addr.targetRef?.uid ?? ''}`;
    if (!addressesByKey.has(addrKey)) addressesByKey.set(addrKey, addr);
    const portKey = port ? endpointsPortKey(port) : '';
    let entry = readiness.get(portKey);
    if (!entry) {
      entry = { port, ready: new Map() };
      readiness.set(portKey, entry);
    }
    const was = entry.ready.get(addrKey);
    if (was === undefined || was) entry.ready.set(addrKey, ready);
  };
  for (const subset of subsets ?? []) {
    const ports: (EndpointsPort | undefined)[] = subset.ports?.length ? subset.ports : [undefined];
    for (const port of ports) {
      for (const a of subset.addresses ?? []) note(a, port, true);
      for (const a of subset.notReadyAddresses ?? []) note(a, port, false);
    }
  }
  // Group ports by the exact (address, ready) set they are offered on.
  const groups = new Map<string, { ready: Map<string, boolean>; ports: EndpointsPort[] }>();
  for (const { port, ready } of readiness.values()) {
    const key = canonicalJSON([...ready.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    let group = groups.get(key);
    if (!group) {
      group = { ready, ports: [] };
      groups.set(key, group);
    }
    if (port) group.ports.push(port);
  }
  const out: EndpointSubset[] = [];
  for (const { ready, ports } of groups.values()) {
    const addresses: EndpointAddress[] = [];
    const notReady: EndpointAddress[] = [];
    for (const [addrKey, isReady] of ready) {
      const addr = addressesByKey.get(addrKey);
      if (addr) (isReady ? addresses : notReady).push(addr);
    }
    const subset: EndpointSubset = {};
    if (addresses.length > 0) subset.addresses = addresses.sort(addressLess);
    if (notReady.length > 0) subset.notReadyAddresses = notReady.sort(addressLess);
    if (ports.length > 0) {
      subset.ports = ports.sort((a, b) => {
        const ka = endpointsPortKey(a);
        const kb = endpointsPortKey(b);
        return ka < kb ? -1 : ka > kb ? 1 : 0;
      });
    }
    out.push(subset);
  }
  const keyed = out.map((s) => [canonicalJSON(s), s] as const).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return keyed.map(([, s]) => s);
}

/** Subsets as they are compared: empty lists dropped, target resourceVersions ignored, protocol defaulted. */
export function normalSubsets(subsets: readonly EndpointSubset[] | undefined): string {
  const addr = (a: EndpointAddress) => ({
    ip: a.ip,
    hostname: a.hostname || undefined,
    nodeName: a.nodeName,
    targetRef: a.targetRef ? { ...a.targetRef, resourceVersion: undefined } : undefined,
  });
  return canonicalJSON(
    (subsets ?? []).map((s) => ({
      addresses: s.addresses?.length ? s.addresses.map(addr) : undefined,
      notReadyAddresses: s.notReadyAddresses?.length ? s.notReadyAddresses.map(addr) : undefined,
      ports: s.ports?.length ? s.ports.map((p) => JSON.parse(endpointsPortKey(p)) as unknown) : undefined,
    })),
  );
}
