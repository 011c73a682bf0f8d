/**
 * core/v1 ReplicationControllers (+status, +scale): selector and labels default from the template's labels,
 * replicas to 1; the template is validated as a pod template that must restart Always and match the selector;
 * field selector status.replicas; NAME DESIRED CURRENT READY AGE columns.
 */
import { type FieldError, forbidden, invalid, notSupported, path, required } from '../../../api/field-errors.js';
import { GoValue, goQuote } from '../../../api/validation/go-format.js';
import { age } from '../../printers/duration.js';
import { ageColumn, nameColumn, type Printer } from '../../printers/table.js';
import { isObject, type KubeObject } from '../object.js';
import { defaultPodTemplate } from './apps-pod-template-defaults.js';
import { type Builtin, builtin } from './common.js';
import { nonNegative } from './core-field-checks.js';
import { child, type Rec, rec, str, stringMap } from './core-json.js';
import { validatePodTemplateSpec } from './core-pod-validation.js';
import { specKeepingStatusStrategy } from './core-status.js';
import { column, containerCells, formatLabels } from './groups-columns.js';
import { nameWarnings, specTemplateWarnings } from './pod-warnings.js';

const count = (v: unknown) => (typeof v === 'number' ? v : 0);

export function defaultReplicationController(rc: KubeObject): void {
  const spec = child(rc, 'spec');
  const template = spec.template;
  const labels = template && typeof template === 'object' ? rec(rec(template).metadata).labels : undefined;
  if (labels && typeof labels === 'object') {
    if (Object.keys(rec(spec.selector)).length === 0) spec.selector = { ...(labels as Rec) };
    if (Object.keys(rc.metadata.labels ?? {}).length === 0) rc.metadata.labels = { ...stringMap(labels) };
  }
  if (spec.replicas === undefined || spec.replicas === null) spec.replicas = 1;
  if (isObject(template)) defaultPodTemplate(spec, 'ReplicationController');
}

/** `map[string]string{"app":"web"}`, as Go's %#v prints a label map. */
function goLabelMap(labels: Record<string, string>): GoValue {
  const entries = Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (entries.length === 0) return new GoValue('map[string]string(nil)');
  return new GoValue(`map[string]string{${entries.map(([k, v]) => `${goQuote(k)}:${goQuote(v)}`).join(', ')}}`);
}

export function validateReplicationController(rc: KubeObject): FieldError[] {
  const spec = rec(rc.spec);
  const at = path('spec');
  const selector = stringMap(spec.selector);
  const errs = [...nonNegative(spec.minReadySeconds, at.child('minReadySeconds'))];
  if (Object.keys(selector).length === 0) errs.push(required(at.child('selector')));
  errs.push(...nonNegative(spec.replicas, at.child('replicas')));
  const template = spec.template;
  const tPath = at.child('template');
  if (template === undefined || template === null) {
    errs.push(required(tPath));
    return errs;
  }
  const t = rec(template);
  const labels = stringMap(rec(t.metadata).labels);
  if (Object.keys(selector).length > 0 && !Object.entries(selector).every(([k, v]) => labels[k] === v)) {
    errs.push(
      invalid(tPath.child('metadata', 'labels'), goLabelMap(labels), '`selector` does not match template `labels`'),
    );
  }
  errs.push(...validatePodTemplateSpec(t, tPath));
  const tSpec = rec(t.spec);
  if (str(tSpec.restartPolicy) !== 'Always') {
    errs.push(notSupported(tPath.child('spec', 'restartPolicy'), str(tSpec.restartPolicy), ['Always']));
  }
  if (tSpec.activeDeadlineSeconds !== undefined && tSpec.activeDeadlineSeconds !== null) {
    errs.push(
      forbidden(
        tPath.child('spec', 'activeDeadlineSeconds'),
        'activeDeadlineSeconds in ReplicationController is not Supported',
      ),
    );
  }
  return errs;
}

function validateStatus(rc: KubeObject): FieldError[] {
  const status = rec(rc.status);
  const at = path('status');
  const errs: FieldError[] = [];
  for (const f of ['replicas', 'fullyLabeledReplicas', 'readyReplicas', 'availableReplicas', 'observedGeneration']) {
    errs.push(...nonNegative(status[f], at.child(f)));
  }
  const msg = 'cannot be greater than status.replicas';
  for (const f of ['fullyLabeledReplicas', 'readyReplicas', 'availableReplicas']) {
    if (count(status[f]) > count(status.replicas)) errs.push(invalid(at.child(f), count(status[f]), msg));
  }
  if (count(status.availableReplicas) > count(status.readyReplicas)) {
    errs.push(
      invalid(at.child('availableReplicas'), count(status.availableReplicas), 'cannot be greater than readyReplicas'),
    );
  }
  return errs;
}

export const replicationControllerPrinter: Printer = {
  columns: [
    nameColumn,
    column('Desired', 'How many pods the controller wants.', { type: 'integer' }),
    column('Current', 'How many pods the controller has.', { type: 'integer' }),
    column('Ready', 'How many of its pods are ready.', { type: 'integer' }),
    ageColumn,
    column('Containers', 'The names of the containers in the template.', { wide: true }),
    column('Images', 'The images of the containers in the template.', { wide: true }),
    column('Selector', 'The labels of the pods the controller counts as its own.', { wide: true }),
  ],
  cells(rc, now) {
    const spec = rec(rc.spec);
    const status = rec(rc.status);
    const [names, images] = containerCells(spec.template);
    return [
      rc.metadata.name ?? '',
      count(spec.replicas),
      count(status.replicas),
      count(status.readyReplicas),
      age(rc.metadata.creationTimestamp, now),
      names,
      images,
      formatLabels(spec.selector),
    ];
  },
};

export function replicationcontrollers(): Builtin {
  const served = builtin({
    group: '',
    version: 'v1',
    resource: 'replicationcontrollers',
    hasStatus: true,
    hasScale: true,
    printer: replicationControllerPrinter,
    strategy: {
      warningsOnCreate: (obj) => [...nameWarnings(obj.metadata.name), ...specTemplateWarnings(obj)],
      warningsOnUpdate: (obj, old) =>
        (obj.metadata.generation ?? 0) !== (old.metadata.generation ?? 0) ? specTemplateWarnings(obj) : [],
      orphanDependentsByDefault: true,
      default: defaultReplicationController,
      prepareForCreate(rc) {
        rc.status = { replicas: 0 };
      },
      validate: validateReplicationController,
      selectableFields: { 'status.replicas': (rc) => String(count(rec(rc.status).replicas)) },
    },
  });
  served.def.status = specKeepingStatusStrategy(validateStatus);
  return served;
}
