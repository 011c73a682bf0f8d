/**
 * The JobSpec rules shared by Jobs and CronJob job templates: SetDefaults_Job's spec defaults and upstream's
 * validateJobSpec (counts and their limits, managedBy, completion mode, pod failure, success and replacement
 * policies, the pod template and its restartPolicy), with upstream's messages; and the index lists of Indexed Jobs
 * (`1,3-5`), as upstream's validation reads them.
 */
import {
  duplicate,
  type FieldError,
  type FieldPath,
  invalid,
  notSupported,
  OMIT_VALUE,
  required,
  tooLong,
  tooMany,
} from '../../../api/field-errors.js';
import { GoValue, goQuote } from '../../../api/validation/go-format.js';
import { isQualifiedName } from '../../../api/validation/names.js';
import { defaultPodTemplate } from './apps-pod-template-defaults.js';
import { validatePodTemplateSpec } from './core-pod-validation.js';
import { defaultString, defaultValue, list, num, type Rec, rec, records, str, unset } from './groups-fields.js';
import { domainPrefixedPathErrors, nonNegative } from './groups-validation.js';
import { templateWarnings } from './pod-warnings.js';

const MAX_INT32 = 2147483647;
/** Upstream's limits of a JobSpec. */
const MAX_INDEXED_PARALLELISM = 100_000;
const MAX_FAILED_INDEXES = 100_000;
const COMPLETIONS_SOFT_LIMIT = 100_000;
const HIGH_COMPLETIONS_LIMIT = 10_000;
const MAX_POD_FAILURE_POLICY_RULES = 20;
const MAX_EXIT_CODE_VALUES = 255;
const MAX_POD_CONDITION_PATTERNS = 20;
const MAX_MANAGED_BY_LENGTH = 63;
const MAX_SUCCEEDED_INDEXES_LENGTH = 64 * 1024;
const MAX_SUCCESS_POLICY_RULES = 20;

/** One interval of an index list (`3` or `3-5`) below completions, or upstream's message for why it is not. */
function indexInterval(fragment: string, completions: number): [number, number] | string {
  const limits = fragment.split('-');
  if (limits.length > 2) {
    return `the fragment ${goQuote(fragment)} violates the requirement that an index interval can have at most two parts separated by '-'`;
  }
  const bounds: number[] = [];
  for (const limit of limits) {
    // strconv.Atoi: an optional sign, then decimal digits.
    const n = /^[+-]?[0-9]+$/.test(limit) ? Number(limit) : Number.NaN;
    if (!Number.isSafeInteger(n)) return `cannot convert string to integer for index: ${goQuote(limit)}`;
    if (n >= completions) return `too large index: ${goQuote(limit)}`;
    bounds.push(n);
  }
  const [x = 0, y = x] = bounds;
  if (bounds.length > 1 && x >= y) return `non-increasing order, previous: ${x}, current: ${y}`;
  return [x, y];
}

/**
 * Upstream's validateIndexesFormat: how many indexes an index list (`1,3-5`) names, or why it is not one (strictly
 * increasing intervals, every index below completions).
 */
export function countIndexes(indexes: string, completions: number): { total: number } | { error: string } {
  if (indexes === '') return { total: 0 };
  let last: number | undefined;
  let total = 0;
  for (const fragment of indexes.split(',')) {
    const interval = indexInterval(fragment, completions);
    if (typeof interval === 'string') return { error: interval };
    const [x, y] = interval;
    if (last !== undefined && last >= x) return { error: `non-increasing order, previous: ${last}, current: ${x}` };
    total += y - x + 1;
    last = y;
  }
  return { total };
}

/**
 * Upstream's validateFailedIndexesNotOverlapCompleted: the first index both lists name, walking their intervals in
 * order (intervals that do not parse are passed over; the format checks report them).
 */
export function firstOverlap(completed: string, failed: string, completions: number): number | undefined {
  if (completed === '' || failed === '') return undefined;
  const parse = (list: string[], i: number) => (i < list.length ? indexInterval(list[i] as string, completions) : '');
  const cs = completed.split(',');
  const fs = failed.split(',');
  let ci = 0;
  let fi = 0;
  let c = parse(cs, ci);
  let f = parse(fs, fi);
  while (ci < cs.length && fi < fs.length) {
    if (typeof c === 'string') c = parse(cs, ++ci);
    else if (typeof f === 'string') f = parse(fs, ++fi);
    else {
      if (c[0] <= f[1] && f[0] <= c[1]) return Math.max(c[0], f[0]);
      if (c[0] <= f[0]) c = parse(cs, ++ci);
      else f = parse(fs, ++fi);
    }
  }
  return undefined;
}

