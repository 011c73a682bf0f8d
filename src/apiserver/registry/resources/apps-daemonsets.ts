/**
 * apps/v1 DaemonSets: upstream's defaults (RollingUpdate with maxUnavailable 1 and maxSurge 0,
 * revisionHistoryLimit 10, pod template defaults), the template generation kept in the
 * `deprecated.daemonset.template.generation` annotation, validation, status, and the DaemonSet printer.
 */
import { type FieldError, type FieldPath, invalid, notSupported, path, required } from '../../../api/field-errors.js';
import { validateLabelSelector } from '../../../api/validation/labels.js';
import { age } from '../../printers/duration.js';
import { ageColumn, nameColumn } from '../../printers/table.js';
import { jsonEqual, type KubeObject } from '../object.js';
import { defaultPodTemplate } from './apps-pod-template-defaults.js';
import { validateAppsStatusCounts } from './apps-status-validation.js';
import { alwaysRunningTemplate, selectorMatchesTemplate } from './apps-workload-validation.js';
import { type Builtin, builtin } from './common.js';
import { validatePodTemplateSpec } from './core-pod-validation.js';
import { column, formatLabels, int, TEMPLATE_WIDE_COLUMNS, templateWideCells } from './groups-columns.js';
import { child, defaultString, defaultValue, type Rec, rec, str, unset } from './groups-fields.js';
import { goIntOrString, goLabelSelector, goPointer, goStruct } from './groups-go-format.js';
import { withStatusValidation } from './groups-status.js';
import {
  immutable,
  intOrPercentValue,
  isNotMoreThan100Percent,
  nonNegative,
  parseSelector,
  validatePositiveIntOrPercent,
} from './groups-validation.js';
import { specTemplateWarnings } from './pod-warnings.js';

/** Where apps/v1 keeps a DaemonSet's template generation. */
export const TEMPLATE_GENERATION_ANNOTATION = 'deprecated.daemonset.template.generation';

export function defaultDaemonSet(obj: Rec): void {
  const spec = child(obj, 'spec');
  const strategy = child(spec, 'updateStrategy');
  defaultString(strategy, 'type', 'RollingUpdate');
  if (strategy.type === 'RollingUpdate') {
    const ru = child(strategy, 'rollingUpdate');
    defaultValue(ru, 'maxUnavailable', 1);
    defaultValue(ru, 'maxSurge', 0);
  }
  defaultValue(spec, 'revisionHistoryLimit', 10);
  defaultPodTemplate(spec, 'DaemonSet');
}

/** The template generation an object carries, or undefined when its annotation is missing or not a number. */
export function templateGeneration(obj: KubeObject): number | undefined {
  const value = obj.metadata.annotations?.[TEMPLATE_GENERATION_ANNOTATION];
  return value !== undefined && /^[+-]?[0-9]+$/.test(value) ? Number(value) : undefined;
}

function setTemplateGeneration(obj: KubeObject, generation: number): void {
  obj.metadata.annotations = { ...obj.metadata.annotations, [TEMPLATE_GENERATION_ANNOTATION]: String(generation) };
}

function validateRollingUpdate(ru: Rec, at: FieldPath): FieldError[] {
  const errs = [
    ...validatePositiveIntOrPercent(ru.maxUnavailable, at.child('maxUnavailable')),
    ...validatePositiveIntOrPercent(ru.maxSurge, at.child('maxSurge')),
    ...isNotMoreThan100Percent(ru.maxUnavailable, at.child('maxUnavailable')),
    ...isNotMoreThan100Percent(ru.maxSurge, at.child('maxSurge')),
  ];
  const hasUnavailable = intOrPercentValue(ru.maxUnavailable) !== 0;
  const hasSurge = intOrPercentValue(ru.maxSurge) !== 0;
  if (hasUnavailable && hasSurge) {
    errs.push(
      invalid(at.child('maxSurge'), goIntOrString(ru.maxSurge), 'may not be set when maxUnavailable is non-zero'),
    );
  } else if (!hasUnavailable && !hasSurge) {
    errs.push(required(at.child('maxUnavailable'), 'cannot be 0 when maxSurge is 0'));
  }
  return errs;
}

function validateUpdateStrategy(strategy: Rec, at: FieldPath): FieldError[] {
  const type = str(strategy.type);
  if (type === 'OnDelete') return [];
  if (type === 'RollingUpdate') {
    if (unset(strategy.rollingUpdate)) return [required(at.child('rollingUpdate'))];
    return validateRollingUpdate(rec(strategy.rollingUpdate), at.child('rollingUpdate'));
  }
  const shown = goStruct('apps.DaemonSetUpdateStrategy', [
    ['Type', JSON.stringify(type)],
    ['RollingUpdate', goPointer('apps.RollingUpdateDaemonSet', strategy.rollingUpdate)],
  ]);
  return [notSupported(at, shown, ['RollingUpdate', 'OnDelete'])];
}

