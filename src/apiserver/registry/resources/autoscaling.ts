import {
  type FieldError,
  type FieldPath,
  forbidden,
  invalid,
  notSupported,
  path,
  required,
} from '../../../api/field-errors.js';
import { goQuantityStruct, isQuantity, parseQuantity } from '../../../api/quantity.js';
import { GoValue } from '../../../api/validation/go-format.js';
import { isValidPathSegmentName } from '../../../api/validation/name-validators.js';
import { isDNS1123Label } from '../../../api/validation/names.js';
import { age } from '../../printers/duration.js';
import { ageColumn, nameColumn } from '../../printers/table.js';
import type { KubeObject } from '../object.js';
import { type Builtin, builtin } from './common.js';
import { validateContainerResourceName } from './core-container-resources.js';
import { type Rec, rec } from './core-json.js';
import { column } from './groups-columns.js';
import { withStatusValidation } from './groups-status.js';

/** Where autoscaling/v1 keeps what only autoscaling/v2 can say, as upstream's conversion does. */
const METRICS_ANNOTATION = 'autoscaling.alpha.kubernetes.io/metrics';
const BEHAVIOR_ANNOTATION = 'autoscaling.alpha.kubernetes.io/behavior';
const CURRENT_METRICS_ANNOTATION = 'autoscaling.alpha.kubernetes.io/current-metrics';
const CONDITIONS_ANNOTATION = 'autoscaling.alpha.kubernetes.io/conditions';

/** A metric (any JSON: a kept annotation may hold a null) that is a CPU utilization target. */
function isCpuUtilization(item: unknown): boolean {
  const m = rec(item);
  const resource = rec(m.resource);
  return m.type === 'Resource' && resource.name === 'cpu' && rec(resource.target).type === 'Utilization';
}

/** autoscaling/v2 (the stored version) → autoscaling/v1. */
export function hpaToV1(v2: KubeObject): KubeObject {
  const spec = rec(v2.spec);
  const status = rec(v2.status);
  const annotations: Record<string, string> = { ...v2.metadata.annotations };
  const metrics = Array.isArray(spec.metrics) ? (spec.metrics as Rec[]) : [];
  const cpu = metrics.find(isCpuUtilization);
  const others = metrics.filter((m) => m !== cpu);
  if (others.length > 0) annotations[METRICS_ANNOTATION] = JSON.stringify(others);
  if (spec.behavior !== undefined) annotations[BEHAVIOR_ANNOTATION] = JSON.stringify(spec.behavior);
  const current = Array.isArray(status.currentMetrics) ? (status.currentMetrics as Rec[]) : [];
  const currentCpu = current.find((item) => {
    const m = rec(item);
    return (
      m.type === 'Resource' &&
      rec(m.resource).name === 'cpu' &&
      rec(rec(m.resource).current).averageUtilization !== undefined
    );
  });
  const otherCurrent = current.filter((m) => m !== currentCpu);
  if (otherCurrent.length > 0) annotations[CURRENT_METRICS_ANNOTATION] = JSON.stringify(otherCurrent);
  if (Array.isArray(status.conditions) && status.conditions.length > 0) {
    annotations[CONDITIONS_ANNOTATION] = JSON.stringify(status.conditions);
  }
  const v1Spec: Rec = { scaleTargetRef: spec.scaleTargetRef, maxReplicas: spec.maxReplicas };
  if (spec.minReplicas !== undefined) v1Spec.minReplicas = spec.minReplicas;
  const target = rec(rec(cpu?.resource).target).averageUtilization;
  if (target !== undefined) v1Spec.targetCPUUtilizationPercentage = target;
  const v1Status: Rec = {};
  for (const k of ['observedGeneration', 'lastScaleTime', 'currentReplicas', 'desiredReplicas']) {
    if (status[k] !== undefined) v1Status[k] = status[k];
  }
  const currentUtil = rec(rec(currentCpu?.resource).current).averageUtilization;
  if (currentUtil !== undefined) v1Status.currentCPUUtilizationPercentage = currentUtil;
  const { metadata, spec: _s, status: _st, ...rest } = v2;
  return {
    ...rest,
    apiVersion: 'autoscaling/v1',
    kind: 'HorizontalPodAutoscaler',
    metadata: { ...metadata, ...(Object.keys(annotations).length ? { annotations } : {}) },
    spec: v1Spec,
    ...(v2.status !== undefined ? { status: v1Status } : {}),
  };
}

