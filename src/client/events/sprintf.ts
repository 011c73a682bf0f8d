/**
 * The part of Go's fmt.Sprintf that event messages use (`Eventf(obj, type, reason, "Created pod: %v", name)`):
 * %v %s %d %q %t %%, with Go's markers for a missing (`%!v(MISSING)`) or extra (`%!(EXTRA …)`) argument.
 */
import { formatGoValue } from '../../api/patch/go-format.js';

function formatValue(verb: string, arg: unknown): string {
  switch (verb) {
    case 'd':
      return typeof arg === 'number' || typeof arg === 'bigint' ? String(Math.trunc(Number(arg))) : `%!d(${show(arg)})`;
    case 'q':
      return JSON.stringify(typeof arg === 'string' ? arg : show(arg));
    case 't':
      return typeof arg === 'boolean' ? String(arg) : `%!t(${show(arg)})`;
    default:
      return show(arg);
  }
}

function show(arg: unknown): string {
  if (arg instanceof Error) return arg.message;
  if (typeof arg === 'string') return arg;
  if (typeof arg === 'bigint') return arg.toString();
  return formatGoValue(arg);
}

export function sprintf(format: string, ...args: unknown[]): string {
  let next = 0;
  const out = format.replace(/%([-+# 0]*\d*(?:\.\d+)?)([a-zA-Z%])/g, (_all, _flags: string, verb: string) => {
    if (verb === '%') return '%';
    if (next >= args.length) return `%!${verb}(MISSING)`;
    return formatValue(verb, args[next++]);
  });
  if (next < args.length) {
    const extra = args.slice(next).map((a) => `${typeof a}=${show(a)}`);
    return `${out}%!(EXTRA ${extra.join(', ')})`;
  }
  return out;
}
