/**
 * core/v1 PersistentVolumeClaims (+status): volume mode Filesystem by default, status Pending on create, upstream's
 * spec validation, a spec that is immutable after creation except the storage request (and volumeName, once), and
 * the NAME STATUS VOLUME CAPACITY ACCESS MODES STORAGECLASS VOLUMEATTRIBUTESCLASS AGE columns.
 */
import { type FieldError, forbidden, invalid, notSupported, path, required } from '../../../api/field-errors.js';
import {
  canonicalQuantity,
  compareQuantities,
  formatQuantity,
  isQuantity,
  parseQuantity,
} from '../../../api/quantity.js';
import { validateLabelSelector } from '../../../api/validation/labels.js';
import { nameIsDNSSubdomain } from '../../../api/validation/name-validators.js';
import { age } from '../../printers/duration.js';
import { ageColumn, nameColumn, type Printer } from '../../printers/table.js';
import { deepClone, jsonEqual, type KubeObject } from '../object.js';
import { type Builtin, builtin } from './common.js';
import { immutable } from './core-field-checks.js';
import { child, rec, str } from './core-json.js';
import { describeSpecChange } from './core-pod-spec-diff.js';
import { defaultRequirements, defaultResourceList } from './core-resource-lists.js';
import { specKeepingStatusStrategy } from './core-status.js';
import {
  accessModesCell,
  storageClassOf,
  VOLUME_MODES,
  validateAccessModes,
  volumeAttributesClassCell,
  volumeModeCell,
} from './core-volume-claims.js';
import { column } from './groups-columns.js';
import { claimWarnings } from './pod-warnings.js';

export function defaultPersistentVolumeClaim(pvc: KubeObject): void {
  const spec = child(pvc, 'spec');
  if (spec.volumeMode === undefined || spec.volumeMode === null) spec.volumeMode = 'Filesystem';
  defaultRequirements(spec.resources, 'PersistentVolumeClaim');
  if (pvc.status && typeof pvc.status === 'object') {
    defaultResourceList(rec(pvc.status), 'capacity', 'PersistentVolumeClaim');
    defaultResourceList(rec(pvc.status), 'allocatedResources', 'PersistentVolumeClaim');
  }
}

function dataSource(ds: unknown, at: ReturnType<typeof path>): FieldError[] {
  if (ds === undefined || ds === null) return [];
  const d = rec(ds);
  const errs: FieldError[] = [];
  if (!str(d.name)) errs.push(required(at.child('name')));
  if (!str(d.kind)) errs.push(required(at.child('kind')));
  const group = str(d.apiGroup);
  if (!group && d.kind !== 'PersistentVolumeClaim') {
    errs.push(invalid(at, str(d.kind), "must be 'PersistentVolumeClaim' when referencing the default apiGroup"));
  }
  if (group) for (const msg of nameIsDNSSubdomain(group, false)) errs.push(invalid(at.child('apiGroup'), group, msg));
  return errs;
}

export function validatePersistentVolumeClaim(pvc: KubeObject): FieldError[] {
  const spec = rec(pvc.spec);
  const at = path('spec');
  const errs = validateAccessModes(spec.accessModes, at.child('accessModes'), 'at least 1 access mode is required');
  if (spec.selector !== undefined && spec.selector !== null) {
    errs.splice(1, 0, ...validateLabelSelector(rec(spec.selector), {}, at.child('selector')));
  }
  const storagePath = at.child('resources').key('storage');
  const storage = rec(rec(spec.resources).requests).storage;
  if (storage === undefined) errs.push(required(storagePath));
  else if (isQuantity(storage)) {
    const q = parseQuantity(storage as string);
    if (q.nanos <= 0n) errs.push(invalid(storagePath, formatQuantity(q), 'must be greater than zero'));
  }
  const className = spec.storageClassName;
  if (typeof className === 'string' && className) {
    for (const msg of nameIsDNSSubdomain(className, false))
      errs.push(invalid(at.child('storageClassName'), className, msg));
  }
  if (typeof spec.volumeMode === 'string' && !VOLUME_MODES.includes(spec.volumeMode)) {
    errs.push(notSupported(at.child('volumeMode'), spec.volumeMode, VOLUME_MODES));
  }
  errs.push(
    ...dataSource(spec.dataSource, at.child('dataSource')),
    ...dataSource(spec.dataSourceRef, at.child('dataSourceRef')),
  );
  return errs;
}

