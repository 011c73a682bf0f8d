/**
 * The endpointslice reconciler's arithmetic (upstream's k8s.io/endpointslice reconciler.go and utils.go), without
 * API calls: from a Service, its pods and its existing slices, which slices to create, update and delete. Slices
 * are grouped by address type and by the set of ports their endpoints serve; within a group the plan keeps churn low
 * as upstream does: existing slices are updated in place (endpoints dropped or refreshed), then filled, leftovers
 * go into the unchanged slice they fit best or into new slices, and slices left empty are deleted. A Service with
 * no endpoints keeps one empty placeholder slice.
 */
import { nameIsDNSSubdomain } from '../../api/validation/name-validators.js';
import type { KubeObject } from '../../client/types.js';
import type { AddressType, Endpoint, EndpointSlice, Pod, Service, SlicePort } from './types.js';
import {
  canonicalJSON,
  controllerRef,
  EndpointSet,
  endpointsEqualBeyondHash,
  findPort,
  isIPv6String,
  isPodReady,
  isServiceIPSet,
  LABEL_HEADLESS_SERVICE,
  LABEL_MANAGED_BY,
  LABEL_SERVICE_NAME,
  LABEL_TOPOLOGY_ZONE,
  parseIPSloppy,
  podIPs,
  portMapKey,
  shouldPodBeInEndpoints,
  shouldSetHostname,
  stringMapsEqual,
} from './util.js';

export interface SlicePlan {
  toCreate: EndpointSlice[];
  toUpdate: EndpointSlice[];
  toDelete: EndpointSlice[];
}

export interface PlanOptions {
  maxEndpointsPerSlice: number;
  /** The managed-by label value. */
  controllerName: string;
  /** The Node of a name, from the cache. */
  getNode(name: string): KubeObject | undefined;
}

/** The address types a Service's slices carry: its IP families (or, without them, its ClusterIP's; both if headless). */
export function addressTypesForService(svc: Service): Set<AddressType> {
  const types = new Set<AddressType>();
  for (const family of svc.spec?.ipFamilies ?? []) {
    if (family === 'IPv4') types.add('IPv4');
    if (family === 'IPv6') types.add('IPv6');
  }
  if (types.size > 0) return types;
  if (isServiceIPSet(svc)) {
    types.add(isIPv6String(svc.spec?.clusterIP) ? 'IPv6' : 'IPv4');
    return types;
  }
  types.add('IPv4');
  types.add('IPv6');
  return types;
}

/** The slice ports a pod serves for the Service (named target ports resolved in the pod). */
export function endpointPorts(svc: Service, pod: Pod): SlicePort[] {
  const ports = svc.spec?.ports ?? [];
  if (ports.length === 0 && svc.spec?.clusterIP === 'None') return [];
  const out: SlicePort[] = [];
  for (const sp of ports) {
    const port = findPort(pod, sp);
    if (port === undefined) continue;
    const ep: SlicePort = { name: sp.name ?? '', port, protocol: sp.protocol ?? 'TCP' };
    if (sp.appProtocol !== undefined) ep.appProtocol = sp.appProtocol;
    out.push(ep);
  }
  return out;
}

/** A pod as an endpoint of one address type: ready, serving and terminating as upstream defines them. */
export function podToEndpoint(
  pod: Pod,
  node: KubeObject | undefined,
  svc: Service,
  addressType: AddressType,
): Endpoint {
  const serving = isPodReady(pod);
  const terminating = !!pod.metadata.deletionTimestamp;
  const ready = svc.spec?.publishNotReadyAddresses === true || (serving && !terminating);
  const addresses: string[] = [];
  for (const text of podIPs(pod)) {
    const ip = parseIPSloppy(text);
    if (ip && ip.ipv6 === (addressType === 'IPv6')) addresses.push(ip.ip);
  }
  const ep: Endpoint = {
    addresses,
    conditions: { ready, serving, terminating },
    targetRef: {
      kind: 'Pod',
      namespace: pod.metadata.namespace ?? '',
      name: pod.metadata.name ?? '',
      uid: pod.metadata.uid ?? '',
    },
  };
  if (pod.spec?.nodeName) ep.nodeName = pod.spec.nodeName;
  const zone = node?.metadata.labels?.[LABEL_TOPOLOGY_ZONE];
  if (zone) ep.zone = zone;
  if (shouldSetHostname(pod, svc)) ep.hostname = pod.spec?.hostname ?? '';
  return ep;
}

const isReservedLabel = (key: string) =>
  key === LABEL_SERVICE_NAME || key === LABEL_MANAGED_BY || key === LABEL_HEADLESS_SERVICE;

/**
 * The labels a slice of the Service should carry (the Service's own labels, the headless label, the service-name
 * and managed-by labels), and whether the slice's copy of the Service's labels is out of date.
 */
