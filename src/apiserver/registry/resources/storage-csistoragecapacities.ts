/**
 * storage.k8s.io/v1 CSIStorageCapacities (namespaced): the capacity a CSI driver reports for one storage class in one
 * topology segment. nodeTopology is a valid label selector (an invalid value a stored one already holds is kept on
 * update), storageClassName a DNS-1123 subdomain, capacity not negative; nodeTopology and storageClassName are
 * fixed after creation. Quantities are stored in canonical form. Upstream gives the resource no printer of its own,
 * so tables have its default NAME and CREATED AT columns.
 */
import { type FieldError, invalid, path } from '../../../api/field-errors.js';
import type { LabelSelectorObject } from '../../../api/labels.js';
import { formatQuantity, isQuantity, parseQuantity } from '../../../api/quantity.js';
import { semanticEqual } from '../../../api/semantic-equal.js';
import { validateLabelSelector } from '../../../api/validation/labels.js';
import { nameIsDNSSubdomain } from '../../../api/validation/name-validators.js';
import { IS_NEGATIVE_ERROR_MSG } from '../../../api/validation/object-meta.js';
import type { KubeObject } from '../object.js';
import { type Builtin, builtin } from './common.js';
import { defaultQuantityField } from './core-resource-lists.js';
import { rec, str, unset } from './groups-fields.js';
import { goLabelSelector } from './groups-go-format.js';
import { FIELD_IMMUTABLE } from './groups-validation.js';

const KIND = 'CSIStorageCapacity';

const selectorOf = (obj: KubeObject): LabelSelectorObject | undefined =>
  unset(obj.nodeTopology) ? undefined : (rec(obj.nodeTopology) as LabelSelectorObject);

function validateCapacity(obj: KubeObject, allowInvalidLabelValueInSelector: boolean): FieldError[] {
  const errs = validateLabelSelector(selectorOf(obj), { allowInvalidLabelValueInSelector }, path('nodeTopology'));
  const className = str(obj.storageClassName);
  for (const msg of nameIsDNSSubdomain(className, false)) errs.push(invalid(path('storageClassName'), className, msg));
  if (isQuantity(obj.capacity)) {
    const q = parseQuantity(obj.capacity as string);
    if (q.nanos < 0n) errs.push(invalid(path('capacity'), formatQuantity(q), IS_NEGATIVE_ERROR_MSG));
  }
  return errs;
}

function validateCapacityUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const storedInvalid = validateLabelSelector(selectorOf(old), {}, path('nodeTopology')).length > 0;
  const errs = validateCapacity(obj, storedInvalid);
  if (!semanticEqual(obj.nodeTopology, old.nodeTopology)) {
    errs.push(invalid(path('nodeTopology'), goLabelSelector(obj.nodeTopology), FIELD_IMMUTABLE));
  }
  if (str(obj.storageClassName) !== str(old.storageClassName)) {
    errs.push(invalid(path('storageClassName'), str(obj.storageClassName), FIELD_IMMUTABLE));
  }
  return errs;
}

export const csistoragecapacities: Builtin = builtin({
  group: 'storage.k8s.io',
  version: 'v1',
  resource: 'csistoragecapacities',
  strategy: {
    tracksGeneration: false,
    default(obj) {
      defaultQuantityField(obj, 'capacity', KIND);
      defaultQuantityField(obj, 'maximumVolumeSize', KIND);
    },
    validate: (obj) => validateCapacity(obj, false),
    validateUpdate: validateCapacityUpdate,
  },
});
