/**
 * Upstream's nodeidentifier.NewDefaultNodeIdentifier: a user is a node when its name starts with `system:node:` and
 * it is in the `system:nodes` group; the node's name is the rest of the user name (empty when there is none).
 */
import type { UserInfo } from '../../context.js';

export const NODE_USER_PREFIX = 'system:node:';
export const NODES_GROUP = 'system:nodes';

export function nodeIdentity(user: UserInfo | undefined): { isNode: boolean; nodeName: string } {
  if (!user?.name.startsWith(NODE_USER_PREFIX) || !user.groups.includes(NODES_GROUP)) {
    return { isNode: false, nodeName: '' };
  }
  return { isNode: true, nodeName: user.name.slice(NODE_USER_PREFIX.length) };
}
