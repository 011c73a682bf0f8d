/**
 * The endpointslice-mirroring reconciler (upstream's pkg/controller/endpointslicemirroring reconciler.go): turns an
 * Endpoints object into EndpointSlices, one slice per (address type, port set) of its canonically packed subsets,
 * at most --mirroring-max-endpoints-per-subset addresses each. Slices copy the Endpoints' labels and annotations
 * (except the trigger time and kubectl's last-applied configuration) and are owned by the Endpoints.
 */

import type { EventRecorder } from '../../client/events/broadcaster.js';
import type { KubeClient } from '../../client/rest.js';
import { isNotFound } from '../../client/types.js';
import type { Logger } from '../../util/logger.js';
import { slicePrefix } from '../endpointslice/plan.js';
import type { EndpointSliceTracker } from '../endpointslice/trackers.js';
import type {
  AddressType,
  Endpoint,
  EndpointAddress,
  EndpointSlice,
  Endpoints,
  EndpointsPort,
  SlicePort,
} from '../endpointslice/types.js';
import {
  ANNOTATION_LAST_APPLIED,
  ANNOTATION_LAST_CHANGE_TRIGGER_TIME,
  controllerRef,
  EndpointSet,
  endpointsEqualBeyondHash,
  isNamespaceTerminating,
  LABEL_MANAGED_BY,
  LABEL_SERVICE_NAME,
  parseIPSloppy,
  portMapKey,
  repackSubsets,
  stringMapsEqual,
  withoutKeys,
} from '../endpointslice/util.js';

/** The managed-by value of mirrored slices. */
export const MIRRORING_CONTROLLER_NAME = 'endpointslicemirroring-controller.k8s.io';

interface Plan {
  toCreate: EndpointSlice[];
  toUpdate: EndpointSlice[];
  toDelete: EndpointSlice[];
}

const addrTypePortKey = (ports: readonly SlicePort[] | null | undefined, addressType: string) =>
  `${addressType}-${portMapKey(ports)}`;

function toSlicePorts(ports: readonly EndpointsPort[] | undefined): SlicePort[] {
  return (ports ?? []).map((p) => {
    const out: SlicePort = { name: p.name ?? '', port: p.port, protocol: p.protocol ?? 'TCP' };
    if (p.appProtocol !== undefined) out.appProtocol = p.appProtocol;
    return out;
  });
}

/** An Endpoints address as a slice endpoint, with its address type; undefined when the IP is not valid. */
function addressToEndpoint(address: EndpointAddress, ready: boolean): [Endpoint, AddressType] | undefined {
  const ip = parseIPSloppy(address.ip);
  if (!ip) return undefined;
  const ep: Endpoint = { addresses: [ip.ip], conditions: { ready } };
  if (address.targetRef) ep.targetRef = address.targetRef;
  if (address.nodeName) ep.nodeName = address.nodeName;
  if (address.hostname) ep.hostname = address.hostname;
  return [ep, ip.ipv6 ? 'IPv6' : 'IPv4'];
}

/** The labels and annotations a mirrored slice copies from its Endpoints. */
const copiedAnnotations = (endpoints: Endpoints) =>
  withoutKeys(endpoints.metadata.annotations, ANNOTATION_LAST_CHANGE_TRIGGER_TIME, ANNOTATION_LAST_APPLIED);

function newSlice(endpoints: Endpoints, ports: SlicePort[], addressType: AddressType, name: string): EndpointSlice {
  const slice: EndpointSlice = {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      namespace: endpoints.metadata.namespace ?? '',
      labels: {
        ...endpoints.metadata.labels,
        [LABEL_SERVICE_NAME]: endpoints.metadata.name ?? '',
        [LABEL_MANAGED_BY]: MIRRORING_CONTROLLER_NAME,
      },
      annotations: copiedAnnotations(endpoints),
      ownerReferences: [controllerRef(endpoints, 'v1', 'Endpoints')],
    },
    addressType,
    endpoints: [],
    ports,
  };
  if (name) slice.metadata.name = name;
  else slice.metadata.generateName = slicePrefix(endpoints.metadata.name ?? '');
  return slice;
}

