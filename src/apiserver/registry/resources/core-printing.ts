/** Cell formats shared by the core/v1 printers, as upstream's table printers write them. */
import type { ColumnDefinition } from '../../printers/table.js';
import { arr, rec, str } from './core-json.js';

export function column(
  name: string,
  description: string,
  options: { priority?: number; type?: ColumnDefinition['type'] } = {},
): ColumnDefinition {
  return { name, type: options.type ?? 'string', format: '', description, priority: options.priority ?? 0 };
}

/** `a=1,b=2` sorted by key, or `<none>` (labels.FormatLabels). */
export function formatLabels(labels: unknown): string {
  const entries = Object.entries(rec(labels))
    .filter(([, v]) => typeof v === 'string')
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (entries.length === 0) return '<none>';
  return entries.map(([k, v]) => `${k}=${v as string}`).join(',');
}

/** The CONTAINERS and IMAGES cells of a pod template: names and images joined with commas. */
export function containerCells(containers: unknown): [string, string] {
  const list = arr(containers).map(rec);
  return [list.map((c) => str(c.name)).join(','), list.map((c) => str(c.image)).join(',')];
}
