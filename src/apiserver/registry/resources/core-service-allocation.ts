/**
 * What a Service create or update reserves: ClusterIPs from the service CIDR and node ports from the node-port
 * range, with upstream's rules (REST storage's alloc.go in our words) and its error texts. Every reservation is
 * part of a transaction the registry finishes once it knows whether the write went through: on success addresses
 * the update let go are released, on failure what was reserved is given back. Dry runs check without reserving.
 */
import { type FieldError, invalid, invalidStatus, path } from '../../../api/field-errors.js';
import { StatusError, statusErrors } from '../../../api/status-error.js';
import { goStringSlice } from '../../../api/validation/go-format.js';
import type { Store } from '../../../storage/types.js';
import { ClusterIPAllocator } from '../allocators/ip-allocator.js';
import { familyOf } from '../allocators/ip-range.js';
import { NodePortAllocator } from '../allocators/port-allocator.js';
import type { KubeObject } from '../object.js';
import { str } from './core-json.js';
import { IPAddressMirror } from './core-service-ipaddresses.js';
import {
  CLUSTER_IP_NONE,
  clusterIPsOf,
  collectNodePorts,
  ipFamiliesOf,
  isHeadless,
  needsHealthCheck,
  needsNodePort,
  nodePortOf,
  portsOf,
  sameClusterIPs,
  sameIPFamilies,
  shouldAllocateNodePorts,
  specOf,
  typeOf,
} from './core-service-spec.js';
import { validateClusterIPFields } from './core-service-validation.js';

export const DEFAULT_SERVICE_CLUSTER_IP_RANGE = '10.96.0.0/12';
const KUBERNETES_SERVICE = 'default/kubernetes';

export interface AllocationTransaction {
  commit(): void;
  revert(): void;
}

export interface ServiceAllocationOptions {
  /** --service-cluster-ip-range (one range: this server is single-stack). */
  serviceClusterIPRange?: string;
  /** --service-node-port-range. */
  serviceNodePortRange?: string;
  random?: () => number;
}

const ownerOf = (svc: KubeObject) => `${svc.metadata.namespace ?? ''}/${svc.metadata.name ?? ''}`;

function invalidService(svc: KubeObject, errs: FieldError[]): StatusError {
  const s = invalidStatus({ group: '', kind: 'Service' }, svc.metadata.name ?? '', errs);
  return new StatusError(422, 'Invalid', s.message, s.details);
}

/** One request's reservations and deferred releases. */
class Transaction implements AllocationTransaction {
  readonly ips: string[] = [];
  readonly ports: number[] = [];
  readonly releaseIPs: string[] = [];
  /** Addresses the Service already held in the tracker, whose IPAddress is written on commit all the same. */
  readonly kept: string[] = [];
  readonly releasePorts: number[] = [];
  constructor(
    private readonly owner: ServiceAllocations,
    readonly dryRun: boolean,
    private readonly svc: KubeObject,
  ) {}
  commit() {
    if (this.dryRun) return;
    for (const ip of [...this.ips, ...this.kept]) this.owner.mirror?.hold(ip, this.svc);
    for (const ip of this.releaseIPs) {
      this.owner.releaseIP(ip);
      if (!this.ips.includes(ip)) this.owner.mirror?.release(ip);
    }
    for (const port of this.releasePorts) if (!this.ports.includes(port)) this.owner.ports.release(port);
  }
  revert() {
    if (this.dryRun) return;
    for (const ip of this.ips) this.owner.releaseIP(ip);
    for (const port of this.ports) this.owner.ports.release(port);
  }
}

export class ServiceAllocations {
  readonly ips: ClusterIPAllocator;
  readonly ports: NodePortAllocator;
  /** The IPAddress objects of the held addresses, once the registry's storage is known (load). */
  mirror: IPAddressMirror | undefined;
  private loaded: Promise<void> | undefined;

  constructor(options: ServiceAllocationOptions = {}) {
    this.ips = new ClusterIPAllocator(
      options.serviceClusterIPRange ?? DEFAULT_SERVICE_CLUSTER_IP_RANGE,
      options.random,
    );
    this.ports = new NodePortAllocator(options.serviceNodePortRange, options.random);
    // The first address belongs to the `kubernetes` Service, whether or not it exists yet.
    this.ips.restore(this.ips.apiServerIP, KUBERNETES_SERVICE);
  }

