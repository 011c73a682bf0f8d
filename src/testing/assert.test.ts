// biome-ignore lint/style/noRestrictedImports: compares with node:assert's own class
import { AssertionError } from 'node:assert';
import { describe, it } from 'node:test';
import assert from './assert.js';

describe('testing/assert', () => {
  it('fails ok() without a message by naming the value, not by quoting the call', () => {
    const pod: { spec: { nodeName?: string } } = { spec: {} };
    assert.throws(
      () => assert.ok(pod.spec.nodeName),
      (err: unknown) => {
        assert.ok(err instanceof AssertionError, 'an AssertionError');
        assert.equal(err.message, 'expected a truthy value, got undefined');
        assert.equal(err.actual, undefined);
        assert.equal(err.operator, '==');
        // The stack starts at the caller, as node:assert's does.
        assert.doesNotMatch(String(err.stack).split('\n')[1] ?? '', /testing\/assert\.ts/);
        return true;
      },
    );
    assert.throws(() => assert.ok(0), { message: 'expected a truthy value, got 0' });
    assert.throws(() => assert.ok(''), { message: "expected a truthy value, got ''" });
  });

  it('keeps a given message or error, and passes truthy values', () => {
    assert.throws(() => assert.ok(null, 'pod was bound'), { name: 'AssertionError', message: 'pod was bound' });
    const own = new RangeError('mine');
    assert.throws(
      () => assert.ok(false, own),
      (err) => err === own,
    );
    assert.ok(1);
    assert.ok('x');
  });

  it('is node:assert/strict otherwise', () => {
    assert.throws(() => assert.equal(1, '1' as unknown as number), { code: 'ERR_ASSERTION', operator: 'strictEqual' });
    assert.throws(() => assert.deepEqual({ a: 1 }, { a: '1' }), { operator: 'deepStrictEqual' });
    assert.equal(assert.strict, assert);
    assert.equal(assert.AssertionError, AssertionError);
  });
});
