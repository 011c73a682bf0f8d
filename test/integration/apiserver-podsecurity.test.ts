import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type ControlPlane, startControlPlane } from '../../src/index.js';
import { type ApiResponse, apiRequest } from '../../src/testing/api-client.js';
import assert from '../../src/testing/assert.js';
import { privilegedContainerViolations } from '../../src/testing/pod-security.js';

const NS = '/api/v1/namespaces';
const PODS = (ns: string) => `${NS}/${ns}/pods`;

/** The texts of a response's Warning headers (`299 - "…"`, several joined by ", "). */
function warnings(res: ApiResponse): string[] {
  const raw = res.headers.warning;
  const joined = Array.isArray(raw) ? raw.join(', ') : (raw ?? '');
  const out: string[] = [];
  for (const m of joined.matchAll(/299 - "((?:[^"\\]|\\.)*)"/g)) out.push((m[1] as string).replace(/\\(.)/g, '$1'));
  return out;
}

function namespace(name: string, labels: Record<string, string> = {}) {
  return { metadata: { name, labels } };
}

function pod(name: string, container: Record<string, unknown> = {}, spec: Record<string, unknown> = {}) {
  return { metadata: { name }, spec: { containers: [{ name, image: 'nginx', ...container }], ...spec } };
}

/** A pod restricted allows. */
function restrictedPod(name: string) {
  return pod(
    name,
    { securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } } },
    { securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } } },
  );
}

