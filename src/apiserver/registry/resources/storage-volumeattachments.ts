/**
 * storage.k8s.io/v1 VolumeAttachments (cluster-scoped, +status): a request to attach a volume to a node. The spec
 * names the attacher (a CSI driver name), the node, and exactly one source (a PersistentVolume's name, or an inline
 * CSI volume spec); it is fixed after creation. Status (attached, metadata, attach and detach errors) starts out
 * `{attached: false}` and is written only through /status; a VolumeError's errorCode is dropped there unless the
 * stored error has one (MutableCSINodeAllocatableCount is off in v1.33). DELETE answers with the deleted object.
 * Printed as NAME ATTACHER PV NODE ATTACHED AGE.
 */
import {
  type FieldError,
  type FieldPath,
  forbidden,
  invalid,
  path,
  required,
  tooLong,
} from '../../../api/field-errors.js';
import { semanticEqual } from '../../../api/semantic-equal.js';
import { goQuote } from '../../../api/validation/go-format.js';
import { nameIsDNSSubdomain } from '../../../api/validation/name-validators.js';
import { age } from '../../printers/duration.js';
import { ageColumn, type ColumnDefinition, nameColumn } from '../../printers/table.js';
import type { KubeObject } from '../object.js';
import { type Builtin, builtin } from './common.js';
import { inclusiveRangeError } from './core-port-validation.js';
import { validateAccessModes } from './core-volume-claims.js';
import { column } from './groups-columns.js';
import { type Rec, rec, str, unset } from './groups-fields.js';
import { goPointer, goStruct } from './groups-go-format.js';
import { withStatusValidation } from './groups-status.js';
import { FIELD_IMMUTABLE } from './groups-validation.js';
import { csiDriverNameErrors } from './storage-csi-validation.js';

const MAX_ATTACHED_METADATA_SIZE = 256 * 1024;
const MAX_VOLUME_ERROR_MESSAGE = 1024;
const MAX_INT32 = 2 ** 31 - 1;
const ONE_SOURCE = 'must specify exactly one of inlineVolumeSpec and persistentVolumeName';
const INLINE_ONLY = 'may not be specified in the context of inline volumes';

/** What Go's JSON encoding writes for the status: the status and its `attached` always, a zero error time as null. */
function completeStatus(obj: KubeObject): void {
  const status = rec(obj.status);
  if (status.attached === undefined) status.attached = false;
  for (const key of ['attachError', 'detachError']) {
    const error = status[key];
    if (error && typeof error === 'object' && (error as Rec).time === undefined) (error as Rec).time = null;
  }
  obj.status = status;
}

/** Upstream's ValidatePersistentVolumeSpec for an inline spec: its inline-only rules, access modes and the CSI source. */
function validateInlineSpec(spec: Rec, at: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (!unset(spec.claimRef)) errs.push(forbidden(at.child('claimRef'), INLINE_ONLY));
  if (Object.keys(rec(spec.capacity)).length > 0) errs.push(forbidden(at.child('capacity'), INLINE_ONLY));
  if (unset(spec.csi)) errs.push(required(at.child('csi'), 'has to be specified in the context of inline volumes'));
  errs.push(...validateAccessModes(spec.accessModes, at.child('accessModes')));
  if (!unset(spec.csi)) {
    const csi = rec(spec.csi);
    errs.push(...csiDriverNameErrors(str(csi.driver), at.child('csi', 'driver')));
    if (str(csi.volumeHandle) === '') errs.push(required(at.child('csi', 'volumeHandle')));
  }
  return errs;
}

function validateSource(source: Rec): FieldError[] {
  const at = path('spec', 'source');
  const pv = source.persistentVolumeName;
  const inline = source.inlineVolumeSpec;
  if (unset(pv) && unset(inline)) return [required(at, ONE_SOURCE)];
  if (!unset(pv) && !unset(inline)) return [forbidden(at, ONE_SOURCE)];
  if (!unset(pv)) {
    return str(pv) === ''
      ? [required(at.child('persistentVolumeName'), 'must specify non empty persistentVolumeName')]
      : [];
  }
  return validateInlineSpec(rec(inline), at.child('inlineVolumeSpec'));
}

function validateVolumeError(value: unknown, at: FieldPath): FieldError[] {
  if (unset(value)) return [];
  const error = rec(value);
  const errs: FieldError[] = [];
  // Upstream reports the metadata limit here, not the message's.
  if (Buffer.byteLength(str(error.message)) > MAX_VOLUME_ERROR_MESSAGE) {
    errs.push(tooLong(at.child('message'), MAX_ATTACHED_METADATA_SIZE));
  }
  if (typeof error.errorCode === 'number' && error.errorCode < 0) {
    errs.push(invalid(at.child('errorCode'), error.errorCode, inclusiveRangeError(0, MAX_INT32)));
  }
  return errs;
}

