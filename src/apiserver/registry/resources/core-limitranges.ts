/**
 * core/v1 LimitRanges: the container defaults upstream derives (default from max, defaultRequest from default or
 * min), canonical quantities, and ValidateLimitRange's checks. Upstream has no printer of its own for them.
 */
import { duplicate, type FieldError, forbidden, invalid, path, required } from '../../../api/field-errors.js';
import { compareQuantities, formatQuantity, isQuantity, parseQuantity, type Quantity } from '../../../api/quantity.js';
import { isQualifiedName } from '../../../api/validation/names.js';
import type { KubeObject } from '../object.js';
import { type Builtin, builtin } from './common.js';
import { child, type Rec, rec, recs, str } from './core-json.js';
import { defaultResourceList } from './core-resource-lists.js';
import { isStandardContainerResourceName, quantityValueErrors, resourceNameErrors } from './core-resource-names.js';

const LISTS = ['max', 'min', 'default', 'defaultRequest', 'maxLimitRequestRatio'];
const LIMIT_TYPES = new Set(['Pod', 'Container', 'PersistentVolumeClaim']);

export function defaultLimitRange(lr: KubeObject): void {
  for (const item of recs(rec(lr.spec).limits)) {
    if (item.type === 'Container') {
      const defaults = child(item, 'default');
      const defaultRequest = child(item, 'defaultRequest');
      for (const [k, v] of Object.entries(rec(item.max))) if (!(k in defaults)) defaults[k] = v;
      for (const [k, v] of Object.entries(defaults)) if (!(k in defaultRequest)) defaultRequest[k] = v;
      for (const [k, v] of Object.entries(rec(item.min))) if (!(k in defaultRequest)) defaultRequest[k] = v;
    }
    for (const list of LISTS) defaultResourceList(item, list, 'LimitRange');
  }
}

function typeErrors(type: string, at: ReturnType<typeof path>): FieldError[] {
  const errs = isQualifiedName(type).map((msg) => invalid(at, type, msg));
  if (errs.length === 0 && !type.includes('/') && !LIMIT_TYPES.has(type)) {
    errs.push(invalid(at, type, 'must be a standard limit type or fully qualified'));
  }
  return errs;
}

function limitNameErrors(type: string, name: string, at: ReturnType<typeof path>): FieldError[] {
  const errs = resourceNameErrors(name, at);
  if ((type === 'Pod' || type === 'Container') && !name.includes('/') && !isStandardContainerResourceName(name)) {
    errs.push(invalid(at, name, 'must be a standard resource for containers'));
  }
  return errs;
}

function quantities(list: unknown): Map<string, Quantity> {
  const out = new Map<string, Quantity>();
  for (const [k, v] of Object.entries(rec(list))) if (isQuantity(v)) out.set(k, parseQuantity(v as string));
  return out;
}

function compareItem(item: Rec, at: ReturnType<typeof path>, keys: Set<string>): FieldError[] {
  const errs: FieldError[] = [];
  const min = quantities(item.min);
  const max = quantities(item.max);
  const def = quantities(item.default);
  const defReq = quantities(item.defaultRequest);
  const ratio = quantities(item.maxLimitRequestRatio);
  const s = formatQuantity;
  for (const k of [...keys].sort()) {
    const [mn, mx, d, dr, r] = [min.get(k), max.get(k), def.get(k), defReq.get(k), ratio.get(k)];
    if (mn && mx && compareQuantities(mn, mx) > 0) {
      errs.push(invalid(at.child('min').key(k), s(mn), `min value ${s(mn)} is greater than max value ${s(mx)}`));
    }
    if (dr && mn && compareQuantities(mn, dr) > 0) {
      errs.push(
        invalid(
          at.child('defaultRequest').key(k),
          s(dr),
          `min value ${s(mn)} is greater than default request value ${s(dr)}`,
        ),
      );
    }
    if (dr && mx && compareQuantities(dr, mx) > 0) {
      errs.push(
        invalid(
          at.child('defaultRequest').key(k),
          s(dr),
          `default request value ${s(dr)} is greater than max value ${s(mx)}`,
        ),
      );
    }
    if (dr && d && compareQuantities(dr, d) > 0) {
      errs.push(
        invalid(
          at.child('defaultRequest').key(k),
          s(dr),
          `default request value ${s(dr)} is greater than default limit value ${s(d)}`,
        ),
      );
    }
    if (d && mn && compareQuantities(mn, d) > 0) {
      errs.push(invalid(at.child('default').key(k), s(mn), `min value ${s(mn)} is greater than default value ${s(d)}`));
    }
    if (d && mx && compareQuantities(d, mx) > 0) {
      errs.push(invalid(at.child('default').key(k), s(mx), `default value ${s(d)} is greater than max value ${s(mx)}`));
    }
    if (r && compareQuantities(r, parseQuantity('1')) < 0) {
      errs.push(invalid(at.child('maxLimitRequestRatio').key(k), s(r), `ratio ${s(r)} is less than 1`));
    }
  }
  return errs;
}

export function validateLimitRange(lr: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const types = new Set<string>();
  recs(rec(lr.spec).limits).forEach((item, i) => {
    const at = path('spec', 'limits').index(i);
    const type = str(item.type);
    errs.push(...typeErrors(type, at.child('type')));
    if (types.has(type)) errs.push(duplicate(at.child('type'), type));
    types.add(type);
    const keys = new Set<string>();
    const lists = type === 'Pod' ? ['max', 'min'] : ['max', 'min', 'default', 'defaultRequest'];
    for (const list of lists) {
      for (const [k, v] of Object.entries(rec(item[list]))) {
        errs.push(
          ...limitNameErrors(type, k, at.child(list).key(k)),
          ...quantityValueErrors(k, v, at.child(list).key(k)),
        );
        keys.add(k);
      }
    }
    if (type === 'Pod') {
      if (Object.keys(rec(item.default)).length > 0)
        errs.push(forbidden(at.child('default'), "may not be specified when `type` is 'Pod'"));
      if (Object.keys(rec(item.defaultRequest)).length > 0) {
        errs.push(forbidden(at.child('defaultRequest'), "may not be specified when `type` is 'Pod'"));
      }
    }
    if (type === 'PersistentVolumeClaim' && !('storage' in rec(item.min)) && !('storage' in rec(item.max))) {
      errs.push(
        required(at.child('limits'), 'either minimum or maximum storage value is required, but neither was provided'),
      );
    }
    for (const k of Object.keys(rec(item.maxLimitRequestRatio))) {
      errs.push(...limitNameErrors(type, k, at.child('maxLimitRequestRatio').key(k)));
      keys.add(k);
    }
    errs.push(...compareItem(item, at, keys));
  });
  return errs;
}

export function limitranges(): Builtin {
  return builtin({
    group: '',
    version: 'v1',
    resource: 'limitranges',
    strategy: {
      tracksGeneration: false,
      default: defaultLimitRange,
      validate: validateLimitRange,
      validateUpdate: validateLimitRange,
    },
  });
}