describe('apiserver: PodSecurity admission (defaults: privileged everywhere)', () => {
  let cp: ControlPlane;
  before(async () => {
    cp = await startControlPlane();
  });
  after(async () => {
    await cp?.stop();
  });

  it('restricted refuses a privileged pod with upstream Forbidden message, dry-run included', async () => {
    assert.equal(
      (
        await apiRequest(cp, 'POST', NS, {
          body: namespace('strict', { 'pod-security.kubernetes.io/enforce': 'restricted' }),
        })
      ).status,
      201,
    );
    for (const query of ['?dryRun=All', '']) {
      const res = await apiRequest(cp, 'POST', `${PODS('strict')}${query}`, {
        body: pod('x', { securityContext: { privileged: true } }),
      });
      assert.equal(res.status, 403, res.text);
      assert.equal(res.body.reason, 'Forbidden');
      assert.equal(
        res.body.message,
        `pods "x" is forbidden: violates PodSecurity "restricted:latest": ${privilegedContainerViolations('x')}`,
      );
      assert.deepEqual(res.body.details, { name: 'x', kind: 'pods' });
      // enforce alone makes warn follow it, but a refused pod gets no warning.
      assert.deepEqual(warnings(res), []);
    }
    assert.equal((await apiRequest(cp, 'GET', `${PODS('strict')}/x`)).status, 404);
    const ok = await apiRequest(cp, 'POST', PODS('strict'), { body: restrictedPod('fine') });
    assert.equal(ok.status, 201, ok.text);
    assert.deepEqual(warnings(ok), []);
  });

  it('names a generated pod by its generated name', async () => {
    const res = await apiRequest(cp, 'POST', PODS('strict'), {
      body: { metadata: { generateName: 'gen-' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
    });
    assert.equal(res.status, 403, res.text);
    assert.match(res.body.message, /^pods "gen-[a-z0-9]{5}" is forbidden: violates PodSecurity "restricted:latest": /);
  });

  it('baseline at a pinned version allows what restricted refuses, and refuses host namespaces', async () => {
    const labels = {
      'pod-security.kubernetes.io/enforce': 'baseline',
      'pod-security.kubernetes.io/enforce-version': 'v1.24',
    };
    assert.equal((await apiRequest(cp, 'POST', NS, { body: namespace('base', labels) })).status, 201);
    assert.equal((await apiRequest(cp, 'POST', PODS('base'), { body: pod('plain') })).status, 201);
    const res = await apiRequest(cp, 'POST', PODS('base'), {
      body: pod('host', { ports: [{ containerPort: 8080, hostPort: 8080 }] }, { hostNetwork: true, hostPID: true }),
    });
    assert.equal(res.status, 403, res.text);
    assert.equal(
      res.body.message,
      'pods "host" is forbidden: violates PodSecurity "baseline:v1.24": host namespaces (hostNetwork=true, hostPID=true), hostPort (container "host" uses hostPort 8080)',
    );
  });

  it('warn mode answers with a Warning header and stores the pod', async () => {
    const labels = { 'pod-security.kubernetes.io/warn': 'restricted' };
    assert.equal((await apiRequest(cp, 'POST', NS, { body: namespace('warned', labels) })).status, 201);
    const res = await apiRequest(cp, 'POST', PODS('warned'), {
      body: pod('w', { securityContext: { privileged: true } }),
    });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(warnings(res), [
      `would violate PodSecurity "restricted:latest": ${privilegedContainerViolations('w')}`,
    ]);
  });

  it('workloads get warnings only, and their template is what is checked', async () => {
    const deployment = {
      metadata: { name: 'web' },
      spec: {
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: { containers: [{ name: 'web', image: 'nginx', securityContext: { privileged: true } }] },
        },
      },
    };
    const res = await apiRequest(cp, 'POST', '/apis/apps/v1/namespaces/strict/deployments', { body: deployment });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(warnings(res), [
      `would violate PodSecurity "restricted:latest": ${privilegedContainerViolations('web')}`,
    ]);
    const cronjob = {
      metadata: { name: 'tick' },
      spec: {
        schedule: '* * * * *',
        jobTemplate: {
          spec: {
            template: {
              spec: { restartPolicy: 'Never', hostIPC: true, containers: [{ name: 'c', image: 'busybox' }] },
            },
          },
        },
      },
    };
    const cj = await apiRequest(cp, 'POST', '/apis/batch/v1/namespaces/base/cronjobs', { body: cronjob });
    assert.equal(cj.status, 201, cj.text);
    assert.deepEqual(warnings(cj), ['would violate PodSecurity "baseline:v1.24": host namespaces (hostIPC=true)']);
  });

  it('refuses invalid labels with upstream Invalid status, and lets other updates of a namespace that had them through', async () => {
    const res = await apiRequest(cp, 'POST', NS, {
      body: namespace('typo', { 'pod-security.kubernetes.io/enforce': 'strict' }),
    });
    assert.equal(res.status, 422, res.text);
    assert.equal(
      res.body.message,
      'Namespace "typo" is invalid: metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "strict": must be one of privileged, baseline, restricted',
    );
    const version = await apiRequest(cp, 'POST', NS, {
      body: namespace('typo', { 'pod-security.kubernetes.io/warn-version': '1.30' }),
    });
    assert.equal(version.status, 422, version.text);
    assert.match(version.body.message, /Invalid value: "1\.30": must be "latest" or "v1\.x"$/);
  });

  it('checks pod updates only when the images or containers change', async () => {
    assert.equal((await apiRequest(cp, 'POST', NS, { body: namespace('later') })).status, 201);
    const created = await apiRequest(cp, 'POST', PODS('later'), {
      body: pod('old', { securityContext: { privileged: true } }),
    });
    assert.equal(created.status, 201, created.text);
    const label = await apiRequest(cp, 'PATCH', `${NS}/later`, {
      body: { metadata: { labels: { 'pod-security.kubernetes.io/enforce': 'baseline' } } },
      contentType: 'application/merge-patch+json',
    });
    assert.equal(label.status, 200, label.text);
    assert.deepEqual(warnings(label), [
      'existing pods in namespace "later" violate the new PodSecurity enforce level "baseline:latest"',
      'old: privileged',
    ]);
    // The pod keeps running and may still be relabelled: upstream ignores updates that change no image.
    const relabel = await apiRequest(cp, 'PATCH', `${PODS('later')}/old`, {
      body: { metadata: { labels: { a: 'b' } } },
      contentType: 'application/merge-patch+json',
    });
    assert.equal(relabel.status, 200, relabel.text);
    const reimage = await apiRequest(cp, 'PATCH', `${PODS('later')}/old`, {
      body: { spec: { containers: [{ name: 'old', image: 'nginx:1.27' }] } },
      contentType: 'application/strategic-merge-patch+json',
    });
    assert.equal(reimage.status, 403, reimage.text);
    assert.equal(
      reimage.body.message,
      'pods "old" is forbidden: violates PodSecurity "baseline:latest": privileged (container "old" must not set securityContext.privileged=true)',
    );
  });

  it('warns about existing pods when enforce gets stricter, naming one pod per reason', async () => {
    assert.equal((await apiRequest(cp, 'POST', NS, { body: namespace('busy') })).status, 201);
    for (const name of ['b', 'a', 'c']) {
      assert.equal((await apiRequest(cp, 'POST', PODS('busy'), { body: pod(name) })).status, 201);
    }
    const priv = await apiRequest(cp, 'POST', PODS('busy'), {
      body: pod('p', { securityContext: { privileged: true } }),
    });
    assert.equal(priv.status, 201, priv.text);
    assert.equal((await apiRequest(cp, 'POST', PODS('busy'), { body: restrictedPod('good') })).status, 201);
    const res = await apiRequest(cp, 'PATCH', `${NS}/busy?dryRun=All`, {
      body: { metadata: { labels: { 'pod-security.kubernetes.io/enforce': 'restricted' } } },
      contentType: 'application/merge-patch+json',
    });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(warnings(res), [
      'existing pods in namespace "busy" violate the new PodSecurity enforce level "restricted:latest"',
      'a (and 2 other pods): allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile',
      'p: privileged, allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile',
    ]);
    // A dry run changed nothing; the pods are left running either way.
    const ns = await apiRequest(cp, 'GET', `${NS}/busy`);
    assert.equal(ns.body.metadata.labels?.['pod-security.kubernetes.io/enforce'], undefined);
    // Making it less strict, or keeping it, says nothing.
    const same = await apiRequest(cp, 'PATCH', `${NS}/busy`, {
      body: { metadata: { labels: { 'pod-security.kubernetes.io/enforce': 'privileged' } } },
      contentType: 'application/merge-patch+json',
    });
    assert.deepEqual(warnings(same), []);
  });
  it('counts its evaluations on /metrics', async () => {
    const res = await apiRequest(cp, 'GET', '/metrics');
    assert.equal(res.status, 200);
    const deny =
      /^pod_security_evaluations_total\{decision="deny",policy_level="restricted",policy_version="latest",mode="enforce",request_operation="create",resource="pod",subresource=""\} (\d+)$/m.exec(
        res.text,
      );
    assert.ok(
      deny,
      res.text
        .split('\n')
        .filter((l) => l.startsWith('pod_security'))
        .join('\n'),
    );
    assert.ok(Number(deny[1]) >= 3);
    assert.match(
      res.text,
      /^pod_security_evaluations_total\{decision="deny",policy_level="restricted",policy_version="latest",mode="warn",request_operation="create",resource="controller",subresource=""\} 1$/m,
    );
  });
});

describe('apiserver: PodSecurity configured by --admission-control-config-file', () => {
  let cp: ControlPlane;
  let dir: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'psa-config-'));
    writeFileSync(
      join(dir, 'podsecurity.yaml'),
      [
        'apiVersion: pod-security.admission.config.k8s.io/v1',
        'kind: PodSecurityConfiguration',
        'defaults:',
        '  enforce: baseline',
        '  audit: restricted',
        'exemptions:',
        '  namespaces: [kube-system, tools]',
        '  runtimeClasses: [sandboxed]',
      ].join('\n'),
    );
    writeFileSync(
      join(dir, 'admission.yaml'),
      [
        'apiVersion: apiserver.config.k8s.io/v1',
        'kind: AdmissionConfiguration',
        'plugins:',
        '- name: PodSecurity',
        '  path: podsecurity.yaml',
      ].join('\n'),
    );
    cp = await startControlPlane({ admission: { configFile: join(dir, 'admission.yaml') } });
  });
  after(async () => {
    await cp?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('enforces the default level where a namespace has no labels', async () => {
    const res = await apiRequest(cp, 'POST', PODS('default'), { body: pod('h', {}, { hostNetwork: true }) });
    assert.equal(res.status, 403, res.text);
    assert.equal(
      res.body.message,
      'pods "h" is forbidden: violates PodSecurity "baseline:latest": host namespaces (hostNetwork=true)',
    );
    // Not a warning for what only audit (restricted) objects to.
    const plain = await apiRequest(cp, 'POST', PODS('default'), { body: pod('plain') });
    assert.equal(plain.status, 201, plain.text);
    assert.deepEqual(warnings(plain), []);
  });

  it('exempts the configured namespaces and runtime classes', async () => {
    const sys = await apiRequest(cp, 'POST', PODS('kube-system'), { body: pod('h', {}, { hostNetwork: true }) });
    assert.equal(sys.status, 201, sys.text);
    // PodSecurity compares only the class name; the classes exist because RuntimeClass admission refuses unknown ones.
    for (const [name, handler] of [
      ['sandboxed', 'runsc'],
      ['runc', 'runc'],
    ]) {
      const rc = await apiRequest(cp, 'POST', '/apis/node.k8s.io/v1/runtimeclasses', {
        body: { metadata: { name }, handler },
      });
      assert.equal(rc.status, 201, rc.text);
    }
    const sandboxed = await apiRequest(cp, 'POST', PODS('default'), {
      body: pod('s', {}, { hostNetwork: true, runtimeClassName: 'sandboxed' }),
    });
    assert.equal(sandboxed.status, 201, sandboxed.text);
    const other = await apiRequest(cp, 'POST', PODS('default'), {
      body: pod('o', {}, { hostNetwork: true, runtimeClassName: 'runc' }),
    });
    assert.equal(other.status, 403, other.text);
    assert.match(other.body.message, /violates PodSecurity/);
  });

  it('warns that labels on an exempt namespace are ignored', async () => {
    const res = await apiRequest(cp, 'POST', NS, {
      body: namespace('tools', { 'pod-security.kubernetes.io/enforce': 'restricted' }),
    });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(warnings(res), [
      'namespace "tools" is exempt from Pod Security, and the policy (enforce=restricted:latest) will be ignored',
    ]);
  });

  it('refuses to start with an invalid configuration, with upstream message', async () => {
    writeFileSync(
      join(dir, 'bad.yaml'),
      [
        'apiVersion: apiserver.config.k8s.io/v1',
        'kind: AdmissionConfiguration',
        'plugins:',
        '- name: PodSecurity',
        '  configuration:',
        '    apiVersion: pod-security.admission.config.k8s.io/v1',
        '    kind: PodSecurityConfiguration',
        '    defaults: {enforce: strict}',
      ].join('\n'),
    );
    await assert.rejects(startControlPlane({ admission: { configFile: join(dir, 'bad.yaml') } }), {
      message:
        'PodSecurity invalid: defaults.enforce: Invalid value: "strict": must be one of privileged, baseline, restricted',
    });
  });
});
