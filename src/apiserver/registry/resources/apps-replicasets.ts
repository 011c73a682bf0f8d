/**
 * apps/v1 ReplicaSets: replicas default 1, pod template defaults, selector and template validation, the status
 * and scale subresources, and the NAME DESIRED CURRENT READY AGE printer.
 */
import { type FieldError, type FieldPath, invalid, path } from '../../../api/field-errors.js';
import { age } from '../../printers/duration.js';
import { ageColumn, nameColumn } from '../../printers/table.js';
import { defaultPodTemplate } from './apps-pod-template-defaults.js';
import { validateAppsStatusCounts } from './apps-status-validation.js';
import { validateTemplateForReplicaSet } from './apps-workload-validation.js';
import { type Builtin, builtin } from './common.js';
import { column, int, TEMPLATE_WIDE_COLUMNS, templateWideCells } from './groups-columns.js';
import { child, defaultValue, type Rec, rec } from './groups-fields.js';
import { goLabelSelector } from './groups-go-format.js';
import { withStatusValidation } from './groups-status.js';
import { immutable, nonNegative, validateRequiredSelector } from './groups-validation.js';
import { nameWarnings, specTemplateWarnings } from './pod-warnings.js';

/** ValidateReplicaSetSpec (upstream's message for an empty selector says "deployment" here too). */
export function validateReplicaSetSpec(spec: Rec, at: FieldPath): FieldError[] {
  const errs = [...nonNegative(spec.replicas ?? 0, at.child('replicas'))];
  errs.push(...nonNegative(spec.minReadySeconds ?? 0, at.child('minReadySeconds')));
  const selector = validateRequiredSelector(spec.selector, at.child('selector'), 'deployment');
  errs.push(...selector.errs);
  if (selector.parsed) {
    errs.push(...validateTemplateForReplicaSet(spec.template, selector.parsed, at.child('template'), 'ReplicaSet'));
  } else {
    errs.push(invalid(at.child('selector'), goLabelSelector(spec.selector), 'invalid label selector'));
  }
  return errs;
}

export const replicasets: Builtin = withStatusValidation(
  builtin({
    group: 'apps',
    version: 'v1',
    resource: 'replicasets',
    hasStatus: true,
    hasScale: true,
    strategy: {
      warningsOnCreate: (obj) => [...nameWarnings(obj.metadata.name), ...specTemplateWarnings(obj)],
      warningsOnUpdate: (obj, old) =>
        (obj.metadata.generation ?? 0) !== (old.metadata.generation ?? 0) ? specTemplateWarnings(obj) : [],
      default(obj) {
        const spec = child(obj, 'spec');
        defaultValue(spec, 'replicas', 1);
        defaultPodTemplate(spec, 'ReplicaSet');
      },
      prepareForCreate(obj) {
        obj.status = { replicas: 0 };
      },
      validate: (obj) => validateReplicaSetSpec(rec(obj.spec), path('spec')),
      validateUpdate(obj, old) {
        const spec = rec(obj.spec);
        return [
          ...validateReplicaSetSpec(spec, path('spec')),
          ...immutable(path('spec', 'selector'), spec.selector, rec(old.spec).selector, goLabelSelector(spec.selector)),
        ];
      },
    },
    printer: {
      columns: [
        nameColumn,
        column('Desired', 'The number of pods wanted.', { type: 'integer' }),
        column('Current', 'The number of pods that exist.', { type: 'integer' }),
        column('Ready', 'The number of ready pods.', { type: 'integer' }),
        ageColumn,
        ...TEMPLATE_WIDE_COLUMNS,
      ],
      cells(o, now) {
        const spec = rec(o.spec);
        const status = rec(o.status);
        return [
          o.metadata.name,
          int(spec.replicas),
          int(status.replicas),
          int(status.readyReplicas),
          age(o.metadata.creationTimestamp, now),
          ...templateWideCells(spec.template, spec.selector),
        ];
      },
    },
  }),
  (obj, old) =>
    validateAppsStatusCounts(rec(obj.status), rec(old.status), path('status'), {
      counts: ['replicas', 'fullyLabeledReplicas', 'readyReplicas', 'availableReplicas', 'observedGeneration'],
      notAboveReplicas: ['fullyLabeledReplicas', 'readyReplicas', 'availableReplicas'],
      availableNotAboveReady: 'cannot be greater than readyReplicas',
      collisionCount: false,
    }),
  // Upstream's status strategy resets only spec.
  [],
);
