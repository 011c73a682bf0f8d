import { describe, it } from 'node:test';
import assert from '../../testing/assert.js';
import { schemaForKind } from '../schema.js';
import { openAPISchemaForCel, typeCheckCel } from './index.js';

describe('CEL type checking against schemas', () => {
  const deployment = schemaForKind({ group: 'apps', version: 'v1', kind: 'Deployment' });
  const vars = [{ name: 'object', schema: deployment }];
  const check = (e: string) => typeCheckCel(e, vars, 'test apps/v1 Deployment');

  it('accepts what the schema has', () => {
    assert.equal(check('object.spec.replicas <= 5'), undefined);
    assert.equal(check('object.spec.template.spec.containers.all(c, c.image.startsWith("r/"))'), undefined);
    assert.equal(check('object.metadata.labels["app"] == "x" && has(object.spec.strategy)'), undefined);
  });

  it('reports unknown fields and wrong types as cel-go does', () => {
    assert.equal(
      check('object.replicas > 1'),
      "ERROR: <input>:1:7: undefined field 'replicas'\n | object.replicas > 1\n | ......^",
    );
    // A presence test looks its field up too.
    assert.equal(
      check('!has(object.spec.replica)'),
      "ERROR: <input>:1:17: undefined field 'replica'\n | !has(object.spec.replica)\n | ................^",
    );
    assert.match(
      check('object.spec.replicas == "a"') ?? '',
      /found no matching overload for '_==_' applied to '\(int, string\)'/,
    );
  });

  it('compares objects with null and with their own type, as cel-go does', () => {
    const both = [...vars, { name: 'oldObject', schema: deployment }];
    const checkBoth = (e: string) => typeCheckCel(e, both, 'test apps/v1 Deployment, old');
    assert.equal(checkBoth('oldObject == null || object.spec.replicas >= oldObject.spec.replicas'), undefined);
    assert.equal(checkBoth('null != oldObject && object.spec != oldObject.spec'), undefined);
    assert.equal(checkBoth('object == oldObject || object.spec.template == dyn(oldObject).spec.template'), undefined);
    assert.equal(checkBoth('object.metadata.creationTimestamp != null'), undefined);
    // Still errors: other kinds against null (not nullable in cel-go), objects of different types.
    assert.match(
      checkBoth('object.spec.replicas == null') ?? '',
      /found no matching overload for '_==_' applied to '\(int, null\)'/,
    );
    assert.match(checkBoth('object.spec.template.spec.containers == null') ?? '', /found no matching overload/);
    assert.match(checkBoth('object.spec == object.metadata') ?? '', /found no matching overload for '_==_'/);
  });

  it('types raw OpenAPI schemas (CRDs), IntOrString as dyn', () => {
    const schema = openAPISchemaForCel({
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: { size: { type: 'integer' }, port: { 'x-kubernetes-int-or-string': true } },
        },
      },
    });
    const v = [{ name: 'self', schema }];
    assert.equal(typeCheckCel('self.spec.size > 1 && self.spec.port == "http"', v, 'test widget'), undefined);
    assert.match(typeCheckCel('self.spec.sise > 1', v, 'test widget') ?? '', /undefined field 'sise'/);
  });
});
