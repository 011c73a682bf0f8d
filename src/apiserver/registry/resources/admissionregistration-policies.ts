/**
 * admissionregistration.k8s.io/v1 ValidatingAdmissionPolicies (with a status subresource, written by the type
 * checking controller) and ValidatingAdmissionPolicyBindings: cluster-scoped, defaulted as upstream's v1 defaults
 * (a policy's failurePolicy Fail; matchConstraints and a binding's matchResources: matchPolicy Equivalent,
 * namespaceSelector and objectSelector `{}`, rule scope `*`), validated as admissionregistration-policies-validation.ts
 * says. `kubectl get` prints upstream's columns.
 */
import { age } from '../../printers/duration.js';
import { ageColumn, nameColumn, type Printer } from '../../printers/table.js';
import {
  validateValidatingAdmissionPolicy,
  validateValidatingAdmissionPolicyBinding,
  validateValidatingAdmissionPolicyUpdate,
} from './admissionregistration-policies-validation.js';
import { type Builtin, builtin } from './common.js';
import { column } from './groups-columns.js';
import { defaultValue, list, type Rec, rec, records, unset } from './groups-fields.js';

const GROUP = 'admissionregistration.k8s.io';

function defaultMatchResources(mc: unknown): void {
  if (unset(mc) || typeof mc !== 'object') return;
  const m = mc as Rec;
  defaultValue(m, 'matchPolicy', 'Equivalent');
  defaultValue(m, 'namespaceSelector', {});
  defaultValue(m, 'objectSelector', {});
  for (const rule of [...records(m.resourceRules), ...records(m.excludeResourceRules)])
    defaultValue(rule, 'scope', '*');
}

const policyPrinter: Printer = {
  columns: [
    nameColumn,
    column('Validations', 'Validations indicates the number of validation rules defined in the policy.', {
      type: 'integer',
    }),
    column('ParamKind', 'ParamKind specifies the kind of resources used to parameterize this policy.'),
    ageColumn,
  ],
  cells: (o, now) => {
    const spec = rec(o.spec);
    const pk = rec(spec.paramKind);
    return [
      o.metadata.name,
      list(spec.validations).length,
      unset(spec.paramKind) ? '<unset>' : `${pk.apiVersion ?? ''}/${pk.kind ?? ''}`,
      age(o.metadata.creationTimestamp, now),
    ];
  },
};

const bindingPrinter: Printer = {
  columns: [
    nameColumn,
    column('PolicyName', 'PolicyName indicates the policy definition which the policy binding binded to.'),
    column('ParamRef', 'ParamRef indicates the param resource which sets the configration param'),
    ageColumn,
  ],
  cells: (o, now) => {
    const spec = rec(o.spec);
    const pr = rec(spec.paramRef);
    const ref = unset(spec.paramRef)
      ? '<unset>'
      : pr.name
        ? `${pr.namespace ? `${pr.namespace}/` : ''}${pr.name}`
        : '*';
    return [o.metadata.name, spec.policyName ?? '', ref, age(o.metadata.creationTimestamp, now)];
  },
};

export const validatingadmissionpolicies: Builtin = builtin({
  group: GROUP,
  version: 'v1',
  resource: 'validatingadmissionpolicies',
  hasStatus: true,
  strategy: {
    default: (obj) => {
      const spec = rec(obj.spec);
      if (typeof obj.spec !== 'object' || obj.spec === null) return;
      defaultValue(spec, 'failurePolicy', 'Fail');
      defaultMatchResources(spec.matchConstraints);
    },
    validate: validateValidatingAdmissionPolicy,
    validateUpdate: validateValidatingAdmissionPolicyUpdate,
  },
  printer: policyPrinter,
});

export const validatingadmissionpolicybindings: Builtin = builtin({
  group: GROUP,
  version: 'v1',
  resource: 'validatingadmissionpolicybindings',
  strategy: {
    default: (obj) => {
      if (typeof obj.spec !== 'object' || obj.spec === null) return;
      defaultMatchResources(rec(obj.spec).matchResources);
    },
    validate: validateValidatingAdmissionPolicyBinding,
  },
  printer: bindingPrinter,
});
