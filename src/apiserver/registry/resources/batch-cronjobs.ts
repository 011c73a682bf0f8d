/**
 * batch/v1 CronJobs: upstream's defaults (concurrencyPolicy Allow, suspend false, history limits 3 and 1, pod
 * template defaults), schedule and time zone validation, the job template rules, the status subresource and the
 * NAME SCHEDULE TIMEZONE SUSPEND ACTIVE LAST SCHEDULE AGE printer.
 */

import { isKnownTimeZone, scheduleError } from '../../../api/cron/index.js';
import { type FieldError, type FieldPath, invalid, notSupported, path, required } from '../../../api/field-errors.js';
import { age } from '../../printers/duration.js';
import { ageColumn, nameColumn } from '../../printers/table.js';
import type { KubeObject } from '../object.js';
import { embeddedObjectMeta } from './apps-pod-template-defaults.js';
import { defaultJobSpecTemplate, jobSpecWarnings, validateJobSpec } from './batch-job-spec.js';
import { type Builtin, builtin } from './common.js';
import { column, printBoolPointer, TEMPLATE_WIDE_COLUMNS, templateWideCells } from './groups-columns.js';
import { child, defaultString, defaultValue, list, type Rec, rec, str, unset } from './groups-fields.js';
import { goLabelSelector } from './groups-go-format.js';
import { withStatusValidation } from './groups-status.js';
import { nonNegative } from './groups-validation.js';
import { nameWarnings } from './pod-warnings.js';

const cronJobTemplateWarnings = (obj: KubeObject) =>
  jobSpecWarnings(rec(rec(obj.spec).jobTemplate).spec, path('spec', 'jobTemplate', 'spec'));

export function defaultCronJob(obj: KubeObject): void {
  const spec = child(obj, 'spec');
  defaultString(spec, 'concurrencyPolicy', 'Allow');
  defaultValue(spec, 'suspend', false);
  defaultValue(spec, 'successfulJobsHistoryLimit', 3);
  defaultValue(spec, 'failedJobsHistoryLimit', 1);
  const jobTemplate = child(spec, 'jobTemplate');
  embeddedObjectMeta(jobTemplate);
  defaultJobSpecTemplate(child(jobTemplate, 'spec'), 'CronJob');
}

function validateSchedule(schedule: string, allowTZ: boolean, timeZone: unknown, at: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const parseError = scheduleError(schedule);
  if (parseError !== undefined) errs.push(invalid(at, schedule, parseError));
  if (allowTZ && schedule.includes('TZ') && !unset(timeZone)) {
    errs.push(invalid(at, schedule, 'cannot use both timeZone field and TZ or CRON_TZ in schedule'));
  } else if (!allowTZ && schedule.includes('TZ')) {
    errs.push(invalid(at, schedule, 'cannot use TZ or CRON_TZ in schedule, use timeZone field instead'));
  }
  return errs;
}

const TZ_PART = /^[A-Za-z.\-_0-9+]{1,14}$/;

function validateTimeZone(timeZone: unknown, at: FieldPath): FieldError[] {
  if (unset(timeZone)) return [];
  const zone = str(timeZone);
  if (zone === '') return [invalid(at, zone, 'timeZone must be nil or non-empty string')];
  for (const part of zone.split('/')) {
    if (part === '.' || part === '..' || part.startsWith('-') || !TZ_PART.test(part)) {
      return [invalid(at, zone, `unknown time zone ${zone}`)];
    }
  }
  const errs: FieldError[] = [];
  if (zone.toLowerCase() === 'local') {
    errs.push(
      invalid(at, zone, 'timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones'),
    );
  }
  // Go's time.LoadLocation knows "Local" (the machine's zone), though not "local": only the first error for it.
  if (zone !== 'Local' && !isKnownTimeZone(zone)) errs.push(invalid(at, zone, `unknown time zone ${zone}`));
  return errs;
}

const POLICIES = ['Allow', 'Forbid', 'Replace'];

