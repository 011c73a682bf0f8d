/**
 * The parts of CEL's strings extension (version 2, as upstream enables since 1.29) that the evaluator does not
 * already have: charAt, replace, format and strings.quote. (indexOf, lastIndexOf, lowerAscii, upperAscii, split,
 * substring, trim and join are built in.)
 */
import type { Environment } from '@marcbachmann/cel-js';
import { chargeCost, stringCost } from '../cost.js';
import { CelEvaluationError } from '../errors.js';
import { celMapOf } from './compare.js';

class StringsNamespace {}

function replace(s: string, from: string, to: string, n: bigint): string {
  chargeCost(stringCost(s.length));
  if (n === 0n) return s;
  if (n < 0n) return s.split(from).join(to);
  let out = s;
  let pos = 0;
  for (let i = 0n; i < n; i++) {
    const at = out.indexOf(from, pos);
    if (at < 0) break;
    out = out.slice(0, at) + to + out.slice(at + from.length);
    pos = at + to.length + (from === '' ? 1 : 0);
  }
  return out;
}

/** A value as %s prints it (CEL's string form of lists and maps). */
function display(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'bigint' || typeof v === 'boolean') return String(v);
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : String(v);
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return `[${v.map(display).join(', ')}]`;
  if (v instanceof Uint8Array) return Buffer.from(v).toString('utf8');
  if (v instanceof Date) return v.toISOString();
  const map = celMapOf(v);
  if (map) {
    const entries = [...map].map(([k, x]) => [String(k), x] as const).sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, x]) => `${k}: ${display(x)}`).join(', ')}}`;
  }
  return String(v);
}

function integer(v: unknown, verb: string): bigint {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
  throw new CelEvaluationError(`error during formatting: ${verb} formatting clause can only be used on integers`);
}

function formatString(template: string, args: unknown[]): string {
  chargeCost(stringCost(template.length) + args.length);
  let out = '';
  let next = 0;
  const take = () => {
    if (next >= args.length) throw new CelEvaluationError(`index ${next} out of range`);
    return args[next++];
  };
  for (let i = 0; i < template.length; i++) {
    const c = template[i];
    if (c !== '%') {
      out += c;
      continue;
    }
    let precision: number | undefined;
    let j = i + 1;
    if (template[j] === '.') {
      const digits = /^\d+/.exec(template.slice(j + 1))?.[0] ?? '';
      precision = Number(digits || '0');
      j += 1 + digits.length;
    }
    const verb = template[j];
    i = j;
    switch (verb) {
      case '%':
        out += '%';
        break;
      case 's':
        out += display(take());
        break;
      case 'd':
        out += integer(take(), 'decimal').toString();
        break;
      case 'f':
      case 'e': {
        const v = take();
        const n = typeof v === 'bigint' ? Number(v) : v;
        if (typeof n !== 'number') {
          throw new CelEvaluationError('error during formatting: fixed-point clause can only be used on doubles');
        }
        if (Number.isNaN(n)) out += 'NaN';
        else if (!Number.isFinite(n)) out += n > 0 ? 'Infinity' : '-Infinity';
        else if (verb === 'f') out += n.toFixed(precision ?? 6);
        else out += n.toExponential(precision ?? 6).replace(/e([+-])(\d)$/, 'e$10$2');
        break;
      }
      case 'x':
      case 'X': {
        const v = take();
        const text = typeof v === 'string' ? Buffer.from(v, 'utf8').toString('hex') : integer(v, 'hex').toString(16);
        out += verb === 'X' ? text.toUpperCase() : text;
        break;
      }
      case 'o':
        out += integer(take(), 'octal').toString(8);
        break;
      case 'b': {
        const v = take();
        out += typeof v === 'boolean' ? (v ? '1' : '0') : integer(v, 'binary').toString(2);
        break;
      }
      default:
        throw new CelEvaluationError(
          `could not parse formatting clause: unrecognized formatting clause "${verb ?? ''}"`,
        );
    }
  }
  return out;
}

export function registerStringsLibrary(env: Environment): void {
  env
    .registerType('StringsNamespace', StringsNamespace)
    .registerConstant('strings', 'StringsNamespace', new StringsNamespace())
    .registerFunction('string.charAt(int): string', (s: string, i: bigint) => {
      if (i < 0n || i > BigInt(s.length)) throw new CelEvaluationError(`index out of range: ${i}`);
      return s.charAt(Number(i));
    })
    .registerFunction('string.replace(string, string): string', (s: string, a: string, b: string) =>
      replace(s, a, b, -1n),
    )
    .registerFunction('string.replace(string, string, int): string', replace)
    .registerFunction('string.format(list): string', (s: string, args: unknown[]) => formatString(s, args))
    .registerFunction('StringsNamespace.quote(string): string', (_n: unknown, s: string) => JSON.stringify(s));
}
