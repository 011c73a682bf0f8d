import { after, before, describe, it } from 'node:test';
import { type ControlPlane, startControlPlane } from '../../src/index.js';
import { apiRequest, kubectl } from '../../src/testing/api-client.js';
import assert from '../../src/testing/assert.js';
import { eventually } from '../../src/testing/controllers.js';

const MANIFESTS = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: demo-policy.example.com
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - apiGroups: ["apps"]
      apiVersions: ["v1"]
      operations: ["CREATE", "UPDATE"]
      resources: ["deployments"]
  validations:
  - expression: "object.spec.replicas <= 5"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: demo-binding-test.example.com
spec:
  policyName: demo-policy.example.com
  validationActions: [Deny]
  matchResources:
    namespaceSelector:
      matchLabels:
        environment: test
`;

describe('e2e: ValidatingAdmissionPolicy with the real kubectl', () => {
  let cp: ControlPlane;
  before(async () => {
    cp = await startControlPlane();
  });
  after(async () => {
    await cp?.stop();
  });

  it('kubectl apply of a policy and binding; kubectl create deployment refused with upstream error line', async () => {
    const applied = await kubectl(cp, ['apply', '-f', '-'], { input: MANIFESTS });
    assert.equal(applied.code, 0, applied.stderr);
    assert.match(
      applied.stdout,
      /validatingadmissionpolicy.admissionregistration.k8s.io\/demo-policy.example.com created/,
    );
    assert.match(
      applied.stdout,
      /validatingadmissionpolicybinding.admissionregistration.k8s.io\/demo-binding-test.example.com created/,
    );
    const ns = await kubectl(cp, ['create', 'namespace', 'test-ns']);
    assert.equal(ns.code, 0, ns.stderr);
    assert.equal((await kubectl(cp, ['label', 'namespace', 'test-ns', 'environment=test'])).code, 0);
    await eventually(async () => {
      const list = await apiRequest(
        cp,
        'GET',
        '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings?resourceVersion=0',
      );
      assert.equal(list.body.items.length, 1);
    });

    const refused = await kubectl(cp, [
      'create',
      'deployment',
      'nginx',
      '--image=nginx',
      '--replicas=6',
      '-n',
      'test-ns',
    ]);
    assert.notEqual(refused.code, 0);
    assert.equal(
      refused.stderr.trim(),
      `error: failed to create deployment: deployments.apps "nginx" is forbidden: ValidatingAdmissionPolicy 'demo-policy.example.com' with binding 'demo-binding-test.example.com' denied request: failed expression: object.spec.replicas <= 5`,
    );
    const allowed = await kubectl(cp, [
      'create',
      'deployment',
      'nginx',
      '--image=nginx',
      '--replicas=3',
      '-n',
      'test-ns',
    ]);
    assert.equal(allowed.code, 0, allowed.stderr);
    // Outside the labelled namespace the binding does not apply.
    const elsewhere = await kubectl(cp, [
      'create',
      'deployment',
      'big',
      '--image=nginx',
      '--replicas=6',
      '-n',
      'default',
    ]);
    assert.equal(elsewhere.code, 0, elsewhere.stderr);

    const get = await kubectl(cp, ['get', 'validatingadmissionpolicies']);
    assert.equal(get.code, 0, get.stderr);
    assert.match(get.stdout, /^NAME\s+VALIDATIONS\s+PARAMKIND\s+AGE\ndemo-policy.example.com\s+1\s+<unset>\s+\S+\n$/);
  });
});
