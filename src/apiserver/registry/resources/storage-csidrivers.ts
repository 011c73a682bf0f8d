/**
 * storage.k8s.io/v1 CSIDrivers (cluster-scoped): what a CSI volume driver needs from Kubernetes. The spec is
 * defaulted as upstream's SetDefaults_CSIDriver does (attach required, no pod info on mount, no storage capacity,
 * fsGroupPolicy ReadWriteOnceWithFSType, the Persistent lifecycle mode, no republish, no SELinux mount);
 * nodeAllocatableUpdatePeriodSeconds is dropped while the MutableCSINodeAllocatableCount gate is off (v1.33's
 * default). attachRequired and volumeLifecycleModes are fixed after creation; a spec change bumps
 * metadata.generation, which a new driver does not have. DELETE answers with the deleted object. Printed as NAME
 * ATTACHREQUIRED PODINFOONMOUNT STORAGECAPACITY TOKENREQUESTS REQUIRESREPUBLISH MODES AGE.
 */
import { duplicate, type FieldError, invalid, notSupported, path, required } from '../../../api/field-errors.js';
import { semanticEqual } from '../../../api/semantic-equal.js';
import { GoValue, goQuote } from '../../../api/validation/go-format.js';
import { age } from '../../printers/duration.js';
import { ageColumn, nameColumn } from '../../printers/table.js';
import type { KubeObject } from '../object.js';
import { type Builtin, builtin } from './common.js';
import { column } from './groups-columns.js';
import { child, defaultValue, list, type Rec, rec, records, str, unset } from './groups-fields.js';
import { FIELD_IMMUTABLE } from './groups-validation.js';

const FS_GROUP_POLICIES = ['File', 'None', 'ReadWriteOnceWithFSType'];
const LIFECYCLE_MODES = ['Persistent', 'Ephemeral'];
const MIN_TOKEN_SECONDS = 10 * 60;
const MAX_TOKEN_SECONDS = 2 ** 32;
const MIN_ALLOCATABLE_UPDATE_PERIOD = 10;

function defaultCSIDriver(obj: KubeObject): void {
  const spec = child(obj, 'spec');
  defaultValue(spec, 'attachRequired', true);
  defaultValue(spec, 'podInfoOnMount', false);
  defaultValue(spec, 'storageCapacity', false);
  defaultValue(spec, 'fsGroupPolicy', 'ReadWriteOnceWithFSType');
  if (list(spec.volumeLifecycleModes).length === 0) spec.volumeLifecycleModes = ['Persistent'];
  defaultValue(spec, 'requiresRepublish', false);
  defaultValue(spec, 'seLinuxMount', false);
  // tokenRequests is omitempty: an empty list is not kept.
  if (Array.isArray(spec.tokenRequests) && spec.tokenRequests.length === 0) delete spec.tokenRequests;
  for (const request of records(spec.tokenRequests)) defaultValue(request, 'audience', '');
}

/** `[]storage.VolumeLifecycleMode{"Persistent"}`, as %#v prints the modes. */
function goModes(v: unknown): GoValue {
  const type = '[]storage.VolumeLifecycleMode';
  if (!Array.isArray(v)) return new GoValue(`${type}(nil)`);
  return new GoValue(`${type}{${v.map((m) => goQuote(str(m))).join(', ')}}`);
}

function validateTokenRequests(requests: unknown): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  records(requests).forEach((request, i) => {
    const at = path('spec', 'tokenRequests').index(i);
    const audience = str(request.audience);
    if (seen.has(audience)) {
      errs.push(duplicate(at.child('audience'), audience));
      return;
    }
    seen.add(audience);
    const seconds = request.expirationSeconds;
    if (typeof seconds !== 'number') return;
    if (seconds < MIN_TOKEN_SECONDS) {
      errs.push(invalid(at.child('expirationSeconds'), seconds, 'may not specify a duration less than 10 minutes'));
    }
    if (seconds > MAX_TOKEN_SECONDS) {
      errs.push(invalid(at.child('expirationSeconds'), seconds, 'may not specify a duration larger than 2^32 seconds'));
    }
  });
  return errs;
}

