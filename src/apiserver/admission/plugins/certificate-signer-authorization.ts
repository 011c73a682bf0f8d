/**
 * Upstream's certificates admission helper IsAuthorizedForSignerName: may the user do verb (approve, sign) on the
 * `signers` resource of certificates.k8s.io named by signerName, or on the wildcard `<domain>/*` of its domain.
 */

import type { AuthorizationAttributes, ModeAuthorizer } from '../../authz/attributes.js';
import type { UserInfo } from '../../context.js';

function signerAttributes(user: UserInfo, verb: string, name: string): AuthorizationAttributes {
  return {
    user,
    verb,
    isResourceRequest: true,
    path: '',
    apiGroup: 'certificates.k8s.io',
    apiVersion: '*',
    namespace: '',
    resource: 'signers',
    subresource: '',
    name,
  };
}

/** Whether authorizer allows verb on signerName (exactly, or as `<domain>/*`). No authorizer: allowed. */
export async function isAuthorizedForSignerName(
  authorizer: ModeAuthorizer | undefined,
  user: UserInfo,
  verb: string,
  signerName: string,
): Promise<boolean> {
  if (!authorizer) return true;
  const exact = await authorizer.authorize(signerAttributes(user, verb, signerName));
  if (exact.decision === 'allow') return true;
  const domain = signerName.split('/')[0] ?? '';
  const wildcard = await authorizer.authorize(signerAttributes(user, verb, `${domain}/*`));
  return wildcard.decision === 'allow';
}