/** validateSuccessPolicy of an Indexed Job. */
function validateSuccessPolicy(spec: Rec, at: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const rules = list(rec(spec.successPolicy).rules);
  const rulesPath = at.child('rules');
  if (rules.length === 0) {
    errs.push(required(rulesPath, 'at least one rules must be specified when the successPolicy is specified'));
  }
  if (rules.length > MAX_SUCCESS_POLICY_RULES) errs.push(tooMany(rulesPath, rules.length, MAX_SUCCESS_POLICY_RULES));
  const completions = typeof spec.completions === 'number' ? spec.completions : undefined;
  rules.forEach((r, i) => {
    const rule = rec(r);
    const rulePath = rulesPath.index(i);
    if (unset(rule.succeededCount) && unset(rule.succeededIndexes)) {
      errs.push(required(rulePath, 'at least one of succeededCount or succeededIndexes must be specified'));
    }
    let total = 0;
    if (!unset(rule.succeededIndexes) && completions !== undefined) {
      const indexes = str(rule.succeededIndexes);
      const indexesPath = rulePath.child('succeededIndexes');
      if (indexes.length > MAX_SUCCEEDED_INDEXES_LENGTH) {
        errs.push(tooLong(indexesPath, MAX_SUCCEEDED_INDEXES_LENGTH));
      }
      const counted = countIndexes(indexes, completions);
      if ('error' in counted) {
        errs.push(invalid(indexesPath, indexes, `error parsing succeededIndexes: ${counted.error}`));
      } else total = counted.total;
    }
    if (typeof rule.succeededCount === 'number' && completions !== undefined) {
      const count = rule.succeededCount;
      const countPath = rulePath.child('succeededCount');
      errs.push(...nonNegative(count, countPath));
      if (count > completions) {
        errs.push(
          invalid(
            countPath,
            count,
            `must be less than or equal to ${completions} (the number of specified completions)`,
          ),
        );
      }
      if (!unset(rule.succeededIndexes) && count > total) {
        errs.push(
          invalid(
            countPath,
            count,
            `must be less than or equal to ${total} (the number of indexes in the specified succeededIndexes field)`,
          ),
        );
      }
    }
  });
  return errs;
}

/** SetDefaults_PodFailurePolicyOnPodConditionsPattern and the pod template defaults: what every JobSpec gets. */
export function defaultJobSpecTemplate(spec: Rec, kind: string): void {
  for (const rule of records(rec(spec.podFailurePolicy).rules)) {
    for (const pattern of records(rule.onPodConditions)) defaultString(pattern, 'status', 'True');
  }
  defaultPodTemplate(spec, kind);
}

/** SetDefaults_Job's spec part (a Job's; CronJob templates get only defaultJobSpecTemplate). */
export function defaultJobSpec(spec: Rec): void {
  if (unset(spec.completions) && unset(spec.parallelism)) {
    spec.completions = 1;
    spec.parallelism = 1;
  }
  defaultValue(spec, 'parallelism', 1);
  defaultValue(spec, 'backoffLimit', unset(spec.backoffLimitPerIndex) ? 6 : MAX_INT32);
  defaultValue(spec, 'completionMode', 'NonIndexed');
  defaultValue(spec, 'suspend', false);
  defaultValue(spec, 'podReplacementPolicy', unset(spec.podFailurePolicy) ? 'TerminatingOrFailed' : 'Failed');
  defaultValue(spec, 'manualSelector', false);
  defaultJobSpecTemplate(spec, 'Job');
}

const ACTIONS = ['Count', 'FailIndex', 'FailJob', 'Ignore'];
const STATUSES = ['False', 'True', 'Unknown'];
const quotedList = (values: string[]) => `[${values.map(goQuote).join(' ')}]`;

