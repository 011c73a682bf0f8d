/** coordination.k8s.io/v1 Leases: durations validated as upstream does; printed as NAME HOLDER AGE. */
import { type FieldError, invalid, path } from '../../../api/field-errors.js';
import { age } from '../../printers/duration.js';
import { ageColumn, nameColumn } from '../../printers/table.js';
import type { KubeObject } from '../object.js';
import { type Builtin, builtin } from './common.js';
import { column } from './groups-columns.js';
import { rec, str } from './groups-fields.js';

function validateLease(obj: KubeObject): FieldError[] {
  const spec = rec(obj.spec);
  const errs: FieldError[] = [];
  const duration = spec.leaseDurationSeconds;
  if (typeof duration === 'number' && duration <= 0) {
    errs.push(invalid(path('spec', 'leaseDurationSeconds'), duration, 'must be greater than 0'));
  }
  const transitions = spec.leaseTransitions;
  if (typeof transitions === 'number' && transitions < 0) {
    errs.push(invalid(path('spec', 'leaseTransitions'), transitions, 'must be greater than or equal to 0'));
  }
  return errs;
}

export const leases: Builtin = builtin({
  group: 'coordination.k8s.io',
  version: 'v1',
  resource: 'leases',
  strategy: { tracksGeneration: false, validate: validateLease },
  printer: {
    columns: [nameColumn, column('Holder', 'Who holds the lease.'), ageColumn],
    cells: (o, now) => [o.metadata.name, str(rec(o.spec).holderIdentity), age(o.metadata.creationTimestamp, now)],
  },
});
