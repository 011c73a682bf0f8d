/**
 * How upstream's validation messages print the Go values behind some JSON fields (`%#v` of maps, label selectors,
 * IntOrString and structs holding pointers). Go prints a set pointer as its address, which no one can reproduce;
 * we print a fixed placeholder address in its place, as object-meta validation does for owner references.
 */
import { GoValue, goQuote, goStringSlice } from '../../../api/validation/go-format.js';
import { isObject } from '../object.js';
import { list, str, unset } from './groups-fields.js';

export const GO_POINTER = '0xc000000000';

const byteOrder = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** `map[string]string{"a":"b"}` (keys sorted), or `map[string]string(nil)` when absent. */
export function goStringMapText(v: unknown): string {
  if (!isObject(v)) return 'map[string]string(nil)';
  const entries = Object.entries(v).sort(([a], [b]) => byteOrder(a, b));
  return `map[string]string{${entries.map(([k, val]) => `${goQuote(k)}:${goQuote(str(val))}`).join(', ')}}`;
}

export function goStringMap(v: unknown): GoValue {
  return new GoValue(goStringMapText(v));
}

function goRequirement(r: unknown): string {
  const req = isObject(r) ? r : {};
  const values = Array.isArray(req.values) ? goStringSlice(req.values.map(str)).text : '[]string(nil)';
  return `v1.LabelSelectorRequirement{Key:${goQuote(str(req.key))}, Operator:${goQuote(str(req.operator))}, Values:${values}}`;
}

/** `v1.LabelSelector{MatchLabels:…, MatchExpressions:…}`, as a dereferenced *metav1.LabelSelector prints. */
export function goLabelSelectorText(v: unknown): string {
  const sel = isObject(v) ? v : {};
  const exprs = Array.isArray(sel.matchExpressions)
    ? `[]v1.LabelSelectorRequirement{${sel.matchExpressions.map(goRequirement).join(', ')}}`
    : '[]v1.LabelSelectorRequirement(nil)';
  return `v1.LabelSelector{MatchLabels:${goStringMapText(sel.matchLabels)}, MatchExpressions:${exprs}}`;
}

/** A label selector as a field error's value: `null` when absent, else its Go syntax. */
export function goLabelSelector(v: unknown): GoValue | null {
  return unset(v) ? null : new GoValue(goLabelSelectorText(v));
}

/** `intstr.IntOrString{Type:1, IntVal:0, StrVal:"25%"}` for a JSON number or string. */
export function goIntOrStringText(v: unknown): string {
  if (typeof v === 'string') return `intstr.IntOrString{Type:1, IntVal:0, StrVal:${goQuote(v)}}`;
  const n = typeof v === 'number' ? v : 0;
  return `intstr.IntOrString{Type:0, IntVal:${n}, StrVal:""}`;
}

export function goIntOrString(v: unknown): GoValue {
  return new GoValue(goIntOrStringText(v));
}

/** `(*T)(nil)` or `(*T)(0xc000000000)`: how a pointer field prints inside a struct. */
export function goPointer(type: string, v: unknown): string {
  return `(*${type})(${unset(v) ? 'nil' : GO_POINTER})`;
}

/** A Go struct literal from already-rendered fields: `pkg.Type{A:1, B:"x"}`. */
export function goStruct(type: string, fields: Array<[string, string]>): GoValue {
  return new GoValue(`${type}{${fields.map(([k, v]) => `${k}:${v}`).join(', ')}}`);
}

/** `[]string{"a"}`, `[]string(nil)` when absent. */
export function goStrings(v: unknown): string {
  return Array.isArray(v) ? goStringSlice(list(v).map(str)).text : '[]string(nil)';
}
