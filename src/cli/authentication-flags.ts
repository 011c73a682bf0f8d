import type { OIDCOptions } from '../apiserver/authn/oidc/authenticator.js';
import type { AuthenticationOptions } from '../apiserver/authn/options.js';
import { durationFlag, UsageError } from './storage-flags.js';

/** kube-apiserver's authentication flags, with upstream's names (the repeatable ones take a comma list here). */
export const authenticationFlagSpec = {
  'anonymous-auth': { type: 'string' },
  'client-ca-file': { type: 'string' },
  'token-auth-file': { type: 'string' },
  'enable-bootstrap-token-auth': { type: 'string' },
  'service-account-key-file': { type: 'string' },
  'service-account-signing-key-file': { type: 'string' },
  'service-account-issuer': { type: 'string' },
  'api-audiences': { type: 'string' },
  'service-account-max-token-expiration': { type: 'string' },
  'service-account-extend-token-expiration': { type: 'string' },
  'oidc-issuer-url': { type: 'string' },
  'oidc-client-id': { type: 'string' },
  'oidc-ca-file': { type: 'string' },
  'oidc-username-claim': { type: 'string' },
  'oidc-username-prefix': { type: 'string' },
  'oidc-groups-claim': { type: 'string' },
  'oidc-groups-prefix': { type: 'string' },
  'oidc-signing-algs': { type: 'string' },
  'oidc-required-claim': { type: 'string', multiple: true },
  'authentication-token-webhook-config-file': { type: 'string' },
  'authentication-token-webhook-version': { type: 'string' },
  'authentication-token-webhook-cache-ttl': { type: 'string' },
} as const;

export const authenticationFlagsHelp = `  --anonymous-auth=true|false      requests without credentials are system:anonymous (default true)
  --client-ca-file FILE            CA bundle that client certificates may be signed by, besides the cluster CA
  --token-auth-file FILE           static tokens: token,user,uid,"group1,group2" a line
  --enable-bootstrap-token-auth=true|false  bootstrap token Secrets in kube-system authenticate (default true, as kubeadm)
  --service-account-key-file FILE  public keys that verify ServiceAccount tokens (default: <data-dir>/pki/sa.pub)
  --service-account-signing-key-file FILE  the key TokenRequest signs with (default: <data-dir>/pki/sa.key)
  --service-account-issuer URL     iss of ServiceAccount tokens (default https://kubernetes.default.svc.cluster.local)
  --api-audiences LIST             audiences tokens must name (default: the issuer)
  --service-account-max-token-expiration D     longest TokenRequest lifetime (1h–2^32s; default: no cap)
  --service-account-extend-token-expiration=true|false  pod-bound 3607s tokens live a year (default true)
  --oidc-issuer-url URL            an OpenID Connect issuer (https) whose ID tokens are accepted
  --oidc-client-id ID              the audience its tokens must name (required with --oidc-issuer-url)
  --oidc-ca-file FILE              the issuer's CA (default: the system roots)
  --oidc-username-claim CLAIM      the user name (default sub)
  --oidc-username-prefix P         prefix of user names (default: <issuer>#, none for email; - for none)
  --oidc-groups-claim CLAIM        the groups (a string or a list of strings)
  --oidc-groups-prefix P           prefix of group names
  --oidc-signing-algs LIST         allowed algorithms (default RS256)
  --oidc-required-claim K=V        a claim tokens must carry (repeatable)
  --authentication-token-webhook-config-file FILE  kubeconfig of a TokenReview service for other tokens
  --authentication-token-webhook-version v1|v1beta1  (default v1beta1)
  --authentication-token-webhook-cache-ttl D       how long answers are kept (default 2m)`;

const list = (v: string[] | undefined) =>
  (v ?? [])
    .flatMap((s) => s.split(','))
    .map((s) => s.trim())
    .filter(Boolean);

