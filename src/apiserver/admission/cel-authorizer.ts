/**
 * The CEL `authorizer` variable for an admission request (webhook matchConditions, ValidatingAdmissionPolicy): its
 * questions are about the requesting user and go to the apiserver's authorizer chain (every question allowed while
 * the server has none, as with no authorization mode); `authorizer.requestResource` is the request's own resource.
 */
import { CelAuthorizer } from '../../api/cel/index.js';
import type { APIRegistry } from '../api-registry.js';
import type { AdmissionAttributes } from './types.js';

export function celAuthorizerFor(registry: APIRegistry, attrs: AdmissionAttributes): CelAuthorizer {
  return new CelAuthorizer(
    attrs.userInfo ?? { name: '', groups: [] },
    (q) => (registry.authorizer ? registry.authorizer.authorize(q) : { decision: 'allow', reason: '' }),
    {
      group: attrs.resource.group,
      version: attrs.resource.version,
      resource: attrs.resource.resource,
      subresource: attrs.subresource,
      namespace: attrs.namespace,
      name: attrs.name,
    },
  );
}
