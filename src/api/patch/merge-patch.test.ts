import { describe, it } from 'node:test';
import assert from '../../testing/assert.js';
import { applyMergePatch } from './merge-patch.js';
import { PatchError } from './patch-error.js';

function deployment() {
  return {
    metadata: { name: 'web', labels: { app: 'web', tier: 'front' }, annotations: { note: 'x' } },
    spec: {
      replicas: 1,
      template: {
        spec: {
          containers: [
            { name: 'app', image: 'nginx' },
            { name: 'log', image: 'fluentd' },
          ],
        },
      },
    },
  };
}

function refused(fn: () => unknown): PatchError {
  try {
    fn();
  } catch (err) {
    if (err instanceof PatchError) return err;
    throw err;
  }
  assert.fail('expected a PatchError');
}

describe('applyMergePatch', () => {
  it('adds and removes labels the way kubectl label sends them', () => {
    const added = applyMergePatch(deployment(), { metadata: { labels: { env: 'prod' } } });
    assert.deepEqual((added as ReturnType<typeof deployment>).metadata.labels, {
      app: 'web',
      tier: 'front',
      env: 'prod',
    });
    const removed = applyMergePatch(deployment(), { metadata: { labels: { tier: null, absent: null } } });
    assert.deepEqual((removed as ReturnType<typeof deployment>).metadata.labels, { app: 'web' });
  });

  it('sets replicas the way kubectl scale sends it', () => {
    const out = applyMergePatch(deployment(), { spec: { replicas: 3 } }) as ReturnType<typeof deployment>;
    assert.equal(out.spec.replicas, 3);
    assert.equal(out.spec.template.spec.containers.length, 2);
  });

  it('replaces lists whole', () => {
    const out = applyMergePatch(deployment(), {
      spec: { template: { spec: { containers: [{ name: 'app', image: 'nginx:2' }] } } },
    }) as ReturnType<typeof deployment>;
    assert.deepEqual(out.spec.template.spec.containers, [{ name: 'app', image: 'nginx:2' }]);
  });

  it('drops nested nulls from values that land on missing or non-object members', () => {
    const out = applyMergePatch(
      { a: 1, list: [1] },
      { b: { c: null, d: { e: null, f: 1 } }, a: { g: null, h: 2 }, list: [{ x: null, y: 1 }, null] },
    );
    assert.deepEqual(out, { a: { h: 2 }, b: { d: { f: 1 } }, list: [{ y: 1 }, null] });
  });

  it('keeps a replacing array as sent when it lands on an object (evanphx/json-patch v4)', () => {
    assert.deepEqual(applyMergePatch({ a: { b: 1 } }, { a: [{ c: null }] }), { a: [{ c: null }] });
  });

  it('replaces a null member and merges objects recursively', () => {
    assert.deepEqual(applyMergePatch({ a: null, b: { c: { d: 1, e: 2 } } }, { a: { x: 1 }, b: { c: { d: 3 } } }), {
      a: { x: 1 },
      b: { c: { d: 3, e: 2 } },
    });
  });

  it('refuses a null patch with 400 "Invalid JSON Patch"', () => {
    for (const fieldValidation of ['Ignore', 'Warn', 'Strict'] as const) {
      const err = refused(() => applyMergePatch(deployment(), null, { fieldValidation }));
      assert.deepEqual(err.status(), { code: 400, reason: 'BadRequest', message: 'Invalid JSON Patch' });
    }
  });

  it('refuses a scalar or array body in the strict decode (the default, Warn)', () => {
    assert.equal(
      refused(() => applyMergePatch(deployment(), [1])).message,
      'error decoding patch: json: cannot unmarshal array into Go value of type map[string]interface {}',
    );
    const strict = refused(() => applyMergePatch(deployment(), 'x', { fieldValidation: 'Strict' }));
    assert.equal(strict.kind, 'BadRequest');
    assert.match(strict.message, /cannot unmarshal string into Go value of type map/);
  });

  it('with fieldValidation=Ignore, refuses a scalar and lets an array replace the whole document', () => {
    const ignore = { fieldValidation: 'Ignore' } as const;
    assert.equal(refused(() => applyMergePatch(deployment(), 5, ignore)).message, 'Invalid JSON Patch');
    assert.deepEqual(applyMergePatch(deployment(), [{ a: null }, 1], ignore), [{}, 1]);
  });

  it('changes neither the document nor the patch', () => {
    const doc = deployment();
    const patch = { metadata: { labels: { tier: null }, extra: { k: 'v' } } };
    const out = applyMergePatch(doc, patch) as { metadata: { extra: { k: string } } };
    out.metadata.extra.k = 'changed';
    assert.deepEqual(doc, deployment());
    assert.deepEqual(patch, { metadata: { labels: { tier: null }, extra: { k: 'v' } } });
  });
});
