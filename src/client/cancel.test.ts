import { describe, test } from 'node:test';
import assert from '../testing/assert.js';
import { RequestCancel } from './cancel.js';

describe('RequestCancel', () => {
  test('calls each listener once, with the reason set; listeners added later or removed are not called', () => {
    const cancel = new RequestCancel();
    const calls: string[] = [];
    const first = () => calls.push(`first ${String(cancel.reason)}`);
    const removed = () => calls.push('removed');
    cancel.addEventListener('abort', first);
    cancel.addEventListener('abort', removed);
    cancel.removeEventListener('abort', removed);
    assert.equal(cancel.aborted, false);
    cancel.abort('timeout');
    cancel.abort('again');
    cancel.addEventListener('abort', () => calls.push('late'));
    assert.deepEqual(calls, ['first timeout']);
    assert.equal(cancel.aborted, true);
    assert.equal(cancel.reason, 'timeout', 'the first reason stays');
  });

  test('without a reason, the reason is an AbortError, as AbortController gives', () => {
    const cancel = new RequestCancel();
    cancel.abort();
    const reason = cancel.reason as DOMException;
    assert.equal(reason.name, 'AbortError');
    const controller = new AbortController();
    controller.abort();
    assert.equal(reason.message, (controller.signal.reason as DOMException).message);
  });
});
