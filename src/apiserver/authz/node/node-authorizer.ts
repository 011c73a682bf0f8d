/**
 * The Node authorization mode (upstream's plugin/pkg/auth/authorizer/node, v1.33 with AuthorizeNodeWithSelectors on):
 * a kubelet, user `system:node:<name>` in group `system:nodes`, may read the secrets, configmaps, claims, volumes and
 * ServiceAccount tokens its pods need (found in the graph), its own Node and Lease, and what the `system:node`
 * ClusterRole's rules allow for the rest. Everything else is `no-opinion`, with upstream's reason, so later modes
 * (RBAC) still decide. Writes a node may do to its own objects only are narrowed by the NodeRestriction admission
 * plugin.
 */

import { CLUSTER_ROLES } from '../../bootstrap/rbac-policy-data.js';
import type { UserInfo } from '../../context.js';
import type { AuthorizationAttributes, AuthorizationResult, ModeAuthorizer, RulesForUser } from '../attributes.js';
import { type PolicyRule, ruleAllows } from '../policy-rule.js';
import type { NodeGraph, VertexType } from './graph.js';
import { nodeIdentity } from './identity.js';

const NODE_LEASE_NAMESPACE = 'kube-node-lease';

const allow: AuthorizationResult = { decision: 'allow', reason: '' };
const noOpinion = (reason = ''): AuthorizationResult => ({ decision: 'no-opinion', reason });

/** Upstream's bootstrappolicy.NodeRules(): the rules of the system:node ClusterRole. */
function nodeRules(): PolicyRule[] {
  const role = CLUSTER_ROLES.find((r) => r.name === 'system:node');
  if (!role?.rules) throw new Error('the bootstrap policy has no system:node ClusterRole');
  return role.rules;
}

/** The requirements `field=value` (and `field==value`) of a field selector. */
function fieldEquals(selector: string | undefined, field: string): string[] {
  if (!selector) return [];
  const values: string[] = [];
  for (const part of selector.split(',')) {
    const m = /^\s*([^=!\s]+)\s*==?\s*(.*?)\s*$/.exec(part);
    if (m && m[1] === field) values.push(m[2] as string);
  }
  return values;
}

export class NodeAuthorizer implements ModeAuthorizer {
  private readonly rules: PolicyRule[];

  constructor(
    private readonly graph: NodeGraph,
    rules: PolicyRule[] = nodeRules(),
  ) {
    this.rules = rules;
  }

  authorize(attrs: AuthorizationAttributes): AuthorizationResult {
    const id = nodeIdentity(attrs.user);
    if (!id.isNode) return noOpinion();
    const node = id.nodeName;
    if (!node) return noOpinion(`unknown node for user ${JSON.stringify(attrs.user.name)}`);
    if (attrs.isResourceRequest) {
      switch (`${attrs.resource}.${attrs.apiGroup}`) {
        case 'secrets.':
          return this.readNamespaced(node, 'secret', attrs);
        case 'configmaps.':
          return this.readNamespaced(node, 'configmap', attrs);
        case 'persistentvolumeclaims.':
          return attrs.subresource === 'status'
            ? this.statusUpdate(node, 'pvc', attrs)
            : this.getRelated(node, 'pvc', attrs);
        case 'persistentvolumes.':
          return this.getRelated(node, 'pv', attrs);
        case 'volumeattachments.storage.k8s.io':
          return this.getRelated(node, 'volumeattachment', attrs);
        case 'serviceaccounts.':
          return this.createToken(node, attrs);
        case 'leases.coordination.k8s.io':
          return this.lease(node, attrs);
        case 'csinodes.storage.k8s.io':
          return this.csiNode(node, attrs);
        case 'nodes.':
          return this.nodeObject(node, attrs);
        case 'pods.':
          return this.pod(node, attrs);
      }
    }
    return this.rules.some((rule) => ruleAllows(attrs, rule)) ? allow : noOpinion();
  }

  /** Upstream's RulesFor: a node's permissions are not enumerable. */
  rulesFor(user: UserInfo): RulesForUser {
    const incomplete = nodeIdentity(user).isNode;
    return {
      resourceRules: [],
      nonResourceRules: [],
      incomplete,
      errors: incomplete ? ['node authorizer does not support user rule resolution'] : [],
    };
  }

  private related(node: string, type: VertexType, attrs: AuthorizationAttributes, name = attrs.name) {
    if (!name) return noOpinion('No Object name found');
    if (!this.graph.hasPath(node, type, attrs.namespace, name)) {
      return noOpinion(`no relationship found between node '${node}' and this object`);
    }
    return allow;
  }

