/**
 * node.k8s.io/v1 RuntimeClasses: `handler` (a DNS label, fixed after creation) names the CRI handler; `overhead`
 * (podFixed quantities, canonical) is added to the pods that use the class and `scheduling` (nodeSelector,
 * tolerations) steers them, both by the RuntimeClass admission plugin. Printed as NAME HANDLER AGE.
 */
import { type FieldError, invalid, path, required } from '../../../api/field-errors.js';
import { isDNS1123Label, isQualifiedName, isValidLabelValue } from '../../../api/validation/names.js';
import { age } from '../../printers/duration.js';
import { ageColumn, nameColumn } from '../../printers/table.js';
import type { KubeObject } from '../object.js';
import { type Builtin, builtin } from './common.js';
import { validateTolerations } from './core-pod-spec-validation.js';
import { defaultResourceList } from './core-resource-lists.js';
import { quantityValueErrors, resourceNameErrors } from './core-resource-names.js';
import { column } from './groups-columns.js';
import { rec, str, unset } from './groups-fields.js';
import { immutable } from './groups-validation.js';

function validateRuntimeClass(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const handler = str(obj.handler);
  if (handler === '') errs.push(required(path('handler')));
  else errs.push(...isDNS1123Label(handler).map((msg) => invalid(path('handler'), handler, msg)));
  const podFixed = rec(rec(obj.overhead).podFixed);
  for (const [name, value] of Object.entries(podFixed)) {
    const at = path('overhead', 'podFixed').key(name);
    errs.push(...resourceNameErrors(name, at), ...quantityValueErrors(name, value, at));
  }
  if (!unset(obj.scheduling)) {
    const scheduling = rec(obj.scheduling);
    for (const [key, value] of Object.entries(rec(scheduling.nodeSelector))) {
      const at = path('scheduling', 'nodeSelector');
      errs.push(...isQualifiedName(key).map((msg) => invalid(at, key, msg)));
      errs.push(...isValidLabelValue(str(value)).map((msg) => invalid(at, str(value), msg)));
    }
    if (!unset(scheduling.tolerations)) {
      errs.push(...validateTolerations(scheduling.tolerations, path('scheduling', 'tolerations')));
    }
  }
  return errs;
}

export const runtimeclasses: Builtin = builtin({
  group: 'node.k8s.io',
  version: 'v1',
  resource: 'runtimeclasses',
  strategy: {
    default(obj) {
      if (!unset(obj.overhead)) defaultResourceList(rec(obj.overhead), 'podFixed', 'RuntimeClass');
    },
    validate: validateRuntimeClass,
    validateUpdate: (obj, old) => [
      ...immutable(path('handler'), obj.handler, old.handler),
      ...validateRuntimeClass(obj),
    ],
  },
  printer: {
    columns: [nameColumn, column('Handler', 'The CRI handler that runs the pods.'), ageColumn],
    cells: (o, now) => [o.metadata.name, str(o.handler), age(o.metadata.creationTimestamp, now)],
  },
});
