/**
 * Fixtures for the scheduler's tests against a control plane: Ready nodes and pods with requests.
 */

import type { KubeClient } from '../client/rest.js';
import type { KubeObject } from '../client/types.js';

/** What the fixtures need of a control plane. */
type ControlPlane = { client: KubeClient };

/** A Ready node as a kubelet would register it, without the not-ready taint the node lifecycle would remove. */
export async function createNode(cp: ControlPlane, name: string, cpu = '2', extra: Record<string, string> = {}) {
  const created = await cp.client.nodes().create({
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: { 'kubernetes.io/hostname': name, ...extra } },
    status: {
      capacity: { cpu, memory: '4Gi', pods: '110' },
      allocatable: { cpu, memory: '4Gi', pods: '110' },
      conditions: [
        { type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status' },
      ],
    },
  });
  await cp.client.nodes().update({ ...created, spec: { ...created.spec, taints: [] } });
}

export function podManifest(name: string, cpu: string, extra: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', labels: { app: 'web' } },
    spec: {
      containers: [{ name: 'app', image: 'nginx:1.27', resources: { requests: { cpu, memory: '64Mi' } } }],
      ...extra,
    },
  };
}