export function validatePersistentVolumeClaimUpdate(pvc: KubeObject, old: KubeObject): FieldError[] {
  const errs = validatePersistentVolumeClaim(pvc);
  const spec = rec(pvc.spec);
  const oldSpec = rec(old.spec);
  const next = deepClone(spec);
  const before = deepClone(oldSpec);
  if (!str(oldSpec.volumeName)) before.volumeName = next.volumeName;
  if (oldSpec.storageClassName === undefined && typeof next.storageClassName === 'string') {
    const annotation = old.metadata.annotations?.['volume.beta.kubernetes.io/storage-class'];
    if (annotation === undefined || annotation === next.storageClassName)
      before.storageClassName = next.storageClassName;
  }
  const bound = rec(pvc.status).phase === 'Bound';
  const requests = rec(rec(next.resources).requests);
  if (bound && next.resources) {
    requests.storage = rec(rec(oldSpec.resources).requests).storage;
    rec(next.resources).requests = requests;
    if (next.volumeAttributesClassName !== undefined)
      next.volumeAttributesClassName = oldSpec.volumeAttributesClassName;
  }
  if (!jsonEqual(next, before)) {
    errs.push(
      forbidden(
        path('spec'),
        `spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims\n${describeSpecChange(before, next)}`,
      ),
    );
  }
  const newSize = rec(rec(spec.resources).requests).storage;
  const oldSize = rec(rec(oldSpec.resources).requests).storage;
  const statusSize = rec(rec(old.status).capacity).storage;
  if (isQuantity(newSize) && isQuantity(oldSize)) {
    const n = parseQuantity(newSize as string);
    if (compareQuantities(n, parseQuantity(oldSize as string)) < 0) {
      const floor = isQuantity(statusSize) ? parseQuantity(statusSize as string) : parseQuantity('0');
      if (compareQuantities(n, floor) <= 0) {
        errs.push(
          forbidden(path('spec', 'resources', 'requests', 'storage'), 'field can not be less than status.capacity'),
        );
      }
    }
  }
  errs.push(...immutable(spec.volumeMode, oldSpec.volumeMode, path('volumeMode')));
  return errs;
}

export const persistentVolumeClaimPrinter: Printer = {
  columns: [
    nameColumn,
    column('Status', 'The phase of the claim.'),
    column('Volume', 'The volume bound to the claim.'),
    column('Capacity', 'The capacity of the bound volume.'),
    column('Access Modes', 'How the bound volume can be mounted.'),
    column('StorageClass', 'The storage class of the claim.'),
    column('VolumeAttributesClass', 'The volume attributes class of the claim.'),
    ageColumn,
    column('VolumeMode', 'Whether the claim is for a filesystem or a raw block device.', { wide: true }),
  ],
  cells(pvc, now) {
    const spec = rec(pvc.spec);
    const status = rec(pvc.status);
    const bound = str(spec.volumeName) !== '';
    const storage = rec(status.capacity).storage;
    return [
      pvc.metadata.name ?? '',
      pvc.metadata.deletionTimestamp ? 'Terminating' : str(status.phase),
      str(spec.volumeName),
      bound ? (isQuantity(storage) ? canonicalQuantity(storage as string) : '0') : '',
      bound ? accessModesCell(status.accessModes) : '',
      storageClassOf(pvc),
      volumeAttributesClassCell(pvc),
      age(pvc.metadata.creationTimestamp, now),
      volumeModeCell(pvc),
    ];
  },
};

export function persistentvolumeclaims(): Builtin {
  const served = builtin({
    group: '',
    version: 'v1',
    resource: 'persistentvolumeclaims',
    hasStatus: true,
    printer: persistentVolumeClaimPrinter,
    strategy: {
      tracksGeneration: false,
      returnDeletedObject: true,
      default: defaultPersistentVolumeClaim,
      warningsOnCreate: claimWarnings,
      warningsOnUpdate: claimWarnings,
      prepareForCreate(pvc) {
        pvc.status = { phase: 'Pending' };
      },
      validate: validatePersistentVolumeClaim,
      validateUpdate: validatePersistentVolumeClaimUpdate,
    },
  });
  served.def.status = specKeepingStatusStrategy();
  return served;
}
