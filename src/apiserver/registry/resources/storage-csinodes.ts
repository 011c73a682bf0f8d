/**
 * storage.k8s.io/v1 CSINodes (cluster-scoped, named after their Node): the CSI drivers a kubelet registered. Each
 * driver has a valid CSI driver name, unique in the list, a nodeID of at most 192 bytes (256 once a stored one is
 * longer), qualified unique topology keys and a non-negative allocatable count; a driver already listed may not
 * change (MutableCSINodeAllocatableCount is off in v1.33), though drivers may come and go. Lists Go leaves nil are
 * written as null, as upstream's JSON has them. DELETE answers with the deleted object. Printed as NAME DRIVERS AGE.
 */
import { duplicate, type FieldError, type FieldPath, invalid, path, required } from '../../../api/field-errors.js';
import { semanticEqual } from '../../../api/semantic-equal.js';
import { goQuote } from '../../../api/validation/go-format.js';
import { isQualifiedName } from '../../../api/validation/names.js';
import { validateNonnegativeField } from '../../../api/validation/object-meta.js';
import { age } from '../../printers/duration.js';
import { ageColumn, nameColumn } from '../../printers/table.js';
import type { KubeObject } from '../object.js';
import { type Builtin, builtin } from './common.js';
import { column } from './groups-columns.js';
import { child, list, type Rec, rec, records, str } from './groups-fields.js';
import { goPointer, goStrings, goStruct } from './groups-go-format.js';
import { FIELD_IMMUTABLE } from './groups-validation.js';
import { csiDriverNameErrors } from './storage-csi-validation.js';

const NODE_ID_MAX_LENGTH = 192;
const NODE_ID_LONGER_MAX_LENGTH = 256;

const byteLength = (s: string): number => Buffer.byteLength(s);

function defaultCSINode(obj: KubeObject): void {
  const spec = child(obj, 'spec');
  // Neither list is omitempty upstream: nil is written as null.
  if (spec.drivers === undefined) spec.drivers = null;
  for (const driver of records(spec.drivers)) if (driver.topologyKeys === undefined) driver.topologyKeys = null;
}

function validateDriver(driver: Rec, at: FieldPath, names: Set<string>, maxNodeID: number): FieldError[] {
  const name = str(driver.name);
  const errs = csiDriverNameErrors(name, at.child('name'));
  const nodeID = str(driver.nodeID);
  if (nodeID === '') errs.push(required(at.child('nodeID')));
  if (byteLength(nodeID) > maxNodeID) {
    errs.push(invalid(at.child('nodeID'), nodeID, `must be ${maxNodeID} characters or less`));
  }
  const count = rec(driver.allocatable).count;
  if (typeof count === 'number') errs.push(...validateNonnegativeField(count, at.child('allocatable', 'count')));
  if (names.has(name)) errs.push(duplicate(at.child('name'), name));
  names.add(name);
  const keys = new Set<string>();
  for (const key of list(driver.topologyKeys).map(str)) {
    if (key === '') errs.push(required(at));
    if (keys.has(key)) errs.push(duplicate(at, key));
    keys.add(key);
    for (const msg of isQualifiedName(key)) errs.push(invalid(at, key, msg));
  }
  return errs;
}

function validateCSINodeSpec(obj: KubeObject, maxNodeID: number): FieldError[] {
  const names = new Set<string>();
  return records(rec(obj.spec).drivers).flatMap((driver, i) =>
    validateDriver(driver, path('spec', 'drivers').index(i), names, maxNodeID),
  );
}

/** `storage.CSINodeDriver{Name:"…", NodeID:"…", TopologyKeys:[]string{…}, Allocatable:(*…)(…)}`. */
function goDriver(driver: Rec) {
  return goStruct('storage.CSINodeDriver', [
    ['Name', goQuote(str(driver.name))],
    ['NodeID', goQuote(str(driver.nodeID))],
    ['TopologyKeys', goStrings(driver.topologyKeys)],
    ['Allocatable', goPointer('storage.VolumeNodeResources', driver.allocatable)],
  ]);
}

function validateCSINodeUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const oldDrivers = records(rec(old.spec).drivers);
  const longer = oldDrivers.some((d) => byteLength(str(d.nodeID)) > NODE_ID_MAX_LENGTH);
  const errs = validateCSINodeSpec(obj, longer ? NODE_ID_LONGER_MAX_LENGTH : NODE_ID_MAX_LENGTH);
  const drivers = records(rec(obj.spec).drivers);
  for (const before of oldDrivers) {
    for (const after of drivers) {
      if (str(after.name) !== str(before.name) || semanticEqual(after, before)) continue;
      errs.push(invalid(path('spec', 'drivers'), goDriver(after), FIELD_IMMUTABLE));
    }
  }
  return errs;
}

export const csinodes: Builtin = builtin({
  group: 'storage.k8s.io',
  version: 'v1',
  resource: 'csinodes',
  strategy: {
    tracksGeneration: false,
    returnDeletedObject: true,
    default: defaultCSINode,
    validate: (obj) => validateCSINodeSpec(obj, NODE_ID_MAX_LENGTH),
    validateUpdate: validateCSINodeUpdate,
  },
  printer: {
    columns: [
      nameColumn,
      column('Drivers', 'The number of CSI drivers registered on the node.', { type: 'integer' }),
      ageColumn,
    ],
    cells: (o, now) => [o.metadata.name, list(rec(o.spec).drivers).length, age(o.metadata.creationTimestamp, now)],
  },
});
