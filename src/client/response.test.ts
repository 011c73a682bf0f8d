import { describe, test } from 'node:test';
import assert from '../testing/assert.js';
import { answerResourceVersion } from './response.js';
import { ApiError } from './types.js';

const answer = (value: unknown) => Buffer.from(JSON.stringify(value));

describe('answerResourceVersion', () => {
  test('reads the one resourceVersion of an answer', () => {
    const pod = { kind: 'Pod', apiVersion: 'v1', metadata: { name: 'p', resourceVersion: '42' }, spec: {} };
    assert.equal(answerResourceVersion(answer(pod), 200), '42');
  });

  test('a resourceVersion inside a string is escaped and does not count', () => {
    const applied = JSON.stringify({ metadata: { resourceVersion: '7' } });
    const cm = { kind: 'ConfigMap', metadata: { resourceVersion: '43', annotations: { last: applied } } };
    assert.equal(answerResourceVersion(answer(cm), 200), '43');
  });

  test('two resourceVersion keys: the answer is decoded and metadata.resourceVersion answered', () => {
    const before = { kind: 'ConfigMap', metadata: { annotations: { resourceVersion: '1' }, resourceVersion: '44' } };
    assert.equal(answerResourceVersion(answer(before), 200), '44');
  });

  test('no resourceVersion: empty; a Failure Status is thrown as an ApiError', () => {
    assert.equal(answerResourceVersion(answer({ kind: 'ConfigMap', metadata: {} }), 200), '');
    assert.equal(answerResourceVersion(Buffer.alloc(0), 200), '');
    const failure = { kind: 'Status', apiVersion: 'v1', metadata: { resourceVersion: '9' }, status: 'Failure' };
    assert.throws(
      () => answerResourceVersion(answer({ ...failure, reason: 'Conflict', message: 'no' }), 200),
      (err: unknown) => err instanceof ApiError && err.reason === 'Conflict',
    );
  });
});
