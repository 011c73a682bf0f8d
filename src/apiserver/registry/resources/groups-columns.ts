/**
 * Pieces of server-side printing shared by the printers of core/v1 and the named groups: column definitions and the cell formats of
 * upstream's printers (container lists, label selectors, label maps, booleans).
 */
import { LabelSelector, type LabelSelectorObject } from '../../../api/labels.js';
import type { ColumnDefinition } from '../../printers/table.js';
import { list, rec, str, unset } from './groups-fields.js';

/** A column shown by `kubectl get` (priority 0) or only with `-o wide` (priority 1). */
export function column(
  name: string,
  description: string,
  opts: { type?: ColumnDefinition['type']; wide?: boolean } = {},
): ColumnDefinition {
  return { name, type: opts.type ?? 'string', format: '', description, priority: opts.wide ? 1 : 0 };
}

/** The `-o wide` CONTAINERS, IMAGES and SELECTOR columns of the workload printers; containerCells fills the first two. */
export const TEMPLATE_WIDE_COLUMNS: readonly ColumnDefinition[] = [
  column('Containers', 'The containers of the pod template.', { wide: true }),
  column('Images', 'The images of the pod template.', { wide: true }),
  column('Selector', 'The label selector of the pods.', { wide: true }),
];

/** The CONTAINERS and IMAGES cells of a pod template: names and images joined by commas. */
export function containerCells(template: unknown): [string, string] {
  const containers = list(rec(rec(template).spec).containers).map(rec);
  return [containers.map((c) => str(c.name)).join(','), containers.map((c) => str(c.image)).join(',')];
}

function selectorOf(v: unknown): LabelSelector {
  return LabelSelector.fromObject(unset(v) ? v : (rec(v) as LabelSelectorObject));
}

/**
 * The cells of TEMPLATE_WIDE_COLUMNS: the pod template's container names and images, and the label selector as
 * formatSelector prints it (formatLabelSelector, or selectorText for Deployments).
 */
export function templateWideCells(
  template: unknown,
  selector: unknown,
  formatSelector: (v: unknown) => string = formatLabelSelector,
): [string, string, string] {
  return [...containerCells(template), formatSelector(selector)];
}

/** A metav1 LabelSelector as upstream's FormatLabelSelector prints it: `<none>` when empty, `<error>` if invalid. */
export function formatLabelSelector(v: unknown): string {
  try {
    return selectorOf(v).toString() || '<none>';
  } catch {
    return '<error>';
  }
}

/** A selector's text as the Deployment printer shows it: empty when empty, `<invalid>` if invalid. */
export function selectorText(v: unknown): string {
  try {
    return selectorOf(v).toString();
  } catch {
    return '<invalid>';
  }
}

/** A label map as `a=b,c=d` sorted by key, `<none>` when empty (labels.FormatLabels). */
export function formatLabels(v: unknown): string {
  const entries = Object.entries(rec(v))
    .filter(([, value]) => typeof value === 'string')
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (entries.length === 0) return '<none>';
  return entries.map(([k, value]) => `${k}=${value as string}`).join(',');
}

/** `True`/`False`, or `<unset>` for a missing boolean. */
export function printBoolPointer(v: unknown): string {
  if (typeof v !== 'boolean') return '<unset>';
  return v ? 'True' : 'False';
}

/** An integer cell: the number, or 0 when absent. */
export function int(v: unknown): number {
  return typeof v === 'number' ? v : 0;
}