/** The AuthenticationOptions the flags ask for. */
export function authenticationOptionsOf(values: Record<string, unknown>): AuthenticationOptions {
  const str = (name: string) => (typeof values[name] === 'string' ? (values[name] as string) : undefined);
  const strs = (name: string) => (typeof values[name] === 'string' ? [values[name] as string] : undefined);
  const anonymous = str('anonymous-auth');
  if (anonymous !== undefined && anonymous !== 'true' && anonymous !== 'false') {
    throw new UsageError(`--anonymous-auth must be true or false, not ${JSON.stringify(anonymous)}`);
  }
  const bootstrap = str('enable-bootstrap-token-auth');
  if (bootstrap !== undefined && bootstrap !== 'true' && bootstrap !== 'false') {
    throw new UsageError(`--enable-bootstrap-token-auth must be true or false, not ${JSON.stringify(bootstrap)}`);
  }
  const keyFiles = list(strs('service-account-key-file'));
  const issuers = list(strs('service-account-issuer'));
  const audiences = list(str('api-audiences') === undefined ? undefined : [str('api-audiences') as string]);
  const tokenFile = str('token-auth-file');
  const clientCAFile = str('client-ca-file');
  const maxExpiration = str('service-account-max-token-expiration');
  const extend = str('service-account-extend-token-expiration');
  if (extend !== undefined && extend !== 'true' && extend !== 'false') {
    throw new UsageError(
      `--service-account-extend-token-expiration must be true or false, not ${JSON.stringify(extend)}`,
    );
  }
  const webhookFile = str('authentication-token-webhook-config-file');
  const webhookVersion = str('authentication-token-webhook-version');
  const webhookTTL = str('authentication-token-webhook-cache-ttl');
  const signing = str('service-account-signing-key-file');
  return {
    ...(anonymous !== undefined ? { anonymousAuth: anonymous === 'true' } : {}),
    ...(tokenFile ? { tokenAuthFile: tokenFile } : {}),
    // As kubeadm runs kube-apiserver (upstream's flag default is false).
    enableBootstrapTokenAuth: bootstrap !== 'false',
    ...(clientCAFile ? { clientCAFile } : {}),
    ...(keyFiles.length ? { serviceAccountKeyFiles: keyFiles } : {}),
    ...(signing ? { serviceAccountSigningKeyFile: signing } : {}),
    ...(issuers.length ? { serviceAccountIssuers: issuers } : {}),
    ...(audiences.length ? { apiAudiences: audiences } : {}),
    ...(maxExpiration !== undefined
      ? {
          serviceAccountMaxTokenExpirationSeconds: Math.floor(
            durationFlag('service-account-max-token-expiration', maxExpiration, 0) / 1000,
          ),
        }
      : {}),
    ...(extend !== undefined ? { serviceAccountExtendTokenExpiration: extend === 'true' } : {}),
    ...oidcOptionsOf(values),
    ...(webhookFile
      ? {
          tokenWebhook: {
            configFile: webhookFile,
            ...(webhookVersion ? { version: webhookVersion } : {}),
            ...(webhookTTL !== undefined
              ? { cacheTTLMs: durationFlag('authentication-token-webhook-cache-ttl', webhookTTL, 0) }
              : {}),
          },
        }
      : {}),
  };
}

/** The --oidc-* flags; when any is set, both the issuer URL and the client id must be (checked at start-up). */
function oidcOptionsOf(values: Record<string, unknown>): { oidc?: OIDCOptions } {
  const str = (name: string) =>
    typeof values[`oidc-${name}`] === 'string' ? (values[`oidc-${name}`] as string) : undefined;
  const claims = Array.isArray(values['oidc-required-claim']) ? (values['oidc-required-claim'] as string[]) : [];
  const names = [
    'issuer-url',
    'client-id',
    'ca-file',
    'username-claim',
    'username-prefix',
    'groups-claim',
    'groups-prefix',
    'signing-algs',
  ];
  if (claims.length === 0 && names.every((n) => str(n) === undefined)) return {};
  const requiredClaims: Record<string, string> = {};
  for (const claim of claims) {
    const eq = claim.indexOf('=');
    if (eq <= 0) throw new UsageError(`--oidc-required-claim must be key=value, not ${JSON.stringify(claim)}`);
    requiredClaims[claim.slice(0, eq)] = claim.slice(eq + 1);
  }
  const algs = list(str('signing-algs') === undefined ? undefined : [str('signing-algs') as string]);
  const optional = (key: keyof OIDCOptions, flag: string) => (str(flag) !== undefined ? { [key]: str(flag) } : {});
  return {
    oidc: {
      issuerURL: str('issuer-url') ?? '',
      clientID: str('client-id') ?? '',
      ...optional('caFile', 'ca-file'),
      ...optional('usernameClaim', 'username-claim'),
      ...optional('usernamePrefix', 'username-prefix'),
      ...optional('groupsClaim', 'groups-claim'),
      ...optional('groupsPrefix', 'groups-prefix'),
      ...(algs.length ? { signingAlgs: algs } : {}),
      ...(claims.length ? { requiredClaims } : {}),
    },
  };
}