/** autoscaling/v1 → autoscaling/v2 (the stored version), reading back what the annotations kept. */
export function hpaFromV1(v1: KubeObject): KubeObject {
  const spec = rec(v1.spec);
  const status = rec(v1.status);
  const annotations: Record<string, string> = { ...v1.metadata.annotations };
  const take = (key: string): unknown => {
    const text = annotations[key];
    delete annotations[key];
    if (text === undefined) return undefined;
    try {
      return JSON.parse(text);
    } catch {
      return undefined;
    }
  };
  const others = take(METRICS_ANNOTATION);
  const behavior = take(BEHAVIOR_ANNOTATION);
  const currentOthers = take(CURRENT_METRICS_ANNOTATION);
  const conditions = take(CONDITIONS_ANNOTATION);
  const metrics: Rec[] = [];
  if (typeof spec.targetCPUUtilizationPercentage === 'number') {
    metrics.push({
      type: 'Resource',
      resource: {
        name: 'cpu',
        target: { type: 'Utilization', averageUtilization: spec.targetCPUUtilizationPercentage },
      },
    });
  }
  if (Array.isArray(others)) metrics.push(...(others as Rec[]));
  const v2Spec: Rec = { scaleTargetRef: spec.scaleTargetRef, maxReplicas: spec.maxReplicas };
  if (spec.minReplicas !== undefined) v2Spec.minReplicas = spec.minReplicas;
  if (metrics.length > 0) v2Spec.metrics = metrics;
  if (behavior !== undefined) v2Spec.behavior = behavior;
  const v2Status: Rec = {};
  for (const k of ['observedGeneration', 'lastScaleTime', 'currentReplicas', 'desiredReplicas']) {
    if (status[k] !== undefined) v2Status[k] = status[k];
  }
  const current: Rec[] = [];
  if (typeof status.currentCPUUtilizationPercentage === 'number') {
    current.push({
      type: 'Resource',
      resource: { name: 'cpu', current: { averageUtilization: status.currentCPUUtilizationPercentage } },
    });
  }
  if (Array.isArray(currentOthers)) current.push(...(currentOthers as Rec[]));
  if (current.length > 0) v2Status.currentMetrics = current;
  if (Array.isArray(conditions)) v2Status.conditions = conditions;
  const { metadata, spec: _s, status: _st, ...rest } = v1;
  const meta = { ...metadata };
  if (Object.keys(annotations).length > 0) meta.annotations = annotations;
  else delete meta.annotations;
  return {
    ...rest,
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: meta,
    spec: v2Spec,
    ...(v1.status !== undefined ? { status: v2Status } : {}),
  };
}

/** The largest scaling policy period and stabilization window upstream allows, in seconds. */
const MAX_PERIOD_SECONDS = 1800;
const MAX_STABILIZATION_WINDOW_SECONDS = 3600;
const METRIC_SOURCE_TYPES = ['ContainerResource', 'External', 'Object', 'Pods', 'Resource'];
/** A metric source type's field in a MetricSpec. */
const SOURCE_FIELDS: Record<string, string> = {
  Object: 'object',
  Pods: 'pods',
  Resource: 'resource',
  External: 'external',
  ContainerResource: 'containerResource',
};

const int = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);
const text = (v: unknown): string => (typeof v === 'string' ? v : '');

/** A quantity's sign (Quantity.Sign), or undefined when it is absent. */
function quantitySign(v: unknown): number | undefined {
  if (!isQuantity(v)) return undefined;
  const nanos = parseQuantity(v as string | number).nanos;
  return nanos > 0n ? 1 : nanos < 0n ? -1 : 0;
}

