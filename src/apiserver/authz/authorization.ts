/**
 * The apiserver's authorization, put together: the RBAC index over the watch caches, the authorizer chain of the
 * configured modes, the access reviews answered from it, and escalation prevention on writes of RBAC objects.
 */
import { plainInternalError } from '../../api/status-error.js';
import type { APIRegistry } from '../api-registry.js';
import type { RequestContext } from '../context.js';
import type { Authorizer } from '../filters/authorization.js';
import { addAccessReviews } from './access-review.js';
import { type AuthorizationResult, attributesOf, type ModeAuthorizer } from './attributes.js';
import { bindingWritePolicy, roleWritePolicy } from './escalation.js';
import { AuthorizerChain, DEFAULT_AUTHORIZATION_MODES } from './modes.js';
import { NodeGraph } from './node/graph.js';
import { NodeAuthorizer } from './node/node-authorizer.js';
import { RBACIndex } from './rbac-index.js';

const RBAC_GROUP = 'rbac.authorization.k8s.io';

export interface Authorization {
  chain: AuthorizerChain;
  index: RBACIndex;
  /** The authorizer of the request pipeline. */
  filter: Authorizer;
  stop(): void;
}

/**
 * Sets up authorization over a registry whose watch caches are started. modes: --authorization-mode's list
 * (undefined: wheelhouse's default, Node,RBAC); webhook: the Webhook mode's authorizer.
 */
export async function setUpAuthorization(
  registry: APIRegistry,
  modes: string[] | undefined,
  extra: { webhook?: ModeAuthorizer } = {},
): Promise<Authorization> {
  const served = (resource: string) => {
    const s = registry.lookup(RBAC_GROUP, 'v1', resource);
    if (!s) throw new Error(`${resource}.${RBAC_GROUP} is not served`);
    return s;
  };
  const source = (resource: string) => {
    const s = served(resource);
    return { cacher: s.store.cacher, prefix: `${s.def.storagePrefix}/` };
  };
  const index = new RBACIndex({
    roles: source('roles'),
    clusterRoles: source('clusterroles'),
    roleBindings: source('rolebindings'),
    clusterRoleBindings: source('clusterrolebindings'),
  });
  await index.start();
  const chosen = modes ?? [...DEFAULT_AUTHORIZATION_MODES];
  const graph = chosen.includes('Node') ? await startNodeGraph(registry) : undefined;
  const node = graph ? new NodeAuthorizer(graph) : undefined;
  const chain = new AuthorizerChain(chosen, index, extra.webhook, node);
  const current = () => chain;
  registry.authorizer = chain;
  served('roles').store.writePolicy = roleWritePolicy('roles', index, current);
  served('clusterroles').store.writePolicy = roleWritePolicy('clusterroles', index, current);
  served('rolebindings').store.writePolicy = bindingWritePolicy('rolebindings', index, current);
  served('clusterrolebindings').store.writePolicy = bindingWritePolicy('clusterrolebindings', index, current);
  addAccessReviews(registry, current);
  return {
    chain,
    index,
    filter: (ctx) => {
      const result = chain.authorize(attributesOf(ctx));
      return result instanceof Promise ? result.then((r) => forFilter(ctx, r)) : forFilter(ctx, result);
    },
    stop: () => {
      index.stop();
      graph?.stop();
    },
  };
}

/** The Node authorizer's graph over the watch caches of pods, persistent volumes and volume attachments. */
async function startNodeGraph(registry: APIRegistry): Promise<NodeGraph> {
  const source = (group: string, resource: string) => {
    const s = registry.lookup(group, 'v1', resource);
    return s ? { cacher: s.store.cacher, prefix: `${s.def.storagePrefix}/` } : undefined;
  };
  const pods = source('', 'pods');
  if (!pods) throw new Error('authorization-mode Node needs pods served');
  const pvs = source('', 'persistentvolumes');
  const vas = source('storage.k8s.io', 'volumeattachments');
  const graph = new NodeGraph();
  await graph.start({ pods, ...(pvs ? { persistentVolumes: pvs } : {}), ...(vas ? { volumeAttachments: vas } : {}) });
  return graph;
}

/**
 * A chain result as the request pipeline takes it: a request no mode allowed, when a mode failed to evaluate, is
 * answered 500 with the error, not 403 — in plain text naming the request, with `&`, `<` and `>` escaped, as
 * upstream's authorization filter answers it (responsewriters.InternalError).
 */
function forFilter(ctx: RequestContext, result: AuthorizationResult): AuthorizationResult {
  if (result.decision !== 'allow' && result.error) throw plainInternalError(ctx.req.url ?? '', result.error);
  return result;
}
