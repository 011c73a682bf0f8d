/**
 * storage.k8s.io/v1 StorageClasses: reclaimPolicy defaults to Delete and volumeBindingMode to Immediate;
 * provisioner, parameters, reclaimPolicy and volumeBindingMode are fixed after creation; DELETE answers with the
 * deleted object, as upstream's store does. Printed with a `(default)` mark on the default class.
 */
import {
  type FieldError,
  forbidden,
  invalid,
  notSupported,
  path,
  required,
  tooLong,
} from '../../../api/field-errors.js';
import { isQualifiedName } from '../../../api/validation/names.js';
import { age } from '../../printers/duration.js';
import { ageColumn, nameColumn } from '../../printers/table.js';
import { jsonEqual, type KubeObject } from '../object.js';
import { type Builtin, builtin } from './common.js';
import { column } from './groups-columns.js';
import { defaultValue, rec, str, unset } from './groups-fields.js';
import { immutable } from './groups-validation.js';

const MAX_PARAMETERS = 512;
const MAX_PARAMETERS_SIZE = 256 * 1024;
const RECLAIM_POLICIES = ['Delete', 'Retain'];
const BINDING_MODES = ['Immediate', 'WaitForFirstConsumer'];

function validateStorageClass(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const provisioner = str(obj.provisioner);
  if (provisioner === '') errs.push(required(path('provisioner')));
  else
    for (const msg of isQualifiedName(provisioner.toLowerCase()))
      errs.push(invalid(path('provisioner'), provisioner.toLowerCase(), msg));
  const params = Object.entries(rec(obj.parameters));
  if (params.length > MAX_PARAMETERS) {
    errs.push(tooLong(path('parameters'), MAX_PARAMETERS));
  } else {
    let size = 0;
    for (const [k, v] of params) {
      if (k.length < 1) errs.push(invalid(path('parameters'), k, 'field can not be empty.'));
      size += Buffer.byteLength(k) + Buffer.byteLength(str(v));
    }
    if (size > MAX_PARAMETERS_SIZE) errs.push(tooLong(path('parameters'), MAX_PARAMETERS_SIZE));
  }
  const reclaim = str(obj.reclaimPolicy);
  if (reclaim !== '' && !RECLAIM_POLICIES.includes(reclaim))
    errs.push(notSupported(path('reclaimPolicy'), reclaim, RECLAIM_POLICIES));
  if (unset(obj.volumeBindingMode)) errs.push(required(path('volumeBindingMode')));
  else if (!BINDING_MODES.includes(str(obj.volumeBindingMode))) {
    errs.push(notSupported(path('volumeBindingMode'), str(obj.volumeBindingMode), BINDING_MODES));
  }
  return errs;
}

function validateStorageClassUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  if (!jsonEqual(obj.parameters ?? {}, old.parameters ?? {}))
    errs.push(forbidden(path('parameters'), 'updates to parameters are forbidden.'));
  if (obj.provisioner !== old.provisioner)
    errs.push(forbidden(path('provisioner'), 'updates to provisioner are forbidden.'));
  if (obj.reclaimPolicy !== old.reclaimPolicy)
    errs.push(forbidden(path('reclaimPolicy'), 'updates to reclaimPolicy are forbidden.'));
  errs.push(...immutable(path('volumeBindingMode'), obj.volumeBindingMode, old.volumeBindingMode));
  return errs;
}

const DEFAULT_CLASS_ANNOTATIONS = [
  'storageclass.kubernetes.io/is-default-class',
  'storageclass.beta.kubernetes.io/is-default-class',
];

export function isDefaultStorageClass(obj: KubeObject): boolean {
  return DEFAULT_CLASS_ANNOTATIONS.some((key) => obj.metadata.annotations?.[key] === 'true');
}

export const storageclasses: Builtin = builtin({
  group: 'storage.k8s.io',
  version: 'v1',
  resource: 'storageclasses',
  strategy: {
    tracksGeneration: false,
    returnDeletedObject: true,
    default(obj) {
      defaultValue(obj, 'reclaimPolicy', 'Delete');
      defaultValue(obj, 'volumeBindingMode', 'Immediate');
    },
    validate: validateStorageClass,
    validateUpdate: (obj, old) => [...validateStorageClass(obj), ...validateStorageClassUpdate(obj, old)],
  },
  printer: {
    columns: [
      nameColumn,
      column('Provisioner', 'The volume plugin that provisions volumes of this class.'),
      column('ReclaimPolicy', 'What happens to volumes of this class when released.'),
      column('VolumeBindingMode', 'When volumes of this class are bound.'),
      column('AllowVolumeExpansion', 'Whether volumes of this class may grow.'),
      ageColumn,
    ],
    cells: (o, now) => [
      isDefaultStorageClass(o) ? `${o.metadata.name} (default)` : o.metadata.name,
      str(o.provisioner),
      str(o.reclaimPolicy) || 'Delete',
      str(o.volumeBindingMode) || 'Immediate',
      o.allowVolumeExpansion === true,
      age(o.metadata.creationTimestamp, now),
    ],
  },
});