export class MirroringReconciler {
  constructor(
    private readonly client: KubeClient,
    private readonly tracker: EndpointSliceTracker,
    private readonly recorder: EventRecorder,
    private readonly maxEndpointsPerSubset: number,
    private readonly logger: Logger,
  ) {}

  /** Makes the mirrored slices match the Endpoints. */
  async reconcile(endpoints: Endpoints, existing: readonly EndpointSlice[]): Promise<void> {
    const desired = new Map<string, { ports: SlicePort[]; addressType: AddressType; endpoints: EndpointSet }>();
    let invalid = 0;
    let skipped = 0;
    for (const subset of repackSubsets(endpoints.subsets)) {
      const ports = toSlicePorts(subset.ports);
      const groups = new Map<AddressType, EndpointSet>();
      for (const addressType of ['IPv4', 'IPv6'] as const) {
        const key = addrTypePortKey(ports, addressType);
        const group = desired.get(key) ?? { ports, addressType, endpoints: new EndpointSet() };
        desired.set(key, group);
        groups.set(addressType, group.endpoints);
      }
      const total = (subset.addresses?.length ?? 0) + (subset.notReadyAddresses?.length ?? 0);
      let added = 0;
      const all: [EndpointAddress, boolean][] = [
        ...(subset.addresses ?? []).map((a) => [a, true] as [EndpointAddress, boolean]),
        ...(subset.notReadyAddresses ?? []).map((a) => [a, false] as [EndpointAddress, boolean]),
      ];
      for (const [address, ready] of all) {
        // At most maxEndpointsPerSubset addresses of a subset are mirrored: one slice per subset.
        if (added >= this.maxEndpointsPerSubset) break;
        const converted = addressToEndpoint(address, ready);
        if (!converted) {
          invalid++;
          this.logger.info('Address in Endpoints is not a valid IP, it will not be mirrored to an EndpointSlice', {
            endpoints: `${endpoints.metadata.namespace}/${endpoints.metadata.name}`,
            IP: address.ip,
          });
          continue;
        }
        groups.get(converted[1])?.insert(converted[0]);
        added++;
      }
      skipped += total - added;
    }
    if (invalid > 0) {
      this.recorder.eventf(
        endpoints,
        'Warning',
        'InvalidIPAddress',
        'Skipped %d invalid IP addresses when mirroring to EndpointSlices',
        invalid,
      );
    }
    if (skipped > invalid) {
      this.recorder.eventf(
        endpoints,
        'Warning',
        'TooManyAddressesToMirror',
        'A max of %d addresses can be mirrored to EndpointSlices per Endpoints subset. %d addresses were skipped',
        this.maxEndpointsPerSubset,
        skipped,
      );
    }

    const existingByKey = new Map<string, EndpointSlice[]>();
    for (const slice of existing) {
      const key = addrTypePortKey(slice.ports, slice.addressType);
      existingByKey.set(key, [...(existingByKey.get(key) ?? []), slice]);
    }
    const plan: Plan = { toCreate: [], toUpdate: [], toDelete: [] };
    for (const [key, group] of desired) {
      const slices = existingByKey.get(key) ?? [];
      this.planGroup(endpoints, slices, group.endpoints, group.ports, group.addressType, plan);
    }
    for (const [key, slices] of existingByKey) if (!desired.has(key)) plan.toDelete.push(...slices);
    await this.finalize(endpoints, plan);
  }

