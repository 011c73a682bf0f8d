/**
 * batch/v1 Jobs: upstream's defaults, the selector and pod labels generated on create (`controller-uid`,
 * `job-name` and their `batch.kubernetes.io/` forms) unless manualSelector is set, validation, the immutable parts
 * of the spec, the status subresource, the `status.successful` field selector and the Job printer.
 */
import { type FieldError, invalid, path, required } from '../../../api/field-errors.js';
import { GoValue } from '../../../api/validation/go-format.js';
import { validateLabelSelector } from '../../../api/validation/labels.js';
import { isDNS1123Label } from '../../../api/validation/names.js';
import { age, humanDuration } from '../../printers/duration.js';
import { ageColumn, nameColumn } from '../../printers/table.js';
import { isObject, jsonEqual, type KubeObject } from '../object.js';
import { selectorMatchesTemplate } from './apps-workload-validation.js';
import { defaultJobSpec, jobSpecWarnings, validateJobSpec } from './batch-job-spec.js';
import { validateJobStatusUpdate } from './batch-job-status.js';
import { type Builtin, builtin } from './common.js';
import { column, int, TEMPLATE_WIDE_COLUMNS, templateWideCells } from './groups-columns.js';
import { child, num, type Rec, rec, records, str, stringMap, unset } from './groups-fields.js';
import { goLabelSelector, goStringMap } from './groups-go-format.js';
import { withStatusValidation } from './groups-status.js';
import { immutable, parseSelector } from './groups-validation.js';
import { nameWarnings } from './pod-warnings.js';

export const JOB_NAME_LABEL = 'batch.kubernetes.io/job-name';
export const CONTROLLER_UID_LABEL = 'batch.kubernetes.io/controller-uid';
export const LEGACY_JOB_NAME_LABEL = 'job-name';
export const LEGACY_CONTROLLER_UID_LABEL = 'controller-uid';

/**
 * A Job without labels takes its template's labels. Upstream's SetDefaults_Job assigns the very map, so when the
 * decoded Job's template has labels, the pod labels generated on create land in the Job's labels too (`share`);
 * upstream also defaults again when it reads the stored Job back, so a Job created without any labels shows the
 * generated ones as well (a copy taken after they are generated, once the Job has been validated and admitted).
 */
function defaultJobLabels(obj: KubeObject, share: boolean): void {
  const templateLabels = rec(rec(rec(obj.spec).template).metadata).labels;
  if (isObject(templateLabels) && Object.keys(obj.metadata.labels ?? {}).length === 0) {
    obj.metadata.labels = share
      ? (templateLabels as Record<string, string>)
      : { ...(templateLabels as Record<string, string>) };
  }
}

/** SetDefaults_Job. */
export function defaultJob(obj: KubeObject): void {
  defaultJobLabels(obj, true);
  defaultJobSpec(child(obj, 'spec'));
}

/** Adds the generated pod labels and the controller-uid selector, keeping what the user set. */
export function generateSelector(obj: KubeObject): void {
  const spec = child(obj, 'spec');
  const meta = child(child(spec, 'template'), 'metadata');
  const labels = child(meta, 'labels') as Record<string, string>;
  const name = obj.metadata.name ?? '';
  const uid = obj.metadata.uid ?? '';
  for (const key of [LEGACY_JOB_NAME_LABEL, JOB_NAME_LABEL]) if (!(key in labels)) labels[key] = name;
  for (const key of [LEGACY_CONTROLLER_UID_LABEL, CONTROLLER_UID_LABEL]) if (!(key in labels)) labels[key] = uid;
  const matchLabels = child(child(spec, 'selector'), 'matchLabels') as Record<string, string>;
  if (!(CONTROLLER_UID_LABEL in matchLabels)) matchLabels[CONTROLLER_UID_LABEL] = uid;
}

function hasLabel(labels: Record<string, string> | undefined, key: string, expected: string): FieldError[] {
  const at = path('spec', 'template', 'metadata', 'labels').key(key);
  if (!labels || !(key in labels)) return [required(at, `must be '${expected}'`)];
  return labels[key] === expected ? [] : [invalid(at, goStringMap(labels), `must be '${expected}'`)];
}