function validatePodFailureRule(spec: Rec, rule: Rec, at: FieldPath, containers: Set<string>): FieldError[] {
  const errs: FieldError[] = [];
  const action = str(rule.action);
  if (action === '') errs.push(required(at.child('action'), `valid values: ${quotedList(ACTIONS)}`));
  else if (action === 'FailIndex') {
    if (unset(spec.backoffLimitPerIndex))
      errs.push(invalid(at.child('action'), action, 'requires the backoffLimitPerIndex to be set'));
  } else if (!ACTIONS.includes(action)) errs.push(notSupported(at.child('action'), action, ACTIONS));
  const onExitCodes = rule.onExitCodes;
  const onPodConditions = list(rule.onPodConditions);
  if (!unset(onExitCodes)) {
    const e = rec(onExitCodes);
    const ePath = at.child('onExitCodes');
    const op = str(e.operator);
    if (op === '') errs.push(required(ePath.child('operator'), `valid values: ${quotedList(['In', 'NotIn'])}`));
    else if (op !== 'In' && op !== 'NotIn') errs.push(notSupported(ePath.child('operator'), op, ['In', 'NotIn']));
    if (!unset(e.containerName) && !containers.has(str(e.containerName))) {
      errs.push(
        invalid(
          ePath.child('containerName'),
          str(e.containerName),
          'must be one of the container or initContainer names in the pod template',
        ),
      );
    }
    const values = list(e.values).map((v) => (typeof v === 'number' ? v : 0));
    const shown = new GoValue(Array.isArray(e.values) ? `[]int32{${values.join(', ')}}` : '[]int32(nil)');
    if (values.length === 0) errs.push(invalid(ePath.child('values'), shown, 'at least one value is required'));
    else if (values.length > MAX_EXIT_CODE_VALUES) {
      errs.push(tooMany(ePath.child('values'), values.length, MAX_EXIT_CODE_VALUES));
    }
    const seen = new Set<number>();
    let ordered = true;
    values.forEach((v, j) => {
      if (op === 'In' && v === 0)
        errs.push(invalid(ePath.child('values').index(j), v, 'must not be 0 for the In operator'));
      if (seen.has(v)) errs.push(duplicate(ePath.child('values').index(j), v));
      seen.add(v);
      if (j > 0 && (values[j - 1] ?? 0) > v) ordered = false;
    });
    if (!ordered) errs.push(invalid(ePath.child('values'), shown, 'must be ordered'));
  }
  if (onPodConditions.length > MAX_POD_CONDITION_PATTERNS) {
    errs.push(tooMany(at.child('onPodConditions'), onPodConditions.length, MAX_POD_CONDITION_PATTERNS));
  }
  onPodConditions.map(rec).forEach((pattern, j) => {
    const pPath = at.child('onPodConditions').index(j);
    for (const msg of isQualifiedName(str(pattern.type)))
      errs.push(invalid(pPath.child('type'), str(pattern.type), msg));
    const status = str(pattern.status);
    if (status === '') errs.push(required(pPath.child('status'), `valid values: ${quotedList(STATUSES)}`));
    else if (!STATUSES.includes(status)) errs.push(notSupported(pPath.child('status'), status, STATUSES));
  });
  if (!unset(onExitCodes) && onPodConditions.length > 0) {
    errs.push(invalid(at, OMIT_VALUE, 'specifying both OnExitCodes and OnPodConditions is not supported'));
  }
  if (unset(onExitCodes) && onPodConditions.length === 0) {
    errs.push(invalid(at, OMIT_VALUE, 'specifying one of OnExitCodes and OnPodConditions is required'));
  }
  return errs;
}

function validateRestartPolicy(spec: Rec, at: FieldPath): FieldError[] {
  const policy = str(rec(rec(spec.template).spec).restartPolicy);
  const policyPath = at.child('template', 'spec', 'restartPolicy');
  if (policy === 'Always' || policy === '') return [required(policyPath, 'valid values: "OnFailure", "Never"')];
  if (policy !== 'OnFailure' && policy !== 'Never') return [notSupported(policyPath, policy, ['OnFailure', 'Never'])];
  if (!unset(spec.podFailurePolicy) && policy !== 'Never') {
    return [invalid(policyPath, policy, 'only "Never" is supported when podFailurePolicy is specified')];
  }
  return [];
}

