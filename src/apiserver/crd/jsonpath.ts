/**
 * The part of Kubernetes' JSONPath that CRD printer columns use: a template `{<path>}` with field steps
 * (`.spec.size`, `['a.b']`), indexes (`[0]`, `[-1]`), wildcards (`[*]`, `.*`) and filters
 * (`[?(@.type=="Ready")]`), with missing keys allowed. Results print as kubectl's jsonpath prints them: strings as
 * they are, other values as Go's fmt prints decoded JSON.
 */
import { goJsonMarshalSorted } from '../../api/go-json.js';
import { goNumber } from '../../api/validation/go-format.js';
import { isObject } from '../registry/object.js';

type Step =
  | { kind: 'field'; name: string }
  | { kind: 'index'; index: number }
  | { kind: 'all' }
  | { kind: 'filter'; path: Step[]; op: '==' | '!='; value: unknown; exists: boolean };

export class JSONPathError extends Error {}

function parseSteps(src: string): Step[] {
  const steps: Step[] = [];
  let i = 0;
  const name = () => {
    const m = /^[A-Za-z0-9_$-]*/.exec(src.slice(i));
    const n = m?.[0] ?? '';
    i += n.length;
    return n;
  };
  while (i < src.length) {
    const c = src[i];
    if (c === '.') {
      i++;
      if (src[i] === '*') {
        i++;
        steps.push({ kind: 'all' });
        continue;
      }
      const n = name();
      if (n !== '') steps.push({ kind: 'field', name: n });
      continue;
    }
    if (c === '[') {
      const end = src.indexOf(']', i);
      if (end < 0) throw new JSONPathError(`unterminated array`);
      const inner = src.slice(i + 1, end).trim();
      if (inner.startsWith('?(')) {
        const close = src.indexOf(')]', i);
        if (close < 0) throw new JSONPathError('unclosed filter');
        steps.push(parseFilter(src.slice(i + 3, close).trim()));
        i = close + 2;
        continue;
      }
      i = end + 1;
      if (inner === '*') steps.push({ kind: 'all' });
      else if (/^-?\d+$/.test(inner)) steps.push({ kind: 'index', index: Number(inner) });
      else if (/^'.*'$|^".*"$/.test(inner)) steps.push({ kind: 'field', name: inner.slice(1, -1) });
      else throw new JSONPathError(`invalid array index ${inner}`);
      continue;
    }
    if (c === '@' || c === '$') {
      i++;
      continue;
    }
    const n = name();
    if (n === '') throw new JSONPathError(`unrecognized character in action: ${c}`);
    steps.push({ kind: 'field', name: n });
  }
  return steps;
}

function parseFilter(expr: string): Step {
  const m = /^@((?:\.[A-Za-z0-9_$-]+|\[[^\]]*\])*)\s*(==|!=)\s*(.+)$/.exec(expr);
  if (!m) {
    const exists = /^@((?:\.[A-Za-z0-9_$-]+)+)$/.exec(expr);
    if (!exists) throw new JSONPathError(`unrecognized filter ${expr}`);
    return { kind: 'filter', path: parseSteps(exists[1] ?? ''), op: '==', value: undefined, exists: true };
  }
  const raw = (m[3] ?? '').trim();
  let value: unknown;
  if (/^'.*'$|^".*"$/.test(raw)) value = raw.slice(1, -1);
  else if (raw === 'true' || raw === 'false') value = raw === 'true';
  else if (!Number.isNaN(Number(raw))) value = Number(raw);
  else throw new JSONPathError(`unrecognized filter value ${raw}`);
  return { kind: 'filter', path: parseSteps(m[1] ?? ''), op: m[2] as '==' | '!=', value, exists: false };
}

/** Parses a printer column's path (`.spec.size`); throws JSONPathError when it cannot be used. */
export function parseJSONPath(path: string): Step[] {
  const src = path.trim().replace(/^\{/, '').replace(/\}$/, '');
  return parseSteps(src);
}

function apply(steps: readonly Step[], roots: unknown[]): unknown[] {
  let current = roots;
  for (const step of steps) {
    const next: unknown[] = [];
    for (const v of current) {
      if (step.kind === 'field') {
        if (isObject(v) && v[step.name] !== undefined) next.push(v[step.name]);
      } else if (step.kind === 'index') {
        if (Array.isArray(v)) {
          const at = step.index < 0 ? v.length + step.index : step.index;
          if (at >= 0 && at < v.length) next.push(v[at]);
        }
      } else if (step.kind === 'all') {
        if (Array.isArray(v)) next.push(...v);
        else if (isObject(v)) for (const k of Object.keys(v).sort()) next.push(v[k]);
      } else {
        const items = Array.isArray(v) ? v : isObject(v) ? Object.values(v) : [];
        for (const item of items) {
          const found = apply(step.path, [item]);
          if (step.exists) {
            if (found.length > 0) next.push(item);
            continue;
          }
          const equal = found.length > 0 && found[0] === step.value;
          if (step.op === '==' ? equal : found.length > 0 && !equal) next.push(item);
        }
      }
    }
    current = next;
  }
  return current;
}

/** The values the path finds in obj (none when a key is missing). */
export function findResults(steps: readonly Step[], obj: unknown): unknown[] {
  return apply(steps, [obj]);
}

/**
 * A value as client-go's JSONPath.PrintResults prints it: maps and lists as Go's json.Marshal writes them, other
 * values with Go's fmt of decoded JSON.
 */
export function printValue(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return goNumber(v);
  if (typeof v === 'boolean') return String(v);
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'object') return goJsonMarshalSorted(v);
  return String(v);
}
