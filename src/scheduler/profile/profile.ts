/**
 * Profiles (upstream's pkg/scheduler/profile): one framework per `schedulerName`; a pod is scheduled by the
 * profile its `spec.schedulerName` names, and pods naming no profile are left to other schedulers. All profiles
 * must sort the queue the same way, since there is one queue.
 */
import type { KubeSchedulerProfile } from '../config/types.js';
import { Framework, type FrameworkDeps, type PluginRegistry } from '../runtime/framework.js';

export type ProfileMap = Map<string, Framework>;

/** Builds every profile's framework; throws on an invalid profile (duplicate names, missing plugins…). */
export function newProfileMap(
  profiles: KubeSchedulerProfile[],
  registry: PluginRegistry,
  deps: (profile: KubeSchedulerProfile) => FrameworkDeps,
): ProfileMap {
  const out: ProfileMap = new Map();
  let firstSort: string | undefined;
  for (const profile of profiles) {
    if (!profile.schedulerName) throw new Error('scheduler name is needed');
    if (out.has(profile.schedulerName))
      throw new Error(`duplicate profile with scheduler name "${profile.schedulerName}"`);
    const fwk = new Framework(profile, registry, deps(profile));
    const sort = fwk.queueSortPlugins.map((p) => p.name).join(',');
    if (firstSort === undefined) firstSort = sort;
    else if (sort !== firstSort) {
      throw new Error(
        `different queue sort plugins for profile "${profile.schedulerName}": "${sort}", first: "${firstSort}"`,
      );
    }
    out.set(profile.schedulerName, fwk);
  }
  if (out.size === 0) throw new Error('at least one profile is required');
  return out;
}