/** ValidateCrossVersionObjectReference: a kind and a name, each a valid path segment. */
function crossVersionObjectReference(ref: Rec, at: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  for (const key of ['kind', 'name'] as const) {
    const value = text(ref[key]);
    if (value === '') errs.push(required(at.child(key)));
    else for (const msg of isValidPathSegmentName(value)) errs.push(invalid(at.child(key), value, msg));
  }
  return errs;
}

function metricIdentifier(id: Rec, at: FieldPath): FieldError[] {
  const name = text(id.name);
  if (name === '') return [required(at.child('name'), 'must specify a metric name')];
  return isValidPathSegmentName(name).map((msg) => invalid(at.child('name'), name, msg));
}

/** validateMetricTarget. A bad quantity is shown as field.Invalid prints a *Quantity: Go's %#v of the struct. */
function metricTarget(target: Rec, at: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const type = text(target.type);
  if (type === '') errs.push(required(at.child('type'), 'must specify a metric target type'));
  if (type !== 'Utilization' && type !== 'Value' && type !== 'AverageValue') {
    errs.push(invalid(at.child('type'), type, 'must be either Utilization, Value, or AverageValue'));
  }
  for (const key of ['value', 'averageValue'] as const) {
    const sign = quantitySign(target[key]);
    if (sign !== undefined && sign !== 1) {
      errs.push(
        invalid(at.child(key), new GoValue(goQuantityStruct(target[key] as string | number)), 'must be positive'),
      );
    }
  }
  const utilization = int(target.averageUtilization);
  if (utilization !== undefined && utilization < 1) {
    errs.push(invalid(at.child('averageUtilization'), utilization, 'must be greater than 0'));
  }
  return errs;
}

/** Checks of a Resource or ContainerResource source's target: a utilization or an average value, not both. */
function resourceTarget(target: Rec, at: FieldPath): FieldError[] {
  const errs = metricTarget(target, at);
  if (target.averageUtilization === undefined && target.averageValue === undefined) {
    errs.push(required(at.child('averageUtilization'), 'must set either a target raw value or a target utilization'));
  }
  if (target.averageUtilization !== undefined && target.averageValue !== undefined) {
    errs.push(forbidden(at.child('averageValue'), 'may not set both a target raw value and a target utilization'));
  }
  return errs;
}

function metricSource(field: string, source: Rec, at: FieldPath): FieldError[] {
  const target = rec(source.target);
  const targetAt = at.child('target');
  switch (field) {
    case 'object': {
      const errs = [
        ...crossVersionObjectReference(rec(source.describedObject), at.child('describedObject')),
        ...metricIdentifier(rec(source.metric), at.child('metric')),
        ...metricTarget(target, targetAt),
      ];
      if (target.value === undefined && target.averageValue === undefined) {
        errs.push(required(targetAt.child('averageValue'), 'must set either a target value or averageValue'));
      }
      return errs;
    }
    case 'external': {
      const errs = [...metricIdentifier(rec(source.metric), at.child('metric')), ...metricTarget(target, targetAt)];
      if (target.value === undefined && target.averageValue === undefined) {
        errs.push(
          required(targetAt.child('averageValue'), 'must set either a target value for metric or a per-pod target'),
        );
      }
      if (target.value !== undefined && target.averageValue !== undefined) {
        errs.push(
          forbidden(targetAt.child('value'), 'may not set both a target value for metric and a per-pod target'),
        );
      }
      return errs;
    }
    case 'pods': {
      const errs = [...metricIdentifier(rec(source.metric), at.child('metric')), ...metricTarget(target, targetAt)];
      if (target.averageValue === undefined) {
        errs.push(required(targetAt.child('averageValue'), 'must specify a positive target averageValue'));
      }
      return errs;
    }
    case 'resource': {
      const name = text(source.name);
      return [
        ...(name === '' ? [required(at.child('name'), 'must specify a resource name')] : []),
        ...resourceTarget(target, targetAt),
      ];
    }
    default: {
      const name = text(source.name);
      const container = text(source.container);
      return [
        ...(name === ''
          ? [required(at.child('name'), 'must specify a resource name')]
          : validateContainerResourceName(name, at.child('name'))),
        ...(container === ''
          ? [required(at.child('container'), 'must specify a container')]
          : isDNS1123Label(container).map((msg) => invalid(at.child('container'), container, msg))),
        ...resourceTarget(target, targetAt),
      ];
    }
  }
}

