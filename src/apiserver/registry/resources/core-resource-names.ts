/**
 * Which resource names Kubernetes knows (upstream's helper.IsStandard*ResourceName) and the field errors for names
 * and quantities in resource lists of LimitRanges, ResourceQuotas and Nodes.
 */
import { type FieldError, type FieldPath, invalid } from '../../../api/field-errors.js';
import { formatQuantity, isQuantity, parseQuantity } from '../../../api/quantity.js';
import { isQualifiedName } from '../../../api/validation/names.js';

const STANDARD = new Set([
  'cpu',
  'memory',
  'ephemeral-storage',
  'requests.cpu',
  'requests.memory',
  'requests.ephemeral-storage',
  'limits.cpu',
  'limits.memory',
  'limits.ephemeral-storage',
  'pods',
  'resourcequotas',
  'services',
  'replicationcontrollers',
  'secrets',
  'configmaps',
  'persistentvolumeclaims',
  'storage',
  'requests.storage',
  'services.nodeports',
  'services.loadbalancers',
]);
const QUOTA = new Set([...STANDARD].filter((n) => n !== 'storage'));
const CONTAINER = new Set(['cpu', 'memory', 'ephemeral-storage']);
const INTEGER = new Set([
  'pods',
  'services',
  'replicationcontrollers',
  'resourcequotas',
  'secrets',
  'configmaps',
  'persistentvolumeclaims',
  'services.nodeports',
  'services.loadbalancers',
]);

const hugePages = (name: string) => name.startsWith('hugepages-') || name.startsWith('requests.hugepages-');
const native = (name: string) => !name.includes('/') || name.includes('kubernetes.io/');

export const isStandardResourceName = (name: string) => STANDARD.has(name) || hugePages(name);
export const isStandardQuotaResourceName = (name: string) => QUOTA.has(name) || hugePages(name);
export const isStandardContainerResourceName = (name: string) => CONTAINER.has(name) || name.startsWith('hugepages-');

/** validateResourceName: a qualified name, and a known one unless it has a domain. */
export function resourceNameErrors(name: string, at: FieldPath): FieldError[] {
  const errs = isQualifiedName(name).map((msg) => invalid(at, name, msg));
  if (errs.length > 0) return errs;
  if (!name.includes('/') && !isStandardResourceName(name)) {
    return [invalid(at, name, 'must be a standard resource type or fully qualified')];
  }
  return [];
}

/** ValidateResourceQuantityValue: not negative, and whole for countable and extended resources. */
export function quantityValueErrors(name: string, value: unknown, at: FieldPath): FieldError[] {
  if (!isQuantity(value)) return [];
  const q = parseQuantity(value as string | number);
  const errs: FieldError[] = [];
  if (q.nanos < 0n) errs.push(invalid(at, formatQuantity(q), 'must be greater than or equal to 0'));
  const integer = INTEGER.has(name) || !native(name);
  if (integer && q.nanos % 1_000_000_000n !== 0n) errs.push(invalid(at, formatQuantity(q), 'must be an integer'));
  return errs;
}
