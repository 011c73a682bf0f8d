import { invalid, path } from '../../../api/field-errors.js';
import { age } from '../../printers/duration.js';
import type { ColumnDefinition } from '../../printers/table.js';
import { isObject, type KubeObject } from '../object.js';
import { type Builtin, builtin } from './common.js';

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec => (isObject(v) ? v : {});
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

const column = (name: string, description: string, priority = 0, type: ColumnDefinition['type'] = 'string') => ({
  name,
  type,
  format: '',
  description,
  priority,
});

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
      column('Subobject', 'The part of the object the event is about.', 1),
      column('Source', 'The component that reported the event.', 1),
      column('Message', 'What happened.'),
      column('First Seen', 'When the event was first seen.', 1),
      column('Count', 'How many times the event happened.', 1, 'integer'),
      column('Name', 'The name of the event object.', 1),
    ],
    cells(e, now) {
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
    },
  },
});
