import type { KubeObject } from '../registry/object.js';

/** One column of server-side printing (metav1.TableColumnDefinition). */
export interface ColumnDefinition {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  format: string;
  description: string;
  /** 0 for `kubectl get`; 1 for columns shown only with -o wide. */
  priority: number;
}

/** How a resource is printed: its columns and the cells of one object's row. */
export interface Printer {
  columns: ColumnDefinition[];
  cells(obj: KubeObject, now: number): unknown[];
}

export type IncludeObject = 'None' | 'Metadata' | 'Object';

export interface Table {
  kind: 'Table';
  apiVersion: string;
  metadata: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  columnDefinitions: ColumnDefinition[];
  rows: Array<{ cells: unknown[]; object?: unknown }>;
}

export const nameColumn: ColumnDefinition = {
  name: 'Name',
  type: 'string',
  format: 'name',
  description: 'The name of the object, unique within its namespace for namespaced resources.',
  priority: 0,
};

export const ageColumn: ColumnDefinition = {
  name: 'Age',
  type: 'string',
  format: '',
  description: 'How long ago the object was created.',
  priority: 0,
};

/** What upstream prints for resources without printers of their own: the name and the creation time. */
export const defaultPrinter: Printer = {
  columns: [
    nameColumn,
    { name: 'Created At', type: 'date', format: '', description: 'When the object was created.', priority: 0 },
  ],
  cells: (obj) => [obj.metadata.name ?? '', obj.metadata.creationTimestamp ?? ''],
};

/** The object as metav1.PartialObjectMetadata: kind, apiVersion and metadata only. */
export function partialObjectMetadata(obj: KubeObject, version: 'v1' | 'v1beta1' = 'v1'): KubeObject {
  return { kind: 'PartialObjectMetadata', apiVersion: `meta.k8s.io/${version}`, metadata: obj.metadata };
}

export function toTable(
  printer: Printer,
  objects: KubeObject[],
  opts: { includeObject: IncludeObject; version: 'v1' | 'v1beta1'; listMeta?: Table['metadata']; now?: number },
): Table {
  const now = opts.now ?? Date.now();
  return {
    kind: 'Table',
    apiVersion: `meta.k8s.io/${opts.version}`,
    metadata: opts.listMeta ?? {},
    columnDefinitions: printer.columns,
    rows: objects.map((obj) => {
      const row: { cells: unknown[]; object?: unknown } = { cells: printer.cells(obj, now) };
      if (opts.includeObject === 'Object') row.object = obj;
      else if (opts.includeObject === 'Metadata') row.object = partialObjectMetadata(obj, opts.version);
      return row;
    }),
  };
}

export function parseIncludeObject(value: string | null): IncludeObject {
  if (value === 'None' || value === 'Object') return value;
  return 'Metadata';
}
