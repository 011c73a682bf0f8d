/**
 * Evaluating a pod against a level and version (upstream's policy.Evaluator): baseline runs the baseline checks;
 * restricted runs the restricted checks plus the baseline ones no restricted check replaces. Each check runs the
 * revision for the version asked; versions newer than the newest revision of any check (and `latest`) run the
 * newest. Results come in upstream's order — baseline checks by ID, then restricted checks by ID — so messages
 * read the same as upstream's.
 */
import type { Check, CheckFn, CheckResult, PodView, VersionedCheck } from './checks/check.js';
import { DEFAULT_CHECKS } from './checks/index.js';
import type { LevelVersion } from './levels.js';

/** The results of every check that ran, folded: allowed when all allowed, else the reasons and details in order. */
export interface AggregateResult {
  allowed: boolean;
  reasons: string[];
  details: string[];
}

const UNKNOWN_REASON = 'unknown forbidden reason';

export function aggregate(results: readonly CheckResult[]): AggregateResult {
  const reasons: string[] = [];
  const details: string[] = [];
  for (const r of results) {
    if (r.allowed) continue;
    reasons.push(r.reason || UNKNOWN_REASON);
    details.push(r.detail ?? '');
  }
  return { allowed: reasons.length === 0, reasons, details };
}

/** `host namespaces, privileged` — the reasons alone (what the warnings about existing pods list). */
export function forbiddenReason(r: AggregateResult): string {
  return r.reasons.join(', ');
}

/** `host namespaces (hostNetwork=true), privileged (container "a" must not …)` — reasons with their details. */
export function forbiddenDetail(r: AggregateResult): string {
  return r.reasons.map((reason, i) => (r.details[i] ? `${reason} (${r.details[i]})` : reason)).join(', ');
}

function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Refuses a check list upstream's NewEvaluator would refuse: duplicate IDs, bad levels, unordered versions. */
function validateChecks(checks: readonly Check[]): void {
  const levels = new Map<string, string>();
  for (const c of checks) {
    if (levels.has(c.id)) throw new Error(`multiple checks registered for ID ${c.id}`);
    levels.set(c.id, c.level);
    if (c.versions.length === 0) throw new Error(`check ${c.id}: empty`);
    let previous = -1;
    for (const v of c.versions) {
      if (v.minimumVersion.latest) throw new Error(`check ${c.id}: version cannot be 'latest'`);
      if (v.minimumVersion.minor <= previous) throw new Error(`check ${c.id}: versions must be strictly increasing`);
      previous = v.minimumVersion.minor;
    }
  }
  for (const c of checks) {
    for (const v of c.versions) {
      if (!v.overrides?.length) continue;
      if (c.level !== 'restricted') throw new Error(`check ${c.id}: only restricted checks may set overrides`);
      for (const id of v.overrides) {
        const level = levels.get(id);
        if (level !== undefined && level !== 'baseline')
          throw new Error(`check ${c.id}: overrides ${level} check ${id}`);
      }
    }
  }
}

/** The revision of a check that applies at v1.minor, or undefined when the check starts later. */
export function revisionAt(check: Check, minor: number): VersionedCheck | undefined {
  return check.versions.filter((v) => !v.minimumVersion.latest && v.minimumVersion.minor <= minor).at(-1);
}

/** Runs one check, by ID, as policy v1.minor runs it (undefined when it does not run at that version). */
export function runCheck(id: string, minor: number, pod: PodView, checks: readonly Check[] = DEFAULT_CHECKS) {
  const check = checks.find((c) => c.id === id);
  const revision = check && revisionAt(check, minor);
  return revision?.check(pod);
}

export class Evaluator {
  private readonly ordered: readonly Check[];
  /** The newest minor version any check has a revision for. */
  readonly maxMinor: number;
  private readonly cache = new Map<string, CheckFn[]>();

  constructor(checks: readonly Check[] = DEFAULT_CHECKS) {
    validateChecks(checks);
    const byLevel = (level: string) => checks.filter((c) => c.level === level).sort((a, b) => compareIds(a.id, b.id));
    this.ordered = [...byLevel('baseline'), ...byLevel('restricted')];
    let max = 0;
    for (const c of checks) {
      const last = c.versions[c.versions.length - 1]?.minimumVersion;
      if (last && !last.latest && last.minor > max) max = last.minor;
    }
    this.maxMinor = max;
  }

  /** The results of every check the level and version run, in order; none for privileged. */
  evaluate(lv: LevelVersion, pod: PodView): CheckResult[] {
    if (lv.level === 'privileged') return [];
    const minor = lv.version.latest || lv.version.minor > this.maxMinor ? this.maxMinor : lv.version.minor;
    return this.checksFor(lv.level, minor).map((check) => check(pod));
  }

  private checksFor(level: 'baseline' | 'restricted', minor: number): CheckFn[] {
    const key = `${level}:${minor}`;
    const cached = this.cache.get(key);
    if (cached) return cached;
    const active = (c: Check) => revisionAt(c, minor);
    const overridden = new Set<string>();
    if (level === 'restricted') {
      for (const c of this.ordered) {
        if (c.level === 'restricted') for (const id of active(c)?.overrides ?? []) overridden.add(id);
      }
    }
    const fns: CheckFn[] = [];
    for (const c of this.ordered) {
      if (c.level === 'restricted' && level === 'baseline') continue;
      if (overridden.has(c.id)) continue;
      const revision = active(c);
      if (revision) fns.push(revision.check);
    }
    this.cache.set(key, fns);
    return fns;
  }
}
