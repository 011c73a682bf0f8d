import { after, before, describe, it } from 'node:test';
import { type ControlPlane, startControlPlane } from '../../src/index.js';
import { apiRequest } from '../../src/testing/api-client.js';
import assert from '../../src/testing/assert.js';
import { eventually } from '../../src/testing/controllers.js';

const POLICIES = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies';

describe('validatingadmissionpolicy-status-controller: type checking in status', () => {
  let cp: ControlPlane;
  before(async () => {
    cp = await startControlPlane({
      controllers: { controllers: ['validatingadmissionpolicy-status-controller'], leaderElect: false },
    });
  });
  after(async () => {
    await cp?.stop();
  });

  it('writes observedGeneration and the expression warnings of each matched kind, again when the spec changes', async () => {
    const spec = (expression: string) => ({
      matchConstraints: {
        resourceRules: [
          { operations: ['CREATE'], apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'] },
        ],
      },
      validations: [{ expression: 'object.spec.replicas <= 5' }, { expression, messageExpression: "'too many'" }],
    });
    const created = await apiRequest(cp, 'POST', POLICIES, {
      body: { metadata: { name: 'typed' }, spec: spec('object.replicas > 1') },
    });
    assert.equal(created.status, 201, created.text);
    await eventually(async () => {
      const got = await apiRequest(cp, 'GET', `${POLICIES}/typed`);
      assert.equal(got.body.status?.observedGeneration, 1, got.text);
      assert.deepEqual(got.body.status.typeChecking.expressionWarnings, [
        {
          fieldRef: 'spec.validations[1].expression',
          warning:
            "apps/v1, Kind=Deployment: ERROR: <input>:1:7: undefined field 'replicas'\n | object.replicas > 1\n | ......^\n",
        },
      ]);
    });

    const current = await apiRequest(cp, 'GET', `${POLICIES}/typed`);
    // Comparing an object with null type-checks in cel-go: no warning.
    current.body.spec = spec('oldObject == null || object.spec.replicas >= oldObject.spec.replicas');
    const updated = await apiRequest(cp, 'PUT', `${POLICIES}/typed`, { body: current.body });
    assert.equal(updated.status, 200, updated.text);
    assert.equal(updated.body.metadata.generation, 2);
    await eventually(async () => {
      const got = await apiRequest(cp, 'GET', `${POLICIES}/typed`);
      assert.equal(got.body.status?.observedGeneration, 2, got.text);
      assert.equal(got.body.status.typeChecking.expressionWarnings, undefined, got.text);
    });
  });

  it('type-checks against a custom resource by the schema the server publishes for it, params included', async () => {
    const crds = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
    const made = await apiRequest(cp, 'POST', crds, {
      body: {
        metadata: { name: 'widgets.example.com' },
        spec: {
          group: 'example.com',
          scope: 'Namespaced',
          names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
          versions: [
            {
              name: 'v1',
              served: true,
              storage: true,
              schema: {
                openAPIV3Schema: {
                  type: 'object',
                  properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } },
                },
              },
            },
          ],
        },
      },
    });
    assert.equal(made.status, 201, made.text);
    await eventually(async () => {
      const crd = (await apiRequest(cp, 'GET', `${crds}/widgets.example.com`)).body;
      assert.equal(crd.status?.conditions?.find((c: { type: string }) => c.type === 'Established')?.status, 'True');
    });
    const created = await apiRequest(cp, 'POST', POLICIES, {
      body: {
        metadata: { name: 'widgets' },
        spec: {
          paramKind: { apiVersion: 'example.com/v1', kind: 'Widget' },
          matchConstraints: {
            resourceRules: [
              { operations: ['CREATE'], apiGroups: ['example.com'], apiVersions: ['v1'], resources: ['widgets'] },
            ],
          },
          validations: [
            // The schema's fields and ObjectMeta's (from the document's references) type-check.
            { expression: "object.spec.size <= params.spec.size && object.metadata.name.startsWith('w')" },
            { expression: "object.spec.colour == 'red'" },
            { expression: 'params.spec.nope == 1' },
          ],
        },
      },
    });
    assert.equal(created.status, 201, created.text);
    await eventually(async () => {
      const got = await apiRequest(cp, 'GET', `${POLICIES}/widgets`);
      assert.equal(got.body.status?.observedGeneration, 1, got.text);
      assert.deepEqual(got.body.status.typeChecking.expressionWarnings, [
        {
          fieldRef: 'spec.validations[1].expression',
          warning:
            "example.com/v1, Kind=Widget: ERROR: <input>:1:12: undefined field 'colour'\n | object.spec.colour == 'red'\n | ...........^\n",
        },
        {
          fieldRef: 'spec.validations[2].expression',
          warning:
            "example.com/v1, Kind=Widget: ERROR: <input>:1:12: undefined field 'nope'\n | params.spec.nope == 1\n | ...........^\n",
        },
      ]);
    });
  });
});
