import { describe, it } from 'node:test';
import assert from '../../testing/assert.js';
import { BackoffStore, getFinishedTime, remainingBackoff } from './backoff.js';
import { firstPendingIndexes, OrderedIntervals, podGenerateNameWithIndex } from './indexes.js';
import { matchPodFailurePolicy, matchSuccessPolicy } from './policies.js';
import type { Job, Pod } from './types.js';

const failedPod = (name: string, exitCode: number, finishedAt: string, conditions: object[] = []): Pod => ({
  metadata: { name, namespace: 'ns' },
  status: {
    phase: 'Failed',
    conditions,
    containerStatuses: [{ name: 'main', state: { terminated: { exitCode, finishedAt } } }],
  },
});

describe('ordered intervals', () => {
  it('parses, merges and prints as upstream writes completedIndexes', () => {
    const iv = OrderedIntervals.parse('1,3-5,7', 10);
    assert.equal(iv.total(), 5);
    assert.equal(iv.withIndexes([2, 6, 9]).toString(), '1-7,9');
    assert.equal(new OrderedIntervals().withIndexes([4, 5]).toString(), '4,5');
    assert.equal(OrderedIntervals.parse('0-9', 4).toString(), '0-3', 'cut at completions');
    assert.ok(iv.has(4) && !iv.has(6) && iv.has(7) && !iv.has(0));
  });

  it('picks the first pending indexes', () => {
    assert.deepEqual(firstPendingIndexes(OrderedIntervals.parse('0,2-3', 10), 3, 10), [1, 4, 5]);
    assert.deepEqual(firstPendingIndexes(OrderedIntervals.parse('0-2', 4), 5, 4), [3]);
  });

  it('names indexed pods <job>-<index>- within 58 characters', () => {
    assert.equal(podGenerateNameWithIndex('job', 3), 'job-3-');
    const long = 'x'.repeat(60);
    assert.equal(podGenerateNameWithIndex(long, 12), `${'x'.repeat(54)}-12-`);
  });
});

describe('pod failure backoff', () => {
  it('doubles from 10 s and stops at 10 minutes', () => {
    assert.equal(remainingBackoff(100_000, 1, 100_000), 10_000);
    assert.equal(remainingBackoff(100_000, 2, 100_000), 20_000);
    assert.equal(remainingBackoff(100_000, 3, 95_000), 35_000);
    assert.equal(remainingBackoff(100_000, 20, 100_000), 600_000);
    assert.equal(remainingBackoff(100_000, 1, 80_000), 0);
    assert.equal(remainingBackoff(100_000, 0, undefined), 0);
  });

  it('counts failures after the last success, from the pods finish times', () => {
    const store = new BackoffStore();
    const t = (s: number) => new Date(s * 1000).toISOString();
    const succeeded: Pod = {
      metadata: { name: 'ok' },
      status: { phase: 'Succeeded', containerStatuses: [{ state: { terminated: { finishedAt: t(20) } } }] },
    };
    const r1 = store.newRecord('k', [], [failedPod('a', 1, t(10)), failedPod('b', 1, t(15))]);
    assert.deepEqual([r1.failuresAfterLastSuccess, r1.lastFailureTime], [2, 15_000]);
    store.update(r1);
    const r2 = store.newRecord('k', [succeeded], [failedPod('c', 1, t(18)), failedPod('d', 1, t(30))]);
    assert.deepEqual([r2.failuresAfterLastSuccess, r2.lastFailureTime], [1, 30_000]);
    assert.equal(getFinishedTime(failedPod('e', 1, t(42))), 42_000);
  });
});

describe('pod failure and success policies', () => {
  const job = (rules: object[]): Job => ({ metadata: { name: 'j' }, spec: { podFailurePolicy: { rules } } });

  it('matches exit codes (In/NotIn, container name, non-zero only) and pod conditions in rule order', () => {
    const j = job([
      { action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] },
      { action: 'FailJob', onExitCodes: { operator: 'In', values: [42] } },
      { action: 'Count', onExitCodes: { containerName: 'main', operator: 'NotIn', values: [1] } },
    ]);
    assert.deepEqual(matchPodFailurePolicy(j, failedPod('p', 1, '')), { countFailed: true });
    assert.deepEqual(matchPodFailurePolicy(j, failedPod('p', 42, '')), {
      failJobMessage: 'Container main for pod ns/p failed with exit code 42 matching FailJob rule at index 1',
      countFailed: true,
      action: 'FailJob',
    });
    assert.deepEqual(matchPodFailurePolicy(j, failedPod('p', 7, '')), { countFailed: true, action: 'Count' });
    const disrupted = failedPod('p', 42, '', [{ type: 'DisruptionTarget', status: 'True' }]);
    assert.deepEqual(matchPodFailurePolicy(j, disrupted), { countFailed: false, action: 'Ignore' });
    const failOnCondition = job([
      { action: 'FailJob', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] },
    ]);
    assert.equal(
      matchPodFailurePolicy(failOnCondition, disrupted).failJobMessage,
      'Pod ns/p has condition DisruptionTarget matching FailJob rule at index 0',
    );
  });

  it('meets success rules by indexes, count within indexes, or count', () => {
    const j = (rules: object[]): Job => ({ metadata: {}, spec: { completions: 10, successPolicy: { rules } } });
    const done = OrderedIntervals.parse('0-2,5', 10);
    assert.equal(matchSuccessPolicy(j([{ succeededIndexes: '0-3' }]), done), undefined);
    assert.equal(
      matchSuccessPolicy(j([{ succeededIndexes: '0-3' }, { succeededIndexes: '1,5' }]), done),
      'Matched rules at index 1',
    );
    assert.equal(
      matchSuccessPolicy(j([{ succeededIndexes: '0-9', succeededCount: 4 }]), done),
      'Matched rules at index 0',
    );
    assert.equal(matchSuccessPolicy(j([{ succeededCount: 5 }]), done), undefined);
    assert.equal(matchSuccessPolicy(j([{ succeededCount: 4 }]), done), 'Matched rules at index 0');
  });
});