  /** One (address type, ports) group: one slice with every desired endpoint; other existing slices deleted. */
  private planGroup(
    endpoints: Endpoints,
    existing: EndpointSlice[],
    desired: EndpointSet,
    ports: SlicePort[],
    addressType: AddressType,
    plan: Plan,
  ): void {
    if (desired.size === 0) {
      plan.toDelete.push(...existing);
      return;
    }
    const first = existing[0];
    if (first) {
      plan.toDelete.push(...existing.slice(1));
      const unchanged =
        this.endpointsUnchanged(first, desired) &&
        stringMapsEqual(
          endpoints.metadata.labels,
          withoutKeys(first.metadata.labels, LABEL_MANAGED_BY, LABEL_SERVICE_NAME),
        ) &&
        stringMapsEqual(copiedAnnotations(endpoints), first.metadata.annotations);
      if (unchanged) return;
    }
    const slice = newSlice(endpoints, ports, addressType, first?.metadata.name ?? '');
    const eps = slice.endpoints ?? [];
    slice.endpoints = eps;
    while (desired.size > 0 && eps.length < this.maxEndpointsPerSubset) eps.push(desired.pop() as Endpoint);
    if (slice.metadata.name) plan.toUpdate.push(slice);
    else plan.toCreate.push(slice);
  }

  /** Whether the slice holds exactly the desired endpoints, unchanged. */
  private endpointsUnchanged(slice: EndpointSlice, desired: EndpointSet): boolean {
    let matches = 0;
    for (const ep of slice.endpoints ?? []) {
      const want = desired.get(ep);
      if (!want || !endpointsEqualBeyondHash(want, ep)) return false;
      matches++;
    }
    return matches === desired.size;
  }

  private async finalize(endpoints: Endpoints, plan: Plan): Promise<void> {
    // Recycle slices about to be deleted instead of creating new ones of the same address type.
    for (const addressType of ['IPv4', 'IPv6'] as const) {
      const creates = plan.toCreate.filter((s) => s.addressType === addressType);
      const deletes = plan.toDelete.filter((s) => s.addressType === addressType);
      for (let i = 0; i < creates.length && i < deletes.length; i++) {
        const fresh = creates[i] as EndpointSlice;
        const doomed = deletes[i] as EndpointSlice;
        plan.toCreate.splice(plan.toCreate.indexOf(fresh), 1);
        plan.toDelete.splice(plan.toDelete.indexOf(doomed), 1);
        fresh.metadata.name = doomed.metadata.name ?? '';
        delete fresh.metadata.generateName;
        plan.toUpdate.push(fresh);
      }
    }
    const ns = endpoints.metadata.namespace ?? '';
    const where = `Endpoints ${ns}/${endpoints.metadata.name}`;
    const slices = this.client.endpointSlices(ns);
    if (!endpoints.metadata.deletionTimestamp) {
      for (const slice of plan.toCreate) {
        let created: EndpointSlice;
        try {
          created = (await slices.create(slice)) as EndpointSlice;
        } catch (err) {
          if (isNamespaceTerminating(err)) return;
          throw new Error(`failed to create EndpointSlice for ${where}: ${(err as Error).message}`);
        }
        this.tracker.update(created);
      }
    }
    for (const slice of plan.toUpdate) {
      let updated: EndpointSlice;
      try {
        updated = (await slices.update(slice)) as EndpointSlice;
      } catch (err) {
        throw new Error(
          `failed to update ${slice.metadata.name} EndpointSlice for ${where}: ${(err as Error).message}`,
        );
      }
      this.tracker.update(updated);
    }
    for (const slice of plan.toDelete) {
      try {
        await slices.delete(slice.metadata.name ?? '');
      } catch (err) {
        throw new Error(
          `failed to delete ${slice.metadata.name} EndpointSlice for ${where}: ${(err as Error).message}`,
        );
      }
      this.tracker.expectDeletion(slice);
    }
  }

  /** Deletes every slice mirrored for the Endpoints. */
  async deleteSlices(namespace: string, name: string, slices: readonly EndpointSlice[]): Promise<void> {
    const errors: string[] = [];
    for (const slice of slices) {
      try {
        await this.client.endpointSlices(namespace).delete(slice.metadata.name ?? '');
      } catch (err) {
        if (!isNotFound(err)) errors.push((err as Error).message);
      }
    }
    if (errors.length > 0) {
      throw new Error(
        `error(s) deleting ${errors.length}/${slices.length} EndpointSlices for ${namespace}/${name} Endpoints, including: ${errors[0]}`,
      );
    }
  }
}