/** validateGeneratedSelector: the generated labels are on the template and the selector picks them. */
function validateGeneratedSelector(obj: KubeObject, requirePrefixed: boolean): FieldError[] {
  const spec = rec(obj.spec);
  if (spec.manualSelector === true || unset(spec.selector)) return [];
  const errs: FieldError[] = [];
  const uid = obj.metadata.uid ?? '';
  const name = obj.metadata.name ?? '';
  if (!uid) errs.push(required(path('metadata', 'uid')));
  const labels = stringMap(rec(rec(spec.template).metadata).labels);
  errs.push(...hasLabel(labels, LEGACY_CONTROLLER_UID_LABEL, uid), ...hasLabel(labels, LEGACY_JOB_NAME_LABEL, name));
  const expected: Record<string, string> = {};
  if (requirePrefixed) {
    errs.push(...hasLabel(labels, CONTROLLER_UID_LABEL, uid), ...hasLabel(labels, JOB_NAME_LABEL, name));
    expected[CONTROLLER_UID_LABEL] = uid;
    expected[JOB_NAME_LABEL] = name;
  }
  expected[LEGACY_CONTROLLER_UID_LABEL] = uid;
  expected[LEGACY_JOB_NAME_LABEL] = name;
  const selector = parseSelector(spec.selector);
  if (selector && !selector.matches(expected)) {
    errs.push(invalid(path('spec', 'selector'), goLabelSelector(spec.selector), '`selector` not auto-generated'));
  }
  return errs;
}

/** ValidateJob (without metadata, which builtin() checks). */
export function validateJob(obj: KubeObject, requirePrefixed = true): FieldError[] {
  const spec = rec(obj.spec);
  const errs = [...validateGeneratedSelector(obj, requirePrefixed), ...validateJobSpec(spec, path('spec'))];
  if (unset(spec.selector)) errs.push(required(path('spec', 'selector')));
  else errs.push(...validateLabelSelector(rec(spec.selector), {}, path('spec', 'selector')));
  const selector = parseSelector(spec.selector);
  errs.push(...selectorMatchesTemplate(selector, spec.template, path('spec', 'template')));
  const completions = spec.completions;
  if (spec.completionMode === 'Indexed' && typeof completions === 'number' && completions > 0) {
    const hostname = `${obj.metadata.name ?? ''}-${completions - 1}`;
    if (isDNS1123Label(hostname).length > 0) {
      errs.push(
        invalid(
          path('metadata', 'name'),
          obj.metadata.name ?? '',
          `will not able to create pod with invalid DNS label: ${hostname}`,
        ),
      );
    }
  }
  return errs;
}

/** ValidateJobSpecUpdate's immutability rules. */
function validateJobUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const spec = rec(obj.spec);
  const prev = rec(old.spec);
  const errs: FieldError[] = [];
  const indexed = spec.completionMode === 'Indexed';
  if (!indexed) errs.push(...immutable(path('spec', 'completions'), spec.completions, prev.completions));
  else if (
    !jsonEqual(spec.completions, prev.completions) &&
    typeof spec.completions === 'number' &&
    spec.completions !== spec.parallelism
  ) {
    errs.push(
      invalid(path('spec', 'completions'), spec.completions, 'can only be modified in tandem with spec.parallelism'),
    );
  }
  errs.push(...immutable(path('spec', 'selector'), spec.selector, prev.selector, goLabelSelector(spec.selector)));
  errs.push(...templateImmutable(spec, prev, old));
  // Pointers to structs upstream, printed with %#v (addresses within): named here by their type alone.
  const shown: Record<string, string> = {
    podFailurePolicy: 'batch.PodFailurePolicy{…}',
    successPolicy: 'batch.SuccessPolicy{…}',
  };
  for (const key of ['completionMode', 'podFailurePolicy', 'backoffLimitPerIndex', 'managedBy', 'successPolicy']) {
    const type = shown[key];
    const value = type && !unset(spec[key]) ? new GoValue(type) : undefined;
    errs.push(...immutable(path('spec', key), spec[key], prev[key], value));
  }
  return errs;
}

