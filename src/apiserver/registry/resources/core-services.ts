/**
 * core/v1 Services: defaulting, ClusterIP and node-port allocation (see core-service-allocation.ts), validation,
 * field selectors spec.clusterIP and spec.type, and the NAME TYPE CLUSTER-IP EXTERNAL-IP PORT(S) AGE columns.
 */
import { nameIsDNS1035Label } from '../../../api/validation/name-validators.js';
import { age } from '../../printers/duration.js';
import { ageColumn, nameColumn, type Printer } from '../../printers/table.js';
import { decodeFromStorage } from '../codec.js';
import type { KubeObject } from '../object.js';
import { type Builtin, builtin } from './common.js';
import type { FinishFunc, HookContext, StrategyWithHooks } from './core-hooks.js';
import { arr, rec, recs, str } from './core-json.js';
import { type ServiceAllocationOptions, ServiceAllocations } from './core-service-allocation.js';
import { defaultService } from './core-service-defaults.js';
import { clusterIPsOf, specOf, typeOf } from './core-service-spec.js';
import { dropTypeDependentFields, keepAllocatedValues, normalizeClusterIPs } from './core-service-update.js';
import { validateService, validateServiceUpdate } from './core-service-validation.js';
import { specKeepingStatusStrategy } from './core-status.js';
import { column, formatLabels } from './groups-columns.js';

const SERVICES_PREFIX = '/registry/services/specs/';

/** The EXTERNAL-IP cell: external IPs, load-balancer ingress, `<pending>`, or the external name. */
function externalIP(svc: KubeObject): string {
  const external = arr(specOf(svc).externalIPs).map(str);
  switch (typeOf(svc)) {
    case 'ClusterIP':
    case 'NodePort':
      return external.length > 0 ? external.join(',') : '<none>';
    case 'LoadBalancer': {
      const ingress = new Set<string>();
      for (const i of recs(rec(rec(svc.status).loadBalancer).ingress)) {
        if (str(i.ip)) ingress.add(str(i.ip));
        else if (str(i.hostname)) ingress.add(str(i.hostname));
      }
      const lb = [...ingress].sort();
      if (external.length > 0) return [...lb, ...external].join(',');
      return lb.length > 0 ? lb.join(',') : '<pending>';
    }
    case 'ExternalName':
      return str(specOf(svc).externalName);
    default:
      return '<unknown>';
  }
}

/** `80/TCP,443:30443/TCP`. */
function portsCell(svc: KubeObject): string {
  const cells = recs(specOf(svc).ports).map((p) => {
    const nodePort = typeof p.nodePort === 'number' && p.nodePort > 0 ? `:${p.nodePort}` : '';
    return `${String(p.port ?? 0)}${nodePort}/${str(p.protocol)}`;
  });
  return cells.length > 0 ? cells.join(',') : '<none>';
}

export const servicePrinter: Printer = {
  columns: [
    nameColumn,
    column('Type', 'The type of the service: ClusterIP, NodePort, LoadBalancer or ExternalName.'),
    column('Cluster-IP', 'The primary cluster IP of the service.'),
    column('External-IP', 'Where the service can be reached from outside the cluster.'),
    column('Port(s)', 'The ports the service exposes, with their node ports.'),
    ageColumn,
    column('Selector', 'The labels of the pods the service sends traffic to.', { wide: true }),
  ],
  cells: (svc, now) => [
    svc.metadata.name ?? '',
    typeOf(svc),
    clusterIPsOf(svc)[0] ?? '<none>',
    externalIP(svc),
    portsCell(svc),
    age(svc.metadata.creationTimestamp, now),
    formatLabels(specOf(svc).selector),
  ],
};

async function storedServices(ctx: HookContext): Promise<KubeObject[]> {
  const { items } = await ctx.storage.list(SERVICES_PREFIX);
  return items.map((kv) => decodeFromStorage(kv.value, kv.modRevision));
}

/**
 * Upstream removes a deleted Service's Endpoints at once, so that a new Service of the same name never shows the
 * old addresses while the endpoints controller catches up. Endpoints held by finalizers are left to them.
 */
async function deleteEndpoints(ctx: HookContext, svc: KubeObject): Promise<void> {
  const key = `/registry/services/endpoints/${svc.metadata.namespace ?? ''}/${svc.metadata.name ?? ''}`;
  const kv = await ctx.storage.get(key);
  if (!kv) return;
  const endpoints = decodeFromStorage(kv.value, kv.modRevision);
  if ((endpoints.metadata.finalizers ?? []).length > 0) return;
  try {
    await ctx.storage.delete(key, kv.modRevision);
  } catch {
    // Changed or gone meanwhile: the endpoints controller owns it from here.
  }
}

const finisher =
  (txn: { commit(): void; revert(): void }): FinishFunc =>
  (success) =>
    success ? txn.commit() : txn.revert();

/** A Services resource with its own allocators (one per registry, so control planes in one process stay apart). */
export function services(options: ServiceAllocationOptions = {}): Builtin & { allocations: ServiceAllocations } {
  const allocations = new ServiceAllocations(options);
  const strategy: StrategyWithHooks = {
    tracksGeneration: false,
    allowCreateOnUpdate: true,
    returnDeletedObject: true,
    default: defaultService,
    prepareForCreate(svc) {
      svc.status = { loadBalancer: {} };
      normalizeClusterIPs(svc);
    },
    prepareForUpdate(svc, old) {
      keepAllocatedValues(svc, old);
      normalizeClusterIPs(svc, old);
      dropTypeDependentFields(svc, old);
    },
    validate: (svc) => validateService(svc),
    validateUpdate: (svc, old) => validateServiceUpdate(svc, old),
    selectableFields: {
      'spec.clusterIP': (svc) => str(specOf(svc).clusterIP),
      'spec.type': (svc) => typeOf(svc),
    },
    async beginCreate(svc, ctx) {
      await allocations.load(() => storedServices(ctx), ctx.storage);
      normalizeClusterIPs(svc);
      return finisher(allocations.allocateCreate(svc, ctx.dryRun));
    },
    async beginUpdate(svc, old, ctx) {
      await allocations.load(() => storedServices(ctx), ctx.storage);
      return finisher(allocations.allocateUpdate(svc, old, ctx.dryRun));
    },
    async afterDelete(svc, ctx) {
      await allocations.load(() => storedServices(ctx), ctx.storage);
      if (ctx.dryRun) return;
      allocations.release(svc);
      await deleteEndpoints(ctx, svc);
    },
  };
  const served = builtin({
    group: '',
    version: 'v1',
    resource: 'services',
    nameValidator: nameIsDNS1035Label,
    hasStatus: true,
    strategy,
    printer: servicePrinter,
  });
  served.def.status = specKeepingStatusStrategy();
  return { ...served, allocations };
}
