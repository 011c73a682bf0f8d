/**
 * The real kubectl against `wheelhouse up` under several identities (issue 6's authentication acceptance): a
 * ServiceAccount token from `kubectl create token`, a static-token user, a bootstrap token (and cluster-info, signed with
 * it), impersonation with --as/--as-group, and a
 * garbage token refused with kubectl's Unauthorized message. Then RBAC (the default Node,RBAC modes) with kubeconfigs
 * whose users hold only a `token:` — one from --token-auth-file, one printed by `kubectl create token`: forbidden
 * with upstream's message until a RoleBinding names them, allowed after it, forbidden still elsewhere.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import assert from '../../src/testing/assert.js';
import { eventually } from '../../src/testing/controllers.js';
import { startWheelhouse, type WheelhouseProcess } from '../../src/testing/wheelhouse-process.js';

const run = promisify(execFile);

describe('kubectl against wheelhouse up: authentication', () => {
  const root = mkdtempSync(join(tmpdir(), 'wheelhouse-authn-e2e-'));
  const dataDir = join(root, 'data');
  const tokenFile = join(root, 'tokens.csv');
  let up: WheelhouseProcess;
  const kubectl = async (...args: string[]) =>
    (
      await run(
        'kubectl',
        ['--kubeconfig', join(dataDir, 'kubeconfig'), '--cache-dir', join(root, 'kcache'), ...args],
        {
          timeout: 60_000,
        },
      )
    ).stdout;
  /** kubectl with only a bearer token: no client certificate from the admin kubeconfig. */
  const kubectlWithToken = async (token: string, ...args: string[]) =>
    run(
      'kubectl',
      [
        '--kubeconfig',
        join(root, 'empty-kubeconfig'),
        '--cache-dir',
        join(root, 'kcache'),
        '--server',
        up.url(),
        '--certificate-authority',
        join(dataDir, 'pki', 'ca.crt'),
        `--token=${token}`,
        ...args,
      ],
      { timeout: 60_000 },
    );

  /** A kubeconfig whose only credential is a bearer token (`users[].user.token`), as `kubectl config` writes it. */
  const tokenKubeconfig = (name: string, token: string, namespace?: string) => {
    const file = join(root, `${name}.kubeconfig`);
    writeFileSync(
      file,
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters:',
        '- name: wheelhouse',
        '  cluster:',
        `    server: ${up.url()}`,
        `    certificate-authority: ${join(dataDir, 'pki', 'ca.crt')}`,
        'users:',
        `- name: ${name}`,
        '  user:',
        `    token: ${token}`,
        'contexts:',
        `- name: ${name}`,
        '  context:',
        '    cluster: wheelhouse',
        `    user: ${name}`,
        ...(namespace ? [`    namespace: ${namespace}`] : []),
        `current-context: ${name}`,
        '',
      ].join('\n'),
    );
    return file;
  };
  /** kubectl with that kubeconfig: its exit code, stdout and stderr (never rejects). */
  const kubectlAs = async (kubeconfig: string, ...args: string[]) => {
    try {
      const { stdout, stderr } = await run(
        'kubectl',
        ['--kubeconfig', kubeconfig, '--cache-dir', join(root, 'kcache'), ...args],
        { timeout: 60_000 },
      );
      return { code: 0, stdout, stderr };
    } catch (err) {
      const e = err as { code?: unknown; stdout?: string; stderr?: string };
      return { code: typeof e.code === 'number' ? e.code : -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
    }
  };

  before(async () => {
    writeFileSync(tokenFile, 'static-secret-1,jane,jane-uid,"dev,ops"\n');
    writeFileSync(join(root, 'empty-kubeconfig'), 'apiVersion: v1\nkind: Config\n');
    up = await startWheelhouse('up', [
      '--data-dir',
      dataDir,
      '--storage',
      'memory',
      '--nodes',
      '0',
      '--token-auth-file',
      tokenFile,
    ]);
  });
  after(async () => {
    await up?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it('kubectl create token default, then kubectl --token auth whoami shows the ServiceAccount', async () => {
    // The serviceaccount controller creates default in each namespace.
    await eventually(async () => {
      const out = await kubectl('get', 'serviceaccount', 'default', '-o', 'name').catch(() => '');
      assert.equal(out.trim(), 'serviceaccount/default', 'the default ServiceAccount exists');
    });
    const token = (await kubectl('create', 'token', 'default')).trim();
    assert.match(token, /^[\w-]+\.[\w-]+\.[\w-]+$/);
    const { stdout } = await kubectlWithToken(token, 'auth', 'whoami', '-o', 'json');
    const review = JSON.parse(stdout);
    assert.equal(review.status.userInfo.username, 'system:serviceaccount:default:default');
    assert.deepEqual(review.status.userInfo.groups, [
      'system:serviceaccounts',
      'system:serviceaccounts:default',
      'system:authenticated',
    ]);
    const table = (await kubectlWithToken(token, 'auth', 'whoami')).stdout;
    assert.match(table, /Username\s+system:serviceaccount:default:default/);
  });

  it('kubectl create token refuses a duration under ten minutes with upstream text', async () => {
    await assert.rejects(kubectl('create', 'token', 'default', '--duration=1m'), (err: { stderr: string }) => {
      assert.match(
        err.stderr,
        /TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes/,
      );
      return true;
    });
  });

  it('a static-token user', async () => {
    const { stdout } = await kubectlWithToken('static-secret-1', 'auth', 'whoami', '-o', 'json');
    const info = JSON.parse(stdout).status.userInfo;
    assert.equal(info.username, 'jane');
    assert.equal(info.uid, 'jane-uid');
    assert.deepEqual(info.groups, ['dev', 'ops', 'system:authenticated']);
  });

  it('a bootstrap token (a Secret made with kubectl, as kubeadm token create makes it) is system:bootstrap:<id>', async () => {
    await kubectl(
      'create',
      'secret',
      'generic',
      'bootstrap-token-07401b',
      '-n',
      'kube-system',
      '--type',
      'bootstrap.kubernetes.io/token',
      '--from-literal=token-id=07401b',
      '--from-literal=token-secret=f395accd246ae52d',
      '--from-literal=usage-bootstrap-authentication=true',
      '--from-literal=auth-extra-groups=system:bootstrappers:kubeadm:default-node-token',
      '--from-literal=usage-bootstrap-signing=true',
    );
    const { stdout } = await kubectlWithToken('07401b.f395accd246ae52d', 'auth', 'whoami', '-o', 'json');
    assert.deepEqual(JSON.parse(stdout).status.userInfo, {
      username: 'system:bootstrap:07401b',
      groups: ['system:bootstrappers', 'system:bootstrappers:kubeadm:default-node-token', 'system:authenticated'],
    });
    // Another secret for the same id is no credential at all.
    await assert.rejects(kubectlWithToken('07401b.0000000000000000', 'auth', 'whoami'), (err: { stderr: string }) => {
      assert.match(err.stderr, /error: You must be logged in to the server \(Unauthorized\)/);
      return true;
    });
  });

  it('cluster-info in kube-public, as kubeadm makes it: readable by anyone, signed with each bootstrap token', async () => {
    // Anonymous: no credential at all, as a joining node reads it (kubectl would ask for a user name).
    const anonymous = await new Promise<string>((resolve, reject) => {
      https
        .get(
          `${up.url()}/api/v1/namespaces/kube-public/configmaps/cluster-info`,
          { ca: readFileSync(join(dataDir, 'pki', 'ca.crt')) },
          (res) => {
            let body = '';
            res.on('data', (chunk) => {
              body += chunk;
            });
            res.on('end', () =>
              res.statusCode === 200 ? resolve(body) : reject(new Error(`${res.statusCode} ${body}`)),
            );
          },
        )
        .on('error', reject);
    });
    const data = JSON.parse(anonymous).data;
    assert.match(data.kubeconfig, new RegExp(`server: ${up.url().replace(/[.]/g, '\\.')}\n`));
    assert.match(data.kubeconfig, /certificate-authority-data: \S+\n {4}server: \S+\n {2}name: ""\ncontexts: null\n/);
    // The bootstrap signer signs it with the token made above (usage-bootstrap-signing: "true").
    await eventually(async () => {
      const signed = JSON.parse(await kubectl('-n', 'kube-public', 'get', 'configmap', 'cluster-info', '-o', 'json'));
      assert.match(
        signed.data['jws-kubeconfig-07401b'] ?? '',
        /^eyJhbGciOiJIUzI1NiIsImtpZCI6IjA3NDAxYiJ9\.\.[\w-]{43}$/,
      );
    });
  });

  it('kubectl --as=jane --as-group=qa auth whoami', async () => {
    const out = JSON.parse(await kubectl('--as=jane', '--as-group=qa', 'auth', 'whoami', '-o', 'json'));
    assert.equal(out.status.userInfo.username, 'jane');
    assert.deepEqual(out.status.userInfo.groups, ['qa', 'system:authenticated']);
  });

  it('kubectl --as-group with a comma is one group, as upstream reads each header line as one value', async () => {
    const out = JSON.parse(
      await kubectl('--as=jane', '--as-group=a,b', '--as-group=qa', 'auth', 'whoami', '-o', 'json'),
    );
    assert.deepEqual(out.status.userInfo.groups, ['a,b', 'qa', 'system:authenticated']);
  });

  it('a garbage token: error: You must be logged in to the server (Unauthorized)', async () => {
    await assert.rejects(kubectlWithToken('garbage', 'get', 'pods'), (err: { stderr: string }) => {
      assert.match(err.stderr, /error: You must be logged in to the server \(Unauthorized\)/);
      return true;
    });
  });

  it('a kubeconfig user with a --token-auth-file token: forbidden, then allowed by a RoleBinding, and only there', async () => {
    const jane = tokenKubeconfig('jane', 'static-secret-1');
    const denied = await kubectlAs(jane, 'get', 'pods');
    assert.equal(denied.code, 1, denied.stderr);
    assert.equal(
      denied.stderr.trim(),
      'Error from server (Forbidden): pods is forbidden: User "jane" cannot list resource "pods" in API group "" in the namespace "default"',
    );
    await kubectl('create', 'role', 'pod-reader', '--verb=get,list,watch', '--resource=pods');
    await kubectl('create', 'rolebinding', 'jane-pods', '--role=pod-reader', '--user=jane');
    await eventually(async () => {
      const allowed = await kubectlAs(jane, 'get', 'pods');
      assert.equal(allowed.code, 0, allowed.stderr);
      assert.equal(allowed.stderr.trim(), 'No resources found in default namespace.');
    });
    // The binding is in default only, and grants reads only.
    const elsewhere = await kubectlAs(jane, 'get', 'pods', '-n', 'kube-system');
    assert.equal(elsewhere.code, 1);
    assert.equal(
      elsewhere.stderr.trim(),
      'Error from server (Forbidden): pods is forbidden: User "jane" cannot list resource "pods" in API group "" in the namespace "kube-system"',
    );
    const write = await kubectlAs(jane, 'delete', 'pod', 'nothing-here');
    assert.equal(write.code, 1);
    assert.equal(
      write.stderr.trim(),
      'Error from server (Forbidden): pods "nothing-here" is forbidden: User "jane" cannot delete resource "pods" in API group "" in the namespace "default"',
    );
    // The token file's groups count too: a binding to group ops lets jane read configmaps.
    const cms = await kubectlAs(jane, 'get', 'configmaps');
    assert.equal(cms.code, 1);
    assert.match(
      cms.stderr,
      /User "jane" cannot list resource "configmaps" in API group "" in the namespace "default"/,
    );
    await kubectl('create', 'rolebinding', 'ops-view', '--clusterrole=view', '--group=ops');
    await eventually(async () => {
      const ok = await kubectlAs(jane, 'get', 'configmaps', '-o', 'name');
      assert.equal(ok.code, 0, ok.stderr);
      assert.match(ok.stdout, /^configmap\/kube-root-ca.crt$/m);
    });
  });

  it('a kubeconfig user with a `kubectl create token` ServiceAccount token: forbidden as system:serviceaccount:ns:name, then allowed by a RoleBinding', async () => {
    await kubectl('create', 'namespace', 'team');
    await kubectl('create', 'serviceaccount', 'builder', '-n', 'team');
    const token = (await kubectl('create', 'token', 'builder', '-n', 'team')).trim();
    const builder = tokenKubeconfig('builder', token, 'team');
    const who = JSON.parse((await kubectlAs(builder, 'auth', 'whoami', '-o', 'json')).stdout);
    assert.equal(who.status.userInfo.username, 'system:serviceaccount:team:builder');
    const denied = await kubectlAs(builder, 'get', 'pods');
    assert.equal(denied.code, 1, denied.stderr);
    assert.equal(
      denied.stderr.trim(),
      'Error from server (Forbidden): pods is forbidden: User "system:serviceaccount:team:builder" cannot list resource "pods" in API group "" in the namespace "team"',
    );
    await kubectl(
      'create',
      'rolebinding',
      'builder-view',
      '--clusterrole=view',
      '--serviceaccount=team:builder',
      '-n',
      'team',
    );
    await eventually(async () => {
      const allowed = await kubectlAs(builder, 'get', 'pods');
      assert.equal(allowed.code, 0, allowed.stderr);
      assert.equal(allowed.stderr.trim(), 'No resources found in team namespace.');
    });
    // view reads, it does not write; and the binding holds in team only.
    const create = await kubectlAs(builder, 'create', 'deployment', 'web', '--image=nginx');
    assert.equal(create.code, 1);
    assert.equal(
      create.stderr.trim(),
      'error: failed to create deployment: deployments.apps is forbidden: User "system:serviceaccount:team:builder" cannot create resource "deployments" in API group "apps" in the namespace "team"',
    );
    const elsewhere = await kubectlAs(builder, 'get', 'pods', '-n', 'default');
    assert.equal(elsewhere.code, 1);
    assert.equal(
      elsewhere.stderr.trim(),
      'Error from server (Forbidden): pods is forbidden: User "system:serviceaccount:team:builder" cannot list resource "pods" in API group "" in the namespace "default"',
    );
    const can = await kubectlAs(builder, 'auth', 'can-i', 'list', 'pods');
    assert.equal(can.stdout.trim(), 'yes');
  });
});
