/**
 * The IPAddress objects (networking.k8s.io/v1) of the ClusterIPs Services hold, as v1.33's allocator keeps them
 * (MultiCIDRServiceAllocator, GA and on): one per address, named by the address, labelled as the allocator's, with
 * its Service as parentRef, so that `kubectl get ipaddresses` shows who holds what. The allocator's own tracker
 * (core-service-allocation.ts) decides; these objects follow its reservations once they are committed, and are
 * reconciled with the stored Services when the tracker loads (as upstream's repair loop does).
 */

import type { Store } from '../../../storage/types.js';
import { familyOf } from '../allocators/ip-range.js';
import { encodeForStorage } from '../codec.js';
import { type KubeObject, newUid, nowTimestamp } from '../object.js';

const PREFIX = '/registry/ipaddresses/';
const IP_FAMILY_LABEL = 'ipaddress.kubernetes.io/ip-family';
const MANAGED_BY_LABEL = 'ipaddress.kubernetes.io/managed-by';
const ALLOCATOR_NAME = 'ipallocator.k8s.io';

interface ParentRef {
  namespace: string;
  name: string;
}

const parentOf = (svc: KubeObject): ParentRef => ({
  namespace: svc.metadata.namespace ?? '',
  name: svc.metadata.name ?? '',
});

/** The IPAddress the allocator writes for ip, held by the Service parent. */
function ipAddressObject(ip: string, parent: ParentRef, now = Date.now()): KubeObject {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'IPAddress',
    metadata: {
      name: ip,
      uid: newUid(),
      creationTimestamp: nowTimestamp(now),
      labels: { [IP_FAMILY_LABEL]: familyOf(ip) === 'IPv6' ? 'IPv6' : 'IPv4', [MANAGED_BY_LABEL]: ALLOCATOR_NAME },
    },
    spec: { parentRef: { group: '', resource: 'services', namespace: parent.namespace, name: parent.name } },
  };
}

const isAllocators = (obj: KubeObject) => obj.metadata.labels?.[MANAGED_BY_LABEL] === ALLOCATOR_NAME;

export class IPAddressMirror {
  /** Writes in flight, in order: each waits for the one before, so that a release never overtakes its creation. */
  private chain: Promise<void> = Promise.resolve();

  constructor(private readonly storage: Store) {}

  /** Records that svc holds ip (nothing when an IPAddress of that name exists already). */
  hold(ip: string, svc: KubeObject): void {
    const parent = parentOf(svc);
    this.enqueue(async () => {
      if (!(await this.storage.get(PREFIX + ip))) await this.create(ip, parent);
    });
  }

  /** Removes the allocator's IPAddress of ip, when it is still the allocator's. */
  release(ip: string): void {
    this.enqueue(async () => {
      const kv = await this.storage.get(PREFIX + ip);
      if (!kv) return;
      const obj = JSON.parse(kv.value.toString('utf8')) as KubeObject;
      if (isAllocators(obj) && !(obj.metadata.finalizers ?? []).length)
        await this.storage.delete(kv.key, kv.modRevision);
    });
  }

  /**
   * Makes the stored IPAddresses match what the Services hold: one for every held address, none of the
   * allocator's for an address nobody holds.
   */
  reconcile(held: ReadonlyMap<string, KubeObject>): void {
    this.enqueue(async () => {
      const { items } = await this.storage.list(PREFIX);
      const present = new Set<string>();
      for (const kv of items) {
        const ip = kv.key.slice(PREFIX.length);
        present.add(ip);
        if (held.has(ip)) continue;
        const obj = JSON.parse(kv.value.toString('utf8')) as KubeObject;
        if (isAllocators(obj)) await this.storage.delete(kv.key, kv.modRevision);
      }
      for (const [ip, svc] of held) if (!present.has(ip)) await this.create(ip, parentOf(svc));
    });
  }

  private async create(ip: string, parent: ParentRef): Promise<void> {
    await this.storage.create(PREFIX + ip, encodeForStorage(ipAddressObject(ip, parent)));
  }

  private enqueue(write: () => Promise<void>): void {
    // A failed write (a race with a user's own object, storage going away) leaves the next load to reconcile.
    this.chain = this.chain.then(write).catch(() => {});
  }
}
