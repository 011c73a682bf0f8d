import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import assert from '../../testing/assert.js';
import { parseRequestInfo } from '../request-info.js';
import { loadPolicyFile, PolicyEvaluator, validatePolicy } from './policy.js';

const req = (method: string, path: string) => parseRequestInfo(method, path, new URLSearchParams());
const alice = { name: 'alice', groups: ['devs', 'system:authenticated'] };

describe('audit policy', () => {
  it('first matching rule wins, matching users, groups, verbs, resources, names, namespaces and URLs', () => {
    const ev = new PolicyEvaluator(
      validatePolicy({
        apiVersion: 'audit.k8s.io/v1',
        kind: 'Policy',
        omitStages: ['RequestReceived'],
        rules: [
          { level: 'None', users: ['bob'] },
          { level: 'RequestResponse', resources: [{ group: '', resources: ['pods/log'] }] },
          { level: 'Request', resources: [{ group: 'apps', resources: ['deployments'], resourceNames: ['web'] }] },
          { level: 'Metadata', namespaces: ['kube-system'], verbs: ['get'], omitStages: ['ResponseStarted'] },
          { level: 'Request', userGroups: ['devs'], nonResourceURLs: ['/version', '/apis/*'] },
          { level: 'Metadata', resources: [{ group: '', resources: ['*/status', 'secrets/*'] }] },
          { level: 'None', resources: [{ group: '', resources: ['*'] }] },
        ],
      }),
    );
    assert.equal(ev.evaluate({ user: { name: 'bob', groups: [] }, info: req('GET', '/api/v1/pods') }).level, 'None');
    assert.equal(
      ev.evaluate({ user: alice, info: req('GET', '/api/v1/namespaces/a/pods/p/log') }).level,
      'RequestResponse',
    );
    assert.equal(ev.evaluate({ user: alice, info: req('GET', '/api/v1/namespaces/a/pods/p') }).level, 'None');
    assert.equal(
      ev.evaluate({ user: alice, info: req('PUT', '/apis/apps/v1/namespaces/a/deployments/web') }).level,
      'Request',
    );
    assert.equal(
      ev.evaluate({ user: alice, info: req('PUT', '/apis/apps/v1/namespaces/a/deployments/db') }).level,
      'None',
    );
    const ks = ev.evaluate({ user: alice, info: req('GET', '/api/v1/namespaces/kube-system/secrets/x') });
    assert.equal(ks.level, 'Metadata');
    assert.deepEqual([...ks.omitStages].sort(), ['RequestReceived', 'ResponseStarted']);
    assert.equal(
      ev.evaluate({ user: alice, info: req('DELETE', '/api/v1/namespaces/kube-system/configmaps/x') }).level,
      'None',
    );
    assert.equal(ev.evaluate({ user: alice, info: req('GET', '/version') }).level, 'Request');
    assert.equal(ev.evaluate({ user: alice, info: req('GET', '/apis/apps') }).level, 'Request');
    assert.equal(ev.evaluate({ user: alice, info: req('GET', '/healthz') }).level, 'None');
    assert.equal(
      ev.evaluate({ user: alice, info: req('PUT', '/api/v1/namespaces/a/pods/p/status') }).level,
      'Metadata',
    );
    assert.equal(ev.evaluate({ user: alice, info: req('GET', '/api/v1/namespaces/a/secrets') }).level, 'Metadata');
    assert.equal(ev.evaluate({ user: alice, info: req('GET', '/apis/apps/v1/deployments') }).level, 'None');
    assert.equal(ev.evaluate({ user: undefined, info: req('GET', '/version') }).level, 'None');
  });

  it('refuses invalid policies with upstream field errors', () => {
    assert.throws(
      () =>
        validatePolicy({
          omitStages: ['Sometime'],
          rules: [
            { level: 'Loud' },
            { level: 'None', nonResourceURLs: ['version', '/a*b'], namespaces: ['x'] },
            { level: 'Metadata', resources: [{ group: 'Apps', resourceNames: ['n'] }] },
          ],
        }),
      {
        message:
          'invalid audit policy: [omitStages[0]: Invalid value: "Sometime": allowed stages are RequestReceived,ResponseStarted,ResponseComplete,Panic, ' +
          'rules[0].level: Unsupported value: "Loud": supported values: "None", "Metadata", "Request", "RequestResponse", ' +
          'rules[1].nonResourceURLs[0]: Invalid value: "version": non-resource URL rules must begin with a \'/\' character, ' +
          'rules[1].nonResourceURLs[1]: Invalid value: "/a*b": non-resource URL wildcards \'*\' must be the final character of the rule, ' +
          'rules[1].nonResourceURLs: Invalid value: []string{"version", "/a*b"}: rules cannot apply to both regular resources and non-resource URLs, ' +
          "rules[2].resources.group: Invalid value: \"Apps\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'), " +
          'rules[2].resources.resourceNames: Invalid value: []string{"n"}: using resourceNames requires at least one resource]',
      },
    );
    assert.throws(() => validatePolicy({ apiVersion: 'audit.k8s.io/v1', kind: 'Policy', rules: [] }), {
      message: 'loaded illegal policy with 0 rules',
    });
    assert.throws(() => validatePolicy({ rules: [{}] }), {
      message: 'invalid audit policy: rules[0].level: Required value',
    });
  });

  describe('a policy file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'audit-policy-'));
    after(() => rmSync(dir, { recursive: true, force: true }));
    const load = (name: string, text: string) => {
      const path = join(dir, name);
      writeFileSync(path, text);
      return () => loadPolicyFile(path);
    };

    it('without an apiVersion is refused as upstream’s LoadPolicyFromBytes refuses it', () => {
      const noVersion = load('no-version.yaml', 'kind: Policy\nrules:\n- level: Metadata\n');
      assert.throws(noVersion, {
        message: `unknown group version field audit.k8s.io/__internal, Kind=Policy in policy: from file ${join(dir, 'no-version.yaml')}`,
      });
      const bare = load('bare.yaml', 'rules:\n- level: Metadata\n');
      assert.throws(bare, {
        message: /^unknown group version field audit\.k8s\.io\/__internal, Kind=Policy in policy: /,
      });
    });

    it('of another version or kind fails its decoding; without a kind it is a Policy', () => {
      assert.throws(load('beta.yaml', 'apiVersion: audit.k8s.io/v1beta1\nkind: Policy\nrules:\n- level: None\n'), {
        message: `failed decoding: no kind "Policy" is registered for version "audit.k8s.io/v1beta1" in scheme "pkg/audit/scheme.go:30": from file ${join(dir, 'beta.yaml')}`,
      });
      const noKind = load('no-kind.yaml', 'apiVersion: audit.k8s.io/v1\nrules:\n- level: Request\n');
      assert.equal(noKind().rules[0]?.level, 'Request');
    });
  });
});