/** Upstream's validateJobSpec: everything of a JobSpec but its selector. */
export function validateJobSpec(spec: Rec, at: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  for (const key of [
    'parallelism',
    'completions',
    'activeDeadlineSeconds',
    'backoffLimit',
    'ttlSecondsAfterFinished',
    'backoffLimitPerIndex',
    'maxFailedIndexes',
  ]) {
    errs.push(...nonNegative(spec[key], at.child(key)));
  }
  if (!unset(spec.maxFailedIndexes) && unset(spec.backoffLimitPerIndex)) {
    errs.push(required(at.child('backoffLimitPerIndex'), 'when maxFailedIndexes is specified'));
  }
  if (!unset(spec.managedBy)) {
    const managedBy = str(spec.managedBy);
    errs.push(...domainPrefixedPathErrors(at.child('managedBy'), managedBy));
    if (managedBy.length > MAX_MANAGED_BY_LENGTH) errs.push(tooLong(at.child('managedBy'), MAX_MANAGED_BY_LENGTH));
  }
  const mode = unset(spec.completionMode) ? undefined : str(spec.completionMode);
  if (mode !== undefined && mode !== 'NonIndexed' && mode !== 'Indexed') {
    errs.push(notSupported(at.child('completionMode'), mode, ['NonIndexed', 'Indexed']));
  }
  if (mode === 'Indexed') {
    if (unset(spec.completions)) errs.push(required(at.child('completions'), 'when completion mode is Indexed'));
    const parallelism = typeof spec.parallelism === 'number' ? spec.parallelism : undefined;
    const completions = typeof spec.completions === 'number' ? spec.completions : undefined;
    const maxFailed = typeof spec.maxFailedIndexes === 'number' ? spec.maxFailedIndexes : undefined;
    if (parallelism !== undefined && parallelism > MAX_INDEXED_PARALLELISM) {
      errs.push(
        invalid(
          at.child('parallelism'),
          parallelism,
          `must be less than or equal to ${MAX_INDEXED_PARALLELISM} when completion mode is Indexed`,
        ),
      );
    }
    if (completions !== undefined && maxFailed !== undefined && maxFailed > completions) {
      errs.push(invalid(at.child('maxFailedIndexes'), maxFailed, 'must be less than or equal to completions'));
    }
    if (maxFailed !== undefined && maxFailed > MAX_FAILED_INDEXES) {
      errs.push(
        invalid(at.child('maxFailedIndexes'), maxFailed, `must be less than or equal to ${MAX_FAILED_INDEXES}`),
      );
    }
    if (completions !== undefined && completions > COMPLETIONS_SOFT_LIMIT && !unset(spec.backoffLimitPerIndex)) {
      const why = `when completions are above ${COMPLETIONS_SOFT_LIMIT} and used with backoff limit per index`;
      if (maxFailed === undefined) {
        errs.push(
          required(
            at.child('maxFailedIndexes'),
            `must be specified when completions is above ${COMPLETIONS_SOFT_LIMIT}`,
          ),
        );
      }
      for (const [key, value] of [
        ['parallelism', parallelism],
        ['maxFailedIndexes', maxFailed],
      ] as const) {
        if (value !== undefined && value > HIGH_COMPLETIONS_LIMIT) {
          errs.push(invalid(at.child(key), value, `must be less than or equal to ${HIGH_COMPLETIONS_LIMIT} ${why}`));
        }
      }
    }
  } else {
    if (!unset(spec.backoffLimitPerIndex))
      errs.push(
        invalid(at.child('backoffLimitPerIndex'), spec.backoffLimitPerIndex, 'requires indexed completion mode'),
      );
    if (!unset(spec.maxFailedIndexes))
      errs.push(invalid(at.child('maxFailedIndexes'), spec.maxFailedIndexes, 'requires indexed completion mode'));
  }
  if (!unset(spec.podFailurePolicy)) {
    const rules = records(rec(spec.podFailurePolicy).rules);
    if (rules.length > MAX_POD_FAILURE_POLICY_RULES) {
      errs.push(tooMany(at.child('podFailurePolicy', 'rules'), rules.length, MAX_POD_FAILURE_POLICY_RULES));
    }
    const podSpec = rec(rec(spec.template).spec);
    const containers = new Set(
      [...records(podSpec.containers), ...records(podSpec.initContainers)].map((c) => str(c.name)),
    );
    rules.forEach((rule, i) => {
      errs.push(...validatePodFailureRule(spec, rule, at.child('podFailurePolicy', 'rules').index(i), containers));
    });
  }
  if (!unset(spec.successPolicy)) {
    if (mode !== 'Indexed') {
      errs.push(
        invalid(at.child('successPolicy'), new GoValue('batch.SuccessPolicy{…}'), 'requires indexed completion mode'),
      );
    } else errs.push(...validateSuccessPolicy(spec, at.child('successPolicy')));
  }
  if (!unset(spec.podReplacementPolicy)) {
    const policy = str(spec.podReplacementPolicy);
    if (!unset(spec.podFailurePolicy)) {
      if (policy !== 'Failed') errs.push(notSupported(at.child('podReplacementPolicy'), policy, ['Failed']));
    } else if (policy !== 'Failed' && policy !== 'TerminatingOrFailed') {
      errs.push(notSupported(at.child('podReplacementPolicy'), policy, ['Failed', 'TerminatingOrFailed']));
    }
  }
  errs.push(...validatePodTemplateSpec(spec.template, at.child('template')));
  errs.push(...validateRestartPolicy(spec, at));
  return errs;
}

/**
 * WarningsForJobSpec: an Indexed Job past upstream's soft limits (more than 10^5 completions and 10^4 parallelism),
 * whose failed indexes may not all be tracked, then the pod template's warnings.
 */
export function jobSpecWarnings(spec: unknown, at: FieldPath): string[] {
  const s = rec(spec);
  const warnings: string[] = [];
  if (s.completionMode === 'Indexed' && num(s.completions) > 100_000 && num(s.parallelism) > 10_000) {
    warnings.push(
      `${at}: In Indexed Jobs with a number of completions higher than 10^5 and a parallelism higher than 10^4, Kubernetes might not be able to track completedIndexes when a big number of indexes fail`,
    );
  }
  return [...warnings, ...templateWarnings(s.template, at.child('template'))];
}
