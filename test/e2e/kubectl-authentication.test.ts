/**
 * The real kubectl against `wheelhouse up` under several identities (issue 6's authentication acceptance): a
 * ServiceAccount token from `kubectl create token`, a static-token user, impersonation with --as/--as-group, and a
 * garbage token refused with kubectl's Unauthorized message.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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

  it('kubectl --as=jane --as-group=qa auth whoami', async () => {
    const out = JSON.parse(await kubectl('--as=jane', '--as-group=qa', 'auth', 'whoami', '-o', 'json'));
    assert.equal(out.status.userInfo.username, 'jane');
    assert.deepEqual(out.status.userInfo.groups, ['qa', 'system:authenticated']);
  });

  it('a garbage token: error: You must be logged in to the server (Unauthorized)', async () => {
    await assert.rejects(kubectlWithToken('garbage', 'get', 'pods'), (err: { stderr: string }) => {
      assert.match(err.stderr, /error: You must be logged in to the server \(Unauthorized\)/);
      return true;
    });
  });
});
