import { describe, it } from 'node:test';
import { admissionAttributes } from '../../../testing/admission-attributes.js';
import assert from '../../../testing/assert.js';
import type { APIRegistry } from '../../api-registry.js';
import type { KubeObject } from '../../registry/object.js';
import type { AdmissionAttributes } from '../types.js';
import { validatePolicy } from './evaluate.js';
import { applyValidationActions, type Denial, VALIDATION_FAILURE_ANNOTATION } from './plugin.js';

const registry = { authorizer: undefined } as unknown as APIRegistry;

function attrs(object: KubeObject, sink?: AdmissionAttributes['sink']): AdmissionAttributes {
  return admissionAttributes({ object, sink });
}

const policy = (spec: Record<string, unknown>): KubeObject => ({ metadata: { name: 'p' }, spec }) as KubeObject;
const cm = (data: Record<string, string>): KubeObject => ({ metadata: { name: 'c' }, data }) as KubeObject;

describe('ValidatingAdmissionPolicy evaluation', () => {
  it('gives audit annotations (null excluded) and keeps integers integers', () => {
    const result = validatePolicy({
      policy: policy({
        validations: [{ expression: 'size(object.data) < 3' }],
        auditAnnotations: [
          { key: 'keys', valueExpression: "'keys: ' + string(size(object.data))" },
          { key: 'none', valueExpression: 'null' },
        ],
      }),
      attrs: attrs(cm({ a: '1' })),
      registry,
      param: null,
      namespaceObject: null,
    });
    assert.deepEqual(result.auditAnnotations, [{ key: 'keys', value: 'keys: 1' }]);
    assert.deepEqual(result.decisions, [{ action: 'admit', message: '', index: 0 }]);
    assert.deepEqual(result.auditAnnotationErrors, []);
  });

  it('trims audit annotation values and leaves out empty ones, as upstream', () => {
    const result = validatePolicy({
      policy: policy({
        auditAnnotations: [
          { key: 'padded', valueExpression: "'  owner: ' + object.data.owner + '  '" },
          { key: 'blank', valueExpression: "'   '" },
        ],
      }),
      attrs: attrs(cm({ owner: 'jane' })),
      registry,
      param: null,
      namespaceObject: null,
    });
    assert.deepEqual(result.auditAnnotations, [{ key: 'padded', value: 'owner: jane' }]);
  });

  it('an audit annotation that fails is an error apart from the decisions under Fail, left out under Ignore', () => {
    const spec = (failurePolicy: string) =>
      policy({
        failurePolicy,
        validations: [{ expression: 'true' }],
        auditAnnotations: [
          // A string (a bare object.data.missing would be dyn, refused when compiled): it fails as it runs.
          { key: 'bad', valueExpression: "'v' + object.data.missing" },
          { key: 'good', valueExpression: "'fine'" },
        ],
      });
    const run = (failurePolicy: string) =>
      validatePolicy({
        policy: spec(failurePolicy),
        attrs: attrs(cm({})),
        registry,
        param: null,
        namespaceObject: null,
      });
    const fail = run('Fail');
    assert.deepEqual(fail.decisions, [{ action: 'admit', message: '', index: 0 }]);
    assert.deepEqual(fail.auditAnnotationErrors, [
      "expression ''v' + object.data.missing' resulted in error: no such key: missing",
    ]);
    assert.deepEqual(fail.auditAnnotations, [{ key: 'good', value: 'fine' }]);
    const ignore = run('Ignore');
    assert.deepEqual(ignore.auditAnnotationErrors, []);
    assert.deepEqual(ignore.auditAnnotations, [{ key: 'good', value: 'fine' }]);
  });

  it('falls back from a failing messageExpression to the message, then to the expression', () => {
    const result = validatePolicy({
      policy: policy({
        validations: [
          { expression: 'false', messageExpression: 'object.data.missing', message: 'static' },
          { expression: ' false ' },
          { expression: 'false', messageExpression: "'line\\nbreak'" },
        ],
      }),
      attrs: attrs(cm({})),
      registry,
      param: null,
      namespaceObject: null,
    });
    assert.deepEqual(
      result.decisions.map((d) => d.message),
      ['static', 'failed expression: false', 'failed expression: false'],
    );
  });

  it('a variable that fails fails the validation that reads it, by failurePolicy', () => {
    const spec = (failurePolicy: string) =>
      policy({
        failurePolicy,
        variables: [{ name: 'bad', expression: 'object.data.nope' }],
        validations: [{ expression: "variables.bad == 'x'" }],
      });
    const fail = validatePolicy({
      policy: spec('Fail'),
      attrs: attrs(cm({})),
      registry,
      param: null,
      namespaceObject: null,
    });
    assert.deepEqual(fail.decisions, [
      { action: 'deny', message: "expression 'variables.bad == 'x'' resulted in error: no such key: nope", index: 0 },
    ]);
    const ignore = validatePolicy({
      policy: spec('Ignore'),
      attrs: attrs(cm({})),
      registry,
      param: null,
      namespaceObject: null,
    });
    assert.equal(ignore.decisions[0]?.action, 'admit');
  });

  it('Audit records the validation_failure annotation; Warn a warning', () => {
    const warnings: string[] = [];
    const annotations: Record<string, string> = {};
    const sink = { warn: (t: string) => warnings.push(t), annotate: (k: string, v: string) => (annotations[k] = v) };
    const denials: Denial[] = [];
    applyValidationActions(
      attrs(cm({}), sink),
      ['Warn', 'Audit'],
      'p',
      'b',
      { action: 'deny', message: 'no', index: 2 },
      denials,
    );
    assert.deepEqual(denials, []);
    assert.deepEqual(warnings, ["Validation failed for ValidatingAdmissionPolicy 'p' with binding 'b': no"]);
    assert.deepEqual(JSON.parse(annotations[VALIDATION_FAILURE_ANNOTATION] ?? 'null'), [
      { message: 'no', policy: 'p', binding: 'b', expressionIndex: 2, validationActions: ['Warn', 'Audit'] },
    ]);
  });
});
