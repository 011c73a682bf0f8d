/**
 * Helpers for the deployment controller's tests (imported by tests only): Deployments to create, the pods and
 * ReplicaSets they own, pods marked ready through the status subresource (there are no kubelets yet), and a
 * rollout driven to completion one ready pod at a time with its bounds checked at every settled step.
 */
import type { KubeClient } from '../client/rest.js';
import { isConflict, type KubeObject } from '../client/types.js';
import type { Deployment, IntOrString, ReplicaSet } from '../controllers/deployment/util/types.js';
import assert from './assert.js';

export async function createNamespace(client: KubeClient, name: string): Promise<void> {
  await client.namespaces().create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
}

export interface DeploymentOptions {
  replicas?: number;
  image?: string;
  strategy?: 'RollingUpdate' | 'Recreate';
  maxSurge?: IntOrString;
  maxUnavailable?: IntOrString;
  revisionHistoryLimit?: number;
  progressDeadlineSeconds?: number;
  annotations?: Record<string, string>;
}

export function deploymentManifest(name: string, opts: DeploymentOptions = {}): Deployment {
  const strategy = opts.strategy ?? 'RollingUpdate';
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, ...(opts.annotations ? { annotations: opts.annotations } : {}) },
    spec: {
      replicas: opts.replicas ?? 3,
      selector: { matchLabels: { app: name } },
      strategy:
        strategy === 'Recreate'
          ? { type: 'Recreate' }
          : {
              type: 'RollingUpdate',
              rollingUpdate: { maxSurge: opts.maxSurge ?? '25%', maxUnavailable: opts.maxUnavailable ?? '25%' },
            },
      ...(opts.revisionHistoryLimit !== undefined ? { revisionHistoryLimit: opts.revisionHistoryLimit } : {}),
      ...(opts.progressDeadlineSeconds !== undefined ? { progressDeadlineSeconds: opts.progressDeadlineSeconds } : {}),
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'app', image: opts.image ?? 'nginx:1.25' }] },
      },
    },
  };
}

const isLive = (obj: KubeObject) => !obj.metadata.deletionTimestamp;

export async function getDeployment(client: KubeClient, ns: string, name: string): Promise<Deployment> {
  return (await client.deployments(ns).get(name)) as Deployment;
}

/** The ReplicaSets the Deployment controls, oldest first. */
export async function replicaSetsOf(client: KubeClient, d: Deployment): Promise<ReplicaSet[]> {
  const list = await client.replicaSets(d.metadata.namespace).list();
  return (list.items as ReplicaSet[])
    .filter((rs) => rs.metadata.ownerReferences?.some((r) => r.controller && r.uid === d.metadata.uid))
    .sort(
      (a, b) =>
        Number(a.metadata.annotations?.['deployment.kubernetes.io/revision'] ?? 0) -
        Number(b.metadata.annotations?.['deployment.kubernetes.io/revision'] ?? 0),
    );
}

/** The pods of the Deployment `app=<name>` that are not being deleted. */
export async function podsOf(client: KubeClient, ns: string, name: string): Promise<KubeObject[]> {
  const list = await client.pods(ns).list({ labelSelector: `app=${name}` });
  return list.items.filter(isLive);
}

export const isReady = (pod: KubeObject): boolean =>
  (pod.status?.conditions ?? []).some(
    (c: { type: string; status: string }) => c.type === 'Ready' && c.status === 'True',
  );

/** Marks a pod Running and Ready through its status subresource, as a kubelet would. */
export async function markReady(client: KubeClient, pod: KubeObject): Promise<void> {
  const ns = pod.metadata.namespace ?? '';
  let current = pod;
  for (;;) {
    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    const updated = {
      ...current,
      status: {
        ...current.status,
        phase: 'Running',
        conditions: [
          { type: 'Initialized', status: 'True', lastTransitionTime: now },
          { type: 'Ready', status: 'True', lastTransitionTime: now },
          { type: 'ContainersReady', status: 'True', lastTransitionTime: now },
          { type: 'PodScheduled', status: 'True', lastTransitionTime: now },
        ],
      },
    };
    try {
      await client.pods(ns).updateStatus(updated);
      return;
    } catch (err) {
      if (!isConflict(err)) throw err;
      current = await client.pods(ns).get(pod.metadata.name ?? '');
    }
  }
}

