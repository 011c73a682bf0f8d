import { describe, it } from 'node:test';
import { LabelSelector } from '../../../api/labels.js';
import { StatusError } from '../../../api/status-error.js';
import { admissionAttributes } from '../../../testing/admission-attributes.js';
import assert from '../../../testing/assert.js';
import { APIRegistry } from '../../api-registry.js';
import type { KubeObject } from '../../registry/object.js';
import type { AdmissionAttributes } from '../types.js';
import type { Webhook, WebhookRule } from './configuration.js';
import { isExemptFromWebhooks, type NamespaceLabels, webhookInvocation } from './matching.js';

function hook(rules: Partial<WebhookRule>[], extra: Partial<Webhook> = {}): Webhook {
  return {
    uid: 'c/0/h',
    configurationName: 'c',
    index: 0,
    name: 'h.example.com',
    rules: rules.map((r) => ({
      operations: ['*'],
      apiGroups: ['*'],
      apiVersions: ['*'],
      resources: ['*'],
      scope: '*',
      ...r,
    })),
    failurePolicy: 'Fail',
    matchPolicy: 'Equivalent',
    namespaceSelector: LabelSelector.everything(),
    objectSelector: LabelSelector.everything(),
    sideEffects: 'None',
    timeoutSeconds: 10,
    admissionReviewVersions: ['v1'],
    caBundle: '',
    reinvocationPolicy: 'Never',
    matchConditions: [],
    ...extra,
  };
}

function obj(labels?: Record<string, string>): KubeObject {
  return { metadata: { name: 'x', ...(labels ? { labels } : {}) } } as KubeObject;
}

function attrs(over: Partial<AdmissionAttributes> = {}): AdmissionAttributes {
  return admissionAttributes({
    object: obj(),
    kind: { group: '', version: 'v1', kind: 'Pod' },
    resource: { group: '', version: 'v1', resource: 'pods' },
    namespace: 'ns',
    name: 'x',
    userInfo: undefined,
    ...over,
  });
}

const registry = new APIRegistry();
const labels: NamespaceLabels = async (ns) => (ns === 'ns' ? { team: 'blue' } : undefined);
const matches = async (h: Webhook, a: AdmissionAttributes) =>
  (await webhookInvocation(h, a, registry, labels)) !== undefined;

describe('webhook matching: rules', () => {
  it('matches operations, groups, versions and resources, with * for any', async () => {
    assert.equal(
      await matches(hook([{ operations: ['CREATE'], apiGroups: [''], resources: ['pods'] }]), attrs()),
      true,
    );
    assert.equal(await matches(hook([{ operations: ['UPDATE'] }]), attrs()), false);
    assert.equal(await matches(hook([{ apiGroups: ['apps'] }]), attrs()), false);
    assert.equal(await matches(hook([{ apiVersions: ['v2'] }]), attrs()), false);
    assert.equal(await matches(hook([{ resources: ['configmaps'] }]), attrs()), false);
    // any rule may match
    assert.equal(await matches(hook([{ resources: ['configmaps'] }, { resources: ['pods'] }]), attrs()), true);
  });

  it('tells resources from their subresources', async () => {
    const status = attrs({ subresource: 'status' });
    assert.equal(await matches(hook([{ resources: ['pods'] }]), status), false);
    assert.equal(await matches(hook([{ resources: ['*'] }]), status), false);
    assert.equal(await matches(hook([{ resources: ['pods/status'] }]), status), true);
    assert.equal(await matches(hook([{ resources: ['pods/*'] }]), status), true);
    assert.equal(await matches(hook([{ resources: ['*/status'] }]), status), true);
    assert.equal(await matches(hook([{ resources: ['*/*'] }]), status), true);
    // As upstream's matcher: a `*` subresource also matches the resource itself.
    assert.equal(await matches(hook([{ resources: ['*/*'] }]), attrs()), true);
    assert.equal(await matches(hook([{ resources: ['pods/*'] }]), attrs()), true);
    assert.equal(await matches(hook([{ resources: ['*/status'] }]), attrs()), false);
  });

  it('scope: Namespaced for namespaced objects, Cluster for cluster-scoped ones and Namespaces', async () => {
    const node = attrs({ resource: { group: '', version: 'v1', resource: 'nodes' }, namespace: '' });
    const ns = attrs({ resource: { group: '', version: 'v1', resource: 'namespaces' }, namespace: '' });
    assert.equal(await matches(hook([{ scope: 'Namespaced' }]), attrs()), true);
    assert.equal(await matches(hook([{ scope: 'Namespaced' }]), node), false);
    assert.equal(await matches(hook([{ scope: 'Namespaced' }]), ns), false);
    assert.equal(await matches(hook([{ scope: 'Cluster' }]), attrs()), false);
    assert.equal(await matches(hook([{ scope: 'Cluster' }]), node), true);
    assert.equal(await matches(hook([{ scope: 'Cluster' }]), ns), true);
  });
});

describe('webhook matching: selectors', () => {
  it('namespaceSelector reads the namespace labels; cluster-scoped objects always match', async () => {
    const blue = LabelSelector.fromObject({ matchLabels: { team: 'blue' } });
    const red = LabelSelector.fromObject({ matchLabels: { team: 'red' } });
    assert.equal(await matches(hook([{}], { namespaceSelector: blue }), attrs()), true);
    assert.equal(await matches(hook([{}], { namespaceSelector: red }), attrs()), false);
    const node = attrs({ resource: { group: '', version: 'v1', resource: 'nodes' }, namespace: '' });
    assert.equal(await matches(hook([{}], { namespaceSelector: red }), node), true);
  });

  it('a missing namespace is NotFound, but only for a webhook whose rules match', async () => {
    const blue = LabelSelector.fromObject({ matchLabels: { team: 'blue' } });
    const gone = attrs({ namespace: 'gone' });
    await assert.rejects(
      webhookInvocation(hook([{}], { namespaceSelector: blue }), gone, registry, labels),
      (err: unknown) => err instanceof StatusError && err.code === 404 && err.message === 'namespaces "gone" not found',
    );
    assert.equal(await matches(hook([{ resources: ['configmaps'] }], { namespaceSelector: blue }), gone), false);
  });

  it('objectSelector matches the new or the old object; a missing object does not match', async () => {
    const sel = LabelSelector.fromObject({ matchLabels: { app: 'web' } });
    const h = hook([{}], { objectSelector: sel });
    assert.equal(await matches(h, attrs({ object: obj({ app: 'web' }) })), true);
    assert.equal(await matches(h, attrs({ object: obj({ app: 'db' }) })), false);
    assert.equal(await matches(h, attrs({ operation: 'UPDATE', object: obj(), oldObject: obj({ app: 'web' }) })), true);
    assert.equal(await matches(h, attrs({ operation: 'DELETE', object: undefined, oldObject: obj() })), false);
  });
});

describe('webhook matching: exemptions', () => {
  it('never sends webhook or policy configurations to webhooks', () => {
    const kind = (k: string) => attrs({ kind: { group: 'admissionregistration.k8s.io', version: 'v1', kind: k } });
    assert.equal(isExemptFromWebhooks(kind('ValidatingWebhookConfiguration')), true);
    assert.equal(isExemptFromWebhooks(kind('MutatingWebhookConfiguration')), true);
    assert.equal(isExemptFromWebhooks(kind('ValidatingAdmissionPolicyBinding')), true);
    assert.equal(isExemptFromWebhooks(attrs()), false);
  });
});
