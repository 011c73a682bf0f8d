/**
 * core/v1 ResourceQuotas (+status): canonical quantities, ValidateResourceQuota's checks (resource names,
 * quantities, scopes) and the NAME AGE REQUEST LIMIT columns that show used/hard per resource.
 */
import { type FieldError, type FieldPath, invalid, path } from '../../../api/field-errors.js';
import { canonicalQuantity, isQuantity } from '../../../api/quantity.js';
import { GoValue, goQuote } from '../../../api/validation/go-format.js';
import { age } from '../../printers/duration.js';
import { ageColumn, nameColumn, type Printer } from '../../printers/table.js';
import type { KubeObject } from '../object.js';
import { type Builtin, builtin } from './common.js';
import { arr, type Rec, rec, str } from './core-json.js';
import { defaultResourceList } from './core-resource-lists.js';
import { isStandardQuotaResourceName, quantityValueErrors, resourceNameErrors } from './core-resource-names.js';
import { specKeepingStatusStrategy } from './core-status.js';
import { column } from './groups-columns.js';

const SCOPES = [
  'Terminating',
  'NotTerminating',
  'BestEffort',
  'NotBestEffort',
  'PriorityClass',
  'CrossNamespacePodAffinity',
];
const POD_COMPUTE = new Set([
  'pods',
  'cpu',
  'memory',
  'requests.cpu',
  'requests.memory',
  'limits.cpu',
  'limits.memory',
]);

export function defaultResourceQuota(q: KubeObject): void {
  defaultResourceList(rec(q.spec), 'hard', 'ResourceQuota');
  const status = rec(q.status);
  defaultResourceList(status, 'hard', 'ResourceQuota');
  defaultResourceList(status, 'used', 'ResourceQuota');
}

function resourceList(list: unknown, at: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  for (const [name, value] of Object.entries(rec(list))) {
    const p = at.key(name);
    errs.push(...resourceNameErrors(name, p));
    if (!name.includes('/') && !isStandardQuotaResourceName(name)) {
      errs.push(invalid(p, name, 'must be a standard resource for quota'));
    }
    errs.push(...quantityValueErrors(name, value, p));
  }
  return errs;
}

/** Whether a scope may limit a resource (BestEffort only counts pods; the others count pods and compute). */
function scopeFits(scope: string, resource: string): boolean {
  if (scope === 'BestEffort' || scope === 'CrossNamespacePodAffinity') return resource === 'pods';
  return POD_COMPUTE.has(resource);
}

function scopes(spec: Rec, at: FieldPath): FieldError[] {
  const list = arr(spec.scopes).map(str);
  if (list.length === 0) return [];
  const value = new GoValue(`[]core.ResourceQuotaScope{${list.map(goQuote).join(', ')}}`);
  const errs: FieldError[] = [];
  const hard = Object.keys(rec(spec.hard)).sort();
  for (const scope of list) {
    if (!SCOPES.includes(scope)) errs.push(invalid(at, value, 'unsupported scope'));
    for (const resource of hard) {
      if (isStandardQuotaResourceName(resource) && !scopeFits(scope, resource)) {
        errs.push(invalid(at, value, 'unsupported scope applied to resource'));
      }
    }
  }
  for (const [a, b] of [
    ['BestEffort', 'NotBestEffort'],
    ['Terminating', 'NotTerminating'],
  ]) {
    if (list.includes(a as string) && list.includes(b as string)) errs.push(invalid(at, value, 'conflicting scopes'));
  }
  return errs;
}

function validateStatus(q: KubeObject): FieldError[] {
  const status = rec(q.status);
  return [...resourceList(status.hard, path('status', 'hard')), ...resourceList(status.used, path('status', 'used'))];
}

export function validateResourceQuota(q: KubeObject): FieldError[] {
  const spec = rec(q.spec);
  return [
    ...resourceList(spec.hard, path('spec', 'hard')),
    ...scopes(spec, path('spec', 'scopes')),
    ...validateStatus(q),
  ];
}

/** `resource: used/hard, …` for requests and other resources, and for limits.* resources. */
function usageCells(q: KubeObject): [string, string] {
  const status = rec(q.status);
  const hard = rec(status.hard);
  const used = rec(status.used);
  const request: string[] = [];
  const limit: string[] = [];
  for (const name of Object.keys(hard).sort()) {
    const show = (v: unknown) => (isQuantity(v) ? canonicalQuantity(v as string) : '0');
    const text = `${name}: ${show(used[name])}/${show(hard[name])}`;
    const pieces = name.split('.');
    if (pieces.length > 1 && pieces[0] === 'limits') limit.push(text);
    else request.push(text);
  }
  return [request.join(', '), limit.join(', ')];
}

export const resourceQuotaPrinter: Printer = {
  columns: [
    nameColumn,
    ageColumn,
    column('Request', 'Used and hard amounts of the quota resources that are not limits.'),
    column('Limit', 'Used and hard amounts of the limits.* quota resources.'),
  ],
  cells: (q, now) => [q.metadata.name ?? '', age(q.metadata.creationTimestamp, now), ...usageCells(q)],
};

export function resourcequotas(): Builtin {
  const served = builtin({
    group: '',
    version: 'v1',
    resource: 'resourcequotas',
    hasStatus: true,
    printer: resourceQuotaPrinter,
    strategy: {
      tracksGeneration: false,
      returnDeletedObject: true,
      default: defaultResourceQuota,
      prepareForCreate(q) {
        q.status = {};
      },
      validate: validateResourceQuota,
      validateUpdate: validateResourceQuota,
    },
  });
  served.def.status = specKeepingStatusStrategy((q) => validateStatus(q));
  return served;
}
