/**
 * The JobSpec rules shared by Jobs and CronJob job templates: SetDefaults_Job's spec defaults and upstream's
 * validateJobSpec (counts, completion mode, pod failure and replacement policies, the pod template and its
 * restartPolicy), with upstream's messages.
 */
import {
  duplicate,
  type FieldError,
  type FieldPath,
  invalid,
  notSupported,
  OMIT_VALUE,
  required,
} from '../../../api/field-errors.js';
import { GoValue, goQuote } from '../../../api/validation/go-format.js';
import { isQualifiedName } from '../../../api/validation/names.js';
import { defaultPodTemplate } from './apps-pod-template-defaults.js';
import { validatePodTemplateSpec } from './core-pod-validation.js';
import { defaultString, defaultValue, list, type Rec, rec, records, str, unset } from './groups-fields.js';
import { nonNegative } from './groups-validation.js';

const MAX_INT32 = 2147483647;

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
  const mode = unset(spec.completionMode) ? undefined : str(spec.completionMode);
  if (mode !== undefined && mode !== 'NonIndexed' && mode !== 'Indexed') {
    errs.push(notSupported(at.child('completionMode'), mode, ['NonIndexed', 'Indexed']));
  }
  if (mode === 'Indexed') {
    if (unset(spec.completions)) errs.push(required(at.child('completions'), 'when completion mode is Indexed'));
    if (typeof spec.parallelism === 'number' && spec.parallelism > 100000) {
      errs.push(
        invalid(
          at.child('parallelism'),
          spec.parallelism,
          'must be less than or equal to 100000 when completion mode is Indexed',
        ),
      );
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
    const podSpec = rec(rec(spec.template).spec);
    const containers = new Set(
      [...records(podSpec.containers), ...records(podSpec.initContainers)].map((c) => str(c.name)),
    );
    rules.forEach((rule, i) => {
      errs.push(...validatePodFailureRule(spec, rule, at.child('podFailurePolicy', 'rules').index(i), containers));
    });
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
