import { describe, it } from 'node:test';
import assert from '../../../testing/assert.js';
import type { KubeObject } from '../object.js';
import {
  parseWebhookURL,
  validateWebhookConfiguration,
  validateWebhookConfigurationUpdate,
} from './admissionregistration-webhooks-validation.js';

function config(hook: Record<string, unknown>): KubeObject {
  return {
    metadata: { name: 'c' },
    webhooks: [
      {
        name: 'a.example.com',
        clientConfig: { url: 'https://127.0.0.1/x' },
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
        ...hook,
      },
    ],
  } as KubeObject;
}

const messages = (obj: KubeObject, mutating = false) =>
  validateWebhookConfiguration(obj, mutating).map((e) => e.message);

describe('webhook configuration validation', () => {
  it('accepts a minimal valid webhook', () => {
    assert.deepEqual(messages(config({})), []);
  });

  it('checks rules: wildcards alone, overlapping subresource wildcards, scope', () => {
    const rule = (r: Record<string, unknown>) =>
      config({ rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'], ...r }] });
    assert.deepEqual(messages(rule({ resources: ['pods/*', 'pods/status'] })), [
      `webhooks[0].rules[0].resources[1]: Invalid value: "pods/status": if 'pods/*' is present, must not specify pods/status`,
    ]);
    assert.deepEqual(messages(rule({ resources: ['*/*', 'pods'] })), [
      `webhooks[0].rules[0].resources: Invalid value: []string{"*/*", "pods"}: if '*/*' is present, must not specify other resources`,
    ]);
    assert.deepEqual(messages(rule({ apiGroups: ['*', 'apps'] })), [
      `webhooks[0].rules[0].apiGroups: Invalid value: []string{"*", "apps"}: if '*' is present, must not specify other API groups`,
    ]);
    assert.deepEqual(messages(rule({ operations: ['PATCH'] })), [
      'webhooks[0].rules[0].operations[0]: Unsupported value: "PATCH": supported values: "*", "CONNECT", "CREATE", "DELETE", "UPDATE"',
    ]);
    assert.deepEqual(messages(rule({ scope: 'Global' })), [
      'webhooks[0].rules[0].scope: Unsupported value: "Global": supported values: "*", "Cluster", "Namespaced"',
    ]);
    assert.deepEqual(messages(rule({ resources: [], apiVersions: [''] })), [
      'webhooks[0].rules[0].apiVersions[0]: Required value',
      'webhooks[0].rules[0].resources: Required value',
    ]);
  });

  it('checks a service reference as upstream (name and namespace reported swapped, as upstream does)', () => {
    const svc = (s: Record<string, unknown>) =>
      config({ clientConfig: { service: { name: 'n', namespace: 'ns', ...s } } });
    assert.deepEqual(messages(svc({})), []);
    assert.deepEqual(messages(svc({ name: '' })), [
      'webhooks[0].clientConfig.service.namespace: Required value: service namespace is required',
    ]);
    assert.deepEqual(messages(svc({ port: 70000 })), [
      'webhooks[0].clientConfig.service.port: Invalid value: 70000: port is not valid: must be between 1 and 65535, inclusive',
    ]);
    assert.deepEqual(messages(svc({ path: 'hook' })), [
      `webhooks[0].clientConfig.service.path: Invalid value: "hook": must start with a '/'`,
    ]);
    assert.deepEqual(messages(svc({ path: '/a//b' })), [
      'webhooks[0].clientConfig.service.path: Invalid value: "/a//b": segment[1] may not be empty',
    ]);
    assert.deepEqual(messages(config({ clientConfig: {} })), [
      'webhooks[0].clientConfig: Required value: exactly one of url or service is required',
    ]);
  });

  it('checks review versions, timeouts, side effects and duplicate names', () => {
    assert.deepEqual(messages(config({ admissionReviewVersions: ['v1', 'v1'] })), [
      'webhooks[0].admissionReviewVersions[1]: Invalid value: "v1": duplicate version',
    ]);
    assert.deepEqual(messages(config({ admissionReviewVersions: [] })), [
      'webhooks[0].admissionReviewVersions: Required value: must specify one of v1, v1beta1',
    ]);
    assert.deepEqual(messages(config({ timeoutSeconds: 0, sideEffects: 'Unknown' })), [
      'webhooks[0].sideEffects: Unsupported value: "Unknown": supported values: "None", "NoneOnDryRun"',
      'webhooks[0].timeoutSeconds: Invalid value: 0: the timeout value must be between 1 and 30 seconds',
    ]);
    const twice = config({});
    (twice.webhooks as unknown[]).push((twice.webhooks as unknown[])[0]);
    assert.deepEqual(messages(twice), ['webhooks[1].name: Duplicate value: "a.example.com"']);
  });

  it('an update keeps allowing what the stored object already had (sideEffects Unknown, duplicate names)', () => {
    const old = config({ sideEffects: 'Unknown' });
    (old.webhooks as unknown[]).push({ ...(old.webhooks as Record<string, unknown>[])[0] });
    const next = structuredClone(old);
    assert.deepEqual(
      validateWebhookConfigurationUpdate(next, old, false).map((e) => e.message),
      [],
    );
    const fresh = config({ sideEffects: 'None' });
    assert.deepEqual(
      validateWebhookConfigurationUpdate(config({ sideEffects: 'Some' }), fresh, false).map((e) => e.message),
      ['webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"'],
    );
  });

  it('reads URLs as Go does for the checks upstream makes', () => {
    assert.deepEqual(parseWebhookURL('https://u@h:1/p?q#f'), {
      scheme: 'https',
      user: 'u',
      host: 'h:1',
      path: '/p',
      query: 'q',
      fragment: 'f',
    });
    assert.deepEqual(messages(config({ clientConfig: { url: 'example.com/hook' } })), [
      `webhooks[0].clientConfig.url: Invalid value: "": 'https' is the only allowed URL scheme; desired format: https://host[/path]`,
      'webhooks[0].clientConfig.url: Invalid value: "": host must be provided; desired format: https://host[/path]',
    ]);
  });
});
