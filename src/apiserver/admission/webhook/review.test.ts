import { describe, it } from 'node:test';
import assert from '../../../testing/assert.js';
import { reviewVersionFor, verifyAdmissionResponse } from './review.js';

const v1 = (response: unknown) => ({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response });
const patch = Buffer.from('[{"op":"add","path":"/x","value":1}]').toString('base64');

describe('AdmissionReview answers', () => {
  it('picks the first review version this server speaks', () => {
    assert.equal(reviewVersionFor(['v2', 'v1beta1', 'v1']), 'v1beta1');
    assert.equal(reviewVersionFor(['v1']), 'v1');
    assert.equal(reviewVersionFor(['v2']), undefined);
  });

  it('refuses v1 answers as upstream words it', () => {
    const check = (review: unknown, mutating = true) => verifyAdmissionResponse('v1', 'u1', mutating, review);
    assert.equal(check({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' }), 'webhook response was absent');
    assert.equal(check(v1({ uid: 'u2', allowed: true })), 'expected response.uid="u1", got "u2"');
    assert.equal(
      check({ apiVersion: 'v1', kind: 'AdmissionReview', response: { uid: 'u1', allowed: true } }),
      'expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got /v1, Kind=AdmissionReview',
    );
    assert.equal(
      check(v1({ uid: 'u1', allowed: true, patch })),
      'webhook returned response.patch but not response.patchType',
    );
    assert.equal(
      check(v1({ uid: 'u1', allowed: true, patchType: 'JSONPatch' })),
      'webhook returned response.patchType but not response.patch',
    );
    assert.equal(
      check(v1({ uid: 'u1', allowed: true, patch, patchType: 'JSONPatch' }), false),
      'validating webhook may not return response.patch',
    );
  });

  it('reads a good answer: allowed, decoded patch, warnings, audit annotations', () => {
    const answer = verifyAdmissionResponse(
      'v1',
      'u1',
      true,
      v1({ uid: 'u1', allowed: true, patch, patchType: 'JSONPatch', warnings: ['w'], auditAnnotations: { k: 'v' } }),
    );
    assert.deepEqual(answer, {
      allowed: true,
      result: undefined,
      patch: '[{"op":"add","path":"/x","value":1}]',
      patchType: 'JSONPatch',
      warnings: ['w'],
      auditAnnotations: { k: 'v' },
    });
  });

  it('does not check v1beta1 answers for uid or kind, and ignores a validating one’s patch', () => {
    const answer = verifyAdmissionResponse('v1beta1', 'u1', false, {
      apiVersion: 'admission.k8s.io/v1beta1',
      response: { uid: 'other', allowed: false, patch },
    });
    assert.equal(typeof answer, 'object');
    assert.equal((answer as { allowed: boolean }).allowed, false);
    assert.equal((answer as { patch?: string }).patch, undefined);
    assert.equal((answer as { patchType?: string }).patchType, undefined);
  });

  it('takes a mutating v1beta1 answer’s patch as JSONPatch, with or without patchType', () => {
    const beta = (response: unknown) => verifyAdmissionResponse('v1beta1', 'u1', true, { response });
    for (const response of [
      { allowed: true, patch },
      { allowed: true, patch, patchType: 'JSONPatch' },
      { allowed: true, patch, patchType: 'Other' },
    ]) {
      const answer = beta(response) as { patch?: string; patchType?: string };
      assert.equal(answer.patch, '[{"op":"add","path":"/x","value":1}]');
      assert.equal(answer.patchType, 'JSONPatch');
    }
    assert.equal((beta({ allowed: true, patchType: 'JSONPatch' }) as { patchType?: string }).patchType, undefined);
  });
});
