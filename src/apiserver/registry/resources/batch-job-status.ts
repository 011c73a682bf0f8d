/**
 * What a write of a Job's status may change: upstream's ValidateJobStatusUpdate with the options its status strategy
 * turns on in v1.33 (where JobManagedBy is on, so that a Job's status written by another controller keeps the Job
 * API's promises). Counters never go down, terminal conditions stay, a Job finishes only through FailureTarget or
 * SuccessCriteriaMet with its pods gone and its times in order, and index lists are well formed. Most rules apply
 * only when the fields they read change, so that a status already off them (a Job just scaled down) can still be
 * written.
 */
import {
  duplicate,
  type FieldError,
  type FieldPath,
  invalid,
  OMIT_VALUE,
  path,
  required,
} from '../../../api/field-errors.js';
import { GoValue, goQuote, goTime } from '../../../api/validation/go-format.js';
import { jsonEqual, type KubeObject } from '../object.js';
import { countIndexes, firstOverlap } from './batch-job-spec.js';
import { list, num, type Rec, rec, records, str, unset } from './groups-fields.js';
import { nonNegative } from './groups-validation.js';

const conditionTrue = (status: Rec, type: string) =>
  records(status.conditions).some((c) => c.type === type && c.status === 'True');

/** The facts of one Job the rules read. */
function facts(job: KubeObject) {
  const status = rec(job.status);
  const complete = conditionTrue(status, 'Complete');
  const failed = conditionTrue(status, 'Failed');
  return {
    status,
    complete,
    failed,
    finished: complete || failed,
    failureTarget: conditionTrue(status, 'FailureTarget'),
    successCriteriaMet: conditionTrue(status, 'SuccessCriteriaMet'),
  };
}

const timeOf = (v: unknown) => (unset(v) ? undefined : Date.parse(str(v)));

/** The value upstream prints for a status time (a metav1.Time, printed by its String method). */
const shownTime = (v: unknown) => goTime(str(v));

/** `&batch.UncountedTerminatedPods{…}` as Go's %#v prints it. */
function shownUncounted(uncounted: Rec): GoValue {
  const uids = (v: unknown) =>
    Array.isArray(v) ? `[]types.UID{${v.map((u) => goQuote(str(u))).join(', ')}}` : '[]types.UID(nil)';
  return new GoValue(
    `&batch.UncountedTerminatedPods{Succeeded:${uids(uncounted.succeeded)}, Failed:${uids(uncounted.failed)}}`,
  );
}

