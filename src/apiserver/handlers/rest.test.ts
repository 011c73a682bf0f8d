import { describe, it } from 'node:test';
import assert from '../../testing/assert.js';
import type { Level } from '../audit/policy.js';
import type { RequestContext } from '../context.js';
import { admissionSinkOf } from './rest.js';

const ctxAt = (auditLevel: Level | undefined): RequestContext =>
  ({ auditAnnotations: {}, ...(auditLevel ? { auditLevel } : {}) }) as unknown as RequestContext;

describe('admissionSinkOf: admission annotations on the audit event', () => {
  it('keeps an annotation that needs the Request level only on events of level Request and above', () => {
    for (const [level, kept] of [
      ['Metadata', false],
      ['Request', true],
      ['RequestResponse', true],
    ] as const) {
      const ctx = ctxAt(level);
      const sink = admissionSinkOf(ctx);
      sink.annotate('patch.webhook.admission.k8s.io/round_0_index_0', '{"patch":[]}', 'Request');
      sink.annotate('mutation.webhook.admission.k8s.io/round_0_index_0', '{"mutated":true}');
      assert.deepEqual(
        Object.keys(ctx.auditAnnotations),
        kept
          ? ['patch.webhook.admission.k8s.io/round_0_index_0', 'mutation.webhook.admission.k8s.io/round_0_index_0']
          : ['mutation.webhook.admission.k8s.io/round_0_index_0'],
        `at ${level}`,
      );
    }
  });

  it('records nothing for a request that is not audited', () => {
    for (const level of [undefined, 'None'] as const) {
      const ctx = ctxAt(level);
      admissionSinkOf(ctx).annotate('example.com/key', 'value');
      assert.deepEqual(ctx.auditAnnotations, {});
    }
  });

  it('keeps the first value of a key, as upstream refuses to overwrite an admission annotation', () => {
    const ctx = ctxAt('Metadata');
    const sink = admissionSinkOf(ctx);
    sink.annotate('validation.policy.admission.k8s.io/validation_failure', 'first');
    sink.annotate('validation.policy.admission.k8s.io/validation_failure', 'second');
    assert.deepEqual(ctx.auditAnnotations, { 'validation.policy.admission.k8s.io/validation_failure': 'first' });
  });
});
