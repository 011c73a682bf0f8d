import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { ensurePki, issueClientCertificate } from '../../src/apiserver/bootstrap/pki.js';
import { buildKubeconfig, writeKubeconfig } from '../../src/client/kubeconfig.js';
import assert from '../../src/testing/assert.js';
import { eventually } from '../../src/testing/controllers.js';
import { startWheelhouse, type WheelhouseProcess } from '../../src/testing/wheelhouse-process.js';

const run = promisify(execFile);

async function kubectl(kubeconfig: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run('kubectl', ['--kubeconfig', kubeconfig, ...args], { encoding: 'utf8' });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : 1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

describe('RBAC with the real kubectl against wheelhouse apiserver --authorization-mode=RBAC', () => {
  let dir: string;
  let server: WheelhouseProcess;
  let admin: string;
  let jane: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'wheelhouse-rbac-'));
    server = await startWheelhouse('apiserver', [
      '--authorization-mode=RBAC',
      '--storage',
      'memory',
      '--data-dir',
      dir,
      '--bind-address',
      '127.0.0.1',
    ]);
    admin = join(dir, 'kubeconfig');
    const pki = await ensurePki(join(dir, 'pki'));
    const cert = await issueClientCertificate(pki.ca, { commonName: 'jane' });
    jane = join(dir, 'jane.kubeconfig');
    await writeKubeconfig(
      jane,
      buildKubeconfig({
        server: server.url(),
        caPem: pki.ca.certPem,
        certPem: cert.certPem,
        keyPem: cert.keyPem,
        userName: 'jane',
      }),
    );
  });
  after(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('forbids jane until the admin binds a role, then lets her list pods', async () => {
    const denied = await kubectl(jane, ['get', 'pods']);
    assert.equal(denied.code, 1);
    assert.equal(
      denied.stderr.trim(),
      'Error from server (Forbidden): pods is forbidden: User "jane" cannot list resource "pods" in API group "" in the namespace "default"',
    );
    const role = await kubectl(admin, ['create', 'role', 'pod-reader', '--verb=get,list,watch', '--resource=pods']);
    assert.equal(role.code, 0, role.stderr);
    const binding = await kubectl(admin, ['create', 'rolebinding', 'jane-pods', '--role=pod-reader', '--user=jane']);
    assert.equal(binding.code, 0, binding.stderr);
    assert.match(binding.stdout, /rolebinding.rbac.authorization.k8s.io\/jane-pods created/);
    await eventually(async () => {
      const res = await kubectl(jane, ['get', 'pods']);
      assert.equal(res.code, 0, `jane lists pods: ${res.stderr}`);
      assert.match(res.stderr, /No resources found in default namespace/);
    });
  });

  it('answers kubectl auth can-i as jane herself, and --list', async () => {
    const yes = await kubectl(jane, ['auth', 'can-i', 'list', 'pods']);
    assert.equal(yes.code, 0, yes.stderr);
    assert.equal(yes.stdout.trim(), 'yes');
    const no = await kubectl(jane, ['auth', 'can-i', 'delete', 'pods']);
    assert.equal(no.code, 1);
    assert.equal(no.stdout.trim(), 'no');
    const elsewhere = await kubectl(jane, ['auth', 'can-i', 'list', 'pods', '-n', 'kube-system']);
    assert.equal(elsewhere.stdout.trim(), 'no');
    const list = await kubectl(jane, ['auth', 'can-i', '--list']);
    assert.equal(list.code, 0, list.stderr);
    const lines = list.stdout.split('\n');
    assert.match(lines[0] ?? '', /^Resources\s+Non-Resource URLs\s+Resource Names\s+Verbs$/);
    assert.ok(
      lines.some((l) => /^pods\s+\[\]\s+\[\]\s+\[get list watch\]$/.test(l)),
      list.stdout,
    );
    assert.ok(
      lines.some((l) => /^selfsubjectaccessreviews.authorization.k8s.io\s+\[\]\s+\[\]\s+\[create\]$/.test(l)),
      list.stdout,
    );
    assert.ok(
      lines.some((l) => /^\s+\[\/healthz\]\s+\[\]\s+\[get\]$/.test(l)),
      list.stdout,
    );
  });

  it('answers kubectl auth can-i --as=jane for the admin', async () => {
    const yes = await kubectl(admin, ['auth', 'can-i', 'watch', 'pods', '--as=jane']);
    assert.equal(yes.stdout.trim(), 'yes', yes.stderr);
    const no = await kubectl(admin, ['auth', 'can-i', 'create', 'deployments', '--as=jane']);
    assert.equal(no.stdout.trim(), 'no', no.stderr);
  });

  it('kubectl auth reconcile creates, extends and trims roles and bindings, and cannot escalate', async () => {
    const file = join(dir, 'reconcile.yaml');
    const manifest = (verbs: string) => `apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: config-reader, namespace: default}
rules:
- {apiGroups: [""], resources: [configmaps], verbs: [${verbs}]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: config-readers, namespace: default}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: config-reader}
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: User, name: jane}
`;
    const rules = async () =>
      (await kubectl(admin, ['get', 'role', 'config-reader', '-o', 'jsonpath={.rules[*].verbs}'])).stdout;
    writeFileSync(file, manifest('get, list'));
    const dry = await kubectl(admin, ['auth', 'reconcile', '-f', file, '--dry-run=client']);
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, /role.rbac.authorization.k8s.io\/config-reader reconciled \(dry run\)/);
    assert.equal((await kubectl(admin, ['get', 'role', 'config-reader'])).code, 1, 'a dry run creates nothing');
    const created = await kubectl(admin, ['auth', 'reconcile', '-f', file]);
    assert.equal(created.code, 0, created.stderr);
    assert.match(created.stdout, /role.rbac.authorization.k8s.io\/config-reader reconciled/);
    assert.match(created.stdout, /rolebinding.rbac.authorization.k8s.io\/config-readers reconciled/);
    assert.match(created.stderr, /reconciliation required create/);
    assert.equal(await rules(), '["get","list"]');
    await eventually(async () => {
      assert.equal((await kubectl(jane, ['auth', 'can-i', 'list', 'configmaps'])).stdout.trim(), 'yes');
    });
    // Reconcile adds missing rules and keeps extra ones unless told to remove them.
    writeFileSync(file, manifest('get, list, watch'));
    const extended = await kubectl(admin, ['auth', 'reconcile', '-f', file]);
    assert.equal(extended.code, 0, extended.stderr);
    assert.match(extended.stderr, /reconciliation required update/);
    assert.equal(await rules(), '["get","list"] ["watch"]');
    writeFileSync(file, manifest('get'));
    await kubectl(admin, ['auth', 'reconcile', '-f', file]);
    assert.equal(await rules(), '["get","list"] ["watch"]', 'extra permissions are kept');
    const trimmed = await kubectl(admin, ['auth', 'reconcile', '-f', file, '--remove-extra-permissions']);
    assert.equal(trimmed.code, 0, trimmed.stderr);
    assert.equal(await rules(), '["get"]');
    // jane may write roles in default but holds no rights on secrets: she cannot reconcile a role granting them.
    await kubectl(admin, ['create', 'role', 'role-writer', '--verb=get,create,update', '--resource=roles']);
    await kubectl(admin, ['create', 'rolebinding', 'jane-role-writer', '--role=role-writer', '--user=jane']);
    writeFileSync(
      file,
      `apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: secret-reader, namespace: default}
rules:
- {apiGroups: [""], resources: [secrets], verbs: [get]}
`,
    );
    await eventually(async () => {
      assert.equal((await kubectl(jane, ['auth', 'can-i', 'create', 'roles'])).stdout.trim(), 'yes');
    });
    const escalation = await kubectl(jane, ['auth', 'reconcile', '-f', file]);
    assert.equal(escalation.code, 1);
    assert.match(
      escalation.stderr,
      /roles.rbac.authorization.k8s.io "secret-reader" is forbidden: user "jane" \(groups=\["system:authenticated"\]\) is attempting to grant RBAC permissions not currently held:\n\{APIGroups:\[""\], Resources:\["secrets"\], Verbs:\["get"\]\}/,
    );
  });
});
