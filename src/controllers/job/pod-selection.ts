/**
 * Which active pods a Job deletes (upstream's activePodsForRemoval: for Indexed Jobs first the pods without a valid
 * index and all but one pod of a repeated index, then by the ActivePods order — unscheduled, pending and not-ready
 * pods first), and the JOB_COMPLETION_INDEX variable put on the containers of Indexed Jobs.
 */
import { sortActivePodsWithRanks } from '../common/pods.js';
import { getCompletionIndex, isIndexedJob, type Job, type Pod } from './types.js';

/** Pods sorted by completion index (pods without one first). */
export function byCompletionIndex(pods: readonly Pod[]): Pod[] {
  return [...pods].sort((a, b) => getCompletionIndex(a) - getCompletionIndex(b));
}

function sortForDeletion(pods: readonly Pod[]): Pod[] {
  return sortActivePodsWithRanks(
    pods,
    pods.map(() => 0),
    0,
  );
}

export function activePodsForRemoval(job: Job, pods: readonly Pod[], rmAtLeast: number): Pod[] {
  const rm: Pod[] = [];
  let left: Pod[] = [...pods];
  if (isIndexedJob(job)) {
    const completions = Number(job.spec?.completions ?? 0);
    left = [];
    const groups = new Map<number, Pod[]>();
    for (const pod of byCompletionIndex(pods)) {
      const ix = getCompletionIndex(pod);
      if (ix < 0 || ix >= completions) {
        rm.push(pod);
        continue;
      }
      const group = groups.get(ix);
      if (group) group.push(pod);
      else groups.set(ix, [pod]);
    }
    for (const group of groups.values()) {
      if (group.length === 1) {
        left.push(group[0] as Pod);
        continue;
      }
      const sorted = sortForDeletion(group);
      rm.push(...sorted.slice(0, -1));
      left.push(sorted[sorted.length - 1] as Pod);
    }
  }
  if (rm.length < rmAtLeast) rm.push(...sortForDeletion(left).slice(0, rmAtLeast - rm.length));
  return rm;
}

// biome-ignore lint/suspicious/noExplicitAny: the pod spec is plain JSON
export function addCompletionIndexEnv(podSpec: any, indexLabel: string, envName: string): void {
  const fieldPath = `metadata.labels['${indexLabel}']`;
  for (const list of [podSpec.initContainers, podSpec.containers]) {
    if (!Array.isArray(list)) continue;
    for (const container of list) {
      container.env ??= [];
      if (container.env.some((e: { name?: string }) => e?.name === envName)) continue;
      container.env.push({ name: envName, valueFrom: { fieldRef: { fieldPath } } });
    }
  }
}
