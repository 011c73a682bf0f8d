/** PodSecurityConfiguration: decoding, defaults and validation as upstream's load and validation packages do. */
import { describe, it } from 'node:test';
import assert from '../../../testing/assert.js';
import { decodePodSecurityConfiguration, podSecuritySettings } from './configuration.js';

const head = { apiVersion: 'pod-security.admission.config.k8s.io/v1', kind: 'PodSecurityConfiguration' };

describe('PodSecurityConfiguration', () => {
  it('defaults to privileged:latest everywhere with nothing exempt', () => {
    for (const data of [undefined, null, head]) {
      const s = podSecuritySettings(data);
      for (const mode of ['enforce', 'audit', 'warn'] as const) {
        assert.deepEqual(s.defaults[mode], { level: 'privileged', version: { latest: true } });
      }
      assert.equal(s.exemptNamespaces.size + s.exemptUsernames.size + s.exemptRuntimeClasses.size, 0);
    }
  });

  it('reads every version of the group, with the defaults and exemptions given', () => {
    for (const version of ['v1', 'v1beta1', 'v1alpha1']) {
      const s = podSecuritySettings({
        apiVersion: `pod-security.admission.config.k8s.io/${version}`,
        kind: 'PodSecurityConfiguration',
        defaults: { enforce: 'baseline', 'enforce-version': 'v1.30', warn: 'restricted' },
        exemptions: {
          usernames: ['system:serviceaccount:kube-system:replicaset-controller'],
          namespaces: ['kube-system'],
        },
      });
      assert.deepEqual(s.defaults.enforce, { level: 'baseline', version: { latest: false, minor: 30 } });
      assert.deepEqual(s.defaults.warn, { level: 'restricted', version: { latest: true } });
      assert.deepEqual(s.defaults.audit, { level: 'privileged', version: { latest: true } });
      assert.ok(s.exemptNamespaces.has('kube-system'));
      assert.ok(s.exemptUsernames.has('system:serviceaccount:kube-system:replicaset-controller'));
    }
  });

  it('refuses other kinds and versions, and unknown fields', () => {
    assert.throws(
      () => decodePodSecurityConfiguration({ ...head, apiVersion: 'pod-security.admission.config.k8s.io/v99' }),
      { message: /pod-security\.admission\.config\.k8s\.io\/v99/ },
    );
    assert.throws(() => decodePodSecurityConfiguration({ ...head, defaults: { enforced: 'baseline' } }), {
      message: 'strict decoding error: unknown field "defaults.enforced"',
    });
  });

  it('validates levels, versions and exempt names with upstream messages', () => {
    assert.throws(
      () =>
        podSecuritySettings({
          ...head,
          defaults: { enforce: 'strict', 'audit-version': 'v2' },
          exemptions: { namespaces: ['Bad_NS', 'ok', 'ok'], usernames: [''], runtimeClasses: ['a.b'] },
        }),
      {
        message:
          'PodSecurity invalid: [defaults.enforce: Invalid value: "strict": must be one of privileged, baseline, restricted, ' +
          'defaults.audit-version: Invalid value: "v2": must be "latest" or "v1.x", ' +
          "exemptions.namespaces[0]: Invalid value: \"Bad_NS\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?'), " +
          'exemptions.namespaces[2]: Duplicate value: "ok", ' +
          'exemptions.usernames[0]: Invalid value: "": username must not be empty]',
      },
    );
  });
});
