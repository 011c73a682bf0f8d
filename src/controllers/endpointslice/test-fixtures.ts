/**
 * Objects the endpoint controllers' tests create: Nodes, pods bound to them and made Running and Ready (or not)
 * through the status subresource, as a kubelet would.
 */
import type { KubeClient } from '../../client/rest.js';
import type { KubeObject } from '../../client/types.js';
import type { ContainerPort } from './types.js';

export async function createNode(client: KubeClient, name: string, zone?: string): Promise<void> {
  await client.nodes().create({
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: zone ? { 'topology.kubernetes.io/zone': zone } : {} },
  });
}

export interface PodSpecOptions {
  node?: string;
  ports?: ContainerPort[];
  finalizers?: string[];
  hostname?: string;
  subdomain?: string;
}

export async function createPod(
  client: KubeClient,
  ns: string,
  name: string,
  labels: Record<string, string>,
  opts: PodSpecOptions = {},
): Promise<KubeObject> {
  return client.pods(ns).create({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels, ...(opts.finalizers ? { finalizers: opts.finalizers } : {}) },
    spec: {
      nodeName: opts.node ?? 'node-1',
      ...(opts.hostname ? { hostname: opts.hostname } : {}),
      ...(opts.subdomain ? { subdomain: opts.subdomain } : {}),
      containers: [{ name: 'app', image: 'nginx', ...(opts.ports ? { ports: opts.ports } : {}) }],
    },
  });
}

/** Sets the pod Running with ip and its Ready condition as asked. */
export async function setPodStatus(
  client: KubeClient,
  ns: string,
  name: string,
  ip: string,
  ready: boolean,
): Promise<KubeObject> {
  for (;;) {
    const pod = await client.pods(ns).get(name);
    const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    pod.status = {
      ...pod.status,
      phase: 'Running',
      podIP: ip,
      podIPs: [{ ip }],
      conditions: [{ type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: now }],
    };
    try {
      return await client.pods(ns).updateStatus(pod);
    } catch (err) {
      if ((err as { reason?: string }).reason !== 'Conflict') throw err;
    }
  }
}

/** Creates a pod and makes it Running with ip, Ready or not. */
export async function runPod(
  client: KubeClient,
  ns: string,
  name: string,
  labels: Record<string, string>,
  ip: string,
  ready: boolean,
  opts: PodSpecOptions = {},
): Promise<KubeObject> {
  await createPod(client, ns, name, labels, opts);
  return setPodStatus(client, ns, name, ip, ready);
}

export async function createNamespace(client: KubeClient, name: string): Promise<void> {
  await client.namespaces().create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
}
