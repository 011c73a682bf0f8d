import { describe, it } from 'node:test';
import assert from '../../../testing/assert.js';
import type { KubeObject } from '../object.js';
import { cronjobs } from './batch-cronjobs.js';

const strategy = cronjobs.def.strategy;

function cronjob(spec: Record<string, unknown> = {}, name = 'backup'): KubeObject {
  return {
    metadata: { name, namespace: 'default', resourceVersion: '1' },
    spec: {
      schedule: '*/5 * * * *',
      jobTemplate: {
        spec: { template: { spec: { restartPolicy: 'OnFailure', containers: [{ name: 'b', image: 'busybox' }] } } },
      },
      ...spec,
    },
  };
}

function create(obj: KubeObject): string[] {
  strategy.default?.(obj);
  strategy.prepareForCreate?.(obj);
  return (strategy.validate?.(obj) ?? []).map((e) => e.message);
}

describe('batch/v1 CronJobs', () => {
  it('gets upstream defaults, and none of the Job defaults in its template', () => {
    const obj = cronjob();
    assert.deepEqual(create(obj), []);
    const spec = obj.spec as Record<string, unknown>;
    assert.equal(spec.concurrencyPolicy, 'Allow');
    assert.equal(spec.suspend, false);
    assert.equal(spec.successfulJobsHistoryLimit, 3);
    assert.equal(spec.failedJobsHistoryLimit, 1);
    const jobSpec = (spec.jobTemplate as { spec: Record<string, unknown> }).spec;
    assert.equal(jobSpec.backoffLimit, undefined);
    assert.equal((jobSpec.template as { spec: Record<string, unknown> }).spec.dnsPolicy, 'ClusterFirst');
  });

  it('validates schedule, time zone, policy and name with upstream text', () => {
    const obj = cronjob(
      { schedule: '* * *', timeZone: 'Mars/Olympus', concurrencyPolicy: 'Sometimes' },
      'a'.repeat(53),
    );
    assert.deepEqual(create(obj), [
      'spec.schedule: Invalid value: "* * *": expected exactly 5 fields, found 3: [* * *]',
      'spec.timeZone: Invalid value: "Mars/Olympus": unknown time zone Mars/Olympus',
      'spec.concurrencyPolicy: Unsupported value: "Sometimes": supported values: "Allow", "Forbid", "Replace"',
      `metadata.name: Invalid value: "${'a'.repeat(53)}": must be no more than 52 characters`,
    ]);
    // Go loads "Local" (the machine's zone) but not "local": one error for the first, two for the second.
    const explicit = 'timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones';
    assert.deepEqual(create(cronjob({ timeZone: 'Local' })), [`spec.timeZone: Invalid value: "Local": ${explicit}`]);
    assert.deepEqual(create(cronjob({ timeZone: 'local' })), [
      `spec.timeZone: Invalid value: "local": ${explicit}`,
      'spec.timeZone: Invalid value: "local": unknown time zone local',
    ]);
    const tz = cronjob({ schedule: 'CRON_TZ=UTC 0 * * * *' });
    assert.deepEqual(create(tz), [
      'spec.schedule: Invalid value: "CRON_TZ=UTC 0 * * * *": cannot use TZ or CRON_TZ in schedule, use timeZone field instead',
    ]);
  });

  it('refuses a job template selector and restartPolicy Always', () => {
    const obj = cronjob({
      jobTemplate: {
        spec: {
          selector: { matchLabels: { a: 'b' } },
          template: { spec: { containers: [{ name: 'b', image: 'busybox' }] } },
        },
      },
    });
    assert.deepEqual(create(obj), [
      'spec.jobTemplate.spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"',
      'spec.jobTemplate.spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"a":"b"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: `selector` will be auto-generated',
    ]);
  });

  it('prints SCHEDULE TIMEZONE SUSPEND ACTIVE LAST SCHEDULE', () => {
    const obj = cronjob({ timeZone: 'Europe/Paris' });
    create(obj);
    obj.metadata.creationTimestamp = '2026-01-01T00:00:00Z';
    const now = Date.parse('2026-01-01T03:00:00Z');
    assert.deepEqual(cronjobs.printer.cells(obj, now).slice(0, 7), [
      'backup',
      '*/5 * * * *',
      'Europe/Paris',
      'False',
      0,
      '<none>',
      '3h',
    ]);
    obj.status = { active: [{ name: 'backup-1' }], lastScheduleTime: '2026-01-01T02:55:00Z' };
    assert.deepEqual(cronjobs.printer.cells(obj, now).slice(4, 6), [1, '5m']);
    assert.equal(cronjobs.printer.cells(obj, now)[9], '<none>');
  });
});