/** validateMetricSpec: a known type whose source, and only it, is given. */
function metricSpec(metric: Rec, at: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const type = text(metric.type);
  if (type === '') errs.push(required(at.child('type'), 'must specify a metric source type'));
  if (!METRIC_SOURCE_TYPES.includes(type)) errs.push(notSupported(at.child('type'), type, METRIC_SOURCE_TYPES));
  // Each source present is counted; only the first (in the struct's order) is looked into.
  const present: string[] = [];
  for (const field of ['object', 'external', 'pods', 'resource', 'containerResource']) {
    if (metric[field] === undefined || metric[field] === null) continue;
    present.push(field);
    if (present.length === 1) errs.push(...metricSource(field, rec(metric[field]), at.child(field)));
  }
  const expected = SOURCE_FIELDS[type];
  if (expected === undefined) errs.push(notSupported(at.child('type'), type, METRIC_SOURCE_TYPES));
  else if (!present.includes(expected)) {
    errs.push(required(at.child(expected), 'must populate information for the given metric source'));
  }
  if (present.length !== 1) {
    for (const field of present.filter((f) => f !== expected).sort()) {
      errs.push(forbidden(at.child(field), 'must populate the given metric source only'));
    }
  }
  return errs;
}

function scalingRules(rules: unknown, at: FieldPath): FieldError[] {
  if (rules === undefined || rules === null) return [];
  const r = rec(rules);
  const errs: FieldError[] = [];
  const window = int(r.stabilizationWindowSeconds);
  if (window !== undefined && window < 0) {
    errs.push(invalid(at.child('stabilizationWindowSeconds'), window, 'must be greater than or equal to zero'));
  }
  if (window !== undefined && window > MAX_STABILIZATION_WINDOW_SECONDS) {
    errs.push(
      invalid(
        at.child('stabilizationWindowSeconds'),
        window,
        `must be less than or equal to ${MAX_STABILIZATION_WINDOW_SECONDS}`,
      ),
    );
  }
  if (r.selectPolicy !== undefined && !['Disabled', 'Max', 'Min'].includes(text(r.selectPolicy))) {
    errs.push(notSupported(at.child('selectPolicy'), r.selectPolicy, ['Disabled', 'Max', 'Min']));
  }
  const policies = Array.isArray(r.policies) ? r.policies : [];
  if (policies.length === 0) errs.push(required(at.child('policies'), 'must specify at least one Policy'));
  policies.forEach((item, i) => {
    const p = rec(item);
    const pAt = at.child('policies').index(i);
    if (p.type !== 'Pods' && p.type !== 'Percent')
      errs.push(notSupported(pAt.child('type'), text(p.type), ['Percent', 'Pods']));
    const value = int(p.value) ?? 0;
    if (value <= 0) errs.push(invalid(pAt.child('value'), value, 'must be greater than zero'));
    const period = int(p.periodSeconds) ?? 0;
    if (period <= 0) errs.push(invalid(pAt.child('periodSeconds'), period, 'must be greater than zero'));
    if (period > MAX_PERIOD_SECONDS) {
      errs.push(invalid(pAt.child('periodSeconds'), period, `must be less than or equal to ${MAX_PERIOD_SECONDS}`));
    }
  });
  return errs;
}

/**
 * ValidateHorizontalPodAutoscaler's spec checks (pkg/apis/autoscaling/validation) on the v2 form. minReplicas may be
 * 0 only where the object already had 0 (HPAScaleToZero, alpha, is off).
 */
