/**
 * rbac.authorization.k8s.io/v1 RoleBindings and ClusterRoleBindings: roleRef.apiGroup and subject apiGroups are
 * defaulted as upstream does, roleRef and subjects validated, roleRef fixed after creation, and printed as NAME
 * ROLE AGE (+ USERS GROUPS SERVICEACCOUNTS with -o wide).
 */
import { type FieldError, invalid, notSupported, path, required } from '../../../api/field-errors.js';
import { goQuote } from '../../../api/validation/go-format.js';
import { nameIsDNSSubdomain, validatePathSegmentName } from '../../../api/validation/name-validators.js';
import { age } from '../../printers/duration.js';
import { ageColumn, nameColumn } from '../../printers/table.js';
import type { KubeObject } from '../object.js';
import { type Builtin, builtin } from './common.js';
import { column } from './groups-columns.js';
import { child, type Rec, rec, records, str } from './groups-fields.js';
import { goStruct } from './groups-go-format.js';

export const RBAC_GROUP = 'rbac.authorization.k8s.io';

function defaultBinding(obj: KubeObject): void {
  const roleRef = child(obj, 'roleRef');
  if (!str(roleRef.apiGroup)) roleRef.apiGroup = RBAC_GROUP;
  for (const subject of records(obj.subjects)) {
    if (str(subject.apiGroup)) continue;
    if (subject.kind === 'ServiceAccount') subject.apiGroup = '';
    else if (subject.kind === 'User' || subject.kind === 'Group') subject.apiGroup = RBAC_GROUP;
  }
}

function validateSubject(subject: Rec, namespaced: boolean, i: number): FieldError[] {
  const at = path('subjects').index(i);
  const errs: FieldError[] = [];
  const name = str(subject.name);
  const apiGroup = str(subject.apiGroup);
  if (name === '') errs.push(required(at.child('name')));
  switch (subject.kind) {
    case 'ServiceAccount':
      if (name) for (const msg of nameIsDNSSubdomain(name, false)) errs.push(invalid(at.child('name'), name, msg));
      if (apiGroup) errs.push(notSupported(at.child('apiGroup'), apiGroup, ['']));
      if (!namespaced && !str(subject.namespace)) errs.push(required(at.child('namespace')));
      break;
    case 'User':
    case 'Group':
      if (name === '')
        errs.push(
          invalid(at.child('name'), name, `${subject.kind === 'User' ? 'user' : 'group'} name cannot be empty`),
        );
      if (apiGroup !== RBAC_GROUP) errs.push(notSupported(at.child('apiGroup'), apiGroup, [RBAC_GROUP]));
      break;
    default:
      errs.push(notSupported(at.child('kind'), str(subject.kind), ['ServiceAccount', 'User', 'Group']));
  }
  return errs;
}

function validateBinding(obj: KubeObject, namespaced: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const roleRef = rec(obj.roleRef);
  if (roleRef.apiGroup !== RBAC_GROUP)
    errs.push(notSupported(path('roleRef', 'apiGroup'), str(roleRef.apiGroup), [RBAC_GROUP]));
  const kinds = namespaced ? ['Role', 'ClusterRole'] : ['ClusterRole'];
  if (!kinds.includes(str(roleRef.kind))) errs.push(notSupported(path('roleRef', 'kind'), str(roleRef.kind), kinds));
  const name = str(roleRef.name);
  if (name === '') errs.push(required(path('roleRef', 'name')));
  else for (const msg of validatePathSegmentName(name, false)) errs.push(invalid(path('roleRef', 'name'), name, msg));
  records(obj.subjects).forEach((subject, i) => {
    errs.push(...validateSubject(subject, namespaced, i));
  });
  return errs;
}

function roleRefChanged(obj: KubeObject, old: KubeObject): FieldError[] {
  const next = rec(obj.roleRef);
  const prev = rec(old.roleRef);
  if (['apiGroup', 'kind', 'name'].every((k) => str(next[k]) === str(prev[k]))) return [];
  const shown = goStruct('rbac.RoleRef', [
    ['APIGroup', goQuote(str(next.apiGroup))],
    ['Kind', goQuote(str(next.kind))],
    ['Name', goQuote(str(next.name))],
  ]);
  return [invalid(path('roleRef'), shown, 'cannot change roleRef')];
}

/** rbac.SubjectsStrings: users, groups and `namespace/name` service accounts. */
function subjectCells(obj: KubeObject): [string, string, string] {
  const subjects = records(obj.subjects);
  const of = (kind: string, show: (s: Rec) => string) =>
    subjects
      .filter((s) => s.kind === kind)
      .map(show)
      .join(', ');
  return [
    of('User', (s) => str(s.name)),
    of('Group', (s) => str(s.name)),
    of('ServiceAccount', (s) => `${str(s.namespace)}/${str(s.name)}`),
  ];
}

function bindingPrinter(kindWord: string) {
  return {
    columns: [
      nameColumn,
      column('Role', 'The role the binding grants.'),
      ageColumn,
      column('Users', `The users the ${kindWord} names.`, { wide: true }),
      column('Groups', `The groups the ${kindWord} names.`, { wide: true }),
      column('ServiceAccounts', `The service accounts the ${kindWord} names.`, { wide: true }),
    ],
    cells: (o: KubeObject, now: number) => {
      const roleRef = rec(o.roleRef);
      return [
        o.metadata.name,
        `${str(roleRef.kind)}/${str(roleRef.name)}`,
        age(o.metadata.creationTimestamp, now),
        ...subjectCells(o),
      ];
    },
  };
}

export const rolebindings: Builtin = builtin({
  group: 'rbac.authorization.k8s.io',
  version: 'v1',
  resource: 'rolebindings',
  nameValidator: validatePathSegmentName,
  strategy: {
    tracksGeneration: false,
    default: defaultBinding,
    validate: (obj) => validateBinding(obj, true),
    validateUpdate: (obj, old) => [...validateBinding(obj, true), ...roleRefChanged(obj, old)],
  },
  printer: bindingPrinter('binding'),
});

export const clusterrolebindings: Builtin = builtin({
  group: 'rbac.authorization.k8s.io',
  version: 'v1',
  resource: 'clusterrolebindings',
  nameValidator: validatePathSegmentName,
  strategy: {
    tracksGeneration: false,
    default: defaultBinding,
    validate: (obj) => validateBinding(obj, false),
    validateUpdate: (obj, old) => [...validateBinding(obj, false), ...roleRefChanged(obj, old)],
  },
  printer: bindingPrinter('cluster binding'),
});
