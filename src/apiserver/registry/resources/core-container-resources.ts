/**
 * Validation of a container's resources (ResourceRequirements): resource names, quantities, requests within limits,
 * and the equality rules for resources that cannot be overcommitted (extended resources, hugepages).
 */
import { type FieldError, type FieldPath, forbidden, invalid, required } from '../../../api/field-errors.js';
import { compareQuantities, formatQuantity, isQuantity, parseQuantity, type Quantity } from '../../../api/quantity.js';
import { isQualifiedName } from '../../../api/validation/names.js';
import { rec } from './core-json.js';

const STANDARD_CONTAINER_RESOURCES = new Set(['cpu', 'memory', 'ephemeral-storage']);
const isHugePages = (name: string) => name.startsWith('hugepages-');
/** Names without a domain, or in kubernetes.io, are Kubernetes' own; the rest are extended resources. */
const isNative = (name: string) => !name.includes('/') || name.includes('kubernetes.io/');
const overcommitAllowed = (name: string) => isNative(name) && !isHugePages(name);

/** validateContainerResourceName: a resource a container may request (also what an HPA's containerResource names). */
export function validateContainerResourceName(name: string, at: FieldPath): FieldError[] {
  const errs = isQualifiedName(name).map((msg) => invalid(at, name, msg));
  if (errs.length > 0) return errs;
  if (!name.includes('/')) {
    if (!STANDARD_CONTAINER_RESOURCES.has(name) && !isHugePages(name)) {
      errs.push(invalid(at, name, 'must be a standard resource type or fully qualified'));
      errs.push(invalid(at, name, 'must be a standard resource for containers'));
    }
  } else if (!isNative(name) && name.startsWith('requests.')) {
    errs.push(invalid(at, name, "doesn't follow extended resource name standard"));
  }
  return errs;
}

/** ValidateResourceQuantityValue: not negative, and whole for extended resources. */
function quantityValue(name: string, q: Quantity, at: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (q.nanos < 0n) errs.push(invalid(at, formatQuantity(q), 'must be greater than or equal to 0'));
  if (!isNative(name) && q.nanos % 1_000_000_000n !== 0n)
    errs.push(invalid(at, formatQuantity(q), 'must be an integer'));
  return errs;
}

function quantities(list: unknown): Map<string, Quantity> {
  const out = new Map<string, Quantity>();
  for (const [name, value] of Object.entries(rec(list))) {
    if (isQuantity(value)) out.set(name, parseQuantity(value as string | number));
  }
  return out;
}

export function validateResourceRequirements(resources: unknown, at: FieldPath): FieldError[] {
  const r = rec(resources);
  const limPath = at.child('limits');
  const reqPath = at.child('requests');
  const limits = quantities(r.limits);
  const requests = quantities(r.requests);
  const errs: FieldError[] = [];
  let limitsCpuOrMemory = false;
  let requestsCpuOrMemory = false;
  let hugePages = false;
  for (const [name, q] of limits) {
    errs.push(...validateContainerResourceName(name, limPath.key(name)), ...quantityValue(name, q, limPath.key(name)));
    if (name === 'cpu' || name === 'memory') limitsCpuOrMemory = true;
    if (isHugePages(name)) hugePages = true;
  }
  for (const [name, q] of requests) {
    errs.push(...validateContainerResourceName(name, reqPath.key(name)), ...quantityValue(name, q, reqPath.key(name)));
    const limit = limits.get(name);
    if (limit) {
      const cmp = compareQuantities(q, limit);
      if (cmp !== 0 && !overcommitAllowed(name)) {
        errs.push(invalid(reqPath, formatQuantity(q), `must be equal to ${name} limit of ${formatQuantity(limit)}`));
      } else if (cmp > 0) {
        errs.push(
          invalid(
            reqPath,
            formatQuantity(q),
            `must be less than or equal to ${name} limit of ${formatQuantity(limit)}`,
          ),
        );
      }
    } else if (!overcommitAllowed(name)) {
      errs.push(required(limPath, 'Limit must be set for non overcommitable resources'));
    }
    if (name === 'cpu' || name === 'memory') requestsCpuOrMemory = true;
    if (isHugePages(name)) hugePages = true;
  }
  if (hugePages && !limitsCpuOrMemory && !requestsCpuOrMemory) {
    errs.push(forbidden(at, 'HugePages require cpu or memory'));
  }
  return errs;
}
