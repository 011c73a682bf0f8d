import { invalid, path, required } from '../../../api/field-errors.js';
import { age } from '../../printers/duration.js';
import { ageColumn, nameColumn } from '../../printers/table.js';
import type { KubeObject } from '../object.js';
import { type Builtin, builtin } from './common.js';
import { type Rec, rec } from './core-json.js';
import { column } from './groups-columns.js';

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

function validateV2(obj: KubeObject) {
  const spec = rec(obj.spec);
  const errs = [];
  const ref = rec(spec.scaleTargetRef);
  if (!ref.kind) errs.push(required(path('spec', 'scaleTargetRef', 'kind')));
  if (!ref.name) errs.push(required(path('spec', 'scaleTargetRef', 'name')));
  const min = typeof spec.minReplicas === 'number' ? spec.minReplicas : 1;
  if (typeof spec.maxReplicas !== 'number') errs.push(required(path('spec', 'maxReplicas')));
  else if (spec.maxReplicas < min) {
    errs.push(invalid(path('spec', 'maxReplicas'), spec.maxReplicas, 'must be greater than or equal to `minReplicas`'));
  }
  if (typeof spec.minReplicas === 'number' && spec.minReplicas < 1) {
    errs.push(invalid(path('spec', 'minReplicas'), spec.minReplicas, 'must be greater than or equal to 1'));
  }
  return errs;
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
export const hpaV2: Builtin = builtin({
  group: 'autoscaling',
  version: 'v2',
  resource: 'horizontalpodautoscalers',
  hasStatus: true,
  strategy: {
    default(obj) {
      const spec = rec(obj.spec);
      if (spec.minReplicas === undefined) spec.minReplicas = 1;
      if (spec.metrics === undefined) {
        spec.metrics = [
          { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } },
        ];
      }
      obj.spec = spec;
    },
    validate: validateV2,
  },
  printer: { columns: hpaColumns, cells: hpaCells },
});

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
    },
    printer: { columns: hpaColumns, cells: (o, now) => hpaCells(hpaFromV1(o), now) },
  });
  b.def.conversion = { toStorage: hpaFromV1, fromStorage: hpaToV1 };
  return b;
})();