  private getRelated(node: string, type: VertexType, attrs: AuthorizationAttributes): AuthorizationResult {
    if (attrs.verb !== 'get') return noOpinion('can only get individual resources of this type');
    if (attrs.subresource) return noOpinion('cannot get subresource');
    return this.related(node, type, attrs);
  }

  private statusUpdate(node: string, type: VertexType, attrs: AuthorizationAttributes): AuthorizationResult {
    if (attrs.verb !== 'update' && attrs.verb !== 'patch') return noOpinion('can only get/update/patch this type');
    return this.related(node, type, attrs);
  }

  /** get, and list/watch of one object (named by a metadata.name field selector, as upstream's request info). */
  private readNamespaced(node: string, type: VertexType, attrs: AuthorizationAttributes): AuthorizationResult {
    if (attrs.verb !== 'get' && attrs.verb !== 'list' && attrs.verb !== 'watch') {
      return noOpinion('can only read resources of this type');
    }
    if (attrs.subresource) return noOpinion('cannot read subresource');
    if (!attrs.namespace) return noOpinion('can only read namespaced object of this type');
    const selected = fieldEquals(attrs.fieldSelector, 'metadata.name');
    const name = attrs.name || (selected.length === 1 ? (selected[0] as string) : '');
    return this.related(node, type, attrs, name);
  }

  private createToken(node: string, attrs: AuthorizationAttributes): AuthorizationResult {
    if (attrs.verb !== 'create' || !attrs.name) {
      return noOpinion('can only create tokens for individual service accounts');
    }
    if (attrs.subresource !== 'token') return noOpinion('can only create token subresource of serviceaccount');
    return this.related(node, 'serviceAccount', attrs);
  }

  private lease(node: string, attrs: AuthorizationAttributes): AuthorizationResult {
    if (!['get', 'create', 'update', 'patch', 'delete'].includes(attrs.verb)) {
      return noOpinion('can only get, create, update, patch, or delete a node lease');
    }
    if (attrs.namespace !== NODE_LEASE_NAMESPACE) {
      return noOpinion(`can only access leases in the ${JSON.stringify(NODE_LEASE_NAMESPACE)} system namespace`);
    }
    // A create's name is in its body: NodeRestriction checks it.
    if (attrs.verb !== 'create' && attrs.name !== node) {
      return noOpinion('can only access node lease with the same name as the requesting node');
    }
    return allow;
  }

  private csiNode(node: string, attrs: AuthorizationAttributes): AuthorizationResult {
    if (!['get', 'create', 'update', 'patch', 'delete'].includes(attrs.verb)) {
      return noOpinion('can only get, create, update, patch, or delete a CSINode');
    }
    if (attrs.subresource) return noOpinion('cannot authorize CSINode subresources');
    if (attrs.verb !== 'create' && attrs.name !== node) {
      return noOpinion('can only access CSINode with the same name as the requesting node');
    }
    return allow;
  }

  private nodeObject(node: string, attrs: AuthorizationAttributes): AuthorizationResult {
    if (attrs.subresource === '') {
      // Writes are narrowed to the node's own object by NodeRestriction.
      if (['create', 'update', 'patch'].includes(attrs.verb)) return allow;
      if (['get', 'list', 'watch'].includes(attrs.verb)) {
        if (attrs.name === node) return allow;
        if (!attrs.name) return noOpinion(`node '${node}' cannot read all nodes, only its own Node object`);
        return noOpinion(`node '${node}' cannot read '${attrs.name}', only its own Node object`);
      }
    } else if (attrs.subresource === 'status' && (attrs.verb === 'update' || attrs.verb === 'patch')) {
      return allow;
    }
    return noOpinion();
  }

  private pod(node: string, attrs: AuthorizationAttributes): AuthorizationResult {
    switch (attrs.subresource) {
      case '':
        if (attrs.verb === 'get') return this.getRelated(node, 'pod', attrs);
        if (attrs.verb === 'list' || attrs.verb === 'watch') {
          if (fieldEquals(attrs.fieldSelector, 'spec.nodeName').includes(node)) return allow;
          if (attrs.name) return this.related(node, 'pod', attrs);
          return noOpinion('can only list/watch pods with spec.nodeName field selector');
        }
        // Mirror pods; NodeRestriction keeps them to the node's own.
        if (attrs.verb === 'create' || attrs.verb === 'delete') return allow;
        break;
      case 'status':
        if (attrs.verb === 'update' || attrs.verb === 'patch') return allow;
        break;
      case 'eviction':
        if (attrs.verb === 'create') return allow;
        break;
    }
    return noOpinion();
  }
}
