/**
 * Validation of a pod's volumes (upstream's ValidateVolumes): names, exactly one source each, and the checks of
 * the sources users write most (emptyDir, hostPath, configMap, secret, persistentVolumeClaim, downwardAPI,
 * projected, nfs, csi). Cloud and legacy in-tree sources are only counted, not checked field by field.
 */
import {
  duplicate,
  type FieldError,
  type FieldPath,
  forbidden,
  invalid,
  notSupported,
  required,
} from '../../../api/field-errors.js';
import { compareQuantities, isQuantity, parseQuantity } from '../../../api/quantity.js';
import { validateFieldRef } from './core-container-env.js';
import { localDescendingPath } from './core-container-validation.js';
import { dns1123Label } from './core-field-checks.js';
import { type Rec, rec, recs, str } from './core-json.js';

/** Volume sources in the order upstream checks them (the order decides which one "more than 1" points at). */
const SOURCES = [
  'emptyDir',
  'hostPath',
  'gitRepo',
  'gcePersistentDisk',
  'awsElasticBlockStore',
  'secret',
  'nfs',
  'iscsi',
  'glusterfs',
  'flocker',
  'persistentVolumeClaim',
  'rbd',
  'cinder',
  'cephfs',
  'quobyte',
  'downwardAPI',
  'fc',
  'flexVolume',
  'configMap',
  'azureFile',
  'vsphereVolume',
  'photonPersistentDisk',
  'portworxVolume',
  'azureDisk',
  'storageos',
  'projected',
  'scaleIO',
  'csi',
  'ephemeral',
  'image',
];
/** Where upstream's "more than 1" error points for sources whose path it spells differently. */
const FORBIDDEN_PATH: Record<string, string> = { cephfs: 'cephFS', downwardAPI: 'downwarAPI' };
const FILE_MODE = 'must be a number between 0 and 0777 (octal), both inclusive';
const DOWNWARD_VOLUME_PATHS = [
  'metadata.annotations',
  'metadata.labels',
  'metadata.name',
  'metadata.namespace',
  'metadata.uid',
];
const HOST_PATH_TYPES = [
  '',
  'BlockDevice',
  'CharDevice',
  'Directory',
  'DirectoryOrCreate',
  'File',
  'FileOrCreate',
  'Socket',
];

function fileMode(mode: unknown, at: FieldPath): FieldError[] {
  if (typeof mode !== 'number') return [];
  return mode < 0 || mode > 0o777 ? [invalid(at, mode, FILE_MODE)] : [];
}

/** Upstream's ValidateLocalNonReservedPath: relative, no `..`, not starting with `..`. */
function localNonReservedPath(p: string, at: FieldPath): FieldError[] {
  const errs = localDescendingPath(p, at);
  if (p.startsWith('..')) errs.push(invalid(at, p, "must not start with '..'"));
  return errs;
}

function keyToPaths(items: unknown, at: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  recs(items).forEach((kp, i) => {
    const idx = at.index(i);
    if (!str(kp.key)) errs.push(required(idx.child('key')));
    if (!str(kp.path)) errs.push(required(idx.child('path')));
    errs.push(...localNonReservedPath(str(kp.path), idx.child('path')), ...fileMode(kp.mode, idx.child('mode')));
  });
  return errs;
}

function downwardItems(items: unknown, at: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  for (const item of recs(items)) {
    if (!str(item.path)) errs.push(required(at.child('path')));
    errs.push(...localNonReservedPath(str(item.path), at.child('path')));
    if (item.fieldRef) {
      errs.push(...validateFieldRef(rec(item.fieldRef), DOWNWARD_VOLUME_PATHS, at.child('fieldRef')));
      if (item.resourceFieldRef) {
        errs.push(invalid(at, 'resource', 'fieldRef and resourceFieldRef can not be specified simultaneously'));
      }
    } else if (!item.resourceFieldRef) {
      errs.push(required(at, 'one of fieldRef and resourceFieldRef is required'));
    }
    errs.push(...fileMode(item.mode, at.child('mode')));
  }
  return errs;
}

function source(kind: string, s: Rec, at: FieldPath): FieldError[] {
  switch (kind) {
    case 'emptyDir': {
      const limit = s.sizeLimit;
      if (isQuantity(limit) && compareQuantities(parseQuantity(limit as string), parseQuantity('0')) < 0) {
        return [forbidden(at.child('sizeLimit'), 'SizeLimit field must be a valid resource quantity')];
      }
      return [];
    }
    case 'hostPath': {
      if (!str(s.path)) return [required(at.child('path'))];
      const errs = str(s.path).split('/').includes('..')
        ? [invalid(at.child('path'), str(s.path), "must not contain '..'")]
        : [];
      if (s.type !== undefined && s.type !== null && !HOST_PATH_TYPES.includes(str(s.type))) {
        errs.push(notSupported(at.child('type'), s.type, HOST_PATH_TYPES));
      }
      return errs;
    }
    case 'secret':
      return [
        ...(str(s.secretName) ? [] : [required(at.child('secretName'))]),
        ...fileMode(s.defaultMode, at.child('defaultMode')),
        ...keyToPaths(s.items, at.child('items')),
      ];
    case 'configMap':
      return [
        ...(str(s.name) ? [] : [required(at.child('name'))]),
        ...fileMode(s.defaultMode, at.child('defaultMode')),
        ...keyToPaths(s.items, at.child('items')),
      ];
    case 'persistentVolumeClaim':
      return str(s.claimName) ? [] : [required(at.child('claimName'))];
    case 'nfs': {
      const errs: FieldError[] = [];
      if (!str(s.server)) errs.push(required(at.child('server')));
      if (!str(s.path)) errs.push(required(at.child('path')));
      if (!str(s.path).startsWith('/')) errs.push(invalid(at.child('path'), str(s.path), 'must be an absolute path'));
      return errs;
    }
    case 'downwardAPI':
      return [...fileMode(s.defaultMode, at.child('defaultMode')), ...downwardItems(s.items, at)];
    case 'projected':
      return fileMode(s.defaultMode, at.child('defaultMode'));
    case 'csi':
      return str(s.driver) ? [] : [required(at.child('driver'))];
    default:
      return [];
  }
}

function volumeSource(v: Rec, at: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  let count = 0;
  for (const kind of SOURCES) {
    if (v[kind] === undefined || v[kind] === null) continue;
    if (count > 0) {
      errs.push(forbidden(at.child(FORBIDDEN_PATH[kind] ?? kind), 'may not specify more than 1 volume type'));
      continue;
    }
    count++;
    errs.push(...source(kind, rec(v[kind]), at.child(kind)));
  }
  if (count === 0) errs.push(required(at, 'must specify a volume type'));
  return errs;
}

/** The volumes' errors, and the names of the valid ones (which container volumeMounts may refer to). */
export function validateVolumes(volumes: unknown, at: FieldPath): { names: Set<string>; errs: FieldError[] } {
  const names = new Set<string>();
  const errs: FieldError[] = [];
  recs(volumes).forEach((v, i) => {
    const idx = at.index(i);
    const name = str(v.name);
    const own = volumeSource(v, idx);
    if (!name) own.push(required(idx.child('name')));
    else own.push(...dns1123Label(name, idx.child('name')));
    if (names.has(name)) own.push(duplicate(idx.child('name'), name));
    if (own.length === 0) names.add(name);
    else errs.push(...own);
  });
  return { names, errs };
}
