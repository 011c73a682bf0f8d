/**
 * core/v1 Nodes (cluster-scoped, +status): a kubelet registers its node with status, so status is kept on create;
 * allocatable defaults to capacity; podCIDR and podCIDRs stay in step; taints, pod CIDRs and provider ID are
 * validated as upstream does; field selector spec.unschedulable; NAME STATUS ROLES AGE VERSION columns.
 */
import { duplicate, FieldError, forbidden, invalid, notSupported, path, required } from '../../../api/field-errors.js';
import { GoValue, goQuote } from '../../../api/validation/go-format.js';
import { isValidCIDRForLegacyField } from '../../../api/validation/ip.js';
import { validateLabelName } from '../../../api/validation/labels.js';
import { isValidLabelValue } from '../../../api/validation/names.js';
import { age } from '../../printers/duration.js';
import { ageColumn, nameColumn, type Printer } from '../../printers/table.js';
import { parseIP } from '../allocators/ip-range.js';
import type { KubeObject } from '../object.js';
import type { StatusStrategy } from '../resource.js';
import { type Builtin, builtin } from './common.js';
import { arr, type Rec, rec, recs, str } from './core-json.js';
import { defaultResourceList } from './core-resource-lists.js';
import { quantityValueErrors } from './core-resource-names.js';
import { keepAllButStatus } from './core-status.js';
import { column } from './groups-columns.js';

const ROLE_PREFIX = 'node-role.kubernetes.io/';
const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];

export function defaultNode(node: KubeObject): void {
  const spec = rec(node.spec);
  const cidrs = arr(spec.podCIDRs).map(str);
  const cidr = str(spec.podCIDR);
  if (cidr && (cidrs.length === 0 || cidrs[0] !== cidr)) spec.podCIDRs = [cidr];
  else if (!cidr && cidrs.length > 0) spec.podCIDR = cidrs[0];
  if (node.spec !== undefined) node.spec = spec;
  if (node.status === undefined || node.status === null) return;
  const status = rec(node.status);
  if ((status.allocatable === undefined || status.allocatable === null) && status.capacity) {
    status.allocatable = { ...rec(status.capacity) };
  }
  defaultResourceList(status, 'capacity', 'Node');
  defaultResourceList(status, 'allocatable', 'Node');
}

function taints(list: unknown, at: ReturnType<typeof path>): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  recs(list).forEach((t, i) => {
    const idx = at.index(i);
    errs.push(...validateLabelName(str(t.key), idx.child('key')));
    const msgs = isValidLabelValue(str(t.value));
    if (msgs.length > 0) errs.push(invalid(idx.child('value'), str(t.value), msgs.join(';')));
    const effect = str(t.effect);
    if (!effect) errs.push(required(idx.child('effect')));
    else if (!TAINT_EFFECTS.includes(effect)) errs.push(notSupported(idx.child('effect'), effect, TAINT_EFFECTS));
    const key = `${effect}\u0000${str(t.key)}`;
    if (seen.has(key)) {
      const value = new GoValue(
        `core.Taint{Key:${goQuote(str(t.key))}, Value:${goQuote(str(t.value))}, Effect:${goQuote(effect)}, TimeAdded:(*v1.Time)(nil)}`,
      );
      const dup = duplicate(idx, value);
      errs.push(new FieldError(dup.type, dup.field, dup.badValue, 'taints must be unique by key and effect pair'));
    } else seen.add(key);
  });
  return errs;
}

function resources(status: Rec): FieldError[] {
  const errs: FieldError[] = [];
  for (const list of ['capacity', 'allocatable']) {
    for (const [k, v] of Object.entries(rec(status[list]))) {
      errs.push(...quantityValueErrors(k, v, path('status', list, k)));
    }
  }
  return errs;
}

function podCIDRs(spec: Rec): FieldError[] {
  const cidrs = arr(spec.podCIDRs).map(str);
  const at = path('spec', 'podCIDRs');
  const errs: FieldError[] = [];
  cidrs.forEach((c, i) => void errs.push(...isValidCIDRForLegacyField(at.index(i), c, false)));
  if (cidrs.length > 1) {
    const families = cidrs.map((c) => parseIP(c.split('/')[0] ?? '')?.family);
    if (cidrs.length > 2 || families[0] === families[1]) {
      errs.push(invalid(at, cidrs, 'may specify no more than one CIDR for each IP family'));
    }
    const seen = new Set<string>();
    cidrs.forEach((c, i) => {
      if (seen.has(c)) errs.push(duplicate(at.index(i), c));
      seen.add(c);
    });
  }
  return errs;
}

export function validateNode(node: KubeObject): FieldError[] {
  const spec = rec(node.spec);
  return [...taints(spec.taints, path('metadata', 'taints')), ...resources(rec(node.status)), ...podCIDRs(spec)];
}