function validateV2(obj: KubeObject, old?: KubeObject) {
  const spec = rec(obj.spec);
  const at = path('spec');
  const errs: FieldError[] = [];
  const lowerBound = int(rec(old?.spec).minReplicas) === 0 ? 0 : 1;
  const min = int(spec.minReplicas);
  const max = int(spec.maxReplicas) ?? 0;
  if (min !== undefined && min < lowerBound) {
    errs.push(invalid(at.child('minReplicas'), min, `must be greater than or equal to ${lowerBound}`));
  }
  if (max < 1) errs.push(invalid(at.child('maxReplicas'), max, 'must be greater than 0'));
  if (min !== undefined && max < min) {
    errs.push(invalid(at.child('maxReplicas'), max, 'must be greater than or equal to `minReplicas`'));
  }
  errs.push(...crossVersionObjectReference(rec(spec.scaleTargetRef), at.child('scaleTargetRef')));
  const metrics = Array.isArray(spec.metrics) ? spec.metrics : [];
  metrics.forEach((m, i) => {
    errs.push(...metricSpec(rec(m), at.child('metrics').index(i)));
  });
  if (min === 0 && !metrics.some((m) => ['Object', 'External'].includes(text(rec(m).type)))) {
    errs.push(
      forbidden(
        at.child('metrics'),
        'must specify at least one Object or External metric to support scaling to zero replicas',
      ),
    );
  }
  if (spec.behavior !== undefined && spec.behavior !== null) {
    const behavior = rec(spec.behavior);
    errs.push(...scalingRules(behavior.scaleUp, at.child('behavior', 'scaleUp')));
    errs.push(...scalingRules(behavior.scaleDown, at.child('behavior', 'scaleDown')));
  }
  return errs;
}

/** ValidateHorizontalPodAutoscalerStatusUpdate: replica counts are not negative. */
function validateV2Status(obj: KubeObject) {
  const status = rec(obj.status);
  const errs: FieldError[] = [];
  for (const key of ['currentReplicas', 'desiredReplicas'] as const) {
    const n = int(status[key]) ?? 0;
    if (n < 0) errs.push(invalid(path('status', key), n, 'must be greater than or equal to 0'));
  }
  return errs;
}

/** The scaling rules a behavior's direction gets where it leaves them out (pkg/apis/autoscaling/v2 defaults). */
const SCALE_UP_DEFAULTS = {
  stabilizationWindowSeconds: 0,
  selectPolicy: 'Max',
  policies: [
    { type: 'Pods', value: 4, periodSeconds: 15 },
    { type: 'Percent', value: 100, periodSeconds: 15 },
  ],
};
/** Scale-down leaves its window unset: the controller manager's flag decides it. */
const SCALE_DOWN_DEFAULTS = { selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] };

/**
 * The strategy's dropDisabledFields: behavior's per-direction `tolerance` (HPAConfigurableTolerance, alpha and off
 * in v1.33) is dropped from a write unless the stored object already uses it.
 */
function dropDisabledTolerance(obj: KubeObject, old?: KubeObject): void {
  const rulesOf = (o: KubeObject | undefined) => {
    const behavior = rec(rec(o?.spec).behavior);
    return [behavior.scaleUp, behavior.scaleDown].filter((r): r is Rec => r !== null && typeof r === 'object');
  };
  if (rulesOf(old).some((r) => r.tolerance !== undefined && r.tolerance !== null)) return;
  for (const rules of rulesOf(obj)) delete rules.tolerance;
}

function defaultScalingRules(rules: unknown, defaults: Rec): Rec {
  const given = rules === undefined || rules === null ? {} : rec(rules);
  const out: Rec = structuredClone(defaults);
  for (const key of ['selectPolicy', 'stabilizationWindowSeconds', 'policies']) {
    if (given[key] !== undefined && given[key] !== null) out[key] = given[key];
  }
  return { ...given, ...out };
}

