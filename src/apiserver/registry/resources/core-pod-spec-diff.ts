/**
 * The difference between two pod specs, for the message that refuses a pod update. Upstream prints a Go struct
 * diff; we print the changed fields by JSON path, one `-` line for the stored value and one `+` line for the new.
 */
import { isObject, jsonEqual } from '../object.js';

function changes(before: unknown, after: unknown, at: string, out: string[]): void {
  if (jsonEqual(before, after)) return;
  if (isObject(before) && isObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    for (const key of keys) changes(before[key], after[key], `${at}.${key}`, out);
    return;
  }
  if (Array.isArray(before) && Array.isArray(after) && before.length === after.length) {
    before.forEach((item, i) => void changes(item, after[i], `${at}[${i}]`, out));
    return;
  }
  if (before !== undefined) out.push(`- ${at}: ${JSON.stringify(before)}`);
  if (after !== undefined) out.push(`+ ${at}: ${JSON.stringify(after)}`);
}

export function describeSpecChange(before: unknown, after: unknown): string {
  const out: string[] = [];
  changes(before, after, 'spec', out);
  return out.join('\n');
}
