/**
 * Test helpers for the Job controller: Jobs with a one-container template, and a stand-in for the kubelet that
 * writes a finished pod's status (phase, the container's terminated state and exit code, Ready False, and for a
 * disruption the DisruptionTarget condition).
 */
import type { KubeClient } from '../../client/rest.js';
import type { KubeObject } from '../../client/types.js';
import { rfc3339 } from './types.js';

export function newJob(name: string, spec: Record<string, unknown>, restartPolicy = 'Never'): KubeObject {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name },
    spec: {
      ...spec,
      template: { spec: { restartPolicy, containers: [{ name: 'main', image: 'busybox' }] } },
    },
  };
}

export interface PodOutcome {
  phase: 'Succeeded' | 'Failed';
  exitCode?: number;
  /** Add DisruptionTarget=True, as an eviction or preemption does. */
  disruption?: boolean;
  /** When the container finished (ms); now by default. */
  at?: number;
}

export async function finishPod(
  cp: { client: KubeClient },
  ns: string,
  pod: KubeObject,
  outcome: PodOutcome,
): Promise<void> {
  const client = cp.client.pods(ns);
  const current = await client.get(pod.metadata.name ?? '');
  const at = rfc3339(outcome.at ?? Date.now());
  const exitCode = outcome.exitCode ?? (outcome.phase === 'Succeeded' ? 0 : 1);
  current.status = {
    ...current.status,
    phase: outcome.phase,
    conditions: [
      { type: 'Ready', status: 'False', lastTransitionTime: at, reason: 'PodCompleted' },
      ...(outcome.disruption
        ? [{ type: 'DisruptionTarget', status: 'True', lastTransitionTime: at, reason: 'EvictionByEvictionAPI' }]
        : []),
    ],
    containerStatuses: [
      {
        name: 'main',
        image: 'busybox',
        imageID: '',
        ready: false,
        restartCount: 0,
        state: {
          terminated: {
            exitCode,
            reason: exitCode === 0 ? 'Completed' : 'Error',
            startedAt: at,
            finishedAt: at,
          },
        },
      },
    ],
  };
  await client.updateStatus(current);
}

/** The namespace's pods that belong to Jobs. */
export async function jobPods(cp: { client: KubeClient }, ns: string): Promise<KubeObject[]> {
  return (await cp.client.pods(ns).list()).items.filter((p) =>
    p.metadata.ownerReferences?.some((r) => r.kind === 'Job'),
  );
}

export async function jobEvents(cp: { client: KubeClient }, ns: string, job: string): Promise<KubeObject[]> {
  return (await cp.client.events(ns).list()).items.filter(
    (e) => (e as { involvedObject?: { name?: string } }).involvedObject?.name === job,
  );
}