/** The template is immutable, except scheduling directives of a suspended Job that never started. */
function templateImmutable(spec: Rec, prev: Rec, old: KubeObject): FieldError[] {
  const mutableScheduling = prev.suspend === true && unset(rec(old.status).startTime);
  const strip = (t: unknown): unknown => {
    const copy = structuredClone(rec(t));
    // The deprecated serviceAccount alias is no field of upstream's internal PodSpec, which this rule compares.
    if (isObject(copy.spec)) delete copy.spec.serviceAccount;
    if (!mutableScheduling) return copy;
    const meta = rec(copy.metadata);
    delete meta.labels;
    delete meta.annotations;
    const podSpec = rec(copy.spec);
    for (const key of ['nodeSelector', 'tolerations', 'schedulingGates']) delete podSpec[key];
    const affinity = rec(podSpec.affinity);
    delete affinity.nodeAffinity;
    if (Object.keys(affinity).length === 0) delete podSpec.affinity;
    return copy;
  };
  if (jsonEqual(strip(spec.template), strip(prev.template))) return [];
  return [invalid(path('spec', 'template'), new GoValue('core.PodTemplateSpec{…}'), 'field is immutable')];
}

function jobStatus(o: KubeObject): string {
  const conditions = records(rec(o.status).conditions);
  const isTrue = (type: string) => conditions.find((c) => c.type === type)?.status === 'True';
  if (isTrue('Complete')) return 'Complete';
  if (isTrue('Failed')) return 'Failed';
  if (o.metadata.deletionTimestamp) return 'Terminating';
  if (isTrue('Suspended')) return 'Suspended';
  if (isTrue('FailureTarget')) return 'FailureTarget';
  return 'Running';
}

function jobCompletions(spec: Rec, succeeded: number): string {
  if (typeof spec.completions === 'number') return `${succeeded}/${spec.completions}`;
  const parallelism = num(spec.parallelism);
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

function jobDuration(status: Rec, now: number): string {
  const start = Date.parse(str(status.startTime));
  if (Number.isNaN(start)) return '';
  const end = Date.parse(str(status.completionTime));
  return humanDuration((Number.isNaN(end) ? now : end) - start);
}

export const jobs: Builtin = withStatusValidation(
  builtin({
    group: 'batch',
    version: 'v1',
    resource: 'jobs',
    hasStatus: true,
    strategy: {
      warningsOnCreate: (obj) => [...nameWarnings(obj.metadata.name), ...jobSpecWarnings(obj.spec, path('spec'))],
      warningsOnUpdate: (obj, old) =>
        (obj.metadata.generation ?? 0) !== (old.metadata.generation ?? 0)
          ? jobSpecWarnings(obj.spec, path('spec'))
          : [],
      orphanDependentsByDefault: true,
      default: defaultJob,
      prepareForCreate(obj) {
        if (rec(obj.spec).manualSelector !== true) generateSelector(obj);
        obj.status = {};
      },
      // Validated without them (a 64-character name is refused for the template's labels only, as upstream).
      defaultOnRead: (obj) => defaultJobLabels(obj, false),
      validate: (obj) => validateJob(obj),
      validateUpdate(obj, old) {
        const oldLabels = stringMap(rec(rec(rec(old.spec).template).metadata).labels) ?? {};
        const requirePrefixed = JOB_NAME_LABEL in oldLabels && CONTROLLER_UID_LABEL in oldLabels;
        return [...validateJob(obj, requirePrefixed), ...validateJobUpdate(obj, old)];
      },
      selectableFields: { 'status.successful': (o) => String(int(rec(o.status).succeeded)) },
    },
    printer: {
      columns: [
        nameColumn,
        column('Status', 'The state of the job.'),
        column('Completions', 'Succeeded pods out of the completions wanted.'),
        column('Duration', 'How long the job ran, or has been running.'),
        ageColumn,
        ...TEMPLATE_WIDE_COLUMNS,
      ],
      cells(o, now) {
        const spec = rec(o.spec);
        const status = rec(o.status);
        return [
          o.metadata.name,
          jobStatus(o),
          jobCompletions(spec, int(status.succeeded)),
          jobDuration(status, now),
          age(o.metadata.creationTimestamp, now),
          ...templateWideCells(spec.template, spec.selector),
        ];
      },
    },
  }),
  validateJobStatusUpdate,
  // Upstream's status strategy resets only spec.
  [],
);
