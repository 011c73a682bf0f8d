import { describe, it } from 'node:test';
import assert from '../../testing/assert.js';
import { applyJsonPatch } from './json-patch.js';
import { PatchError, type PatchErrorKind } from './patch-error.js';

function pod() {
  return {
    metadata: { name: 'web', labels: { 'app.kubernetes.io/name': 'web', tier: 'front' } },
    spec: { containers: [{ name: 'app', image: 'nginx:1.25' }], tolerations: [] as unknown[] },
  };
}

function fails(fn: () => unknown, kind: PatchErrorKind, message?: RegExp): PatchError {
  let caught: unknown;
  try {
    fn();
  } catch (err) {
    caught = err;
  }
  assert.ok(caught instanceof PatchError, `expected a PatchError, got ${String(caught)}`);
  assert.equal(caught.kind, kind);
  if (message) assert.match(caught.message, message);
  return caught;
}

describe('applyJsonPatch', () => {
  it('reaches keys with ~1 and ~0 escapes', () => {
    const doc = { metadata: { labels: { 'app.kubernetes.io/name': 'web', 'a~b': 'x' } } };
    const out = applyJsonPatch(doc, [
      { op: 'replace', path: '/metadata/labels/app.kubernetes.io~1name', value: 'api' },
      { op: 'remove', path: '/metadata/labels/a~0b' },
      { op: 'add', path: '/metadata/labels/x~01', value: 'y' },
    ]);
    assert.deepEqual(out, { metadata: { labels: { 'app.kubernetes.io/name': 'api', 'x~1': 'y' } } });
  });

  it('appends with "-", inserts at an index and counts negative indexes from the end', () => {
    const out = applyJsonPatch(pod(), [
      { op: 'add', path: '/spec/containers/-', value: { name: 'log', image: 'busybox' } },
      { op: 'add', path: '/spec/containers/0', value: { name: 'init' } },
      { op: 'replace', path: '/spec/containers/-1/image', value: 'fluentd' },
      { op: 'add', path: '/spec/tolerations/-', value: { key: 'k' } },
    ]) as ReturnType<typeof pod>;
    assert.deepEqual(
      out.spec.containers.map((c) => c.name),
      ['init', 'app', 'log'],
    );
    assert.equal(out.spec.containers[2]?.image, 'fluentd');
    assert.deepEqual(out.spec.tolerations, [{ key: 'k' }]);
  });

  it('overwrites an existing key with add and removes array elements', () => {
    const out = applyJsonPatch(pod(), [
      { op: 'add', path: '/metadata/labels/tier', value: 'back' },
      { op: 'remove', path: '/spec/containers/0' },
    ]) as ReturnType<typeof pod>;
    assert.equal(out.metadata.labels.tier, 'back');
    assert.deepEqual(out.spec.containers, []);
  });

  it('lets replace create a missing object key, as evanphx/json-patch v4 does', () => {
    const out = applyJsonPatch(pod(), [{ op: 'replace', path: '/metadata/labels/new', value: 'v' }]);
    assert.deepEqual((out as ReturnType<typeof pod>).metadata.labels, { ...pod().metadata.labels, new: 'v' });
  });

  it('fails remove of a missing key, replace of a missing index and add beyond the end', () => {
    fails(() => applyJsonPatch(pod(), [{ op: 'remove', path: '/metadata/labels/absent' }]), 'Invalid');
    fails(() => applyJsonPatch(pod(), [{ op: 'replace', path: '/spec/containers/5', value: {} }]), 'Invalid');
    fails(() => applyJsonPatch(pod(), [{ op: 'add', path: '/spec/containers/2', value: {} }]), 'Invalid');
    // evanphx/json-patch v4's words for a path whose parent is missing (each operation words it its own way).
    const missing = (op: Record<string, unknown>, text: string) => {
      const err = fails(() => applyJsonPatch(pod(), [op]), 'Invalid');
      assert.equal(err.message, text);
    };
    missing(
      { op: 'add', path: '/spec/missing/x', value: 1 },
      'add operation does not apply: doc is missing path: "/spec/missing/x": missing value',
    );
    missing(
      { op: 'remove', path: '/spec/missing/x' },
      'remove operation does not apply: doc is missing path: "/spec/missing/x": missing value',
    );
    missing(
      { op: 'replace', path: '/spec/nothing/x', value: 1 },
      'replace operation does not apply: doc is missing path: /spec/nothing/x: missing value',
    );
    missing(
      { op: 'move', from: '/a/b', path: '/c' },
      'move operation does not apply: doc is missing from path: /a/b: missing value',
    );
    missing(
      { op: 'copy', from: '/metadata', path: '/x/y' },
      'copy operation does not apply: doc is missing destination path: /x/y: missing value',
    );
    missing(
      { op: 'test', path: '/x/y', value: 1 },
      'test operation does not apply: is missing path: /x/y: missing value',
    );
    fails(() => applyJsonPatch(pod(), [{ op: 'add', path: '', value: {} }]), 'Invalid');
  });

  it('moves and copies values; copy from a missing key copies null', () => {
    const out = applyJsonPatch(pod(), [
      { op: 'copy', from: '/metadata/labels/tier', path: '/metadata/labels/copy' },
      { op: 'move', from: '/metadata/labels/copy', path: '/metadata/labels/moved' },
      { op: 'copy', from: '/metadata/labels/absent', path: '/metadata/labels/nothing' },
    ]) as ReturnType<typeof pod>;
    assert.deepEqual(out.metadata.labels, {
      'app.kubernetes.io/name': 'web',
      tier: 'front',
      moved: 'front',
      nothing: null,
    });
    fails(() => applyJsonPatch(pod(), [{ op: 'move', from: '/metadata/absent', path: '/x' }]), 'Invalid');
  });

  it('applies nothing when a test op fails, and answers 422 Invalid', () => {
    const doc = pod();
    const err = fails(
      () =>
        applyJsonPatch(doc, [
          { op: 'replace', path: '/metadata/labels/tier', value: 'back' },
          { op: 'test', path: '/spec/containers/0/image', value: 'nginx:1.24' },
        ]),
      'Invalid',
      /^testing value \/spec\/containers\/0\/image failed: test failed$/,
    );
    // The library's text is not sent to the client: the apiserver answers its fixed 422 message.
    assert.deepEqual(err.status(), {
      code: 422,
      reason: 'Invalid',
      message: 'the server rejected our request due to an error in our request',
      details: {},
    });
    assert.deepEqual(doc, pod());
  });

  it('passes a test that matches, and treats a missing key as null', () => {
    const out = applyJsonPatch(pod(), [
      { op: 'test', path: '/spec/containers/0', value: { image: 'nginx:1.25', name: 'app' } },
      { op: 'test', path: '/metadata/labels/absent', value: null },
      { op: 'replace', path: '/spec/containers/0/image', value: 'nginx:1.26' },
    ]) as ReturnType<typeof pod>;
    assert.equal(out.spec.containers[0]?.image, 'nginx:1.26');
    fails(() => applyJsonPatch(pod(), [{ op: 'test', path: '/metadata/labels/absent', value: 'x' }]), 'Invalid');
  });

  it('refuses copies that add more than 3 MiB in total', () => {
    const doc = { big: 'x'.repeat(1024 * 1024) };
    const copies = (n: number) => Array.from({ length: n }, (_, i) => ({ op: 'copy', from: '/big', path: `/c${i}` }));
    assert.doesNotThrow(() => applyJsonPatch(doc, copies(2)));
    fails(() => applyJsonPatch(doc, copies(3)), 'Invalid', /copy would add/);
  });

  it('refuses unknown ops and operations without a path', () => {
    fails(() => applyJsonPatch(pod(), [{ op: 'merge', path: '/a' }]), 'Invalid', /unexpected kind: merge/);
    fails(() => applyJsonPatch(pod(), [{ path: '/a' }]), 'Invalid', /unknown/);
    fails(() => applyJsonPatch(pod(), [{ op: 'add', value: 1 }]), 'Invalid');
  });

  it('ignores what comes before the first slash, like v4', () => {
    assert.deepEqual(applyJsonPatch({ a: 1 }, [{ op: 'add', path: 'zzz/b', value: 2 }]), { a: 1, b: 2 });
  });

  it('changes neither the document nor the patch', () => {
    const doc = pod();
    const value = { name: 'log' };
    const out = applyJsonPatch(doc, [{ op: 'add', path: '/spec/containers/-', value }]) as ReturnType<typeof pod>;
    assert.deepEqual(doc, pod());
    (out.spec.containers[1] as { name: string }).name = 'changed';
    assert.equal(value.name, 'log');
  });
});
