import { describe, it } from 'node:test';
import assert from '../../../testing/assert.js';
import type { KubeObject } from '../object.js';
import { cronjobs } from './batch-cronjobs.js';
import { jobs } from './batch-jobs.js';

const strategy = jobs.def.strategy;
const UID = '0b6a0a3a-0000-4000-8000-000000000001';

function job(spec: Record<string, unknown> = {}, meta: Record<string, unknown> = {}): KubeObject {
  return {
    metadata: { name: 'pi', namespace: 'default', uid: UID, resourceVersion: '1', ...meta },
    spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'pi', image: 'perl' }] } }, ...spec },
  };
}

function create(obj: KubeObject): string[] {
  strategy.default?.(obj);
  strategy.prepareForCreate?.(obj);
  const errors = (strategy.validate?.(obj) ?? []).map((e) => e.message);
  strategy.defaultOnRead?.(obj);
  return errors;
}

describe('batch/v1 Jobs', () => {
  it('gets upstream defaults', () => {
    const obj = job();
    assert.deepEqual(create(obj), []);
    const spec = obj.spec as Record<string, unknown>;
    assert.equal(spec.completions, 1);
    assert.equal(spec.parallelism, 1);
    assert.equal(spec.backoffLimit, 6);
    assert.equal(spec.completionMode, 'NonIndexed');
    assert.equal(spec.suspend, false);
    assert.equal(spec.manualSelector, false);
    assert.equal(spec.podReplacementPolicy, 'TerminatingOrFailed');
    assert.deepEqual(obj.status, {});
  });

  it('leaves completions unset when parallelism is given, and uses MaxInt32 with a per-index limit', () => {
    const parallel = job({ parallelism: 3 });
    strategy.default?.(parallel);
    assert.equal((parallel.spec as Record<string, unknown>).completions, undefined);
    const perIndex = job({ completionMode: 'Indexed', completions: 3, backoffLimitPerIndex: 1 });
    strategy.default?.(perIndex);
    assert.equal((perIndex.spec as Record<string, unknown>).backoffLimit, 2147483647);
  });

  it('generates the selector and the pod labels on create, and labels the Job like its pods', () => {
    const obj = job();
    assert.deepEqual(create(obj), []);
    const spec = obj.spec as { selector: unknown; template: { metadata: { labels: Record<string, string> } } };
    assert.deepEqual(spec.selector, { matchLabels: { 'batch.kubernetes.io/controller-uid': UID } });
    const expected = {
      'batch.kubernetes.io/controller-uid': UID,
      'batch.kubernetes.io/job-name': 'pi',
      'controller-uid': UID,
      'job-name': 'pi',
    };
    assert.deepEqual(spec.template.metadata.labels, expected);
    assert.deepEqual(obj.metadata.labels, expected);
  });

  it('labels a Job without labels like its labelled template, generated pod labels included', () => {
    const obj = job({
      template: {
        metadata: { labels: { app: 'pi' } },
        spec: { restartPolicy: 'Never', containers: [{ name: 'pi', image: 'perl' }] },
      },
    });
    assert.deepEqual(create(obj), []);
    assert.deepEqual(obj.metadata.labels, {
      app: 'pi',
      'batch.kubernetes.io/controller-uid': UID,
      'batch.kubernetes.io/job-name': 'pi',
      'controller-uid': UID,
      'job-name': 'pi',
    });
    const both = job(
      {
        template: {
          metadata: { labels: { app: 'pi' } },
          spec: { restartPolicy: 'Never', containers: [{ name: 'pi', image: 'perl' }] },
        },
      },
      { labels: { app: 'pi' } },
    );
    create(both);
    assert.deepEqual(both.metadata.labels, { app: 'pi' });
  });

  it("validates a long name in the generated pod labels, and in the Job's own only when they share the template's", () => {
    const name = 'a'.repeat(64);
    const tooLong = (field: string) => `${field}: Invalid value: "${name}": must be no more than 63 characters`;
    // As `kubectl create job` sends it: no template labels, so the Job's labels are copied only after validation.
    const plain = create(job({}, { name }));
    assert.ok(plain.includes(tooLong('spec.template.labels')), plain.join('\n'));
    assert.ok(!plain.some((m) => m.startsWith('metadata.labels')), plain.join('\n'));
    const labelled = create(
      job(
        {
          template: {
            metadata: { labels: { app: 'pi' } },
            spec: { restartPolicy: 'Never', containers: [{ name: 'pi', image: 'perl' }] },
          },
        },
        { name },
      ),
    );
    assert.ok(labelled.includes(tooLong('metadata.labels')), labelled.join('\n'));
  });

  it('warns of an Indexed Job past the soft limits of completions and parallelism, as upstream', () => {
    const message =
      'In Indexed Jobs with a number of completions higher than 10^5 and a parallelism higher than 10^4, Kubernetes might not be able to track completedIndexes when a big number of indexes fail';
    const big = job({ completionMode: 'Indexed', completions: 100_001, parallelism: 10_001 });
    create(big);
    assert.deepEqual(strategy.warningsOnCreate?.(big), [`spec: ${message}`]);
    const within = job({ completionMode: 'Indexed', completions: 100_000, parallelism: 10_001 });
    create(within);
    assert.deepEqual(strategy.warningsOnCreate?.(within), []);
    const cronjob = {
      metadata: { name: 'c', namespace: 'default' },
      spec: { schedule: '* * * * *', jobTemplate: { spec: structuredClone(big.spec) } },
    } as KubeObject;
    assert.deepEqual(cronjobs.def.strategy.warningsOnCreate?.(cronjob), [`spec.jobTemplate.spec: ${message}`]);
  });

  it('keeps the user labels of a labelled Job and of a manual selector', () => {
    const labelled = job({}, { labels: { team: 'a' } });
    create(labelled);
    assert.deepEqual(labelled.metadata.labels, { team: 'a' });
    const manual = job({
      manualSelector: true,
      selector: { matchLabels: { app: 'pi' } },
      template: {
        metadata: { labels: { app: 'pi' } },
        spec: { restartPolicy: 'Never', containers: [{ name: 'pi', image: 'perl' }] },
      },
    });
    assert.deepEqual(create(manual), []);
    assert.deepEqual((manual.spec as Record<string, unknown>).selector, { matchLabels: { app: 'pi' } });
  });

  it('refuses restartPolicy Always (the pod template default) with upstream text', () => {
    const obj = job({ template: { spec: { containers: [{ name: 'pi', image: 'perl' }] } } });
    assert.deepEqual(create(obj), [
      'spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"',
    ]);
  });

  it('refuses a wrong generated label and a selector that is not the generated one', () => {
    const obj = job({
      selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': 'other' } },
      template: {
        metadata: { labels: { 'job-name': 'x' } },
        spec: { restartPolicy: 'Never', containers: [{ name: 'pi', image: 'perl' }] },
      },
    });
    const errors = create(obj);
    assert.ok(
      errors.some(
        (e) =>
          e.startsWith('spec.template.metadata.labels[job-name]: Invalid value: map[string]string{') &&
          e.endsWith(": must be 'pi'"),
      ),
      errors.join('\n'),
    );
    assert.ok(
      errors.includes(
        'spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"batch.kubernetes.io/controller-uid":"other"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: `selector` not auto-generated',
      ),
      errors.join('\n'),
    );
  });

  it('keeps completions, selector and template immutable', () => {
    const old = job();
    create(old);
    const next = structuredClone(old);
    const spec = next.spec as {
      completions: number;
      parallelism: number;
      template: { spec: { containers: Array<{ image: string }> } };
    };
    spec.completions = 4;
    spec.parallelism = 2;
    (spec.template.spec.containers[0] as { image: string }).image = 'perl:5';
    const errors = (strategy.validateUpdate?.(next, old) ?? []).map((e) => e.message);
    assert.deepEqual(errors, [
      'spec.completions: Invalid value: 4: field is immutable',
      'spec.template: Invalid value: core.PodTemplateSpec{…}: field is immutable',
    ]);
    const suspended = job({ suspend: true });
    create(suspended);
    const moved = structuredClone(suspended);
    const template = (moved.spec as { template: { spec: Record<string, unknown> } }).template;
    template.spec.nodeSelector = { zone: 'a' };
    assert.deepEqual(strategy.validateUpdate?.(moved, suspended), [], 'a suspended job that never ran may move');
    // A pod failure policy added later: named by its Go type, as upstream's %#v of the struct begins.
    const policy = structuredClone(old);
    (policy.spec as Record<string, unknown>).podFailurePolicy = {
      rules: [{ action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] }],
    };
    const policyErrors = (strategy.validateUpdate?.(policy, old) ?? []).map((e) => e.message);
    assert.ok(
      policyErrors.includes('spec.podFailurePolicy: Invalid value: batch.PodFailurePolicy{…}: field is immutable'),
      policyErrors.join('\n'),
    );
  });

  it("refuses what upstream's validateJobSpec refuses: index limits, success policies, managedBy", () => {
    const indexed = { completionMode: 'Indexed', completions: 3, parallelism: 1 };
    assert.deepEqual(create(job({ ...indexed, backoffLimitPerIndex: 1, maxFailedIndexes: 5 })), [
      'spec.maxFailedIndexes: Invalid value: 5: must be less than or equal to completions',
    ]);
    const many = { completionMode: 'Indexed', completions: 200_000, parallelism: 20_000, backoffLimitPerIndex: 1 };
    assert.deepEqual(create(job(many)), [
      'spec.maxFailedIndexes: Required value: must be specified when completions is above 100000',
      'spec.parallelism: Invalid value: 20000: must be less than or equal to 10000 when completions are above 100000 and used with backoff limit per index',
    ]);
    assert.deepEqual(create(job({ ...many, parallelism: 10, maxFailedIndexes: 10_001 })), [
      'spec.maxFailedIndexes: Invalid value: 10001: must be less than or equal to 10000 when completions are above 100000 and used with backoff limit per index',
    ]);
    assert.deepEqual(create(job({ successPolicy: { rules: [{ succeededCount: 1 }] } })), [
      'spec.successPolicy: Invalid value: batch.SuccessPolicy{…}: requires indexed completion mode',
    ]);
    assert.deepEqual(create(job({ ...indexed, successPolicy: { rules: [] } })), [
      'spec.successPolicy.rules: Required value: at least one rules must be specified when the successPolicy is specified',
    ]);
    assert.deepEqual(
      create(job({ ...indexed, successPolicy: { rules: [{ succeededCount: 5, succeededIndexes: '0-9' }, {}] } })),
      [
        'spec.successPolicy.rules[0].succeededIndexes: Invalid value: "0-9": error parsing succeededIndexes: too large index: "9"',
        'spec.successPolicy.rules[0].succeededCount: Invalid value: 5: must be less than or equal to 3 (the number of specified completions)',
        'spec.successPolicy.rules[0].succeededCount: Invalid value: 5: must be less than or equal to 0 (the number of indexes in the specified succeededIndexes field)',
        'spec.successPolicy.rules[1]: Required value: at least one of succeededCount or succeededIndexes must be specified',
      ],
    );
    assert.deepEqual(create(job({ ...indexed, successPolicy: { rules: [{ succeededIndexes: '0,2-1' }] } })), [
      'spec.successPolicy.rules[0].succeededIndexes: Invalid value: "0,2-1": error parsing succeededIndexes: non-increasing order, previous: 2, current: 1',
    ]);
    assert.deepEqual(
      create(job({ ...indexed, successPolicy: { rules: [{ succeededIndexes: '0-1', succeededCount: 2 }] } })),
      [],
    );
    assert.deepEqual(create(job({ managedBy: 'not a path' })), [
      'spec.managedBy: Invalid value: "not a path": must be a domain-prefixed path (such as "acme.io/foo")',
    ]);
    assert.deepEqual(create(job({ managedBy: `example.com/${'x'.repeat(60)}` })), [
      'spec.managedBy: Too long: may not be more than 63 bytes',
    ]);
    assert.deepEqual(create(job({ managedBy: 'kueue.x-k8s.io/multikueue' })), []);
  });

  it("refuses status writes that break upstream's status rules, and allows those that keep them", () => {
    const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString().replace('.000Z', 'Z');
    const condition = (type: string) => ({ type, status: 'True', lastProbeTime: at(9), lastTransitionTime: at(9) });
    const withStatus = (status: Record<string, unknown>, spec: Record<string, unknown> = {}) => {
      const obj = job(spec);
      create(obj);
      obj.status = status;
      return obj;
    };
    const write = (old: KubeObject, status: Record<string, unknown>) => {
      const next = structuredClone(old);
      next.status = status;
      return (jobs.def.status?.validateUpdate?.(next, old) ?? []).map((e) => e.message);
    };
    const running = withStatus({ startTime: at(0), active: 1, failed: 6, succeeded: 2 });
    assert.deepEqual(write(running, { startTime: at(0), active: 1, failed: 7, succeeded: 3, ready: 1 }), []);
    assert.deepEqual(write(running, { startTime: at(0), active: 1, failed: 1, succeeded: 1, ready: 2 }), [
      'status.ready: Invalid value: 2: cannot set more ready pods than active',
      'status.failed: Invalid value: 1: cannot decrease the failed counter',
      'status.succeeded: Invalid value: 1: cannot decrease the succeeded counter',
    ]);
    // Complete needs SuccessCriteriaMet first, a completion time, and no pods left.
    assert.deepEqual(
      write(running, { startTime: at(0), active: 1, failed: 6, succeeded: 2, conditions: [condition('Complete')] }),
      [
        'status.completionTime: Required value: completionTime is required for Complete jobs',
        'status.conditions: Invalid value: cannot set Complete=True condition without the SuccessCriteriaMet=true condition',
        'status.active: Invalid value: 1: active>0 is invalid for finished job',
      ],
    );
    const done = { startTime: at(0), completionTime: at(9), failed: 6, succeeded: 3 };
    const complete = withStatus({ ...done, conditions: [condition('SuccessCriteriaMet'), condition('Complete')] });
    assert.deepEqual(write(running, complete.status as Record<string, unknown>), []);
    assert.deepEqual(write(complete, { ...done, completionTime: at(1) }), [
      'status.completionTime: Invalid value: 2026-01-01 00:00:01 +0000 UTC: cannot set completionTime when there is no Complete=True condition',
      'status.conditions: Invalid value: cannot disable the terminal Complete=True condition',
      'status.completionTime: Invalid value: 2026-01-01 00:00:01 +0000 UTC: completionTime cannot be mutated',
      'status.conditions: Invalid value: cannot disable the SuccessCriteriaMet=True condition',
    ]);
    const failed = withStatus({
      startTime: at(0),
      failed: 7,
      conditions: [condition('FailureTarget'), condition('Failed')],
    });
    assert.deepEqual(write(failed, { startTime: at(0), failed: 7 }), [
      'status.conditions: Invalid value: cannot disable the terminal Failed=True condition',
      'status.conditions: Invalid value: cannot disable the terminal FailureTarget=True condition',
    ]);
    // An Indexed Job scaled down with completions = parallelism may lower succeeded; the index lists must parse.
    const elastic = { completionMode: 'Indexed', completions: 2, parallelism: 2 };
    const indexed = withStatus({ startTime: at(0), active: 1, succeeded: 3, completedIndexes: '0-2' }, elastic);
    assert.deepEqual(write(indexed, { startTime: at(0), active: 1, succeeded: 1, completedIndexes: '0' }), []);
    assert.deepEqual(write(indexed, { startTime: at(0), active: 1, succeeded: 3, completedIndexes: '1,0' }), [
      'status.completedIndexes: Invalid value: "1,0": error parsing completedIndexes: non-increasing order, previous: 1, current: 0',
    ]);
  });

  it('prints status, completions and duration', () => {
    const obj = job({ completions: 3, parallelism: 2 });
    obj.metadata.creationTimestamp = '2026-01-01T00:00:00Z';
    obj.status = {
      succeeded: 3,
      startTime: '2026-01-01T00:00:00Z',
      completionTime: '2026-01-01T00:00:42Z',
      conditions: [{ type: 'Complete', status: 'True' }],
    };
    const cells = jobs.printer.cells(obj, Date.parse('2026-01-01T00:10:00Z'));
    assert.deepEqual(cells.slice(0, 5), ['pi', 'Complete', '3/3', '42s', '10m']);
    const running = job({ parallelism: 3 });
    running.status = { startTime: '2026-01-01T00:00:00Z', conditions: [{ type: 'Suspended', status: 'True' }] };
    assert.deepEqual(jobs.printer.cells(running, Date.parse('2026-01-01T00:00:05Z')).slice(1, 4), [
      'Suspended',
      '0/1 of 3',
      '5s',
    ]);
  });

  it('offers the status.successful field selector', () => {
    const read = strategy.selectableFields?.['status.successful'];
    assert.equal(read?.({ metadata: {}, status: { succeeded: 2 } }), '2');
  });
});
