/**
 * core/v1 PersistentVolumes (cluster-scoped, +status): reclaim policy Retain and volume mode Filesystem by default,
 * status Pending with its transition time on create, upstream's spec validation (access modes, storage capacity,
 * exactly one volume source), an immutable source, and the NAME CAPACITY ACCESS MODES … columns.
 */
import { type FieldError, forbidden, invalid, notSupported, path, required } from '../../../api/field-errors.js';
import { canonicalQuantity, formatQuantity, isQuantity, parseQuantity } from '../../../api/quantity.js';
import { GoValue, goQuote } from '../../../api/validation/go-format.js';
import { nameIsDNSSubdomain } from '../../../api/validation/name-validators.js';
import { age } from '../../printers/duration.js';
import { ageColumn, nameColumn, type Printer } from '../../printers/table.js';
import { jsonEqual, type KubeObject, nowTimestamp } from '../object.js';
import type { StatusStrategy } from '../resource.js';
import { type Builtin, builtin } from './common.js';
import { immutable } from './core-field-checks.js';
import { child, type Rec, rec, str } from './core-json.js';
import { defaultResourceList } from './core-resource-lists.js';
import { keepAllButStatus } from './core-status.js';
import {
  accessModesCell,
  storageClassOf,
  VOLUME_MODES,
  validateAccessModes,
  volumeAttributesClassCell,
  volumeModeCell,
} from './core-volume-claims.js';
import { column } from './groups-columns.js';

/** PersistentVolumeSource's members, in the order upstream checks them. */
const SOURCES = [
  'hostPath',
  'gcePersistentDisk',
  'awsElasticBlockStore',
  'glusterfs',
  'flocker',
  'nfs',
  'rbd',
  'quobyte',
  'cephfs',
  'iscsi',
  'cinder',
  'fc',
  'flexVolume',
  'azureFile',
  'vsphereVolume',
  'photonPersistentDisk',
  'portworxVolume',
  'azureDisk',
  'scaleIO',
  'local',
  'storageos',
  'csi',
];
const FORBIDDEN_PATH: Record<string, string> = { cephfs: 'cephFS' };
const RECLAIM_POLICIES = ['Delete', 'Recycle', 'Retain'];

export function defaultPersistentVolume(pv: KubeObject): void {
  const spec = child(pv, 'spec');
  if (!spec.persistentVolumeReclaimPolicy) spec.persistentVolumeReclaimPolicy = 'Retain';
  if (spec.volumeMode === undefined || spec.volumeMode === null) spec.volumeMode = 'Filesystem';
  if (spec.hostPath && typeof spec.hostPath === 'object') {
    const hostPath = rec(spec.hostPath);
    if (hostPath.type === undefined || hostPath.type === null) hostPath.type = '';
  }
  defaultResourceList(spec, 'capacity', 'PersistentVolume');
}

/** Go's %#v of a capacity map, with quantities shown by their canonical text. */
function goResourceList(list: Rec): GoValue {
  const keys = Object.keys(list).sort();
  if (keys.length === 0) return new GoValue('core.ResourceList(nil)');
  return new GoValue(`core.ResourceList{${keys.map((k) => `${goQuote(k)}:${goQuote(String(list[k]))}`).join(', ')}}`);
}

function capacity(spec: Rec): FieldError[] {
  const at = path('spec', 'capacity');
  const list = rec(spec.capacity);
  const errs: FieldError[] = [];
  if (Object.keys(list).length === 0) errs.push(required(at));
  if (!('storage' in list) || Object.keys(list).length > 1)
    errs.push(notSupported(at, goResourceList(list), ['storage']));
  for (const [k, v] of Object.entries(list)) {
    if (!isQuantity(v)) continue;
    const q = parseQuantity(v as string);
    if (q.nanos < 0n)
      errs.push(invalid(at.key(k), Number(q.nanos / 1_000_000_000n), 'must be a valid resource quantity'));
    if (q.nanos <= 0n) errs.push(invalid(at.key(k), formatQuantity(q), 'must be greater than zero'));
  }
  return errs;
}

function source(spec: Rec): FieldError[] {
  const errs: FieldError[] = [];
  let count = 0;
  for (const kind of SOURCES) {
    if (spec[kind] === undefined || spec[kind] === null) continue;
    const at = path('spec', FORBIDDEN_PATH[kind] ?? kind);
    if (count > 0 && kind !== 'flexVolume') {
      errs.push(forbidden(at, 'may not specify more than 1 volume type'));
      continue;
    }
    count++;
    const s = rec(spec[kind]);
    if (kind === 'hostPath' && !str(s.path)) errs.push(required(at.child('path')));
    if (kind === 'nfs') {
      if (!str(s.server)) errs.push(required(at.child('server')));
      if (!str(s.path)) errs.push(required(at.child('path')));
      if (!str(s.path).startsWith('/')) errs.push(invalid(at.child('path'), str(s.path), 'must be an absolute path'));
    }
    if (kind === 'csi') {
      if (!str(s.driver)) errs.push(required(at.child('driver')));
      if (!str(s.volumeHandle)) errs.push(required(at.child('volumeHandle')));
    }
    if (kind === 'local') {
      if (!str(s.path)) errs.push(required(at.child('path')));
      if (!rec(rec(spec.nodeAffinity).required).nodeSelectorTerms) {
        errs.push(required(path('spec', 'nodeAffinity'), 'Local volume requires node affinity'));
      }
    }
  }
  if (count === 0) errs.push(required(path('spec'), 'must specify a volume type'));
  return errs;
}