function targets(v2: KubeObject): string {
  const metrics = Array.isArray(rec(v2.spec).metrics) ? (rec(v2.spec).metrics as Rec[]) : [];
  if (metrics.length === 0) return '<none>';
  const current = Array.isArray(rec(v2.status).currentMetrics) ? (rec(v2.status).currentMetrics as Rec[]) : [];
  return metrics
    .map((item, i) => {
      const m = rec(item);
      const target = rec(rec(m.resource).target);
      const cur = rec(rec(current[i]?.resource).current);
      if (m.type === 'Resource' && target.type === 'Utilization') {
        const now = cur.averageUtilization === undefined ? '<unknown>' : `${cur.averageUtilization}%`;
        return `${rec(m.resource).name}: ${now}/${target.averageUtilization}%`;
      }
      return `${String(m.type).toLowerCase()}: <unknown>`;
    })
    .join(', ');
}

const hpaColumns = [
  nameColumn,
  column('Reference', 'The kind/name of the object being scaled.'),
  column('Targets', 'Current and target values of each metric.'),
  column('MinPods', 'The fewest replicas.', { type: 'integer' }),
  column('MaxPods', 'The most replicas.', { type: 'integer' }),
  column('Replicas', 'The replicas the object has now.', { type: 'integer' }),
  ageColumn,
];

function hpaCells(v2: KubeObject, now: number): unknown[] {
  const spec = rec(v2.spec);
  const ref = rec(spec.scaleTargetRef);
  return [
    v2.metadata.name ?? '',
    `${String(ref.kind ?? '')}/${String(ref.name ?? '')}`,
    targets(v2),
    typeof spec.minReplicas === 'number' ? spec.minReplicas : '<unset>',
    spec.maxReplicas ?? 0,
    rec(v2.status).currentReplicas ?? 0,
    age(v2.metadata.creationTimestamp, now),
  ];
}

/** autoscaling/v2 HorizontalPodAutoscalers: the stored version. */
export const hpaV2: Builtin = withStatusValidation(
  builtin({
    group: 'autoscaling',
    version: 'v2',
    resource: 'horizontalpodautoscalers',
    hasStatus: true,
    strategy: {
      default(obj) {
        const spec = rec(obj.spec);
        if (spec.minReplicas === undefined) spec.minReplicas = 1;
        if (!Array.isArray(spec.metrics) || spec.metrics.length === 0) {
          spec.metrics = [
            { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } },
          ];
        }
        if (spec.behavior !== undefined && spec.behavior !== null) {
          const behavior = rec(spec.behavior);
          spec.behavior = {
            ...behavior,
            scaleUp: defaultScalingRules(behavior.scaleUp, SCALE_UP_DEFAULTS),
            scaleDown: defaultScalingRules(behavior.scaleDown, SCALE_DOWN_DEFAULTS),
          };
        }
        obj.spec = spec;
      },
      prepareForCreate: (obj) => dropDisabledTolerance(obj),
      prepareForUpdate: (obj, old) => dropDisabledTolerance(obj, old),
      validate: (obj) => validateV2(obj),
      validateUpdate: (obj, old) => validateV2(obj, old),
    },
    printer: { columns: hpaColumns, cells: hpaCells },
  }),
  validateV2Status,
);

/** autoscaling/v1 HorizontalPodAutoscalers: the same objects, converted to and from v2. */
export const hpaV1: Builtin = (() => {
  const b = builtin({
    group: 'autoscaling',
    version: 'v1',
    resource: 'horizontalpodautoscalers',
    hasStatus: true,
    strategy: {
      default(obj) {
        const spec = rec(obj.spec);
        if (spec.minReplicas === undefined) spec.minReplicas = 1;
        obj.spec = spec;
      },
      validate: (obj) => validateV2(hpaFromV1(obj)),
      validateUpdate: (obj, old) => validateV2(hpaFromV1(obj), hpaFromV1(old)),
    },
    printer: { columns: hpaColumns, cells: (o, now) => hpaCells(hpaFromV1(o), now) },
  });
  b.def.conversion = { toStorage: hpaFromV1, fromStorage: hpaToV1 };
  return withStatusValidation(b, validateV2Status);
})();
