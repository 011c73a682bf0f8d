import { describe, it } from 'node:test';
import assert from '../../testing/assert.js';
import { PatchError, type PatchErrorKind } from './patch-error.js';
import { podSchema } from './schema-fixture.js';
import { applyStrategicMergePatch } from './strategic-merge-patch.js';

const pod = () => ({
  metadata: { name: 'p', labels: { a: 'b' }, finalizers: ['x'] },
  spec: { containers: [{ name: 'app', image: 'nginx' }] },
});

function refuse(patch: unknown, kind: PatchErrorKind, message: string | RegExp): PatchError {
  let caught: unknown;
  try {
    applyStrategicMergePatch(pod(), patch, podSchema);
  } catch (err) {
    caught = err;
  }
  assert.ok(caught instanceof PatchError, `expected a PatchError, got ${String(caught)}`);
  assert.equal(caught.kind, kind);
  if (typeof message === 'string') assert.equal(caught.message, message);
  else assert.match(caught.message, message);
  return caught;
}

const containers = (list: unknown) => ({ spec: { containers: list } });

describe('applyStrategicMergePatch: failures and what the apiserver answers', () => {
  it('a body that is not an object: 400 with the decoder message', () => {
    const err = refuse([1], 'BadRequest', 'json: cannot unmarshal array into Go value of type map[string]interface {}');
    assert.deepEqual(err.status(), { code: 400, reason: 'BadRequest', message: err.message });
    refuse('x', 'BadRequest', /cannot unmarshal string/);
  });

  it('malformed directive keys and $retainKeys: 400', () => {
    refuse({ metadata: { $setElementOrder: [] } }, 'BadRequest', 'invalid patch format of setElementOrder list');
    refuse({ metadata: { '$setElementOrderX/finalizers': [] } }, 'BadRequest', /setElementOrder list/);
    refuse({ metadata: { $deleteFromPrimitiveList: ['x'] } }, 'BadRequest', 'invalid patch format of primitive list');
    refuse({ metadata: { $retainKeys: 'name' } }, 'BadRequest', 'invalid patch format of retainKeys');
    refuse({ metadata: { $retainKeys: ['name'], labels: {} } }, 'BadRequest', 'invalid patch format of retainKeys');
  });

  it('a merge-list element without its merge key: 500 with an empty reason', () => {
    const err = refuse(
      containers([{ image: 'busybox' }]),
      'Unknown',
      'map: map[image:busybox] does not contain declared merge key: name',
    );
    assert.deepEqual(err.status(), { code: 500, reason: '', message: err.message });
    refuse(containers([{ $patch: 'delete' }]), 'Unknown', /does not contain declared merge key: name/);
  });

  it('unknown $patch values in list elements and maps', () => {
    refuse(
      containers([{ name: 'app', $patch: 'foo' }]),
      'Unknown',
      'unknown patch type: foo in map: map[$patch:foo name:app]',
    );
    refuse(
      containers([{ name: 'app', $patch: 'merge' }]),
      'Unknown',
      'merging lists cannot yet be specified in the patch',
    );
    refuse(
      { metadata: { labels: { $patch: 'merge' } } },
      'Unknown',
      'unknown patch type: merge in map: map[$patch:merge]',
    );
    refuse({ $patch: 5 }, 'Unknown', 'unknown patch type: %!s(int64=5) in map: map[$patch:5]');
  });

  it('lists of lists in a merge list: 422', () => {
    const doc = { metadata: { finalizers: [] } };
    assert.throws(
      () => applyStrategicMergePatch(doc, { metadata: { finalizers: [['a']] } }, podSchema),
      (err: unknown) =>
        err instanceof PatchError &&
        err.message === 'lists of lists are not supported' &&
        err.status().code === 422 &&
        err.status().reason === 'Invalid',
    );
    // Upstream looks at the first element it meets: a live map first makes it a type mismatch instead.
    refuse(containers([['a']]), 'Unknown', /^list element types are not identical: /);
  });

  it('a patch list out of step with $setElementOrder', () => {
    refuse(
      {
        spec: {
          '$setElementOrder/containers': [{ name: 'a' }, { name: 'b' }],
          containers: [{ name: 'b' }, { name: 'a' }],
        },
      },
      'Unknown',
      /^The order in patch list:\n\[map\[name:b\] map\[name:a\]\]\n doesn't match \$setElementOrder list:/,
    );
    refuse(
      { spec: { '$setElementOrder/containers': 'app' } },
      'Unknown',
      'expected a []interface {}, but received a string',
    );
  });

  it('list elements of different types', () => {
    refuse({ metadata: { finalizers: [1] } }, 'Unknown', 'list element types are not identical: [[x] [1]]');
  });

  it('leaves the inputs alone when it fails', () => {
    const doc = pod();
    const patch = { metadata: { labels: { c: 'd' } }, spec: { containers: [{ image: 'x' }] } };
    assert.throws(() => applyStrategicMergePatch(doc, patch, podSchema), PatchError);
    assert.deepEqual(doc, pod());
    assert.deepEqual(patch, { metadata: { labels: { c: 'd' } }, spec: { containers: [{ image: 'x' }] } });
  });
});
