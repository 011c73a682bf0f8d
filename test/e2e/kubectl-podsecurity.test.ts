import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { type ControlPlane, startControlPlane } from '../../src/index.js';
import { kubectl as runKubectl } from '../../src/testing/api-client.js';
import assert from '../../src/testing/assert.js';
import { privilegedContainerViolations } from '../../src/testing/pod-security.js';
import { WHEELHOUSE_BIN } from '../../src/testing/wheelhouse-process.js';

describe('PodSecurity with the real kubectl, configured by an AdmissionConfiguration file', () => {
  let dir: string;
  let cp: ControlPlane;

  const kubectl = (args: string[]) => runKubectl(cp, args);
  async function ok(args: string[]): Promise<{ stdout: string; stderr: string }> {
    const res = await kubectl(args);
    assert.equal(res.code, 0, `kubectl ${args.join(' ')}: ${res.stderr}`);
    return res;
  }

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'wheelhouse-psa-'));
    const configFile = join(dir, 'admission.yaml');
    writeFileSync(
      configFile,
      [
        'apiVersion: apiserver.config.k8s.io/v1',
        'kind: AdmissionConfiguration',
        'plugins:',
        '- name: PodSecurity',
        '  configuration:',
        '    apiVersion: pod-security.admission.config.k8s.io/v1',
        '    kind: PodSecurityConfiguration',
        '    exemptions:',
        '      namespaces: [tools]',
      ].join('\n'),
    );
    cp = await startControlPlane({ admission: { configFile } });
  });
  after(async () => {
    await cp?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('labelling a namespace restricted warns about its pods; kubectl run is then refused with upstream text', async () => {
    await ok(['create', 'namespace', 'demo']);
    // Privileged everywhere by default: the pod is made.
    const made = await ok(['run', 'web', '-n', 'demo', '--image=nginx', '--privileged']);
    assert.equal(made.stdout.trim(), 'pod/web created');
    assert.equal(made.stderr, '');
    const label = await ok(['label', 'namespace', 'demo', 'pod-security.kubernetes.io/enforce=restricted']);
    assert.equal(label.stdout.trim(), 'namespace/demo labeled');
    assert.equal(
      label.stderr,
      'Warning: existing pods in namespace "demo" violate the new PodSecurity enforce level "restricted:latest"\n' +
        'Warning: web: privileged, allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile\n',
    );
    const refused = await kubectl(['run', 'x', '-n', 'demo', '--image=nginx', '--privileged']);
    assert.equal(refused.code, 1);
    assert.equal(
      refused.stderr.trim(),
      `Error from server (Forbidden): pods "x" is forbidden: violates PodSecurity "restricted:latest": ${privilegedContainerViolations('x')}`,
    );
    // A Deployment is let through with a warning: its pods are what enforce refuses.
    const deployment = await ok(['create', 'deployment', 'web', '-n', 'demo', '--image=nginx']);
    assert.equal(deployment.stdout.trim(), 'deployment.apps/web created');
    assert.match(
      deployment.stderr,
      /^Warning: would violate PodSecurity "restricted:latest": allowPrivilegeEscalation != false \(container "nginx" must set securityContext\.allowPrivilegeEscalation=false\), /,
    );
  });

  it('warn mode prints a Warning: line and makes the pod', async () => {
    await ok(['create', 'namespace', 'warned']);
    await ok(['label', 'namespace', 'warned', 'pod-security.kubernetes.io/warn=baseline']);
    const res = await ok(['run', 'h', '-n', 'warned', '--image=nginx', '--privileged']);
    assert.equal(res.stdout.trim(), 'pod/h created');
    assert.equal(
      res.stderr,
      'Warning: would violate PodSecurity "baseline:latest": privileged (container "h" must not set securityContext.privileged=true)\n',
    );
  });

  it('invalid labels are refused; labels on an exempt namespace are ignored, with a warning', async () => {
    const bad = await kubectl([
      'label',
      'namespace',
      'demo',
      '--overwrite',
      'pod-security.kubernetes.io/enforce=strict',
    ]);
    assert.equal(bad.code, 1);
    assert.equal(
      bad.stderr.trim(),
      'The Namespace "demo" is invalid: metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "strict": must be one of privileged, baseline, restricted',
    );
    await ok(['create', 'namespace', 'tools']);
    const exempt = await ok(['label', 'namespace', 'tools', 'pod-security.kubernetes.io/enforce=restricted']);
    assert.equal(
      exempt.stderr,
      'Warning: namespace "tools" is exempt from Pod Security, and the policy (enforce=restricted:latest) will be ignored\n',
    );
    const made = await ok(['run', 'p', '-n', 'tools', '--image=nginx', '--privileged']);
    assert.equal(made.stdout.trim(), 'pod/p created');
  });

  it('wheelhouse apiserver reads --admission-control-config-file, and will not start without it', async () => {
    const missing = join(dir, 'missing.yaml');
    const args = ['apiserver', '--storage', 'memory', '--secure-port', '0', '--data-dir', join(dir, 'cli')];
    const res: { code?: number; stderr: string } = await promisify(execFile)(
      process.execPath,
      [WHEELHOUSE_BIN, ...args, '--admission-control-config-file', missing],
      { encoding: 'utf8' },
    ).catch((err: { code: number; stderr: string }) => err);
    assert.equal(res.code, 1);
    assert.equal(
      res.stderr.trim(),
      `wheelhouse: unable to read admission control configuration from "${missing}" [open ${missing}: no such file or directory]`,
    );
  });
});
