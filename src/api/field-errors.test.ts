import { describe, it } from 'node:test';
import assert from '../testing/assert.js';
import {
  aggregateMessage,
  duplicate,
  fieldErrorsMessage,
  forbidden,
  internalError,
  invalid,
  invalidMessage,
  invalidStatus,
  notFound,
  notSupported,
  path,
  required,
  tooLong,
  tooMany,
  typeInvalid,
} from './field-errors.js';
import { goStringSlice } from './validation/go-format.js';

describe('FieldPath', () => {
  it('joins children with dots and writes indexes and keys in brackets', () => {
    assert.equal(path('spec').child('containers').index(0).child('name').toString(), 'spec.containers[0].name');
    assert.equal(path('metadata').child('labels').key('app').toString(), 'metadata.labels[app]');
    assert.equal(path('spec', 'template', 'spec').child('a', 'b').toString(), 'spec.template.spec.a.b');
    assert.equal(path('x').index(1).index(2).toString(), 'x[1][2]');
  });

  it('leaves the parent unchanged', () => {
    const spec = path('spec');
    spec.child('a');
    assert.equal(spec.toString(), 'spec');
  });
});

describe('field error messages', () => {
  const name = path('spec').child('containers').index(0).child('name');

  it('Required shows no value', () => {
    assert.equal(required(name).message, 'spec.containers[0].name: Required value');
    assert.equal(
      required(path('metadata', 'name'), 'name or generateName is required').message,
      'metadata.name: Required value: name or generateName is required',
    );
  });

  it('Invalid quotes strings the way Go does', () => {
    assert.equal(invalid(path('metadata', 'name'), 'Foo', 'bad').message, 'metadata.name: Invalid value: "Foo": bad');
    assert.equal(invalid(path('x'), 'a"b\\c\n\u0001é', 'd').body, 'Invalid value: "a\\"b\\\\c\\n\\x01é": d');
  });

  it('Invalid prints numbers, booleans, null and slices as Go does', () => {
    assert.equal(invalid(path('g'), -1, 'neg').body, 'Invalid value: -1: neg');
    assert.equal(invalid(path('g'), 1.5, 'f').body, 'Invalid value: 1.5: f');
    assert.equal(invalid(path('g'), 123456789.5, 'f').body, 'Invalid value: 1.234567895e+08: f');
    assert.equal(invalid(path('g'), true, 'b').body, 'Invalid value: true: b');
    assert.equal(invalid(path('g'), null, 'n').body, 'Invalid value: "null": n');
    assert.equal(invalid(path('g'), ['a', 'b'], 's').body, 'Invalid value: []string{"a", "b"}: s');
    assert.equal(invalid(path('g'), goStringSlice(null), 's').body, 'Invalid value: []string(nil): s');
    assert.equal(
      invalid(path('g'), { b: 1, a: 'x' }, 'm').body,
      'Invalid value: map[string]interface {}{"a":"x", "b":1}: m',
    );
    assert.equal(invalid(path('g'), 'x', '').body, 'Invalid value: "x"');
  });

  it('NotSupported lists the supported values quoted', () => {
    assert.equal(
      notSupported(path('spec', 'restartPolicy'), 'Sometimes', ['Always', 'Never', 'OnFailure']).message,
      'spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "Never", "OnFailure"',
    );
    assert.equal(notSupported(path('x'), 'y', []).message, 'x: Unsupported value: "y"');
  });

  it('the other types', () => {
    assert.equal(duplicate(path('spec', 'ports').index(1), 'http').message, 'spec.ports[1]: Duplicate value: "http"');
    assert.equal(forbidden(path('spec', 'x'), 'may not be set').message, 'spec.x: Forbidden: may not be set');
    assert.equal(
      tooLong(path('metadata', 'annotations'), 262144).message,
      'metadata.annotations: Too long: may not be more than 262144 bytes',
    );
    assert.equal(tooLong(path('a'), -1).message, 'a: Too long: value is too long');
    assert.equal(tooMany(path('items'), 5, 3).message, 'items: Too many: 5: must have at most 3 items');
    assert.equal(tooMany(path('items'), -1, 3).message, 'items: Too many: must have at most 3 items');
    assert.equal(tooMany(path('items'), 5, -1).message, 'items: Too many: 5: has too many items');
    assert.equal(notFound(path('spec', 'ref'), 'abc').message, 'spec.ref: Not found: "abc"');
    assert.equal(
      typeInvalid(path('spec', 'replicas'), 'x', 'must be an integer').message,
      'spec.replicas: Invalid value: "x": must be an integer',
    );
    assert.equal(internalError(path('spec'), new Error('boom')).message, 'spec: Internal error: boom');
  });

  it('a null path prints as <nil>, as a nil *field.Path does', () => {
    assert.equal(invalid(null, 'x', 'y').message, '<nil>: Invalid value: "x": y');
  });

  it('each error gives the StatusCause upstream puts in an Invalid Status', () => {
    assert.deepEqual(required(name).toCause(), {
      reason: 'FieldValueRequired',
      message: 'Required value',
      field: 'spec.containers[0].name',
    });
    assert.deepEqual(invalid(path('metadata', 'name'), 'Foo', 'bad').toCause(), {
      reason: 'FieldValueInvalid',
      message: 'Invalid value: "Foo": bad',
      field: 'metadata.name',
    });
    assert.equal(typeInvalid(path('a'), 1, 'b').toCause().reason, 'FieldValueTypeInvalid');
    assert.equal(tooMany(path('a'), 1, 0).toCause().reason, 'FieldValueTooMany');
  });
});

describe('aggregated messages', () => {
  const a = required(path('spec', 'a'));
  const b = invalid(path('spec', 'b'), 'x', 'bad');

  it('one error stands alone, several go in brackets, duplicates are dropped', () => {
    assert.equal(fieldErrorsMessage([a]), 'spec.a: Required value');
    assert.equal(fieldErrorsMessage([a, b, a]), '[spec.a: Required value, spec.b: Invalid value: "x": bad]');
    assert.equal(fieldErrorsMessage([a, a]), 'spec.a: Required value');
    assert.equal(aggregateMessage([]), '');
  });

  it('formats the Invalid message as upstream NewInvalid does', () => {
    assert.equal(invalidMessage({ group: '', kind: 'Pod' }, 'x', [a]), 'Pod "x" is invalid: spec.a: Required value');
    assert.equal(
      invalidMessage({ group: 'apps', kind: 'Deployment' }, 'web', [a, b]),
      'Deployment.apps "web" is invalid: [spec.a: Required value, spec.b: Invalid value: "x": bad]',
    );
    assert.equal(invalidMessage({ group: '', kind: 'Pod' }, 'x', []), 'Pod "x" is invalid');
    assert.equal(
      invalidMessage({ group: '', kind: 'Pod' }, 'a"b', [a]),
      'Pod "a\\"b" is invalid: spec.a: Required value',
    );
  });

  it('builds the 422 Status with causes in order and not deduplicated', () => {
    const status = invalidStatus({ group: 'apps', kind: 'Deployment' }, 'web', [a, a]);
    assert.equal(status.code, 422);
    assert.equal(status.reason, 'Invalid');
    assert.equal(status.message, 'Deployment.apps "web" is invalid: spec.a: Required value');
    assert.deepEqual(status.details, {
      name: 'web',
      group: 'apps',
      kind: 'Deployment',
      causes: [a.toCause(), a.toCause()],
    });
    assert.deepEqual(invalidStatus({ group: '', kind: 'Pod' }, '', []).details, { kind: 'Pod' });
  });
});