/** ValidateDaemonSetSpec. */
export function validateDaemonSetSpec(spec: Rec, at: FieldPath): FieldError[] {
  const errs = validateLabelSelector(unset(spec.selector) ? undefined : rec(spec.selector), {}, at.child('selector'));
  const selector = parseSelector(spec.selector);
  errs.push(...selectorMatchesTemplate(selector, spec.template, at.child('template')));
  if (!unset(spec.selector)) {
    const sel = rec(spec.selector);
    if (
      Object.keys(rec(sel.matchLabels)).length +
        (Array.isArray(sel.matchExpressions) ? sel.matchExpressions.length : 0) ===
      0
    ) {
      errs.push(
        invalid(at.child('selector'), goLabelSelector(spec.selector), 'empty selector is invalid for daemonset'),
      );
    }
  }
  errs.push(...validatePodTemplateSpec(spec.template, at.child('template')));
  errs.push(...alwaysRunningTemplate(spec.template, at.child('template'), 'DaemonSet'));
  errs.push(...nonNegative(spec.minReadySeconds ?? 0, at.child('minReadySeconds')));
  errs.push(...validateUpdateStrategy(rec(spec.updateStrategy), at.child('updateStrategy')));
  errs.push(...nonNegative(spec.revisionHistoryLimit, at.child('revisionHistoryLimit')));
  return errs;
}

function validateTemplateGenerationUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const next = templateGeneration(obj) ?? 0;
  const prev = templateGeneration(old) ?? 0;
  const at = path('spec', 'templateGeneration');
  if (next < prev) return [invalid(at, next, 'must not be decremented')];
  const templateUpdated = !jsonEqual(rec(obj.spec).template, rec(old.spec).template);
  if (next === prev && templateUpdated) return [invalid(at, next, 'must be incremented upon template update')];
  if (next > prev && !templateUpdated) return [invalid(at, next, 'must not be incremented without template update')];
  return [];
}

export const daemonsets: Builtin = withStatusValidation(
  builtin({
    group: 'apps',
    version: 'v1',
    resource: 'daemonsets',
    hasStatus: true,
    strategy: {
      warningsOnCreate: (obj) => specTemplateWarnings(obj),
      warningsOnUpdate: (obj, old) =>
        (obj.metadata.generation ?? 0) !== (old.metadata.generation ?? 0) ? specTemplateWarnings(obj) : [],
      default: defaultDaemonSet,
      prepareForCreate(obj) {
        obj.status = { currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 };
        setTemplateGeneration(obj, Math.max(templateGeneration(obj) ?? 0, 1));
      },
      prepareForUpdate(obj, old) {
        const previous = templateGeneration(old) ?? 0;
        const templateUpdated = !jsonEqual(rec(obj.spec).template, rec(old.spec).template);
        setTemplateGeneration(obj, templateUpdated ? previous + 1 : (templateGeneration(obj) ?? previous));
      },
      validate: (obj) => validateDaemonSetSpec(rec(obj.spec), path('spec')),
      validateUpdate(obj, old) {
        const spec = rec(obj.spec);
        return [
          ...validateTemplateGenerationUpdate(obj, old),
          ...validateDaemonSetSpec(spec, path('spec')),
          ...immutable(path('spec', 'selector'), spec.selector, rec(old.spec).selector, goLabelSelector(spec.selector)),
        ];
      },
    },
    printer: {
      columns: [
        nameColumn,
        column('Desired', 'Nodes that should run the daemon pod.', { type: 'integer' }),
        column('Current', 'Nodes that run at least one daemon pod.', { type: 'integer' }),
        column('Ready', 'Nodes whose daemon pod is ready.', { type: 'integer' }),
        column('Up-to-date', 'Nodes that run the current template.', { type: 'integer' }),
        column('Available', 'Nodes whose daemon pod is available.', { type: 'integer' }),
        column('Node Selector', 'The node selector of the pod template.'),
        ageColumn,
        ...TEMPLATE_WIDE_COLUMNS,
      ],
      cells(o, now) {
        const spec = rec(o.spec);
        const status = rec(o.status);
        return [
          o.metadata.name,
          int(status.desiredNumberScheduled),
          int(status.currentNumberScheduled),
          int(status.numberReady),
          int(status.updatedNumberScheduled),
          int(status.numberAvailable),
          formatLabels(rec(rec(spec.template).spec).nodeSelector),
          age(o.metadata.creationTimestamp, now),
          ...templateWideCells(spec.template, spec.selector),
        ];
      },
    },
  }),
  (obj, old) =>
    validateAppsStatusCounts(rec(obj.status), rec(old.status), path('status'), {
      counts: [
        'currentNumberScheduled',
        'numberMisscheduled',
        'desiredNumberScheduled',
        'numberReady',
        'observedGeneration',
        'updatedNumberScheduled',
        'numberAvailable',
        'numberUnavailable',
      ],
    }),
  // Upstream's status strategy resets only spec.
  [],
);