  /**
   * Fills the trackers from the stored Services, once; later calls wait for the first. The IPAddress objects of the
   * held addresses are kept in storage (the first storage given), reconciled first with what the Services hold.
   */
  load(readServices: () => Promise<KubeObject[]>, storage?: Store): Promise<void> {
    if (storage) this.mirror ??= new IPAddressMirror(storage);
    this.loaded ??= readServices().then((services) => {
      const held = new Map<string, KubeObject>();
      for (const svc of services) {
        this.restore(svc);
        for (const ip of this.heldIPs(svc)) held.set(ip, svc);
      }
      this.mirror?.reconcile(held);
    });
    return this.loaded;
  }

  /** The ClusterIPs of svc this allocator tracks. */
  private heldIPs(svc: KubeObject): string[] {
    if (typeOf(svc) === 'ExternalName' || isHeadless(svc)) return [];
    return clusterIPsOf(svc).filter((ip) => familyOf(ip) === this.ips.family);
  }

  restore(svc: KubeObject): void {
    const owner = ownerOf(svc);
    for (const ip of this.heldIPs(svc)) this.ips.restore(ip, owner);
    for (const port of collectNodePorts(svc)) this.ports.restore(port, owner);
  }

  releaseIP(ip: string): void {
    this.ips.release(ip);
    if (ip === this.ips.apiServerIP) this.ips.restore(ip, KUBERNETES_SERVICE);
  }

  /** Everything a deleted Service held. */
  release(svc: KubeObject): void {
    for (const ip of this.heldIPs(svc)) {
      this.releaseIP(ip);
      this.mirror?.release(ip);
    }
    for (const port of collectNodePorts(svc)) this.ports.release(port);
  }

  /** Fills IP family fields and reserves what a new Service needs; throws the Status to answer with. */
  allocateCreate(svc: KubeObject, dryRun: boolean): AllocationTransaction {
    const txn = new Transaction(this, dryRun, svc);
    try {
      this.initIPFamilyFields(svc, undefined);
      this.allocateClusterIPs(svc, txn);
      if (needsNodePort(svc)) this.initNodePorts(svc, txn);
      if (needsHealthCheck(svc)) this.allocateHealthCheckNodePort(svc, txn);
    } catch (err) {
      txn.revert();
      throw err;
    }
    return txn;
  }

  /** Reserves what an updated Service newly needs and schedules what it let go for release on commit. */
  allocateUpdate(svc: KubeObject, old: KubeObject, dryRun: boolean): AllocationTransaction {
    const txn = new Transaction(this, dryRun, svc);
    try {
      this.initIPFamilyFields(svc, old);
      this.updateClusterIPs(svc, old, txn);
      this.updateNodePorts(svc, old, txn);
    } catch (err) {
      txn.revert();
      throw err;
    }
    return txn;
  }