/** Checks of validateJobStatus and ValidateJobStatusUpdate, each when its v1.33 trigger says so. */
export function validateJobStatusUpdate(job: KubeObject, old: KubeObject): FieldError[] {
  const spec = rec(job.spec);
  const now = facts(job);
  const was = facts(old);
  const s = now.status;
  const o = was.status;
  const at = (name: string): FieldPath => path('status', name);
  const conditionsError = (detail: string) => invalid(at('conditions'), OMIT_VALUE, detail);
  const changed = (key: string) => !jsonEqual(s[key] ?? null, o[key] ?? null);
  const indexed = spec.completionMode === 'Indexed';
  const completions = typeof spec.completions === 'number' ? spec.completions : undefined;
  const finishedChanged = now.finished !== was.finished;
  const completeChanged = now.complete !== was.complete;
  const failedChanged = now.failed !== was.failed;
  const completedIndexesChanged = str(s.completedIndexes) !== str(o.completedIndexes);
  const failedIndexesChanged = changed('failedIndexes');
  const activeChanged = num(s.active) !== num(o.active);
  const startTimeChanged = changed('startTime');
  const completionTimeChanged = changed('completionTime');
  const suspendedWithZeroCompletions = spec.suspend === true && spec.completions === 0;
  const errs: FieldError[] = [];

  for (const key of ['active', 'succeeded', 'failed', 'ready', 'terminating'])
    errs.push(...nonNegative(s[key], at(key)));
  const uncounted = rec(s.uncountedTerminatedPods);
  const seen = new Set<string>();
  for (const kind of ['succeeded', 'failed']) {
    list(uncounted[kind]).forEach((uid, i) => {
      const p = at('uncountedTerminatedPods').child(kind).index(i);
      const value = str(uid);
      if (value === '') errs.push(invalid(p, value, 'must not be empty'));
      else if (seen.has(value)) errs.push(duplicate(p, value));
      else seen.add(value);
    });
  }
  if ((completeChanged || failedChanged) && now.complete && now.failed) {
    errs.push(conditionsError('cannot set Complete=True and Failed=true conditions'));
  }
  if ((completeChanged || now.failureTarget !== was.failureTarget) && now.complete && now.failureTarget) {
    errs.push(conditionsError('cannot set Complete=True and FailureTarget=true conditions'));
  }
  if (completeChanged || completionTimeChanged) {
    if (!unset(s.completionTime) && !now.complete) {
      errs.push(
        invalid(
          at('completionTime'),
          shownTime(s.completionTime),
          'cannot set completionTime when there is no Complete=True condition',
        ),
      );
    }
    if (unset(s.completionTime) && now.complete) {
      errs.push(required(at('completionTime'), 'completionTime is required for Complete jobs'));
    }
  }
  const start = timeOf(s.startTime);
  const end = timeOf(s.completionTime);
  if ((startTimeChanged || completionTimeChanged) && start !== undefined && end !== undefined && end < start) {
    errs.push(
      invalid(at('completionTime'), shownTime(s.completionTime), 'completionTime cannot be set before startTime'),
    );
  }
  if ((failedChanged || failedIndexesChanged) && now.failed && !now.failureTarget) {
    errs.push(conditionsError('cannot set Failed=True condition without the FailureTarget=true condition'));
  }
  if (completeChanged && now.complete && !now.successCriteriaMet) {
    errs.push(conditionsError('cannot set Complete=True condition without the SuccessCriteriaMet=true condition'));
  }
  if ((finishedChanged || activeChanged) && num(s.active) > 0 && now.finished) {
    errs.push(invalid(at('active'), s.active, 'active>0 is invalid for finished job'));
  }
  if ((finishedChanged || startTimeChanged) && !suspendedWithZeroCompletions && unset(s.startTime) && now.finished) {
    errs.push(required(at('startTime'), 'startTime is required for finished job'));
  }
  if (
    (finishedChanged || changed('uncountedTerminatedPods')) &&
    now.finished &&
    list(uncounted.succeeded).length + list(uncounted.failed).length > 0
  ) {
    errs.push(
      invalid(
        at('uncountedTerminatedPods'),
        shownUncounted(uncounted),
        'uncountedTerminatedPods needs to be empty for finished job',
      ),
    );
  }
  if (completedIndexesChanged && completions !== undefined) {
    const counted = countIndexes(str(s.completedIndexes), completions);
    if ('error' in counted) {
      errs.push(
        invalid(at('completedIndexes'), str(s.completedIndexes), `error parsing completedIndexes: ${counted.error}`),
      );
    }
  }
  const failedIndexes = unset(s.failedIndexes) ? undefined : str(s.failedIndexes);
  if (
    failedIndexesChanged &&
    completions !== undefined &&
    !unset(spec.backoffLimitPerIndex) &&
    failedIndexes !== undefined
  ) {
    const counted = countIndexes(failedIndexes, completions);
    if ('error' in counted) {
      errs.push(invalid(at('failedIndexes'), failedIndexes, `error parsing failedIndexes: ${counted.error}`));
    }
  }
  if (completedIndexesChanged && str(s.completedIndexes) !== '' && !indexed) {
    errs.push(
      invalid(
        at('completedIndexes'),
        str(s.completedIndexes),
        'cannot set non-empty completedIndexes when non-indexed completion mode',
      ),
    );
  }
  if (failedIndexesChanged && unset(spec.backoffLimitPerIndex) && failedIndexes !== undefined) {
    errs.push(
      invalid(
        at('failedIndexes'),
        failedIndexes,
        'cannot set non-null failedIndexes when backoffLimitPerIndex is null',
      ),
    );
  }
  if ((failedIndexesChanged || completedIndexesChanged) && completions !== undefined && failedIndexes !== undefined) {
    const overlap = firstOverlap(str(s.completedIndexes), failedIndexes, completions);
    if (overlap !== undefined) {
      errs.push(
        invalid(at('failedIndexes'), failedIndexes, `failedIndexes and completedIndexes overlap at index: ${overlap}`),
      );
    }
  }
  if ((finishedChanged || changed('terminating')) && num(s.terminating) > 0 && now.finished) {
    errs.push(invalid(at('terminating'), s.terminating, 'terminating>0 is invalid for finished job'));
  }
  if ((changed('ready') || activeChanged) && !unset(s.ready) && num(s.ready) > num(s.active)) {
    errs.push(invalid(at('ready'), s.ready, 'cannot set more ready pods than active'));
  }
  if (now.successCriteriaMet && now.failed) {
    errs.push(conditionsError('cannot set SuccessCriteriaMet=True and Failed=true conditions'));
  }
  if (now.successCriteriaMet && now.failureTarget) {
    errs.push(conditionsError('cannot set SuccessCriteriaMet=True and FailureTarget=true conditions'));
  }
  if (!unset(spec.successPolicy) && !now.successCriteriaMet && now.complete) {
    errs.push(conditionsError('cannot set Complete=True for Job with SuccessPolicy unless SuccessCriteriaMet=True'));
  }

  for (const type of ['Failed', 'Complete', 'FailureTarget']) {
    if (conditionTrue(o, type) && !conditionTrue(s, type)) {
      errs.push(conditionsError(`cannot disable the terminal ${type}=True condition`));
    }
  }
  if (num(s.failed) < num(o.failed))
    errs.push(invalid(at('failed'), num(s.failed), 'cannot decrease the failed counter'));
  // An Indexed Job whose completions equal its parallelism may be scaled down, and its succeeded counter with it.
  const mayScaleDown = indexed && spec.completions === spec.parallelism;
  if (!mayScaleDown && num(s.succeeded) < num(o.succeeded)) {
    errs.push(invalid(at('succeeded'), num(s.succeeded), 'cannot decrease the succeeded counter'));
  }
  if (!unset(s.completionTime) && !unset(o.completionTime) && completionTimeChanged) {
    errs.push(invalid(at('completionTime'), shownTime(s.completionTime), 'completionTime cannot be mutated'));
  }
  if (startTimeChanged && !unset(o.startTime) && spec.suspend !== true) {
    errs.push(required(at('startTime'), 'startTime cannot be removed for unsuspended job'));
  }
  if (was.successCriteriaMet && !now.successCriteriaMet) {
    errs.push(conditionsError('cannot disable the SuccessCriteriaMet=True condition'));
  }
  if (was.complete && !was.successCriteriaMet && now.successCriteriaMet) {
    errs.push(conditionsError('cannot set SuccessCriteriaMet=True for Job already has Complete=true conditions'));
  }
  return errs;
}
