/**
 * Table printing of custom resources from a version's additionalPrinterColumns, as upstream's CRD table
 * convertor does: Name, then each column's JSONPath value (dates as ages; cells of the wrong type empty); a version
 * without columns prints Name and Age.
 */

import { age } from '../printers/duration.js';
import type { ColumnDefinition, Printer } from '../printers/table.js';
import { findResults, parseJSONPath, printValue } from './jsonpath.js';
import type { PrinterColumn } from './types.js';

const NAME_DESCRIPTION =
  'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names';
const CREATION_TIMESTAMP_DESCRIPTION =
  'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata';

const AGE: PrinterColumn = {
  name: 'Age',
  type: 'date',
  description: CREATION_TIMESTAMP_DESCRIPTION,
  jsonPath: '.metadata.creationTimestamp',
};

function cellFor(type: string, value: unknown, now: number): unknown {
  if (value === null || value === undefined) return null;
  switch (type) {
    case 'integer':
      return typeof value === 'number' ? Math.trunc(value) : null;
    case 'number':
      return typeof value === 'number' ? value : null;
    case 'boolean':
      return typeof value === 'boolean' ? value : null;
    case 'string':
      return printValue(value);
    case 'date':
      if (typeof value !== 'string') return null;
      return Number.isNaN(Date.parse(value)) ? '<invalid>' : age(value, now);
    default:
      return null;
  }
}

/** The printer of one served version; columns whose path does not parse print nothing. */
export function customResourcePrinter(columns: readonly PrinterColumn[] | undefined): Printer {
  const cols = columns && columns.length > 0 ? columns : [AGE];
  const paths = cols.map((c) => {
    try {
      return parseJSONPath(c.jsonPath ?? '');
    } catch {
      return undefined;
    }
  });
  const definitions: ColumnDefinition[] = [
    { name: 'Name', type: 'string', format: 'name', description: NAME_DESCRIPTION, priority: 0 },
    ...cols.map((c) => ({
      name: c.name ?? '',
      type: (c.type ?? 'string') as ColumnDefinition['type'],
      format: c.format ?? '',
      description: c.description || `Custom resource definition column (in JSONPath format): ${c.jsonPath ?? ''}`,
      priority: c.priority ?? 0,
    })),
  ];
  return {
    columns: definitions,
    cells(obj, now) {
      const cells: unknown[] = [obj.metadata.name ?? ''];
      cols.forEach((c, i) => {
        const steps = paths[i];
        const found = steps ? findResults(steps, obj) : [];
        cells.push(found.length > 0 ? cellFor(c.type ?? 'string', found[0], now) : null);
      });
      return cells;
    },
  };
}