  /** Upstream's initIPFamilyFields for a single-stack cluster. */
  private initIPFamilyFields(svc: KubeObject, old: KubeObject | undefined): void {
    if (typeOf(svc) === 'ExternalName') return;
    const spec = specOf(svc);
    const family = this.ips.family;
    if (spec.ipFamilyPolicy === undefined || spec.ipFamilyPolicy === null) {
      const oldPolicy = old ? specOf(old).ipFamilyPolicy : undefined;
      if (typeof oldPolicy === 'string') spec.ipFamilyPolicy = oldPolicy;
      else if (str(spec.clusterIP) === CLUSTER_IP_NONE && Object.keys(spec.selector ?? {}).length === 0) {
        spec.ipFamilyPolicy = 'RequireDualStack';
      } else spec.ipFamilyPolicy = 'SingleStack';
    }
    const early = validateClusterIPFields(svc);
    if (early.length > 0) throw invalidService(svc, early);
    const policy = str(spec.ipFamilyPolicy);
    const errs: FieldError[] = [];
    const policyPath = path('spec', 'ipFamilyPolicy');
    if (old) {
      if (policy === 'SingleStack') {
        if (sameClusterIPs(old, svc) && clusterIPsOf(svc).length > 1) spec.clusterIPs = clusterIPsOf(svc).slice(0, 1);
        if (sameIPFamilies(old, svc) && ipFamiliesOf(svc).length > 1) spec.ipFamilies = ipFamiliesOf(svc).slice(0, 1);
      } else {
        if (clusterIPsOf(svc).length < clusterIPsOf(old).length) {
          errs.push(invalid(policyPath, policy, "must be 'SingleStack' to release the secondary cluster IP"));
        }
        if (ipFamiliesOf(svc).length < ipFamiliesOf(old).length) {
          errs.push(invalid(policyPath, policy, "must be 'SingleStack' to release the secondary IP family"));
        }
      }
    }
    if (policy === 'SingleStack') {
      if (clusterIPsOf(svc).length === 2) {
        errs.push(
          invalid(
            policyPath,
            policy,
            "must be 'RequireDualStack' or 'PreferDualStack' when multiple cluster IPs are specified",
          ),
        );
      }
      if (ipFamiliesOf(svc).length === 2) {
        errs.push(
          invalid(
            policyPath,
            policy,
            "must be 'RequireDualStack' or 'PreferDualStack' when multiple IP families are specified",
          ),
        );
      }
    }
    const families = ipFamiliesOf(svc);
    clusterIPsOf(svc).every((ip, i) => {
      if (ip === CLUSTER_IP_NONE) return false;
      if (i >= families.length) {
        const fam = familyOf(ip) ?? 'IPv4';
        if (fam !== family) {
          errs.push(
            invalid(
              path('spec', 'clusterIPs').index(i),
              goStringSlice(clusterIPsOf(svc)),
              `${fam} is not configured on this cluster`,
            ),
          );
        } else families.push(fam);
      }
      return true;
    });
    if (errs.length > 0) throw invalidService(svc, errs);
    if (str(spec.clusterIP) === CLUSTER_IP_NONE && Object.keys(spec.selector ?? {}).length === 0) {
      if (families.length === 0) families.push(family);
      if (families.length < 2 && policy !== 'SingleStack') families.push(families[0] === 'IPv4' ? 'IPv6' : 'IPv4');
      spec.ipFamilies = families;
      return;
    }
    if (policy === 'RequireDualStack') {
      errs.push(invalid(policyPath, policy, 'this cluster is not configured for dual-stack services'));
    }
    families.forEach((fam, i) => {
      if (fam !== family)
        errs.push(invalid(path('spec', 'ipFamilies').index(i), fam, 'not configured on this cluster'));
    });
    if (errs.length > 0) throw invalidService(svc, errs);
    if (families.length === 0) families.push(family);
    spec.ipFamilies = families;
  }

  private allocateClusterIPs(svc: KubeObject, txn: Transaction): void {
    if (typeOf(svc) === 'ExternalName' || clusterIPsOf(svc)[0] === CLUSTER_IP_NONE) return;
    const spec = specOf(svc);
    const ips = clusterIPsOf(svc);
    ipFamiliesOf(svc).forEach((family, i) => {
      if (i >= ips.length) ips.push('');
      if (family !== this.ips.family) return;
      const wanted = ips[i] ?? '';
      ips[i] = wanted === '' ? this.nextIP(svc, txn) : this.requestIP(svc, wanted, ips, txn);
    });
    spec.clusterIPs = ips;
    spec.clusterIP = ips[0] ?? '';
  }

  private nextIP(svc: KubeObject, txn: Transaction): string {
    try {
      const ip = this.ips.allocateNext(ownerOf(svc), txn.dryRun);
      if (!txn.dryRun) txn.ips.push(ip);
      return ip;
    } catch (err) {
      throw statusErrors.internal(new Error(`failed to allocate a serviceIP: ${(err as Error).message}`));
    }
  }

  private requestIP(svc: KubeObject, ip: string, all: string[], txn: Transaction): string {
    const owner = ownerOf(svc);
    if (ip === this.ips.apiServerIP && owner === KUBERNETES_SERVICE && this.ips.ownerOf(ip) === owner) {
      // Kept for the `kubernetes` Service from the start: only its IPAddress is to be written.
      if (!txn.dryRun) txn.kept.push(ip);
      return ip;
    }
    const problem = this.ips.check(ip);
    if (problem) {
      throw invalidService(svc, [
        invalid(path('spec', 'clusterIPs'), goStringSlice(all), `failed to allocate IP ${ip}: ${problem.message}`),
      ]);
    }
    if (!txn.dryRun) {
      this.ips.allocate(ip, owner);
      txn.ips.push(ip);
    }
    return ip;
  }

  private reservePort(svc: KubeObject, port: number, index: number, txn: Transaction): void {
    const problem = this.ports.check(port);
    if (problem) {
      throw invalidService(svc, [invalid(path('spec', 'ports').index(index).child('nodePort'), port, problem.message)]);
    }
    if (!txn.dryRun) {
      this.ports.allocate(port, ownerOf(svc));
      txn.ports.push(port);
    }
  }

