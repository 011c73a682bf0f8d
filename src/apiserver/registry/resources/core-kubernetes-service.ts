/**
 * The `kubernetes` Service and Endpoints in `default`, which upstream's apiserver keeps in place so that pods reach
 * it at the first address of the service CIDR. These build the objects; the bootstrap that creates them at start
 * (as ensureSystemNamespaces does for namespaces) lives with the server's assembly.
 */
import type { KubeObject } from '../object.js';

const LABELS = { component: 'apiserver', provider: 'kubernetes' };

/** The Service: port 443 named https, forwarded to the apiserver's secure port, at the range's first address. */
export function kubernetesService(clusterIP: string, securePort: number): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'kubernetes', namespace: 'default', labels: { ...LABELS } },
    spec: {
      type: 'ClusterIP',
      clusterIP,
      clusterIPs: [clusterIP],
      sessionAffinity: 'None',
      ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: securePort }],
    },
  };
}

/** Its Endpoints: the apiserver's address and secure port. */
export function kubernetesEndpoints(address: string, securePort: number): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Endpoints',
    metadata: {
      name: 'kubernetes',
      namespace: 'default',
      labels: { 'endpointslice.kubernetes.io/skip-mirror': 'true' },
    },
    subsets: [{ addresses: [{ ip: address }], ports: [{ name: 'https', port: securePort, protocol: 'TCP' }] }],
  };
}
