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
});
