/**
 * apps/v1 ControllerRevisions: immutable snapshots of a controller's template. Data is required and may not
 * change; revision may not be negative. Printed as NAME CONTROLLER REVISION AGE.
 */
import { type FieldError, path, required } from '../../../api/field-errors.js';
import { GoValue } from '../../../api/validation/go-format.js';
import { age } from '../../printers/duration.js';
import { ageColumn, nameColumn } from '../../printers/table.js';
import type { KubeObject } from '../object.js';
import { type Builtin, builtin } from './common.js';
import { column, int } from './groups-columns.js';
import { records, str, unset } from './groups-fields.js';
import { immutable, nonNegative } from './groups-validation.js';

/** How upstream prints the data of a revision in an error: the runtime.Unknown its bytes decode into. */
function goRawData(data: unknown): GoValue {
  const bytes = [...Buffer.from(JSON.stringify(data ?? null), 'utf8')].map((b) => `0x${b.toString(16)}`).join(', ');
  return new GoValue(
    `runtime.Unknown{TypeMeta:runtime.TypeMeta{APIVersion:"", Kind:""}, Raw:[]uint8{${bytes}}, ContentEncoding:"", ContentType:""}`,
  );
}

function validateRevision(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  if (unset(obj.data)) errs.push(required(path('data'), 'data is mandatory'));
  errs.push(...nonNegative(obj.revision ?? 0, path('revision')));
  return errs;
}

/** `statefulset.apps/web` for the controlling owner reference, `<none>` without one. */
export function controllerName(obj: KubeObject): string {
  const ref = records(obj.metadata.ownerReferences).find((r) => r.controller === true);
  if (!ref) return '<none>';
  const apiVersion = str(ref.apiVersion);
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
  const kind = str(ref.kind);
  const groupKind = group ? `${kind}.${group}` : kind;
  return groupKind ? `${groupKind.toLowerCase()}/${str(ref.name)}` : str(ref.name);
}

export const controllerrevisions: Builtin = builtin({
  group: 'apps',
  version: 'v1',
  resource: 'controllerrevisions',
  strategy: {
    tracksGeneration: false,
    validate: validateRevision,
    validateUpdate: (obj, old) => [
      ...validateRevision(obj),
      ...immutable(path('data'), obj.data, old.data, goRawData(obj.data)),
    ],
  },
  printer: {
    columns: [
      nameColumn,
      column('Controller', 'The controller that owns the revision.'),
      column('Revision', 'The revision number.'),
      ageColumn,
    ],
    cells: (o, now) => [o.metadata.name, controllerName(o), int(o.revision), age(o.metadata.creationTimestamp, now)],
  },
});
