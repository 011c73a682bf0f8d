/**
 * apps/v1 Deployments: upstream's defaults (1 replica, RollingUpdate 25%/25%, revisionHistoryLimit 10,
 * progressDeadlineSeconds 600, pod template defaults), spec validation, an immutable selector, the status
 * subresource with its checks, the scale subresource, and the NAME READY UP-TO-DATE AVAILABLE AGE printer.
 */
import {
  type FieldError,
  type FieldPath,
  forbidden,
  invalid,
  notSupported,
  path,
  required,
} from '../../../api/field-errors.js';
import { age } from '../../printers/duration.js';
import { ageColumn, nameColumn } from '../../printers/table.js';
import type { KubeObject } from '../object.js';
import { defaultPodTemplate } from './apps-pod-template-defaults.js';
import { validateAppsStatusCounts } from './apps-status-validation.js';
import { validateTemplateForReplicaSet } from './apps-workload-validation.js';
import { type Builtin, builtin } from './common.js';
import { column, int, selectorText, TEMPLATE_WIDE_COLUMNS, templateWideCells } from './groups-columns.js';
import { child, defaultString, defaultValue, rec, str, unset } from './groups-fields.js';
import { goIntOrString, goLabelSelector, goPointer, goStruct } from './groups-go-format.js';
import { withStatusValidation } from './groups-status.js';
import {
  immutable,
  intOrPercentValue,
  isNotMoreThan100Percent,
  nonNegative,
  validatePositiveIntOrPercent,
  validateRequiredSelector,
} from './groups-validation.js';
import { nameWarnings, specTemplateWarnings } from './pod-warnings.js';

/** SetDefaults_Deployment and the pod template defaults. */
export function defaultDeployment(obj: KubeObject): void {
  const spec = child(obj, 'spec');
  defaultValue(spec, 'replicas', 1);
  const strategy = child(spec, 'strategy');
  defaultString(strategy, 'type', 'RollingUpdate');
  if (strategy.type === 'RollingUpdate') {
    const rollingUpdate = child(strategy, 'rollingUpdate');
    defaultValue(rollingUpdate, 'maxUnavailable', '25%');
    defaultValue(rollingUpdate, 'maxSurge', '25%');
  }
  defaultValue(spec, 'revisionHistoryLimit', 10);
  defaultValue(spec, 'progressDeadlineSeconds', 600);
  defaultPodTemplate(spec, 'Deployment');
}

function validateStrategy(strategy: unknown, at: FieldPath): FieldError[] {
  const s = rec(strategy);
  const type = str(s.type);
  if (type === 'Recreate') {
    return unset(s.rollingUpdate)
      ? []
      : [forbidden(at.child('rollingUpdate'), "may not be specified when strategy `type` is 'Recreate'")];
  }
  if (type === 'RollingUpdate') {
    if (unset(s.rollingUpdate))
      return [required(at.child('rollingUpdate'), 'this should be defaulted and never be nil')];
    const ru = rec(s.rollingUpdate);
    const ruPath = at.child('rollingUpdate');
    const errs = [
      ...validatePositiveIntOrPercent(ru.maxUnavailable, ruPath.child('maxUnavailable')),
      ...validatePositiveIntOrPercent(ru.maxSurge, ruPath.child('maxSurge')),
    ];
    if (intOrPercentValue(ru.maxUnavailable) === 0 && intOrPercentValue(ru.maxSurge) === 0) {
      errs.push(
        invalid(ruPath.child('maxUnavailable'), goIntOrString(ru.maxUnavailable), 'may not be 0 when `maxSurge` is 0'),
      );
    }
    errs.push(...isNotMoreThan100Percent(ru.maxUnavailable, ruPath.child('maxUnavailable')));
    return errs;
  }
  const shown = goStruct('apps.DeploymentStrategy', [
    ['Type', JSON.stringify(type)],
    ['RollingUpdate', goPointer('apps.RollingUpdateDeployment', s.rollingUpdate)],
  ]);
  return [notSupported(at, shown, ['Recreate', 'RollingUpdate'])];
}

