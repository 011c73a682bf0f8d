import { after, before, describe, it } from 'node:test';
import { type ControlPlane, startControlPlane } from '../../src/index.js';
import { apiRequest, kubectl } from '../../src/testing/api-client.js';
import assert from '../../src/testing/assert.js';
import { eventually } from '../../src/testing/controllers.js';
import { jsonPatch, startWebhookServer, type WebhookServer } from '../../src/testing/webhook-server.js';

function configurations(hook: WebhookServer): string {
  const common = (path: string) => `
  clientConfig:
    url: ${hook.url}${path}
    caBundle: ${hook.caBundle}
  rules:
  - operations: ["CREATE"]
    apiGroups: [""]
    apiVersions: ["v1"]
    resources: ["configmaps"]
  namespaceSelector:
    matchLabels:
      kubernetes.io/metadata.name: hooked
  sideEffects: None
  admissionReviewVersions: ["v1"]`;
  return `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata:
  name: add-owner
webhooks:
- name: owner.wheelhouse.test${common('/mutate')}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: no-secrets-in-configmaps
webhooks:
- name: nosecrets.wheelhouse.test${common('/validate')}
`;
}

describe('e2e: admission webhooks with the real kubectl', () => {
  let cp: ControlPlane;
  let hook: WebhookServer;
  before(async () => {
    [cp, hook] = await Promise.all([startControlPlane(), startWebhookServer()]);
    hook.on('/mutate', () => ({
      allowed: true,
      ...jsonPatch([{ op: 'add', path: '/metadata/labels', value: { owner: 'webhook' } }]),
    }));
    hook.on('/validate', (review) => {
      const data = review.request.object.data ?? {};
      if ('password' in data)
        return { allowed: false, status: { code: 403, message: 'configmaps may not hold passwords' } };
      return { allowed: true, warnings: [`configmap ${review.request.name} is checked by a webhook`] };
    });
  });
  after(async () => {
    await Promise.all([cp?.stop(), hook?.close()]);
  });

  it('kubectl apply of the configurations, then a denial and a patch as kubectl prints them', async () => {
    const applied = await kubectl(cp, ['apply', '-f', '-'], { input: configurations(hook) });
    assert.equal(applied.code, 0, applied.stderr);
    assert.match(applied.stdout, /mutatingwebhookconfiguration.admissionregistration.k8s.io\/add-owner created/);
    const listed = await kubectl(cp, ['get', 'validatingwebhookconfigurations']);
    assert.match(listed.stdout, /^NAME\s+WEBHOOKS\s+AGE\nno-secrets-in-configmaps\s+1\s+/);
    assert.equal((await kubectl(cp, ['create', 'namespace', 'hooked'])).code, 0);
    await eventually(async () => {
      for (const r of ['mutatingwebhookconfigurations', 'validatingwebhookconfigurations']) {
        const list = await apiRequest(cp, 'GET', `/apis/admissionregistration.k8s.io/v1/${r}?resourceVersion=0`);
        assert.equal(list.body.items.length, 1);
      }
    });

    const denied = await kubectl(cp, ['-n', 'hooked', 'create', 'configmap', 'db', '--from-literal=password=hunter2']);
    assert.notEqual(denied.code, 0);
    assert.equal(
      denied.stderr.trim(),
      'error: failed to create configmap: admission webhook "nosecrets.wheelhouse.test" denied the request: configmaps may not hold passwords',
    );

    const denyApply = await kubectl(cp, ['-n', 'hooked', 'apply', '-f', '-'], {
      input: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: db\ndata:\n  password: hunter2\n',
    });
    assert.notEqual(denyApply.code, 0);
    assert.match(
      denyApply.stderr,
      /^Error from server: error when creating "STDIN": admission webhook "nosecrets.wheelhouse.test" denied the request: configmaps may not hold passwords/,
    );

    const created = await kubectl(cp, ['-n', 'hooked', 'create', 'configmap', 'app', '--from-literal=color=green']);
    assert.equal(created.code, 0, created.stderr);
    assert.equal(created.stdout.trim(), 'configmap/app created');
    assert.equal(created.stderr.trim(), 'Warning: configmap app is checked by a webhook');
    const label = await kubectl(cp, [
      '-n',
      'hooked',
      'get',
      'configmap',
      'app',
      '-o',
      'jsonpath={.metadata.labels.owner}',
    ]);
    assert.equal(label.stdout, 'webhook');
  });
});
