/**
 * The CKA flow with the real kubectl and openssl (issue 6's certificates acceptance): make a key and a CSR, apply a
 * CertificateSigningRequest for kubernetes.io/kube-apiserver-client, `kubectl certificate approve`, read the issued
 * certificate, build a kubeconfig for the new user and see `kubectl auth whoami` name them; `kubectl certificate
 * deny`; and the refusal of a system:masters request. Then a kubelet's client certificate
 * (kube-apiserver-client-kubelet, O=system:nodes, CN=system:node:<name>) approved and logged in with, and one whose
 * organization is not system:nodes marked Failed by the signer.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { kubeconfigCommand } from '../../src/cli/kubeconfig.js';
import { type ControlPlane, startControlPlane } from '../../src/index.js';
import assert from '../../src/testing/assert.js';
import { eventually } from '../../src/testing/controllers.js';

const run = promisify(execFile);

describe('kubectl: the certificates flow', () => {
  const root = mkdtempSync(join(tmpdir(), 'wheelhouse-certs-e2e-'));
  let cp: ControlPlane;
  const kubectlWith = async (kubeconfig: string, ...args: string[]) =>
    (
      await run('kubectl', ['--kubeconfig', kubeconfig, '--cache-dir', join(root, 'kcache'), ...args], {
        timeout: 60_000,
      })
    ).stdout;
  const kubectl = (...args: string[]) => kubectlWith(cp.kubeconfig.path, ...args);
  const kubectlFails = async (...args: string[]) => {
    try {
      await kubectl(...args);
    } catch (err) {
      return (err as { stderr: string }).stderr;
    }
    throw new Error(`kubectl ${args.join(' ')} succeeded`);
  };

  /** A kubeconfig for the cluster with a client certificate and key, made with kubectl config. */
  async function userKubeconfig(name: string, crt: string, key: string): Promise<string> {
    const file = join(root, `${name}.kubeconfig`);
    writeFileSync(file, 'apiVersion: v1\nkind: Config\n');
    const ca = join(cp.dataDir, 'pki', 'ca.crt');
    await kubectlWith(
      file,
      'config',
      'set-cluster',
      'wheelhouse',
      `--server=${cp.url}`,
      `--certificate-authority=${ca}`,
    );
    await kubectlWith(file, 'config', 'set-credentials', name, `--client-certificate=${crt}`, `--client-key=${key}`);
    await kubectlWith(file, 'config', 'set-context', name, '--cluster=wheelhouse', `--user=${name}`);
    await kubectlWith(file, 'config', 'use-context', name);
    return file;
  }

  /** A key and a CSR made by openssl; the CSR's YAML manifest written beside them. */
  async function request(
    name: string,
    subject: string,
    signerName = 'kubernetes.io/kube-apiserver-client',
    usages = ['client auth'],
  ) {
    const key = join(root, `${name}.key`);
    const csr = join(root, `${name}.csr`);
    await run('openssl', ['genrsa', '-out', key, '2048']);
    await run('openssl', ['req', '-new', '-key', key, '-out', csr, '-subj', subject]);
    const manifest = join(root, `${name}.yaml`);
    writeFileSync(
      manifest,
      [
        'apiVersion: certificates.k8s.io/v1',
        'kind: CertificateSigningRequest',
        'metadata:',
        `  name: ${name}`,
        'spec:',
        `  request: ${readFileSync(csr).toString('base64')}`,
        `  signerName: ${signerName}`,
        '  expirationSeconds: 86400',
        '  usages:',
        ...usages.map((u) => `  - ${u}`),
        '',
      ].join('\n'),
    );
    return { key, manifest };
  }

  before(async () => {
    cp = await startControlPlane({
      dataDir: join(root, 'data'),
      controllers: { controllers: ['certificatesigningrequest-signing-controller'], leaderElect: false },
    });
  });
  after(async () => {
    await cp?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it('approve, issue, and log in as the new user', async () => {
    const { key, manifest } = await request('myuser', '/CN=myuser/O=developers');
    assert.match(
      await kubectl('apply', '-f', manifest),
      /certificatesigningrequest.certificates.k8s.io\/myuser created/,
    );
    const table = await kubectl('get', 'csr', 'myuser');
    assert.match(table, /^NAME\s+AGE\s+SIGNERNAME\s+REQUESTOR\s+REQUESTEDDURATION\s+CONDITION\n/);
    assert.match(table, /myuser\s+\S+\s+kubernetes.io\/kube-apiserver-client\s+kubernetes-admin\s+24h\s+Pending/);
    assert.match(
      await kubectl('certificate', 'approve', 'myuser'),
      /certificatesigningrequest.certificates.k8s.io\/myuser approved/,
    );
    const certificate = await eventually(async () => {
      const out = await kubectl('get', 'csr', 'myuser', '-o', 'jsonpath={.status.certificate}');
      assert.ok(out.length > 0, 'issued');
      return out;
    });
    assert.match(await kubectl('get', 'csr', 'myuser'), /myuser\s+.*Approved,Issued/);
    const crt = join(root, 'myuser.crt');
    writeFileSync(crt, Buffer.from(certificate, 'base64'));
    const userConfig = join(root, 'myuser.kubeconfig');
    writeFileSync(userConfig, 'apiVersion: v1\nkind: Config\n');
    const ca = join(cp.dataDir, 'pki', 'ca.crt');
    await kubectlWith(
      userConfig,
      'config',
      'set-cluster',
      'wheelhouse',
      `--server=${cp.url}`,
      `--certificate-authority=${ca}`,
      '--embed-certs',
    );
    await kubectlWith(
      userConfig,
      'config',
      'set-credentials',
      'myuser',
      `--client-certificate=${crt}`,
      `--client-key=${key}`,
      '--embed-certs',
    );
    await kubectlWith(userConfig, 'config', 'set-context', 'myuser', '--cluster=wheelhouse', '--user=myuser');
    await kubectlWith(userConfig, 'config', 'use-context', 'myuser');
    const whoami = await kubectlWith(userConfig, 'auth', 'whoami');
    assert.match(whoami, /Username\s+myuser/);
    assert.match(whoami, /Groups\s+\[developers system:authenticated\]/);
  });

  it('a kubelet client certificate: kube-apiserver-client-kubelet, approved, is system:node:<name> for the Node authorizer', async () => {
    const { key, manifest } = await request(
      'worker-1',
      '/O=system:nodes/CN=system:node:worker-1',
      'kubernetes.io/kube-apiserver-client-kubelet',
      ['digital signature', 'key encipherment', 'client auth'],
    );
    await kubectl('apply', '-f', manifest);
    assert.match(
      await kubectl('get', 'csr', 'worker-1'),
      /worker-1\s+\S+\s+kubernetes.io\/kube-apiserver-client-kubelet\s+kubernetes-admin\s+24h\s+Pending/,
    );
    await kubectl('certificate', 'approve', 'worker-1');
    const certificate = await eventually(async () => {
      const out = await kubectl('get', 'csr', 'worker-1', '-o', 'jsonpath={.status.certificate}');
      assert.ok(out.length > 0, 'issued');
      return out;
    });
    const crt = join(root, 'worker-1.crt');
    writeFileSync(crt, Buffer.from(certificate, 'base64'));
    const kubelet = await userKubeconfig('worker-1', crt, key);
    const whoami = await kubectlWith(kubelet, 'auth', 'whoami');
    assert.match(whoami, /Username\s+system:node:worker-1/);
    assert.match(whoami, /Groups\s+\[system:nodes system:authenticated\]/);
    // The Node authorizer: a node reads its own Node only.
    await assert.rejects(kubectlWith(kubelet, 'get', 'nodes'), (err: { stderr: string }) => {
      assert.equal(
        err.stderr.trim(),
        'Error from server (Forbidden): nodes is forbidden: User "system:node:worker-1" cannot list resource "nodes" in API group "" at the cluster scope: node \'worker-1\' cannot read all nodes, only its own Node object',
      );
      return true;
    });
  });

  it('a kubelet request whose organization is not system:nodes: approved, then Failed by the signer', async () => {
    const { manifest } = await request(
      'worker-2',
      '/O=system:masters/CN=system:node:worker-2',
      'kubernetes.io/kube-apiserver-client-kubelet',
      ['digital signature', 'key encipherment', 'client auth'],
    );
    await kubectl('apply', '-f', manifest);
    await kubectl('certificate', 'approve', 'worker-2');
    await eventually(async () =>
      assert.match(await kubectl('get', 'csr', 'worker-2'), /worker-2\s+.*\s+Approved,Failed\n/),
    );
    const failed = JSON.parse(await kubectl('get', 'csr', 'worker-2', '-o', 'json')).status.conditions.find(
      (c: { type: string }) => c.type === 'Failed',
    );
    assert.equal(failed.reason, 'SignerValidationFailure');
    assert.equal(failed.message, 'subject organization is not system:nodes');
    assert.equal(await kubectl('get', 'csr', 'worker-2', '-o', 'jsonpath={.status.certificate}'), '');
  });

  it('deny', async () => {
    const { manifest } = await request('denied', '/CN=mallory');
    await kubectl('apply', '-f', manifest);
    assert.match(
      await kubectl('certificate', 'deny', 'denied'),
      /certificatesigningrequest.certificates.k8s.io\/denied denied/,
    );
    assert.match(await kubectl('get', 'csr', 'denied'), /denied\s+.*\s+Denied\n/);
    const reason = await kubectl('get', 'csr', 'denied', '-o', 'jsonpath={.status.conditions[0].reason}');
    assert.equal(reason, 'KubectlDeny');
  });

  it('refuses system:masters through the kube-apiserver-client signer', async () => {
    const { manifest } = await request('root', '/CN=eve/O=system:masters');
    const stderr = await kubectlFails('apply', '-f', manifest);
    assert.match(
      stderr,
      /certificatesigningrequests.certificates.k8s.io "root" is forbidden: use of kubernetes.io\/kube-apiserver-client signer with system:masters group is not allowed/,
    );
  });

  it('wheelhouse kubeconfig --user mints a user kubeconfig directly', async () => {
    const lines: string[] = [];
    const code = await kubeconfigCommand(
      ['--data-dir', cp.dataDir, '--user', 'alice', '--group', 'qa', '--group', 'ops', '--expiration', '48h'],
      (l) => lines.push(l),
    );
    assert.equal(code, 0);
    const file = join(root, 'alice.kubeconfig');
    writeFileSync(file, `${lines.join('\n')}\n`);
    const whoami = await kubectlWith(file, 'auth', 'whoami');
    assert.match(whoami, /Username\s+alice/);
    assert.match(whoami, /Groups\s+\[qa ops system:authenticated\]/);
    await assert.rejects(
      kubeconfigCommand(['--data-dir', cp.dataDir, '--user', 'eve', '--group', 'system:masters'], () => {}),
      /refusing to mint a system:masters certificate/,
    );
  });
});
