/**
 * networking.k8s.io/v1 IngressClasses: parameters.scope defaults to Cluster; the controller is a domain-prefixed
 * path of at most 250 characters and fixed after creation; printed as NAME CONTROLLER PARAMETERS AGE.
 */
import { type FieldError, path, tooLong } from '../../../api/field-errors.js';
import { age } from '../../printers/duration.js';
import { ageColumn, nameColumn } from '../../printers/table.js';
import type { KubeObject } from '../object.js';
import { type Builtin, builtin } from './common.js';
import { column } from './groups-columns.js';
import { defaultValue, rec, str, unset } from './groups-fields.js';
import { domainPrefixedPathErrors, immutable } from './groups-validation.js';
import { validateParametersReference } from './networking-references.js';

function validateIngressClass(obj: KubeObject): FieldError[] {
  const spec = rec(obj.spec);
  const controller = str(spec.controller);
  const errs: FieldError[] = [];
  if (controller.length > 250) errs.push(tooLong(path('spec', 'controller'), 250));
  errs.push(...domainPrefixedPathErrors(path('spec', 'controller'), controller));
  if (!unset(spec.parameters))
    errs.push(...validateParametersReference(rec(spec.parameters), path('spec', 'parameters')));
  return errs;
}

/** `Kind.group/name`, `Kind/name` without a group, `<none>` without parameters. */
function parametersCell(spec: Record<string, unknown>): string {
  if (unset(spec.parameters)) return '<none>';
  const p = rec(spec.parameters);
  const kind = unset(p.apiGroup) ? str(p.kind) : `${str(p.kind)}.${str(p.apiGroup)}`;
  return `${kind}/${str(p.name)}`;
}

export const ingressclasses: Builtin = builtin({
  group: 'networking.k8s.io',
  version: 'v1',
  resource: 'ingressclasses',
  strategy: {
    default(obj) {
      const spec = rec(obj.spec);
      if (!unset(spec.parameters)) defaultValue(rec(spec.parameters), 'scope', 'Cluster');
    },
    validate: validateIngressClass,
    validateUpdate: (obj, old) => [
      ...immutable(path('spec', 'controller'), rec(obj.spec).controller, rec(old.spec).controller),
      ...validateIngressClass(obj),
    ],
  },
  printer: {
    columns: [
      nameColumn,
      column('Controller', 'The controller that implements the class.'),
      column('Parameters', 'Where the controller finds more settings.'),
      ageColumn,
    ],
    cells: (o, now) => [
      o.metadata.name,
      str(rec(o.spec).controller),
      parametersCell(rec(o.spec)),
      age(o.metadata.creationTimestamp, now),
    ],
  },
});
