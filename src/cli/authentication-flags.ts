import type { AuthenticationOptions } from '../apiserver/authn/options.js';
import { UsageError } from './storage-flags.js';

/** kube-apiserver's authentication flags, with upstream's names (the repeatable ones take a comma list here). */
export const authenticationFlagSpec = {
  'anonymous-auth': { type: 'string' },
  'token-auth-file': { type: 'string' },
  'service-account-key-file': { type: 'string' },
  'service-account-signing-key-file': { type: 'string' },
  'service-account-issuer': { type: 'string' },
  'api-audiences': { type: 'string' },
} as const;

export const authenticationFlagsHelp = `  --anonymous-auth=true|false      requests without credentials are system:anonymous (default true)
  --token-auth-file FILE           static tokens: token,user,uid,"group1,group2" a line
  --service-account-key-file FILE  public keys that verify ServiceAccount tokens (default: <data-dir>/pki/sa.pub)
  --service-account-signing-key-file FILE  the key TokenRequest signs with (default: <data-dir>/pki/sa.key)
  --service-account-issuer URL     iss of ServiceAccount tokens (default https://kubernetes.default.svc.cluster.local)
  --api-audiences LIST             audiences tokens must name (default: the issuer)`;

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
  const keyFiles = list(strs('service-account-key-file'));
  const issuers = list(strs('service-account-issuer'));
  const audiences = list(str('api-audiences') === undefined ? undefined : [str('api-audiences') as string]);
  const tokenFile = str('token-auth-file');
  const signing = str('service-account-signing-key-file');
  return {
    ...(anonymous !== undefined ? { anonymousAuth: anonymous === 'true' } : {}),
    ...(tokenFile ? { tokenAuthFile: tokenFile } : {}),
    ...(keyFiles.length ? { serviceAccountKeyFiles: keyFiles } : {}),
    ...(signing ? { serviceAccountSigningKeyFile: signing } : {}),
    ...(issuers.length ? { serviceAccountIssuers: issuers } : {}),
    ...(audiences.length ? { apiAudiences: audiences } : {}),
  };
}