/** Upstream's validateCSIDriverSpec; its paths say `attachedRequired`, as upstream's do. */
function validateSpec(spec: Rec): FieldError[] {
  const errs: FieldError[] = [];
  const at = path('spec');
  if (unset(spec.attachRequired)) errs.push(required(at.child('attachedRequired')));
  if (unset(spec.podInfoOnMount)) errs.push(required(at.child('podInfoOnMount')));
  if (unset(spec.storageCapacity)) errs.push(required(at.child('storageCapacity')));
  if (!unset(spec.fsGroupPolicy) && !FS_GROUP_POLICIES.includes(str(spec.fsGroupPolicy))) {
    errs.push(notSupported(at.child('fsGroupPolicy'), str(spec.fsGroupPolicy), FS_GROUP_POLICIES));
  }
  errs.push(...validateTokenRequests(spec.tokenRequests));
  for (const mode of list(spec.volumeLifecycleModes)) {
    if (!LIFECYCLE_MODES.includes(str(mode))) {
      errs.push(notSupported(at.child('volumeLifecycleModes'), str(mode), LIFECYCLE_MODES));
    }
  }
  if (unset(spec.seLinuxMount)) errs.push(required(at.child('seLinuxMount')));
  const period = spec.nodeAllocatableUpdatePeriodSeconds;
  if (typeof period === 'number' && period < MIN_ALLOCATABLE_UPDATE_PERIOD) {
    errs.push(
      invalid(at.child('nodeAllocatableUpdatePeriodSeconds'), period, 'must be greater than or equal to 10 seconds'),
    );
  }
  return errs;
}

function validateCSIDriverUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const spec = rec(obj.spec);
  const oldSpec = rec(old.spec);
  const errs = validateSpec(spec);
  if (!semanticEqual(spec.attachRequired, oldSpec.attachRequired)) {
    errs.push(invalid(path('spec', 'attachedRequired'), spec.attachRequired ?? null, FIELD_IMMUTABLE));
  }
  if (!semanticEqual(spec.volumeLifecycleModes, oldSpec.volumeLifecycleModes)) {
    errs.push(invalid(path('spec', 'volumeLifecycleModes'), goModes(spec.volumeLifecycleModes), FIELD_IMMUTABLE));
  }
  return errs;
}

/** `<unset>` without token requests, else their audiences joined by commas. */
function tokenRequestsCell(spec: Rec): string {
  const requests = list(spec.tokenRequests);
  if (requests.length === 0) return '<unset>';
  return requests.map((r) => str(rec(r).audience)).join(',');
}

const flag = (v: unknown, fallback: boolean): boolean => (typeof v === 'boolean' ? v : fallback);

export const csidrivers: Builtin = builtin({
  group: 'storage.k8s.io',
  version: 'v1',
  resource: 'csidrivers',
  strategy: {
    // Upstream counts generations from 0: a new driver has none, each spec change adds one.
    tracksGeneration: false,
    returnDeletedObject: true,
    default: defaultCSIDriver,
    prepareForCreate(obj) {
      delete rec(obj.spec).nodeAllocatableUpdatePeriodSeconds;
    },
    prepareForUpdate(obj, old) {
      const spec = rec(obj.spec);
      const oldSpec = rec(old.spec);
      if (unset(oldSpec.nodeAllocatableUpdatePeriodSeconds)) delete spec.nodeAllocatableUpdatePeriodSeconds;
      if (!semanticEqual(spec, oldSpec)) obj.metadata.generation = (old.metadata.generation ?? 0) + 1;
    },
    validate: (obj) => validateSpec(rec(obj.spec)),
    validateUpdate: validateCSIDriverUpdate,
  },
  printer: {
    columns: [
      nameColumn,
      column('AttachRequired', 'Whether the driver needs an attach operation.', { type: 'boolean' }),
      column('PodInfoOnMount', 'Whether the driver needs pod information on mount.', { type: 'boolean' }),
      column('StorageCapacity', 'Whether scheduling considers the capacity the driver reports.', { type: 'boolean' }),
      column('TokenRequests', 'The audiences of the service account tokens the driver needs.'),
      column('RequiresRepublish', 'Whether NodePublishVolume is called again periodically.', { type: 'boolean' }),
      column('Modes', 'The volume lifecycle modes the driver supports.'),
      ageColumn,
    ],
    cells: (o, now) => {
      const spec = rec(o.spec);
      const modes = list(spec.volumeLifecycleModes).map(str).join(',');
      return [
        o.metadata.name,
        flag(spec.attachRequired, true),
        flag(spec.podInfoOnMount, false),
        flag(spec.storageCapacity, false),
        tokenRequestsCell(spec),
        flag(spec.requiresRepublish, false),
        modes || '<none>',
        age(o.metadata.creationTimestamp, now),
      ];
    },
  },
});
