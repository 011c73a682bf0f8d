/**
 * core/v1 ResourceQuotas (+status): canonical quantities, ValidateResourceQuota's checks (resource names,
 * quantities, scopes, the scope selector; scopes fixed after create) and the NAME AGE REQUEST LIMIT columns that
 * show used/hard per resource.
 */
import { type FieldError, type FieldPath, invalid, path, required } from '../../../api/field-errors.js';
import { canonicalQuantity, isQuantity } from '../../../api/quantity.js';
import { GoValue, goQuote } from '../../../api/validation/go-format.js';
import { age } from '../../printers/duration.js';
import { ageColumn, nameColumn, type Printer } from '../../printers/table.js';
import { isObject, type KubeObject } from '../object.js';
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

/**
 * Whether a scope may limit a resource (IsResourceQuotaScopeValidForResource): BestEffort only counts pods, the
 * other pod scopes count pods and compute, and a scope upstream does not know limits anything.
 */
function scopeFits(scope: string, resource: string): boolean {
  if (scope === 'BestEffort') return resource === 'pods';
  if (SCOPES.includes(scope)) return POD_COMPUTE.has(resource);
  return true;
}

const CONFLICTING_SCOPES = [
  ['BestEffort', 'NotBestEffort'],
  ['Terminating', 'NotTerminating'],
] as const;

/** `%#v` of a spec's scopes, as the internal type prints. */
function goScopes(list: string[] | undefined): GoValue {
  return new GoValue(
    list === undefined
      ? '[]core.ResourceQuotaScope(nil)'
      : `[]core.ResourceQuotaScope{${list.map(goQuote).join(', ')}}`,
  );
}

function goStrings(v: unknown): string {
  return Array.isArray(v) ? `[]string{${v.map((x) => goQuote(str(x))).join(', ')}}` : '[]string(nil)';
}

/** `%#v` of a spec's scopeSelector, as the internal core.ScopeSelector prints. */
function goScopeSelector(selector: Rec): GoValue {
  const list = selector.matchExpressions;
  const inner = Array.isArray(list)
    ? `[]core.ScopedResourceSelectorRequirement{${list
        .map((x) => {
          const r = rec(x);
          return `core.ScopedResourceSelectorRequirement{ScopeName:${goQuote(str(r.scopeName))}, Operator:${goQuote(str(r.operator))}, Values:${goStrings(r.values)}}`;
        })
        .join(', ')}}`
    : '[]core.ScopedResourceSelectorRequirement(nil)';
  return new GoValue(`core.ScopeSelector{MatchExpressions:${inner}}`);
}

const EXISTS_ONLY = new Set([
  'BestEffort',
  'NotBestEffort',
  'Terminating',
  'NotTerminating',
  'CrossNamespacePodAffinity',
]);

/** validateScopeSelector: each match expression's scope, operator and values. */
function scopeSelector(spec: Rec, at: FieldPath): FieldError[] {
  if (!isObject(spec.scopeSelector)) return [];
  const selector = spec.scopeSelector;
  const exprsAt = at.child('matchExpressions');
  const hard = Object.keys(rec(spec.hard)).sort();
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  for (const item of arr(selector.matchExpressions)) {
    const req = rec(item);
    const scope = str(req.scopeName);
    const operator = str(req.operator);
    const values = arr(req.values);
    if (!SCOPES.includes(scope)) errs.push(invalid(exprsAt.child('scopeName'), scope, 'unsupported scope'));
    for (const resource of hard) {
      if (isStandardQuotaResourceName(resource) && !scopeFits(scope, resource)) {
        errs.push(invalid(exprsAt, goScopeSelector(selector), 'unsupported scope applied to resource'));
      }
    }
    if (EXISTS_ONLY.has(scope) && operator !== 'Exists') {
      errs.push(
        invalid(
          exprsAt.child('operator'),
          operator,
          "must be 'Exist' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity",
        ),
      );
    }
    if (operator === 'In' || operator === 'NotIn') {
      if (values.length === 0) {
        errs.push(
          required(
            exprsAt.child('values'),
            "must be at least one value when `operator` is 'In' or 'NotIn' for scope selector",
          ),
        );
      }
    } else if (operator === 'Exists' || operator === 'DoesNotExist') {
      if (values.length !== 0) {
        errs.push(
          invalid(
            exprsAt.child('values'),
            new GoValue(goStrings(req.values)),
            "must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector",
          ),
        );
      }
    } else {
      errs.push(invalid(exprsAt.child('operator'), operator, 'not a valid selector operator'));
    }
    seen.add(scope);
  }
  for (const [a, b] of CONFLICTING_SCOPES) {
    // Upstream shows the spec's scopes here, not the selector.
    if (seen.has(a) && seen.has(b)) errs.push(invalid(exprsAt, goScopes(specScopes(spec)), 'conflicting scopes'));
  }
  return errs;
}

function specScopes(spec: Rec): string[] | undefined {
  return Array.isArray(spec.scopes) ? spec.scopes.map(str) : undefined;
}

function scopes(spec: Rec, at: FieldPath): FieldError[] {
  const list = arr(spec.scopes).map(str);
  if (list.length === 0) return [];
  const value = goScopes(list);
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
  for (const [a, b] of CONFLICTING_SCOPES) {
    if (list.includes(a) && list.includes(b)) errs.push(invalid(at, value, 'conflicting scopes'));
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
    ...scopeSelector(spec, path('spec', 'scopeSelector')),
    ...validateStatus(q),
  ];
}

/** ValidateResourceQuotaUpdate: the spec as on create, and scopes that do not change. */
export function validateResourceQuotaUpdate(q: KubeObject, old: KubeObject): FieldError[] {
  const errs = validateResourceQuota(q);
  const next = new Set(specScopes(rec(q.spec)) ?? []);
  const prev = new Set(specScopes(rec(old.spec)) ?? []);
  if (next.size !== prev.size || [...next].some((s) => !prev.has(s))) {
    errs.push(invalid(path('spec', 'scopes'), goScopes(specScopes(rec(q.spec))), 'field is immutable'));
  }
  return errs;
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
      validateUpdate: validateResourceQuotaUpdate,
    },
  });
  served.def.status = specKeepingStatusStrategy((q) => validateStatus(q));
  return served;
}