export function validatePersistentVolume(pv: KubeObject): FieldError[] {
  const spec = rec(pv.spec);
  const errs = [...validateAccessModes(spec.accessModes, path('spec', 'accessModes')), ...capacity(spec)];
  const policy = str(spec.persistentVolumeReclaimPolicy);
  if (policy && !RECLAIM_POLICIES.includes(policy)) {
    errs.push(notSupported(path('spec', 'persistentVolumeReclaimPolicy'), policy, RECLAIM_POLICIES));
  }
  errs.push(...source(spec));
  const hostPath = str(rec(spec.hostPath).path);
  if (spec.hostPath && hostPath.replace(/\/+$/, '') === '' && policy === 'Recycle') {
    errs.push(
      forbidden(path('spec', 'persistentVolumeReclaimPolicy'), "may not be 'recycle' for a hostPath mount of '/'"),
    );
  }
  const className = str(spec.storageClassName);
  if (className) {
    for (const msg of nameIsDNSSubdomain(className, false))
      errs.push(invalid(path('spec', 'storageClassName'), className, msg));
  }
  if (typeof spec.volumeMode === 'string' && !VOLUME_MODES.includes(spec.volumeMode)) {
    errs.push(notSupported(path('spec', 'volumeMode'), spec.volumeMode, VOLUME_MODES));
  }
  return errs;
}

function sourceOf(spec: Rec): Rec {
  const out: Rec = {};
  for (const kind of SOURCES) if (spec[kind] !== undefined) out[kind] = spec[kind];
  return out;
}

export function validatePersistentVolumeUpdate(pv: KubeObject, old: KubeObject): FieldError[] {
  const spec = rec(pv.spec);
  const oldSpec = rec(old.spec);
  const errs = validatePersistentVolume(pv);
  const next = sourceOf(spec);
  const before = sourceOf(oldSpec);
  const csi = rec(next.csi);
  if (oldSpec.csi && !rec(oldSpec.csi).controllerExpandSecretRef && csi.controllerExpandSecretRef) {
    next.csi = { ...csi, controllerExpandSecretRef: undefined };
  }
  if (!jsonEqual(next, before)) {
    errs.push(
      forbidden(path('spec', 'persistentvolumesource'), 'spec.persistentvolumesource is immutable after creation'),
    );
  }
  errs.push(...immutable(spec.volumeMode, oldSpec.volumeMode, path('volumeMode')));
  return errs;
}

/** Status writes keep the spec; a phase change stamps lastPhaseTransitionTime unless the writer set it. */
const pvStatusStrategy: StatusStrategy = {
  prepareForUpdate(pv, old) {
    keepAllButStatus(pv, old);
    const status = rec(pv.status);
    const oldStatus = rec(old.status);
    if (status.phase !== oldStatus.phase && status.lastPhaseTransitionTime === oldStatus.lastPhaseTransitionTime) {
      status.lastPhaseTransitionTime = nowTimestamp();
    }
    pv.status = status;
  },
};

export const persistentVolumePrinter: Printer = {
  columns: [
    nameColumn,
    column('Capacity', 'The storage capacity of the volume.'),
    column('Access Modes', 'How the volume can be mounted.'),
    column('Reclaim Policy', 'What happens to the volume when its claim is released.'),
    column('Status', 'The phase of the volume.'),
    column('Claim', 'The claim bound to the volume.'),
    column('StorageClass', 'The storage class of the volume.'),
    column('VolumeAttributesClass', 'The volume attributes class of the volume.'),
    column('Reason', 'Why the volume is in its phase.'),
    ageColumn,
    column('VolumeMode', 'Whether the volume is a filesystem or a raw block device.', { wide: true }),
  ],
  cells(pv, now) {
    const spec = rec(pv.spec);
    const status = rec(pv.status);
    const claim = spec.claimRef ? `${str(rec(spec.claimRef).namespace)}/${str(rec(spec.claimRef).name)}` : '';
    const storage = rec(spec.capacity).storage;
    return [
      pv.metadata.name ?? '',
      isQuantity(storage) ? canonicalQuantity(storage as string) : '0',
      accessModesCell(spec.accessModes),
      str(spec.persistentVolumeReclaimPolicy),
      pv.metadata.deletionTimestamp ? 'Terminating' : str(status.phase),
      claim,
      storageClassOf(pv),
      volumeAttributesClassCell(pv),
      str(status.reason),
      age(pv.metadata.creationTimestamp, now),
      volumeModeCell(pv),
    ];
  },
};

export function persistentvolumes(): Builtin {
  const served = builtin({
    group: '',
    version: 'v1',
    resource: 'persistentvolumes',
    hasStatus: true,
    printer: persistentVolumePrinter,
    strategy: {
      tracksGeneration: false,
      returnDeletedObject: true,
      default: defaultPersistentVolume,
      prepareForCreate(pv) {
        pv.status = { phase: 'Pending', lastPhaseTransitionTime: nowTimestamp() };
      },
      validate: validatePersistentVolume,
      validateUpdate: validatePersistentVolumeUpdate,
    },
  });
  served.def.status = pvStatusStrategy;
  return served;
}