function validateStatus(status: Rec): FieldError[] {
  const at = path('status');
  const errs: FieldError[] = [];
  let size = 0;
  for (const [k, v] of Object.entries(rec(status.attachmentMetadata)))
    size += Buffer.byteLength(k) + Buffer.byteLength(str(v));
  if (size > MAX_ATTACHED_METADATA_SIZE) errs.push(tooLong(at.child('attachmentMetadata'), MAX_ATTACHED_METADATA_SIZE));
  errs.push(...validateVolumeError(status.attachError, at.child('attachError')));
  errs.push(...validateVolumeError(status.detachError, at.child('detachError')));
  return errs;
}

/** Upstream's ValidateVolumeAttachment, without the object metadata (builtin() checks it). */
function validateVolumeAttachment(obj: KubeObject): FieldError[] {
  const spec = rec(obj.spec);
  const errs: FieldError[] = [];
  if (str(spec.attacher) === '') errs.push(required(path('spec', 'attacher')));
  errs.push(...validateSource(rec(spec.source)));
  const node = str(spec.nodeName);
  for (const msg of nameIsDNSSubdomain(node, false)) errs.push(invalid(path('spec', 'nodeName'), node, msg));
  errs.push(...validateStatus(rec(obj.status)));
  return errs;
}

/** The stricter checks upstream gives new v1 attachments only (ValidateVolumeAttachmentV1). */
function validateNewAttachment(obj: KubeObject): FieldError[] {
  const spec = rec(obj.spec);
  const errs = csiDriverNameErrors(str(spec.attacher), path('spec', 'attacher'));
  const pv = rec(spec.source).persistentVolumeName;
  if (!unset(pv)) {
    for (const msg of nameIsDNSSubdomain(str(pv), false)) {
      errs.push(invalid(path('spec', 'source', 'persistentVolumeName'), str(pv), msg));
    }
  }
  return errs;
}

/** `storage.VolumeAttachmentSpec{…}` as %#v prints it (pointers as a placeholder address). */
function goSpec(spec: Rec) {
  const source = rec(spec.source);
  const goSource = goStruct('storage.VolumeAttachmentSource', [
    ['PersistentVolumeName', goPointer('string', source.persistentVolumeName)],
    ['InlineVolumeSpec', goPointer('core.PersistentVolumeSpec', source.inlineVolumeSpec)],
  ]);
  return goStruct('storage.VolumeAttachmentSpec', [
    ['Attacher', goQuote(str(spec.attacher))],
    ['Source', goSource.text],
    ['NodeName', goQuote(str(spec.nodeName))],
  ]);
}

function validateVolumeAttachmentUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const errs = validateVolumeAttachment(obj);
  if (!semanticEqual(obj.spec, old.spec)) errs.push(invalid(path('spec'), goSpec(rec(obj.spec)), FIELD_IMMUTABLE));
  return errs;
}

/** Drops an error's errorCode the stored error does not have (the field's feature gate is off). */
function dropNewErrorCodes(obj: KubeObject, old: KubeObject): void {
  const status = rec(obj.status);
  const oldStatus = rec(old.status);
  for (const key of ['attachError', 'detachError']) {
    const error = status[key];
    if (unset(error) || typeof error !== 'object') continue;
    if (unset(rec(oldStatus[key]).errorCode)) delete (error as Rec).errorCode;
  }
}

const attacherColumn: ColumnDefinition = {
  ...column('Attacher', 'The CSI driver that attaches the volume.'),
  format: 'name',
};

const base = builtin({
  group: 'storage.k8s.io',
  version: 'v1',
  resource: 'volumeattachments',
  hasStatus: true,
  strategy: {
    tracksGeneration: false,
    returnDeletedObject: true,
    default: completeStatus,
    prepareForCreate(obj) {
      obj.status = { attached: false };
    },
    validate: (obj) => [...validateVolumeAttachment(obj), ...validateNewAttachment(obj)],
    validateUpdate: validateVolumeAttachmentUpdate,
  },
  printer: {
    columns: [
      nameColumn,
      attacherColumn,
      column('PV', 'The PersistentVolume attached.'),
      column('Node', 'The node the volume is attached to.'),
      column('Attached', 'Whether the volume is attached.', { type: 'boolean' }),
      ageColumn,
    ],
    cells: (o, now) => {
      const spec = rec(o.spec);
      return [
        o.metadata.name,
        str(spec.attacher),
        str(rec(spec.source).persistentVolumeName),
        str(spec.nodeName),
        rec(o.status).attached === true,
        age(o.metadata.creationTimestamp, now),
      ];
    },
  },
});

/**
 * /status keeps the spec (and the metadata upstream keeps), fills what Go's encoding writes, drops new error codes,
 * and validates the whole object as an update does.
 */
function withStatusRules(b: Builtin): Builtin {
  const checked = withStatusValidation(b, validateVolumeAttachmentUpdate);
  const status = checked.def.status;
  if (status) {
    const keep = status.prepareForUpdate;
    status.prepareForUpdate = (obj, old) => {
      keep(obj, old);
      completeStatus(obj);
      dropNewErrorCodes(obj, old);
    };
  }
  return checked;
}

export const volumeattachments: Builtin = withStatusRules(base);
