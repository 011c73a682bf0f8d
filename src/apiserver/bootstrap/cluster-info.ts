/**
 * What `kubeadm init` makes for joining nodes (its bootstrap-token phase): the ConfigMap kube-public/cluster-info,
 * whose `kubeconfig` names the cluster's address and CA and nothing else, readable by anyone (a Role and
 * RoleBinding `kubeadm:bootstrap-signer-clusterinfo` for system:anonymous). The bootstrap signer adds the tokens'
 * signatures to it. `wheelhouse up` makes them, as kubeadm does; an existing one is left as it is.
 */
import { CLUSTER_INFO_KUBECONFIG_KEY, CLUSTER_INFO_NAME, CLUSTER_INFO_NAMESPACE } from '../../api/bootstrap-token.js';
import type { APIRegistry } from '../api-registry.js';
import { createIfMissing } from '../assemble.js';
import type { KubeObject } from '../registry/object.js';

const RBAC_NAME = 'kubeadm:bootstrap-signer-clusterinfo';

/** The kubeconfig as kubeadm writes it into cluster-info (client-go's YAML of a Config with one unnamed cluster). */
export function clusterInfoKubeconfig(server: string, caPem: string): string {
  return [
    'apiVersion: v1',
    'clusters:',
    '- cluster:',
    `    certificate-authority-data: ${Buffer.from(caPem).toString('base64')}`,
    `    server: ${server}`,
    '  name: ""',
    'contexts: null',
    'current-context: ""',
    'kind: Config',
    'preferences: {}',
    'users: null',
    '',
  ].join('\n');
}

export async function ensureClusterInfo(registry: APIRegistry, server: string, caPem: string): Promise<void> {
  const metadata = (name: string) => ({ name, namespace: CLUSTER_INFO_NAMESPACE });
  await Promise.all([
    createIfMissing(registry, '', 'v1', 'configmaps', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: metadata(CLUSTER_INFO_NAME),
      data: { [CLUSTER_INFO_KUBECONFIG_KEY]: clusterInfoKubeconfig(server, caPem) },
    } as KubeObject),
    createIfMissing(registry, 'rbac.authorization.k8s.io', 'v1', 'roles', {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: metadata(RBAC_NAME),
      rules: [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: [CLUSTER_INFO_NAME] }],
    } as KubeObject),
    createIfMissing(registry, 'rbac.authorization.k8s.io', 'v1', 'rolebindings', {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: metadata(RBAC_NAME),
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: RBAC_NAME },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'system:anonymous' }],
    } as KubeObject),
  ]);
}
