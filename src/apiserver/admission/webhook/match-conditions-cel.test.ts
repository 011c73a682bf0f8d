import { describe, it } from 'node:test';
import assert from '../../../testing/assert.js';
import { matchConditionProblem } from './match-conditions-cel.js';

describe('webhook matchConditions: what a configuration may hold', () => {
  it('takes expressions whose type is bool', () => {
    assert.equal(matchConditionProblem("object.metadata.name == 'a'"), undefined);
    assert.equal(matchConditionProblem('has(object.metadata.labels) && oldObject == null'), undefined);
    // request is typed as upstream's AdmissionRequest: dryRun is a bool.
    assert.equal(matchConditionProblem('request.dryRun'), undefined);
    assert.equal(matchConditionProblem("request.userInfo.groups.exists(g, g == 'x')"), undefined);
    assert.equal(matchConditionProblem("authorizer.requestResource.check('create').allowed()"), undefined);
  });

  it('refuses dyn and other types, as upstream compiler does', () => {
    assert.equal(matchConditionProblem('object.spec.enabled'), 'must evaluate to bool but got dyn');
    assert.equal(matchConditionProblem('oldObject'), 'must evaluate to bool but got dyn');
    assert.equal(matchConditionProblem('request.name'), 'must evaluate to bool but got string');
    assert.equal(matchConditionProblem("'a string'"), 'must evaluate to bool but got string');
    assert.equal(matchConditionProblem('size(object.metadata.name)'), 'must evaluate to bool but got int');
  });

  it('gives the compiler text for one that does not compile', () => {
    assert.match(matchConditionProblem('object.metadata.name ==') ?? '', /^compilation failed: ERROR: <input>:1:/);
  });

  it('refuses a field the AdmissionRequest type does not have, as upstream compiler does', () => {
    assert.equal(
      matchConditionProblem("request.foo == 'x'"),
      "compilation failed: ERROR: <input>:1:8: undefined field 'foo'\n | request.foo == 'x'\n | .......^",
    );
    // object and oldObject are variables of their own, not fields of the request.
    assert.match(matchConditionProblem('request.object.spec.x == 1') ?? '', /undefined field 'object'/);
    assert.match(matchConditionProblem("request.userInfo.nickname == 'x'") ?? '', /undefined field 'nickname'/);
    // Its own fields, maps and free-form options still type-check.
    assert.equal(matchConditionProblem("request.userInfo.extra['a'].exists(x, x == 'b')"), undefined);
    assert.equal(matchConditionProblem("request.kind.group == '' && request.options.foo == 1"), undefined);
  });
});
