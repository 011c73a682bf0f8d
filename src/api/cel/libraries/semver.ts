/**
 * Kubernetes' semver library (in the base environment from v1.33): semver("1.2.3"), semver(s, true) with
 * normalization, isSemver(s) and isSemver(s, true), and a Semver's major, minor, patch, compareTo, isLessThan and
 * isGreaterThan. Versions are read as upstream's parser (blang/semver v4) reads them, with its error texts, and
 * compared as it compares them: pre-release identifiers one by one (numbers below words, a version without any
 * above one with some), build metadata ignored.
 */
import type { Environment } from '@marcbachmann/cel-js';
import { chargeCost, stringCost } from '../cost.js';
import { CelEvaluationError } from '../errors.js';

const NUMBERS = /^[0-9]*$/;
const ALPHANUMERIC = /^[0-9A-Za-z-]*$/;
const UINT64_MAX = (1n << 64n) - 1n;

/** A semantic version as a CEL value of type kubernetes.Semver. */
export class CelSemver {
  constructor(
    readonly major: bigint,
    readonly minor: bigint,
    readonly patch: bigint,
    /** Pre-release identifiers: numbers as bigint, the others as strings. */
    readonly pre: readonly (bigint | string)[],
    readonly build: readonly string[],
  ) {}

  toString(): string {
    const pre = this.pre.length > 0 ? `-${this.pre.join('.')}` : '';
    const build = this.build.length > 0 ? `+${this.build.join('.')}` : '';
    return `${this.major}.${this.minor}.${this.patch}${pre}${build}`;
  }
}

const hasLeadingZero = (s: string) => s.length > 1 && s[0] === '0';

/** Go's strconv.ParseUint(s, 10, 64), with its error texts. */
function parseUint(s: string): bigint {
  if (s === '' || !NUMBERS.test(s)) throw new Error(`strconv.ParseUint: parsing ${JSON.stringify(s)}: invalid syntax`);
  const n = BigInt(s);
  if (n > UINT64_MAX) throw new Error(`strconv.ParseUint: parsing ${JSON.stringify(s)}: value out of range`);
  return n;
}

function versionNumber(s: string, name: 'major' | 'minor' | 'patch'): bigint {
  if (!NUMBERS.test(s)) throw new Error(`Invalid character(s) found in ${name} number ${JSON.stringify(s)}`);
  const title = `${name[0]?.toUpperCase()}${name.slice(1)}`;
  if (hasLeadingZero(s)) throw new Error(`${title} number must not contain leading zeroes ${JSON.stringify(s)}`);
  return parseUint(s);
}

function preRelease(s: string): bigint | string {
  if (s === '') throw new Error('Prerelease is empty');
  if (NUMBERS.test(s)) {
    if (hasLeadingZero(s)) {
      throw new Error(`Numeric PreRelease version must not contain leading zeroes ${JSON.stringify(s)}`);
    }
    return parseUint(s);
  }
  if (!ALPHANUMERIC.test(s)) throw new Error(`Invalid character(s) found in prerelease ${JSON.stringify(s)}`);
  return s;
}

/** Parses a version as blang/semver v4's Parse does, throwing its errors. */
export function parseSemver(s: string): CelSemver {
  if (s === '') throw new Error('Version string empty');
  const parts = splitN(s, '.', 3);
  if (parts.length !== 3) throw new Error('No Major.Minor.Patch elements found');
  const major = versionNumber(parts[0] as string, 'major');
  const minor = versionNumber(parts[1] as string, 'minor');
  let patch = parts[2] as string;
  let build: string[] = [];
  let pre: string[] = [];
  const plus = patch.indexOf('+');
  if (plus >= 0) {
    build = patch.slice(plus + 1).split('.');
    patch = patch.slice(0, plus);
  }
  const dash = patch.indexOf('-');
  if (dash >= 0) {
    pre = patch.slice(dash + 1).split('.');
    patch = patch.slice(0, dash);
  }
  const patchNumber = versionNumber(patch, 'patch');
  const preIds = pre.map(preRelease);
  for (const b of build) {
    if (b === '') throw new Error('Build meta data is empty');
    if (!ALPHANUMERIC.test(b)) throw new Error(`Invalid character(s) found in build meta data ${JSON.stringify(b)}`);
  }
  return new CelSemver(major, minor, patchNumber, preIds, build);
}

