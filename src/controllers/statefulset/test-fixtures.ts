/**
 * What the statefulset controller's tests share: a StatefulSet manifest, the set's pods by ordinal, and a
 * stand-in kubelet that marks pods Running and Ready through the status subresource.
 */
import type { KubeClient } from '../../client/rest.js';
import { isConflict, type KubeObject } from '../../client/types.js';
import type { StatefulSet, StatefulSetSpec } from './types.js';

export async function createNamespace(client: KubeClient, name: string): Promise<string> {
  await client.namespaces().create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  return name;
}

export function statefulSetManifest(name: string, spec: Partial<StatefulSetSpec> = {}): StatefulSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name },
    spec: {
      replicas: 3,
      serviceName: name,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'app', image: 'nginx:1.25' }] },
      },
      ...spec,
    },
  };
}

export async function getSet(client: KubeClient, ns: string, name: string): Promise<StatefulSet> {
  return (await client.statefulSets(ns).get(name)) as StatefulSet;
}

/** The set's pods (by the `app` label), not being deleted, sorted by name. */
export async function podsOf(client: KubeClient, ns: string, app: string): Promise<KubeObject[]> {
  const list = await client.pods(ns).list({ labelSelector: `app=${app}` });
  return list.items
    .filter((p) => !p.metadata.deletionTimestamp)
    .sort((a, b) => (a.metadata.name ?? '').localeCompare(b.metadata.name ?? '', 'en', { numeric: true }));
}

export const podNames = (pods: readonly KubeObject[]) => pods.map((p) => p.metadata.name).join(',');

export const isReady = (pod: KubeObject): boolean =>
  (pod.status?.conditions ?? []).some(
    (c: { type: string; status: string }) => c.type === 'Ready' && c.status === 'True',
  );

const rfc3339 = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');

/** Sets a pod's phase (and Ready condition when Running) through its status, as a kubelet would. */
export async function setPodPhase(
  client: KubeClient,
  ns: string,
  name: string,
  phase: 'Running' | 'Failed' | 'Succeeded',
  readySinceMs = Date.now(),
): Promise<void> {
  for (;;) {
    const current = await client.pods(ns).get(name);
    const ready = phase === 'Running' ? 'True' : 'False';
    current.status = {
      ...current.status,
      phase,
      conditions: [{ type: 'Ready', status: ready, lastTransitionTime: rfc3339(readySinceMs) }],
    };
    try {
      await client.pods(ns).updateStatus(current);
      return;
    } catch (err) {
      if (!isConflict(err)) throw err;
    }
  }
}

/** Marks every pod of app that is not Running and Ready yet. */
export async function markAllReady(client: KubeClient, ns: string, app: string): Promise<void> {
  for (const pod of await podsOf(client, ns, app)) {
    if (pod.status?.phase !== 'Running' || !isReady(pod)) {
      await setPodPhase(client, ns, pod.metadata.name ?? '', 'Running');
    }
  }
}

/** The events of a namespace with reason, messages in order of creation. */
export async function eventMessages(client: KubeClient, ns: string, reason: string): Promise<string[]> {
  const list = await client.events(ns).list();
  return list.items
    .filter((e) => e.reason === reason)
    .sort((a, b) => String(a.firstTimestamp ?? '').localeCompare(String(b.firstTimestamp ?? '')))
    .map((e) => String(e.message));
}