export function sliceLabels(
  slice: EndpointSlice,
  svc: Service,
  controllerName: string,
): [labels: Record<string, string>, changed: boolean] {
  const sliceOwn: Record<string, string> = {};
  for (const [k, v] of Object.entries(slice.metadata.labels ?? {})) if (!isReservedLabel(k)) sliceOwn[k] = v;
  const labels: Record<string, string> = {};
  for (const [k, v] of Object.entries(svc.metadata.labels ?? {})) if (!isReservedLabel(k)) labels[k] = v;
  const changed = !stringMapsEqual(sliceOwn, labels);
  if (!isServiceIPSet(svc)) labels[LABEL_HEADLESS_SERVICE] = '';
  labels[LABEL_SERVICE_NAME] = svc.metadata.name ?? '';
  labels[LABEL_MANAGED_BY] = controllerName;
  return [labels, changed];
}

/** `<service>-` when that is a valid name prefix, else the Service's name. */
export function slicePrefix(name: string): string {
  const prefix = `${name}-`;
  return nameIsDNSSubdomain(prefix, true).length === 0 ? prefix : name;
}

export function newEndpointSlice(
  svc: Service,
  ports: SlicePort[],
  addressType: AddressType,
  controllerName: string,
): EndpointSlice {
  const slice: EndpointSlice = {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      generateName: slicePrefix(svc.metadata.name ?? ''),
      namespace: svc.metadata.namespace ?? '',
      labels: {},
      ownerReferences: [controllerRef(svc, 'v1', 'Service')],
    },
    addressType,
    endpoints: [],
    ports,
  };
  slice.metadata.labels = sliceLabels(slice, svc, controllerName)[0];
  return slice;
}

/** Whether the slice's controller ownerReference is this Service (same uid). */
export function ownedBy(slice: EndpointSlice, svc: Service): boolean {
  return (slice.metadata.ownerReferences ?? []).some(
    (o) => o.uid === svc.metadata.uid && o.kind === 'Service' && o.apiVersion === 'v1',
  );
}

/** Whether an existing slice is exactly the placeholder (so it need not be replaced by a new one). */
function samePlaceholder(a: EndpointSlice, b: EndpointSlice): boolean {
  const refs = (s: EndpointSlice) =>
    canonicalJSON(
      (s.metadata.ownerReferences ?? []).map((o) => ({
        ...o,
        controller: o.controller ?? false,
        blockOwnerDeletion: o.blockOwnerDeletion ?? false,
      })),
    );
  return (
    a.metadata.namespace === b.metadata.namespace &&
    stringMapsEqual(a.metadata.labels, b.metadata.labels) &&
    refs(a) === refs(b) &&
    a.addressType === b.addressType &&
    (a.endpoints ?? []).length === 0 &&
    (b.endpoints ?? []).length === 0 &&
    (a.ports ?? []).length === 0 &&
    (b.ports ?? []).length === 0
  );
}

const clone = <T>(v: T): T => structuredClone(v);

/** The existing slice that comes closest to full when n endpoints are added, without going over max. */
function sliceToFill(slices: EndpointSlice[], n: number, max: number): EndpointSlice | undefined {
  let closestDiff = max;
  let closest: EndpointSlice | undefined;
  for (const slice of slices) {
    const diff = max - (n + (slice.endpoints ?? []).length);
    if (diff >= 0 && diff < closestDiff) {
      closestDiff = diff;
      closest = slice;
      if (diff === 0) break;
    }
  }
  return closest;
}