export function validateNodeUpdate(node: KubeObject, old: KubeObject): FieldError[] {
  const spec = rec(node.spec);
  const oldSpec = rec(old.spec);
  const errs = resources(rec(node.status));
  const seen = new Set<string>();
  recs(rec(node.status).addresses).forEach((a, i) => {
    const key = `${str(a.type)}\u0000${str(a.address)}`;
    if (seen.has(key)) {
      errs.push(
        duplicate(
          path('status', 'addresses').index(i),
          new GoValue(`core.NodeAddress{Type:${goQuote(str(a.type))}, Address:${goQuote(str(a.address))}}`),
        ),
      );
    }
    seen.add(key);
  });
  const oldCIDRs = arr(oldSpec.podCIDRs).map(str);
  const cidrs = arr(spec.podCIDRs).map(str);
  if (oldCIDRs.length > 0) {
    const message = 'node updates may not change podCIDR except from "" to valid';
    if (oldCIDRs.length !== cidrs.length) errs.push(forbidden(path('spec', 'podCIDRs'), message));
    else if (oldCIDRs.some((c, i) => c !== cidrs[i])) errs.push(forbidden(path('spec', 'podCIDRs'), message));
  }
  if (str(oldSpec.providerID) && str(oldSpec.providerID) !== str(spec.providerID)) {
    errs.push(forbidden(path('spec', 'providerID'), 'node updates may not change providerID except from "" to valid'));
  }
  errs.push(...taints(spec.taints, path('metadata', 'taints')));
  if (str(spec.externalID) !== str(oldSpec.externalID))
    errs.push(forbidden(path('spec', 'externalID'), 'may not be updated'));
  return errs;
}

function address(node: KubeObject, type: string): string {
  return str(recs(rec(node.status).addresses).find((a) => a.type === type)?.address) || '<none>';
}

/** Roles from node-role.kubernetes.io/<role> labels and the kubernetes.io/role label, sorted. */
export function nodeRoles(node: KubeObject): string {
  const roles = new Set<string>();
  for (const [k, v] of Object.entries(node.metadata.labels ?? {})) {
    if (k.startsWith(ROLE_PREFIX) && k.length > ROLE_PREFIX.length) roles.add(k.slice(ROLE_PREFIX.length));
    else if (k === 'kubernetes.io/role' && v) roles.add(v);
  }
  return roles.size > 0 ? [...roles].sort().join(',') : '<none>';
}

export function nodeStatusCell(node: KubeObject): string {
  const ready = recs(rec(node.status).conditions).find((c) => c.type === 'Ready');
  const status = ready ? [ready.status === 'True' ? 'Ready' : 'NotReady'] : ['Unknown'];
  if (rec(node.spec).unschedulable === true) status.push('SchedulingDisabled');
  return status.join(',');
}

export const nodePrinter: Printer = {
  columns: [
    nameColumn,
    column('Status', 'Whether the node is ready, and whether it takes new pods.'),
    column('Roles', 'The roles the node labels claim.'),
    ageColumn,
    column('Version', 'The kubelet version the node reports.'),
    column('Internal-IP', 'The first internal address of the node.', { wide: true }),
    column('External-IP', 'The first external address of the node.', { wide: true }),
    column('OS-Image', 'The operating system image the node reports.', { wide: true }),
    column('Kernel-Version', 'The kernel version the node reports.', { wide: true }),
    column('Container-Runtime', 'The container runtime and its version, as the node reports them.', { wide: true }),
  ],
  cells(node, now) {
    const info = rec(rec(node.status).nodeInfo);
    return [
      node.metadata.name ?? '',
      nodeStatusCell(node),
      nodeRoles(node),
      age(node.metadata.creationTimestamp, now),
      str(info.kubeletVersion),
      address(node, 'InternalIP'),
      address(node, 'ExternalIP'),
      str(info.osImage) || '<unknown>',
      str(info.kernelVersion) || '<unknown>',
      str(info.containerRuntimeVersion) || '<unknown>',
    ];
  },
};

/** A write to nodes/status changes status (and metadata a kubelet may touch); spec stays as it was. */
const nodeStatusStrategy: StatusStrategy = {
  prepareForUpdate: keepAllButStatus,
  validateUpdate: (node) => resources(rec(node.status)),
};

export function nodes(): Builtin {
  const served = builtin({
    group: '',
    version: 'v1',
    resource: 'nodes',
    printer: nodePrinter,
    strategy: {
      tracksGeneration: false,
      default: defaultNode,
      prepareForUpdate(node, old) {
        if (old.status === undefined) delete node.status;
        else node.status = old.status;
      },
      validate: validateNode,
      validateUpdate: validateNodeUpdate,
      selectableFields: { 'spec.unschedulable': (n) => String(rec(n.spec).unschedulable === true) },
    },
  });
  served.def.status = nodeStatusStrategy;
  return served;
}