/** ValidateDeploymentSpec. */
export function validateDeploymentSpec(spec: Record<string, unknown>, at: FieldPath): FieldError[] {
  const errs = [...nonNegative(spec.replicas ?? 0, at.child('replicas'))];
  const selector = validateRequiredSelector(spec.selector, at.child('selector'), 'deployment');
  errs.push(...selector.errs);
  if (selector.parsed) {
    errs.push(...validateTemplateForReplicaSet(spec.template, selector.parsed, at.child('template'), 'ReplicaSet'));
  } else {
    errs.push(invalid(at.child('selector'), goLabelSelector(spec.selector), 'invalid label selector'));
  }
  errs.push(...validateStrategy(spec.strategy, at.child('strategy')));
  errs.push(...nonNegative(spec.minReadySeconds ?? 0, at.child('minReadySeconds')));
  errs.push(...nonNegative(spec.revisionHistoryLimit, at.child('revisionHistoryLimit')));
  const deadline = spec.progressDeadlineSeconds;
  if (typeof deadline === 'number') {
    errs.push(...nonNegative(deadline, at.child('progressDeadlineSeconds')));
    if (deadline <= int(spec.minReadySeconds)) {
      errs.push(invalid(at.child('progressDeadlineSeconds'), deadline, 'must be greater than minReadySeconds'));
    }
  }
  return errs;
}

const STATUS_COUNTS = [
  'observedGeneration',
  'replicas',
  'updatedReplicas',
  'readyReplicas',
  'availableReplicas',
  'unavailableReplicas',
];

export const deployments: Builtin = withStatusValidation(
  builtin({
    group: 'apps',
    version: 'v1',
    resource: 'deployments',
    hasStatus: true,
    hasScale: true,
    strategy: {
      warningsOnCreate: (obj) => [...nameWarnings(obj.metadata.name), ...specTemplateWarnings(obj)],
      warningsOnUpdate: (obj, old) =>
        (obj.metadata.generation ?? 0) !== (old.metadata.generation ?? 0) ? specTemplateWarnings(obj) : [],
      default: defaultDeployment,
      prepareForCreate(obj) {
        obj.status = {};
      },
      validate: (obj) => validateDeploymentSpec(rec(obj.spec), path('spec')),
      validateUpdate(obj, old) {
        const spec = rec(obj.spec);
        const oldSpec = rec(old.spec);
        return [
          ...validateDeploymentSpec(spec, path('spec')),
          ...immutable(path('spec', 'selector'), spec.selector, oldSpec.selector, goLabelSelector(spec.selector)),
        ];
      },
    },
    printer: {
      columns: [
        nameColumn,
        column('Ready', 'Ready pods out of the desired replicas.'),
        column('Up-to-date', 'Pods that run the current template.'),
        column('Available', 'Pods available for at least minReadySeconds.'),
        ageColumn,
        ...TEMPLATE_WIDE_COLUMNS,
      ],
      cells(o, now) {
        const spec = rec(o.spec);
        const status = rec(o.status);
        return [
          o.metadata.name,
          `${int(status.readyReplicas)}/${int(spec.replicas)}`,
          int(status.updatedReplicas),
          int(status.availableReplicas),
          age(o.metadata.creationTimestamp, now),
          ...templateWideCells(spec.template, spec.selector, selectorText),
        ];
      },
    },
  }),
  (obj, old) =>
    validateAppsStatusCounts(rec(obj.status), rec(old.status), path('status'), {
      counts: STATUS_COUNTS,
      notAboveReplicas: ['updatedReplicas', 'readyReplicas', 'availableReplicas'],
      availableNotAboveReady: 'cannot be greater than readyReplicas',
    }),
  // Upstream's status strategy resets only spec and labels.
  ['labels'],
);