  private nextPort(svc: KubeObject, txn: Transaction): number {
    try {
      const port = this.ports.allocateNext(ownerOf(svc), txn.dryRun);
      if (!txn.dryRun) txn.ports.push(port);
      return port;
    } catch (err) {
      throw statusErrors.internal(new Error(`failed to allocate a nodePort: ${(err as Error).message}`));
    }
  }

  /** Node ports for a new NodePort or LoadBalancer Service; ports with one number share one node port. */
  private initNodePorts(svc: KubeObject, txn: Transaction): void {
    const ports = portsOf(svc);
    const byServicePort = new Map<unknown, number>();
    ports.forEach((sp, i) => {
      if (nodePortOf(sp) === 0 && !shouldAllocateNodePorts(svc)) return;
      const assigned = byServicePort.get(sp.port);
      if (assigned === undefined) {
        const requested = ports.find((p) => p.port === sp.port && nodePortOf(p) !== 0);
        const port = requested ? nodePortOf(requested) : this.nextPort(svc, txn);
        if (requested) this.reservePort(svc, port, i, txn);
        sp.nodePort = port;
        byServicePort.set(sp.port, port);
      } else if (nodePortOf(sp) !== assigned) {
        if (nodePortOf(sp) === 0) sp.nodePort = assigned;
        else this.reservePort(svc, nodePortOf(sp), i, txn);
      }
    });
    specOf(svc).ports = ports;
  }

  private allocateHealthCheckNodePort(svc: KubeObject, txn: Transaction): void {
    const spec = specOf(svc);
    const wanted = typeof spec.healthCheckNodePort === 'number' ? spec.healthCheckNodePort : 0;
    if (wanted === 0) {
      spec.healthCheckNodePort = this.nextPort(svc, txn);
      return;
    }
    const problem = this.ports.check(wanted);
    if (problem) {
      throw statusErrors.internal(
        new Error(`failed to allocate requested HealthCheck NodePort ${wanted}: ${problem.message}`),
      );
    }
    if (!txn.dryRun) {
      this.ports.allocate(wanted, ownerOf(svc));
      txn.ports.push(wanted);
    }
  }

  private updateClusterIPs(svc: KubeObject, old: KubeObject, txn: Transaction): void {
    if (typeOf(old) === 'ExternalName' && typeOf(svc) !== 'ExternalName') {
      this.allocateClusterIPs(svc, txn);
      return;
    }
    if (clusterIPsOf(old)[0] === CLUSTER_IP_NONE) return;
    if (typeOf(old) !== 'ExternalName' && typeOf(svc) === 'ExternalName') {
      for (const ip of clusterIPsOf(old)) if (familyOf(ip) === this.ips.family) txn.releaseIPs.push(ip);
    }
  }

  private updateNodePorts(svc: KubeObject, old: KubeObject, txn: Transaction): void {
    const oldPorts = collectNodePorts(old);
    if (needsNodePort(old) && !needsNodePort(svc)) txn.releasePorts.push(...oldPorts);
    if (needsNodePort(svc)) {
      const reserved = new Set<number>();
      const seen = new Set<string>();
      const ports = portsOf(svc);
      ports.forEach((sp, i) => {
        if (nodePortOf(sp) === 0 && !shouldAllocateNodePorts(svc)) return;
        if (nodePortOf(sp) !== 0) {
          if (!oldPorts.includes(nodePortOf(sp)) && !reserved.has(nodePortOf(sp))) {
            this.reservePort(svc, nodePortOf(sp), i, txn);
            reserved.add(nodePortOf(sp));
          }
        } else {
          sp.nodePort = this.nextPort(svc, txn);
        }
        const key = `${str(sp.protocol)}/${nodePortOf(sp)}`;
        if (seen.has(key)) throw statusErrors.internal(new Error(`duplicate nodePort: ${key}`));
        seen.add(key);
      });
      specOf(svc).ports = ports;
    }
    if (!needsHealthCheck(old) && needsHealthCheck(svc)) this.allocateHealthCheckNodePort(svc, txn);
    const kept = collectNodePorts(svc);
    for (const port of oldPorts)
      if (!kept.includes(port) && !txn.releasePorts.includes(port)) txn.releasePorts.push(port);
  }
}