export async function markAllReady(client: KubeClient, ns: string, name: string): Promise<void> {
  for (const pod of await podsOf(client, ns, name)) if (!isReady(pod)) await markReady(client, pod);
}

/** What `kubectl rollout status` waits for (plus: no pods of old ReplicaSets left). */
export function rolloutComplete(d: Deployment, pods: readonly KubeObject[]): boolean {
  const s = d.status ?? {};
  const replicas = d.spec.replicas ?? 1;
  return (
    (s.observedGeneration ?? 0) >= (d.metadata.generation ?? 0) &&
    (s.updatedReplicas ?? 0) === replicas &&
    (s.replicas ?? 0) === replicas &&
    (s.availableReplicas ?? 0) === replicas &&
    pods.length === replicas
  );
}

export interface Snapshot {
  d: Deployment;
  sets: ReplicaSet[];
  pods: KubeObject[];
}

export async function snapshot(client: KubeClient, ns: string, name: string): Promise<Snapshot> {
  const d = await getDeployment(client, ns, name);
  return { d, sets: await replicaSetsOf(client, d), pods: await podsOf(client, ns, name) };
}

/** Every controller has caught up with the objects: the Deployment, each ReplicaSet and its pods agree. */
export function settled({ d, sets, pods }: Snapshot): boolean {
  if ((d.status?.observedGeneration ?? 0) < (d.metadata.generation ?? 0)) return false;
  for (const rs of sets) {
    const want = rs.spec.replicas ?? 1;
    if ((rs.status?.observedGeneration ?? 0) < (rs.metadata.generation ?? 0)) return false;
    if ((rs.status?.replicas ?? 0) !== want) return false;
    const own = pods.filter((p) => p.metadata.ownerReferences?.some((r) => r.uid === rs.metadata.uid));
    if (own.length !== want) return false;
    if ((rs.status?.readyReplicas ?? 0) !== own.filter(isReady).length) return false;
  }
  return true;
}

/**
 * Drives a rollout to the end: at every settled step checks that there are at most replicas + maxSurge pods
 * (and ReplicaSet replicas) and at least replicas - maxUnavailable ready ones, then marks one unready pod ready.
 */
export async function driveRollout(
  client: KubeClient,
  ns: string,
  name: string,
  bounds: { maxPods: number; minReady: number },
  eventually: <T>(check: () => Promise<T>, opts?: { timeoutMs?: number }) => Promise<T>,
): Promise<Snapshot> {
  for (let step = 0; step < 100; step++) {
    const snap = await eventually(async () => {
      const s = await snapshot(client, ns, name);
      const specSum = s.sets.reduce((n, rs) => n + (rs.spec.replicas ?? 1), 0);
      assert.ok(specSum <= bounds.maxPods, `ReplicaSets want ${specSum} pods, more than ${bounds.maxPods}`);
      assert.ok(settled(s), 'not settled');
      assert.ok(rolloutComplete(s.d, s.pods) || s.pods.some((p) => !isReady(p)), 'waiting for the controller');
      return s;
    });
    assert.ok(snap.pods.length <= bounds.maxPods, `${snap.pods.length} pods, more than ${bounds.maxPods}`);
    const ready = snap.pods.filter(isReady).length;
    assert.ok(ready >= bounds.minReady, `${ready} ready pods, fewer than ${bounds.minReady}`);
    if (rolloutComplete(snap.d, snap.pods)) return snap;
    const unready = snap.pods.find((p) => !isReady(p));
    if (unready) await markReady(client, unready);
  }
  throw new Error('the rollout did not complete in 100 steps');
}

export function condition(d: Deployment, type: string) {
  return d.status?.conditions?.find((c) => c.type === type);
}
