import { describe, it } from 'node:test';
import assert from '../../testing/assert.js';
import { decodeJsonPatch, jsonPatchStrictErrors, MAX_JSON_PATCH_OPERATIONS } from './json-patch-decode.js';
import { PatchError } from './patch-error.js';

function refused(fn: () => unknown): PatchError {
  try {
    fn();
  } catch (err) {
    if (err instanceof PatchError) return err;
    throw err;
  }
  assert.fail('expected a PatchError');
}

describe('decodeJsonPatch', () => {
  it('refuses a body of the wrong shape with 400, worded by the decoder fieldValidation selects', () => {
    const warn = refused(() => decodeJsonPatch({ op: 'add' }));
    assert.deepEqual(warn.status(), {
      code: 400,
      reason: 'BadRequest',
      message: 'error decoding patch: json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp',
    });
    const ignore = refused(() => decodeJsonPatch({ op: 'add' }, { fieldValidation: 'Ignore' }));
    assert.equal(ignore.message, 'json: cannot unmarshal object into Go value of type jsonpatch.Patch');
    assert.equal(
      refused(() => decodeJsonPatch(['add'], { fieldValidation: 'Strict' })).message,
      'error decoding patch: json: cannot unmarshal string into Go value of type handlers.jsonPatchOp',
    );
    assert.equal(
      refused(() => decodeJsonPatch(['add'], { fieldValidation: 'Ignore' })).message,
      'json: cannot unmarshal string into Go value of type jsonpatch.Operation',
    );
  });

  it('refuses a non-string op, path or from only when decoding strictly', () => {
    const err = refused(() => decodeJsonPatch([{ op: 'add', path: 5, value: 1 }]));
    assert.equal(err.kind, 'BadRequest');
    assert.equal(
      err.message,
      'error decoding patch: json: cannot unmarshal number into Go struct field jsonPatchOp.path of type string',
    );
    assert.deepEqual(decodeJsonPatch([{ op: 'add', path: 5 }], { fieldValidation: 'Ignore' }), [
      { op: 'add', path: 5 },
    ]);
  });

  it('reads null as no operations and null elements as empty operations', () => {
    assert.deepEqual(decodeJsonPatch(null), []);
    assert.deepEqual(decodeJsonPatch([null]), [{}]);
  });

  it('refuses more than 10000 operations with 413', () => {
    const ops = Array.from({ length: MAX_JSON_PATCH_OPERATIONS + 1 }, () => ({ op: 'test', path: '/x' }));
    assert.deepEqual(refused(() => decodeJsonPatch(ops)).status(), {
      code: 413,
      reason: 'RequestEntityTooLarge',
      message: 'Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001',
    });
    assert.equal(decodeJsonPatch(ops.slice(1)).length, MAX_JSON_PATCH_OPERATIONS);
  });
});

describe('jsonPatchStrictErrors', () => {
  it('names members other than op, path, from and value, case-sensitively', () => {
    const patch = [
      { op: 'add', path: '/a', value: 1 },
      { op: 'add', Path: '/b', value: 2, extra: true },
    ];
    assert.deepEqual(jsonPatchStrictErrors(patch), [
      'json patch unknown field "[1].Path"',
      'json patch unknown field "[1].extra"',
    ]);
    assert.deepEqual(jsonPatchStrictErrors({}), []);
  });
});
