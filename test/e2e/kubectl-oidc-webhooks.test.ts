/**
 * The real kubectl against `wheelhouse apiserver` with an OIDC issuer, a token webhook and the Webhook authorizer
 * (issue 6's acceptance for OIDC and webhook-authenticated tokens): kubectl --token with an ID token from a local
 * issuer and with a token only the webhook knows; allowed and forbidden actions with upstream's messages; forged,
 * expired and wrong-audience ID tokens refused as Unauthorized.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import assert from '../../src/testing/assert.js';
import { eventually } from '../../src/testing/controllers.js';
import {
  type ReviewObject,
  startOIDCIssuer,
  startReviewWebhook,
  type TestOIDCIssuer,
  type TestReviewWebhook,
} from '../../src/testing/review-servers.js';
import { startWheelhouse, type WheelhouseProcess } from '../../src/testing/wheelhouse-process.js';

const run = promisify(execFile);
const now = () => Math.floor(Date.now() / 1000);

/** The token webhook knows one token. */
function tokens(r: ReviewObject) {
  if (r.spec.token !== 'hook-secret') return { authenticated: false };
  return { authenticated: true, user: { username: 'hook-user', uid: 'hook-1', groups: ['hookers'] } };
}

/** The authorization webhook lets hook-user read pods and refuses its deletes; it has no opinion otherwise. */
function access(r: ReviewObject) {
  const ra = r.spec.resourceAttributes;
  if (r.spec.user !== 'hook-user' || ra?.resource !== 'pods') return { allowed: false };
  if (ra.verb === 'get' || ra.verb === 'list') return { allowed: true };
  return { allowed: false, denied: true, reason: 'hook-user is read-only' };
}

