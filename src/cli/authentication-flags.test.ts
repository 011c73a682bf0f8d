import { describe, it } from 'node:test';
import { parseArgs } from 'node:util';
import assert from '../testing/assert.js';
import { authenticationFlagSpec, authenticationOptionsOf } from './authentication-flags.js';
import { authorizationWebhookFlagSpec, authorizationWebhookOptionsOf } from './authorization-flags.js';

const parse = (args: string[]) =>
  parseArgs({ args, options: { ...authenticationFlagSpec, ...authorizationWebhookFlagSpec } }).values;

describe('authentication and authorization webhook flags', () => {
  it('reads the --oidc-* flags, with repeated --oidc-required-claim', () => {
    const opts = authenticationOptionsOf(
      parse([
        '--oidc-issuer-url=https://issuer.example',
        '--oidc-client-id=kube',
        '--oidc-username-claim=email',
        '--oidc-groups-claim=groups',
        '--oidc-groups-prefix=oidc:',
        '--oidc-signing-algs=RS256,ES256',
        '--oidc-required-claim=tenant=blue',
        '--oidc-required-claim=hd=example.com,x',
      ]),
    );
    assert.deepEqual(opts.oidc, {
      issuerURL: 'https://issuer.example',
      clientID: 'kube',
      usernameClaim: 'email',
      groupsClaim: 'groups',
      groupsPrefix: 'oidc:',
      signingAlgs: ['RS256', 'ES256'],
      requiredClaims: { tenant: 'blue', hd: 'example.com,x' },
    });
    assert.equal(authenticationOptionsOf(parse([])).oidc, undefined);
  });

  it('turns bootstrap token authentication on unless --enable-bootstrap-token-auth=false (as kubeadm)', () => {
    assert.equal(authenticationOptionsOf(parse([])).enableBootstrapTokenAuth, true);
    assert.equal(authenticationOptionsOf(parse(['--enable-bootstrap-token-auth=true'])).enableBootstrapTokenAuth, true);
    assert.equal(
      authenticationOptionsOf(parse(['--enable-bootstrap-token-auth=false'])).enableBootstrapTokenAuth,
      false,
    );
    assert.throws(() => authenticationOptionsOf(parse(['--enable-bootstrap-token-auth=yes'])), /true or false/);
  });

  it('reads --client-ca-file', () => {
    assert.equal(
      authenticationOptionsOf(parse(['--client-ca-file=/etc/kubernetes/ca.crt'])).clientCAFile,
      '/etc/kubernetes/ca.crt',
    );
    assert.equal(authenticationOptionsOf(parse([])).clientCAFile, undefined);
  });

  it('reads the token webhook and ServiceAccount token lifetime flags (Go durations)', () => {
    const opts = authenticationOptionsOf(
      parse([
        '--authentication-token-webhook-config-file=/etc/hook.kubeconfig',
        '--authentication-token-webhook-version=v1',
        '--authentication-token-webhook-cache-ttl=30s',
        '--service-account-max-token-expiration=48h',
        '--service-account-extend-token-expiration=false',
      ]),
    );
    assert.deepEqual(opts.tokenWebhook, { configFile: '/etc/hook.kubeconfig', version: 'v1', cacheTTLMs: 30_000 });
    assert.equal(opts.serviceAccountMaxTokenExpirationSeconds, 48 * 3600);
    assert.equal(opts.serviceAccountExtendTokenExpiration, false);
    assert.throws(() => authenticationOptionsOf(parse(['--service-account-extend-token-expiration=maybe'])));
  });

  it('checks the Webhook mode and its config file go together, with upstream messages', () => {
    const values = parse(['--authorization-webhook-config-file=/x', '--authorization-webhook-cache-authorized-ttl=1m']);
    assert.deepEqual(authorizationWebhookOptionsOf(values, ['RBAC', 'Webhook']), {
      webhook: { configFile: '/x', authorizedTTLMs: 60_000 },
    });
    assert.throws(() => authorizationWebhookOptionsOf(values, ['RBAC']), {
      message: 'cannot specify --authorization-webhook-config-file without mode Webhook',
    });
    assert.throws(() => authorizationWebhookOptionsOf(parse([]), ['Webhook']), {
      message: "--authorization-mode: authorization-mode Webhook's authorization config file not passed",
    });
    assert.deepEqual(authorizationWebhookOptionsOf(parse([]), undefined), {});
  });
});