/** Go's strings.SplitN: at most n parts, the last holding the rest. */
function splitN(s: string, sep: string, n: number): string[] {
  const out: string[] = [];
  let rest = s;
  while (out.length < n - 1) {
    const at = rest.indexOf(sep);
    if (at < 0) break;
    out.push(rest.slice(0, at));
    rest = rest.slice(at + 1);
  }
  out.push(rest);
  return out;
}

/**
 * The normalizing parse of semver(s, true): a leading "v" dropped, leading zeros of the first three parts removed,
 * a missing minor or patch filled with 0 (refused when the short version carries pre-release or build data).
 */
export function normalizeAndParseSemver(s: string): CelSemver {
  const parts = splitN(s.startsWith('v') ? s.slice(1) : s, '.', 3).map((p) => {
    if (p.length <= 1) return p;
    const trimmed = p.replace(/^0+/, '');
    return trimmed === '' || !/^[0-9]/.test(trimmed) ? `0${trimmed}` : trimmed;
  });
  if (parts.length < 3) {
    if (/[+-]/.test(parts[parts.length - 1] as string)) {
      throw new Error('short version cannot contain PreRelease/Build meta data');
    }
    while (parts.length < 3) parts.push('0');
  }
  return parseSemver(parts.join('.'));
}

const sign = (a: bigint, b: bigint) => (a > b ? 1 : a < b ? -1 : 0);

function comparePre(a: bigint | string, b: bigint | string): number {
  if (typeof a === 'bigint' && typeof b === 'bigint') return sign(a, b);
  if (typeof a === 'string' && typeof b === 'string') return a > b ? 1 : a < b ? -1 : 0;
  return typeof a === 'bigint' ? -1 : 1;
}

/** blang/semver's Compare: -1, 0 or 1. */
export function compareSemver(a: CelSemver, b: CelSemver): number {
  const byNumbers = sign(a.major, b.major) || sign(a.minor, b.minor) || sign(a.patch, b.patch);
  if (byNumbers !== 0) return byNumbers;
  // A version without pre-release identifiers is above one with some.
  if (a.pre.length === 0 && b.pre.length === 0) return 0;
  if (a.pre.length === 0) return 1;
  if (b.pre.length === 0) return -1;
  for (let i = 0; i < a.pre.length && i < b.pre.length; i++) {
    const c = comparePre(a.pre[i] as bigint | string, b.pre[i] as bigint | string);
    if (c !== 0) return c;
  }
  return sign(BigInt(a.pre.length), BigInt(b.pre.length));
}

function semver(s: string, normalize: boolean): CelSemver {
  chargeCost(stringCost(s.length));
  try {
    return normalize ? normalizeAndParseSemver(s) : parseSemver(s);
  } catch (err) {
    throw new CelEvaluationError((err as Error).message);
  }
}

function isSemver(s: string, normalize: boolean): boolean {
  try {
    semver(s, normalize);
    return true;
  } catch {
    return false;
  }
}

/** Go's int64 of a uint64, as upstream's types.Int(v.Major) converts it. */
const asInt64 = (n: bigint) => BigInt.asIntN(64, n);

export function registerSemverLibrary(env: Environment): void {
  const S = 'kubernetes.Semver';
  env
    .registerType(S, CelSemver)
    .registerFunction(`semver(string): ${S}`, (s: string) => semver(s, false))
    .registerFunction(`semver(string, bool): ${S}`, (s: string, normalize: boolean) => semver(s, normalize))
    .registerFunction('isSemver(string): bool', (s: string) => isSemver(s, false))
    .registerFunction('isSemver(string, bool): bool', (s: string, normalize: boolean) => isSemver(s, normalize))
    .registerFunction(`${S}.major(): int`, (v: CelSemver) => asInt64(v.major))
    .registerFunction(`${S}.minor(): int`, (v: CelSemver) => asInt64(v.minor))
    .registerFunction(`${S}.patch(): int`, (v: CelSemver) => asInt64(v.patch))
    .registerFunction(`${S}.compareTo(${S}): int`, (a: CelSemver, b: CelSemver) => BigInt(compareSemver(a, b)))
    .registerFunction(`${S}.isLessThan(${S}): bool`, (a: CelSemver, b: CelSemver) => compareSemver(a, b) < 0)
    .registerFunction(`${S}.isGreaterThan(${S}): bool`, (a: CelSemver, b: CelSemver) => compareSemver(a, b) > 0)
    .registerOperator(`${S} == ${S}`, (a: CelSemver, b: CelSemver) => compareSemver(a, b) === 0);
}