/** validateCronJobSpec; oldSpec is the stored spec on update. */
export function validateCronJobSpec(spec: Rec, oldSpec: Rec | undefined, at: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const schedule = str(spec.schedule);
  if (schedule === '') errs.push(required(at.child('schedule')));
  else
    errs.push(
      ...validateSchedule(schedule, str(oldSpec?.schedule).includes('TZ'), spec.timeZone, at.child('schedule')),
    );
  errs.push(...nonNegative(spec.startingDeadlineSeconds, at.child('startingDeadlineSeconds')));
  if (!oldSpec || oldSpec.timeZone !== spec.timeZone)
    errs.push(...validateTimeZone(spec.timeZone, at.child('timeZone')));
  const policy = str(spec.concurrencyPolicy);
  if (policy === '') errs.push(required(at.child('concurrencyPolicy')));
  else if (!POLICIES.includes(policy)) errs.push(notSupported(at.child('concurrencyPolicy'), policy, POLICIES));
  const templatePath = at.child('jobTemplate');
  const jobSpec = rec(rec(spec.jobTemplate).spec);
  errs.push(...validateJobSpec(jobSpec, templatePath.child('spec')));
  if (!unset(jobSpec.selector)) {
    errs.push(
      invalid(
        templatePath.child('spec', 'selector'),
        goLabelSelector(jobSpec.selector),
        '`selector` will be auto-generated',
      ),
    );
  }
  if (jobSpec.manualSelector === true) {
    errs.push(notSupported(templatePath.child('spec', 'manualSelector'), true, ['nil', 'false']));
  }
  errs.push(...nonNegative(spec.successfulJobsHistoryLimit, at.child('successfulJobsHistoryLimit')));
  errs.push(...nonNegative(spec.failedJobsHistoryLimit, at.child('failedJobsHistoryLimit')));
  return errs;
}

export const cronjobs: Builtin = withStatusValidation(
  builtin({
    group: 'batch',
    version: 'v1',
    resource: 'cronjobs',
    hasStatus: true,
    strategy: {
      warningsOnCreate: (obj) => [...nameWarnings(obj.metadata.name), ...cronJobTemplateWarnings(obj)],
      warningsOnUpdate: (obj, old) =>
        (obj.metadata.generation ?? 0) !== (old.metadata.generation ?? 0) ? cronJobTemplateWarnings(obj) : [],
      default: defaultCronJob,
      prepareForCreate(obj) {
        obj.status = {};
      },
      validate(obj) {
        const errs = validateCronJobSpec(rec(obj.spec), undefined, path('spec'));
        const name = obj.metadata.name ?? '';
        if (name.length > 52) errs.push(invalid(path('metadata', 'name'), name, 'must be no more than 52 characters'));
        return errs;
      },
      validateUpdate: (obj, old) => validateCronJobSpec(rec(obj.spec), rec(old.spec), path('spec')),
    },
    printer: {
      columns: [
        nameColumn,
        column('Schedule', 'The cron schedule of the jobs.'),
        column('Timezone', 'The time zone the schedule is read in.'),
        column('Suspend', 'Whether new runs are held back.', { type: 'boolean' }),
        column('Active', 'How many jobs are running.', { type: 'integer' }),
        column('Last Schedule', 'When a job was last scheduled.'),
        ageColumn,
        ...TEMPLATE_WIDE_COLUMNS,
      ],
      cells(o, now) {
        const spec = rec(o.spec);
        const status = rec(o.status);
        const jobSpec = rec(rec(spec.jobTemplate).spec);
        const last = str(status.lastScheduleTime);
        return [
          o.metadata.name,
          str(spec.schedule),
          unset(spec.timeZone) ? '<none>' : str(spec.timeZone),
          printBoolPointer(spec.suspend),
          list(status.active).length,
          last ? age(last, now) : '<none>',
          age(o.metadata.creationTimestamp, now),
          ...templateWideCells(jobSpec.template, jobSpec.selector),
        ];
      },
    },
  }),
  () => [],
  // Upstream's status strategy resets only spec.
  [],
);
