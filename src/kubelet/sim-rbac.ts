/**
 * The RBAC the simulated nodes bring with them, as an add-on brings its manifests (kind's local-path-provisioner
 * comes with its ClusterRole and binding): created with the admin's client when the nodes start, never part of the
 * apiserver's bootstrap policy. Each identity of identities.ts that is not a node gets a ClusterRole with exactly
 * the verbs it uses, bound to its user under the same name:
 *
 * - `system:wheelhouse:sim-kubelets`: list and watch pods and nodes — the one pod informer over every bound pod
 *   (`spec.nodeName!=`) and the one Node informer that the kubelets of a process share. A node identity may only
 *   list its own pods and read its own Node, which would take one watch per node.
 * - `system:wheelhouse:sim-local-provisioner`: list, watch, create and delete persistentvolumes; list and watch
 *   persistentvolumeclaims and storageclasses; create and patch events (on claims and volumes).
 *
 * The nodes themselves need nothing here under `--authorization-mode=Node,RBAC`: the Node authorizer grants a
 * kubelet what it needs. A cluster with RBAC but without the Node mode gets `system:wheelhouse:sim-nodes`, binding
 * upstream's `system:node` ClusterRole to the group `system:nodes` — what upstream's RBAC documentation leaves to
 * such clusters, since its bootstrap binding of that role has no subjects.
 */
import type { KubeClient } from '../client/rest.js';
import { isAlreadyExists, type KubeObject } from '../client/types.js';
import { NODES_GROUP, SIM_KUBELETS_USER, SIM_LOCAL_PROVISIONER_USER } from './identities.js';

const RBAC_GROUP = 'rbac.authorization.k8s.io';
const CLUSTER_ROLES = { group: RBAC_GROUP, version: 'v1', resource: 'clusterroles' };
const CLUSTER_ROLE_BINDINGS = { group: RBAC_GROUP, version: 'v1', resource: 'clusterrolebindings' };
/** The binding that stands in for the Node authorizer when a cluster runs RBAC without it. */
export const SIM_NODES_BINDING = 'system:wheelhouse:sim-nodes';
const LABELS = { 'app.kubernetes.io/managed-by': 'wheelhouse', 'app.kubernetes.io/part-of': 'sim-nodes' };

interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}
const rule = (group: string, resources: string, verbs: string): Rule => ({
  apiGroups: [group],
  resources: resources.split(','),
  verbs: verbs.split(','),
});

/** The ClusterRoles of the add-on identities, by name (= the user they are bound to). */
export const SIM_CLUSTER_ROLES: Record<string, Rule[]> = {
  [SIM_KUBELETS_USER]: [rule('', 'nodes,pods', 'list,watch')],
  [SIM_LOCAL_PROVISIONER_USER]: [
    rule('', 'persistentvolumes', 'create,delete,list,watch'),
    rule('', 'persistentvolumeclaims', 'list,watch'),
    rule('storage.k8s.io', 'storageclasses', 'list,watch'),
    rule('', 'events', 'create,patch'),
  ],
};

const binding = (name: string, role: string, subject: { kind: 'User' | 'Group'; name: string }): KubeObject => ({
  apiVersion: `${RBAC_GROUP}/v1`,
  kind: 'ClusterRoleBinding',
  metadata: { name, labels: { ...LABELS } },
  roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: role },
  subjects: [{ apiGroup: RBAC_GROUP, ...subject }],
});

/**
 * The objects: a ClusterRole and ClusterRoleBinding per add-on identity, and with `bindNodeRole` (RBAC without the
 * Node authorizer) the binding of system:node to system:nodes.
 */
export function simNodesRbac(opts: { bindNodeRole?: boolean } = {}): KubeObject[] {
  const objects: KubeObject[] = [];
  for (const [name, rules] of Object.entries(SIM_CLUSTER_ROLES)) {
    objects.push(
      {
        apiVersion: `${RBAC_GROUP}/v1`,
        kind: 'ClusterRole',
        metadata: { name, labels: { ...LABELS } },
        rules: rules.map((r) => ({ ...r })),
      },
      binding(name, name, { kind: 'User', name }),
    );
  }
  if (opts.bindNodeRole) objects.push(binding(SIM_NODES_BINDING, 'system:node', { kind: 'Group', name: NODES_GROUP }));
  return objects;
}

/** Creates the objects, or brings existing ones of the same names to these rules and subjects. */
export async function ensureSimNodesRbac(admin: KubeClient, opts: { bindNodeRole?: boolean } = {}): Promise<void> {
  for (const obj of simNodesRbac(opts)) {
    const resources = admin.resource(obj.kind === 'ClusterRole' ? CLUSTER_ROLES : CLUSTER_ROLE_BINDINGS);
    try {
      await resources.create(obj);
      continue;
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
    }
    const existing = await resources.get(obj.metadata.name ?? '');
    const labels = { ...existing.metadata.labels, ...obj.metadata.labels };
    const next = { ...existing, ...obj, metadata: { ...existing.metadata, labels } };
    if (JSON.stringify(next) !== JSON.stringify(existing)) await resources.update(next);
  }
}
