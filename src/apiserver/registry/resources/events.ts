import { invalid, path, required, tooLong } from '../../../api/field-errors.js';
import { age } from '../../printers/duration.js';
import type { KubeObject } from '../object.js';
import { type Builtin, builtin } from './common.js';
import { rec, str } from './core-json.js';
import { column } from './groups-columns.js';

/** When an event last happened: its series' last observation, its lastTimestamp, or its eventTime. */
function lastSeen(e: KubeObject): string | undefined {
  const series = rec(e.series);
  return str(series.lastObservedTime) || str(e.lastTimestamp) || str(e.eventTime) || undefined;
}

function source(e: KubeObject): string {
  const src = rec(e.source);
  const component = str(src.component);
  if (!component) return str(e.reportingComponent);
  return src.host ? `${component}, ${str(src.host)}` : component;
}

/**
 * core/v1 Events, with the field selectors `kubectl describe` uses (involvedObject.*, reason, source, type,
 * reportingComponent) and the columns of `kubectl get events`.
 */
export const events: Builtin = builtin({
  group: '',
  version: 'v1',
  resource: 'events',
  strategy: {
    tracksGeneration: false,
    validate(obj) {
      const involved = rec(obj.involvedObject);
      const ns = str(involved.namespace);
      if (ns && obj.metadata.namespace && ns !== obj.metadata.namespace) {
        return [invalid(path('involvedObject', 'namespace'), ns, 'does not match event.namespace')];
      }
      return [];
    },
    selectableFields: {
      'involvedObject.kind': (e) => str(rec(e.involvedObject).kind),
      'involvedObject.namespace': (e) => str(rec(e.involvedObject).namespace),
      'involvedObject.name': (e) => str(rec(e.involvedObject).name),
      'involvedObject.uid': (e) => str(rec(e.involvedObject).uid),
      'involvedObject.apiVersion': (e) => str(rec(e.involvedObject).apiVersion),
      'involvedObject.resourceVersion': (e) => str(rec(e.involvedObject).resourceVersion),
      'involvedObject.fieldPath': (e) => str(rec(e.involvedObject).fieldPath),
      reason: (e) => str(e.reason),
      reportingComponent: (e) => str(e.reportingComponent),
      source: (e) => str(rec(e.source).component),
      type: (e) => str(e.type),
    },
  },
  printer: {
    columns: [
      column('Last Seen', 'When the event was last seen.'),
      column('Type', 'Normal or Warning.'),
      column('Reason', 'Why the event was emitted, in one word.'),
      column('Object', 'The object the event is about.'),
      column('Subobject', 'The part of the object the event is about.', { wide: true }),
      column('Source', 'The component that reported the event.', { wide: true }),
      column('Message', 'What happened.'),
      column('First Seen', 'When the event was first seen.', { wide: true }),
      column('Count', 'How many times the event happened.', { type: 'integer', wide: true }),
      column('Name', 'The name of the event object.', { wide: true }),
    ],
    cells: (e, now) => coreEventCells(e, now),
  },
});

function coreEventCells(e: KubeObject, now: number): unknown[] {
  const involved = rec(e.involvedObject);
  const series = rec(e.series);
  const count = typeof series.count === 'number' ? series.count : typeof e.count === 'number' ? e.count : 1;
  return [
    age(lastSeen(e), now),
    str(e.type),
    str(e.reason),
    `${str(involved.kind).toLowerCase()}/${str(involved.name)}`,
    str(involved.fieldPath),
    source(e),
    str(e.message).trim(),
    age(str(e.firstTimestamp) || str(e.eventTime) || undefined, now),
    count,
    e.metadata.name ?? '',
  ];
}

/** Renames top-level fields of an event, keeping everything else. */
function rename(obj: KubeObject, pairs: Array<[string, string]>, apiVersion: string): KubeObject {
  const out: Record<string, unknown> = { ...obj, apiVersion };
  for (const [from, to] of pairs) {
    delete out[from];
    if (obj[from] !== undefined) out[to] = obj[from];
  }
  return out as KubeObject;
}

/** Field names of core/v1 Event and their events.k8s.io/v1 names (one stored resource, two shapes). */
const CORE_TO_V1: Array<[string, string]> = [
  ['involvedObject', 'regarding'],
  ['message', 'note'],
  ['source', 'deprecatedSource'],
  ['firstTimestamp', 'deprecatedFirstTimestamp'],
  ['lastTimestamp', 'deprecatedLastTimestamp'],
  ['count', 'deprecatedCount'],
  ['reportingComponent', 'reportingController'],
];
const V1_TO_CORE = CORE_TO_V1.map(([a, b]) => [b, a] as [string, string]);

export const toEventsV1 = (core: KubeObject): KubeObject => rename(core, CORE_TO_V1, 'events.k8s.io/v1');
export const toCoreEvent = (v1: KubeObject): KubeObject => rename(v1, V1_TO_CORE, 'v1');

/**
 * events.k8s.io/v1 Events: the same stored objects as core/v1 Events, converted field by field
 * (regarding↔involvedObject, note↔message, deprecatedCount↔count, …).
 */
export const eventsV1: Builtin = (() => {
  const b = builtin({
    group: 'events.k8s.io',
    version: 'v1',
    resource: 'events',
    strategy: {
      tracksGeneration: false,
      validate(obj) {
        const errs = [];
        for (const field of ['eventTime', 'reportingController', 'reportingInstance', 'action', 'reason'] as const) {
          if (!obj[field]) errs.push(required(path(field)));
        }
        const regarding = rec(obj.regarding);
        const ns = str(regarding.namespace);
        if (ns && obj.metadata.namespace && ns !== obj.metadata.namespace) {
          errs.push(invalid(path('regarding', 'namespace'), ns, 'does not match event.namespace'));
        }
        if (str(obj.note).length > 1024) errs.push(tooLong(path('note'), 1024));
        return errs;
      },
      selectableFields: {
        'regarding.kind': (e) => str(rec(e.regarding).kind),
        'regarding.namespace': (e) => str(rec(e.regarding).namespace),
        'regarding.name': (e) => str(rec(e.regarding).name),
        'regarding.uid': (e) => str(rec(e.regarding).uid),
        reason: (e) => str(e.reason),
        reportingController: (e) => str(e.reportingController),
        type: (e) => str(e.type),
      },
    },
    printer: { columns: events.printer.columns, cells: (e, now) => coreEventCells(toCoreEvent(e), now) },
  });
  b.def.conversion = { toStorage: toCoreEvent, fromStorage: toEventsV1 };
  return b;
})();