describe('kubectl against wheelhouse apiserver with OIDC, a token webhook and the Webhook authorizer', () => {
  let dir: string;
  let issuer: TestOIDCIssuer;
  let other: TestOIDCIssuer;
  let tokenHook: TestReviewWebhook;
  let accessHook: TestReviewWebhook;
  let server: WheelhouseProcess;

  const kubectl = (args: string[]) =>
    run('kubectl', ['--kubeconfig', join(dir, 'kubeconfig'), '--cache-dir', join(dir, 'kcache-admin'), ...args], {
      timeout: 60_000,
    });
  /** kubectl with only a bearer token (no client certificate). */
  const kubectlAs = (token: string, args: string[]) =>
    run(
      'kubectl',
      [
        '--kubeconfig',
        join(dir, 'empty-kubeconfig'),
        '--cache-dir',
        join(dir, 'kcache-token'),
        '--server',
        server.url(),
        '--certificate-authority',
        join(dir, 'pki', 'ca.crt'),
        `--token=${token}`,
        ...args,
      ],
      { timeout: 60_000 },
    );
  const refused = async (token: string, args: string[]) => {
    const err = await kubectlAs(token, args).then(
      () => assert.fail('kubectl succeeded'),
      (e: { stderr: string }) => e,
    );
    return err.stderr.trim();
  };
  const idToken = (claims: Record<string, unknown> = {}) =>
    issuer.sign({
      sub: 'u-alice',
      email: 'alice@example.com',
      email_verified: true,
      groups: ['devs'],
      aud: 'kubectl',
      exp: now() + 600,
      ...claims,
    });

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'wheelhouse-oidc-e2e-'));
    writeFileSync(join(dir, 'empty-kubeconfig'), 'apiVersion: v1\nkind: Config\n');
    issuer = await startOIDCIssuer();
    other = await startOIDCIssuer();
    tokenHook = await startReviewWebhook(tokens);
    accessHook = await startReviewWebhook(access);
    server = await startWheelhouse('apiserver', [
      '--storage',
      'memory',
      '--data-dir',
      dir,
      '--bind-address',
      '127.0.0.1',
      '--authorization-mode=RBAC,Webhook',
      `--authorization-webhook-config-file=${accessHook.kubeconfigFile}`,
      '--authorization-webhook-version=v1',
      `--oidc-issuer-url=${issuer.url}`,
      '--oidc-client-id=kubectl',
      `--oidc-ca-file=${issuer.caFile}`,
      '--oidc-username-claim=email',
      '--oidc-groups-claim=groups',
      '--oidc-groups-prefix=oidc:',
      `--authentication-token-webhook-config-file=${tokenHook.kubeconfigFile}`,
      '--authentication-token-webhook-version=v1',
    ]);
  });
  after(async () => {
    await server?.stop();
    await Promise.all([issuer?.close(), other?.close(), tokenHook?.close(), accessHook?.close()]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('an OIDC ID token: kubectl auth whoami shows the email user and the prefixed groups', async () => {
    const { stdout } = await kubectlAs(await idToken(), ['auth', 'whoami', '-o', 'json']);
    const review = JSON.parse(stdout);
    assert.equal(review.kind, 'SelfSubjectReview');
    assert.deepEqual(review.status.userInfo, {
      username: 'alice@example.com',
      groups: ['oidc:devs', 'system:authenticated'],
    });
  });

  it('the OIDC user is forbidden with upstream text, then allowed after kubectl create rolebinding to its group', async () => {
    const token = await idToken();
    assert.equal(
      await refused(token, ['get', 'pods']),
      'Error from server (Forbidden): pods is forbidden: User "alice@example.com" cannot list resource "pods" in API group "" in the namespace "default"',
    );
    await kubectl(['create', 'role', 'pod-reader', '--verb=get,list', '--resource=pods']);
    await kubectl(['create', 'rolebinding', 'devs-read-pods', '--role=pod-reader', '--group=oidc:devs']);
    // The authorizer sees the binding once its watch cache has it.
    await eventually(async () =>
      assert.equal((await kubectlAs(token, ['auth', 'can-i', 'list', 'pods'])).stdout.trim(), 'yes'),
    );
    const { stdout, stderr } = await kubectlAs(token, ['get', 'pods']);
    assert.equal(stdout, '');
    assert.equal(stderr.trim(), 'No resources found in default namespace.');
  });

  it('forged, expired and wrong-audience ID tokens: error: You must be logged in to the server (Unauthorized)', async () => {
    const unauthorized = 'error: You must be logged in to the server (Unauthorized)';
    const forged = await other.sign(
      { iss: issuer.url, email: 'alice@example.com', aud: 'kubectl', exp: now() + 600 },
      { kid: 'key-1' },
    );
    assert.equal(await refused(forged, ['get', 'pods']), unauthorized);
    assert.equal(await refused(await idToken({ exp: now() - 60 }), ['get', 'pods']), unauthorized);
    assert.equal(await refused(await idToken({ aud: 'someone-else' }), ['get', 'pods']), unauthorized);
    assert.equal(await refused(await idToken({ email_verified: false }), ['get', 'pods']), unauthorized);
  });

  it('a webhook-authenticated token: whoami, get pods allowed by the authorization webhook, delete denied with its reason', async () => {
    const { stdout } = await kubectlAs('hook-secret', ['auth', 'whoami', '-o', 'json']);
    assert.deepEqual(JSON.parse(stdout).status.userInfo, {
      username: 'hook-user',
      uid: 'hook-1',
      groups: ['hookers', 'system:authenticated'],
    });
    const list = await kubectlAs('hook-secret', ['get', 'pods']);
    assert.equal(list.stderr.trim(), 'No resources found in default namespace.');
    assert.equal(
      await refused('hook-secret', ['delete', 'pod', 'web']),
      'Error from server (Forbidden): pods "web" is forbidden: User "hook-user" cannot delete resource "pods" in API group "" in the namespace "default": hook-user is read-only',
    );
    assert.equal(
      await refused('hook-secret', ['get', 'secrets']),
      'Error from server (Forbidden): secrets is forbidden: User "hook-user" cannot list resource "secrets" in API group "" in the namespace "default"',
    );
    assert.ok(tokenHook.received.some((r) => r.spec.token === 'hook-secret'));
    assert.equal(
      await refused('not-a-known-token', ['get', 'pods']),
      'error: You must be logged in to the server (Unauthorized)',
    );
  });
});