/** The plan for one group of slices that share ports (upstream's reconcileByPortMapping). */
function planPortMapping(
  svc: Service,
  existing: EndpointSlice[],
  desired: EndpointSet,
  ports: SlicePort[],
  addressType: AddressType,
  opts: PlanOptions,
): SlicePlan {
  const max = opts.maxEndpointsPerSlice;
  const byName = new Map<string, EndpointSlice>();
  const unchanged = new Set<string>();
  const toUpdate = new Set<string>();
  const toDelete = new Set<string>();

  // 1. Keep the endpoints still desired (refreshing changed ones), drop the others, refresh the labels.
  for (const slice of existing) {
    const name = slice.metadata.name ?? '';
    byName.set(name, slice);
    const kept: Endpoint[] = [];
    let updated = false;
    for (const ep of slice.endpoints ?? []) {
      const want = desired.get(ep);
      if (!want) continue;
      kept.push(want);
      if (!endpointsEqualBeyondHash(want, ep)) updated = true;
      desired.delete(ep);
    }
    const [labels, labelsChanged] = sliceLabels(slice, svc, opts.controllerName);
    if (updated || kept.length !== (slice.endpoints ?? []).length) {
      if (kept.length === 0) {
        toDelete.add(name);
      } else {
        const copy = clone(slice);
        copy.endpoints = kept;
        copy.metadata.labels = labels;
        byName.set(name, copy);
        toUpdate.add(name);
      }
    } else if (labelsChanged) {
      const copy = clone(slice);
      copy.metadata.labels = labels;
      byName.set(name, copy);
      toUpdate.add(name);
    } else {
      unchanged.add(name);
    }
  }

  // 2. Fill the slices being updated anyway, fullest first.
  if (desired.size > 0 && toUpdate.size > 0) {
    const slices = [...toUpdate].map((n) => byName.get(n) as EndpointSlice);
    slices.sort((a, b) => (b.endpoints ?? []).length - (a.endpoints ?? []).length);
    for (const slice of slices) {
      const eps = slice.endpoints ?? [];
      slice.endpoints = eps;
      while (desired.size > 0 && eps.length < max) eps.push(desired.pop() as Endpoint);
    }
  }

  // 3. Put what is left into the unchanged slice it fits best, or into new slices.
  const toCreate: EndpointSlice[] = [];
  while (desired.size > 0) {
    let fill: EndpointSlice | undefined;
    if (desired.size < max && unchanged.size > 0) {
      const found = sliceToFill(
        [...unchanged].map((n) => byName.get(n) as EndpointSlice),
        desired.size,
        max,
      );
      if (found) {
        fill = clone(found);
        byName.set(fill.metadata.name ?? '', fill);
      }
    }
    if (!fill) fill = newEndpointSlice(svc, clone(ports), addressType, opts.controllerName);
    const eps = fill.endpoints ?? [];
    fill.endpoints = eps;
    while (desired.size > 0 && eps.length < max) eps.push(desired.pop() as Endpoint);
    if (fill.metadata.name) {
      toUpdate.add(fill.metadata.name);
      unchanged.delete(fill.metadata.name);
    } else {
      toCreate.push(fill);
    }
  }

  return {
    toCreate,
    toUpdate: [...toUpdate].map((n) => byName.get(n) as EndpointSlice),
    toDelete: [...toDelete].map((n) => byName.get(n) as EndpointSlice),
  };
}

/**
 * The plan for the slices of one address type (upstream's reconcileByAddressType). errors lists the pods left out
 * because their Node is not known (the sync is retried for them, as upstream does).
 */
export function planAddressType(
  svc: Service,
  pods: readonly Pod[],
  existing: readonly EndpointSlice[],
  addressType: AddressType,
  opts: PlanOptions,
): SlicePlan & { errors: string[] } {
  const errors: string[] = [];
  const plan: SlicePlan = { toCreate: [], toUpdate: [], toDelete: [] };
  const existingByPorts = new Map<string, EndpointSlice[]>();
  for (const slice of existing) {
    if (!ownedBy(slice, svc)) {
      plan.toDelete.push(slice);
      continue;
    }
    const key = portMapKey(slice.ports);
    existingByPorts.set(key, [...(existingByPorts.get(key) ?? []), slice]);
  }

  const desired = new Map<string, { ports: SlicePort[]; endpoints: EndpointSet }>();
  for (const pod of pods) {
    if (!shouldPodBeInEndpoints(pod, true)) continue;
    const ports = endpointPorts(svc, pod);
    const key = portMapKey(ports);
    let group = desired.get(key);
    if (!group) {
      group = { ports, endpoints: new EndpointSet() };
      desired.set(key, group);
    }
    const nodeName = pod.spec?.nodeName ?? '';
    const node = nodeName ? opts.getNode(nodeName) : undefined;
    if (!node && svc.spec?.publishNotReadyAddresses !== true) {
      errors.push(
        `skipping Pod ${pod.metadata.name} for Service ${svc.metadata.namespace}/${svc.metadata.name}: Node ${nodeName} Not Found`,
      );
      continue;
    }
    const ep = podToEndpoint(pod, node, svc, addressType);
    if (ep.addresses.length > 0) group.endpoints.insert(ep);
  }

  for (const [key, group] of desired) {
    const p = planPortMapping(svc, existingByPorts.get(key) ?? [], group.endpoints, group.ports, addressType, opts);
    plan.toCreate.push(...p.toCreate);
    plan.toUpdate.push(...p.toUpdate);
    plan.toDelete.push(...p.toDelete);
  }
  for (const [key, slices] of existingByPorts) if (!desired.has(key)) plan.toDelete.push(...slices);

  // A Service without endpoints still has one (empty) slice.
  if (existing.length === plan.toDelete.length && plan.toCreate.length === 0) {
    const placeholder = newEndpointSlice(svc, [], addressType, opts.controllerName);
    const only = plan.toDelete[0];
    if (plan.toDelete.length === 1 && only && samePlaceholder(only, placeholder)) plan.toDelete = [];
    else plan.toCreate.push(placeholder);
  }
  return { ...plan, errors };
}
