import { describe, it } from 'node:test';
import assert from '../../testing/assert.js';
import { PatchError } from './patch-error.js';

describe('PatchError.status', () => {
  it('maps each kind onto the code, reason and message kube-apiserver answers', () => {
    assert.deepEqual(new PatchError('BadRequest', 'Invalid JSON Patch').status(), {
      code: 400,
      reason: 'BadRequest',
      message: 'Invalid JSON Patch',
    });
    assert.deepEqual(new PatchError('Invalid', 'test failed').status(), {
      code: 422,
      reason: 'Invalid',
      message: 'the server rejected our request due to an error in our request',
      details: {},
    });
    assert.deepEqual(new PatchError('RequestEntityTooLarge', 'too many').status(), {
      code: 413,
      reason: 'RequestEntityTooLarge',
      message: 'Request entity too large: too many',
    });
    assert.deepEqual(new PatchError('Unknown', 'boom').status(), { code: 500, reason: '', message: 'boom' });
  });

  it('is an Error with a name and the detailed message', () => {
    const err = new PatchError('Invalid', 'detail');
    assert.ok(err instanceof Error);
    assert.equal(err.name, 'PatchError');
    assert.equal(err.message, 'detail');
  });
});
