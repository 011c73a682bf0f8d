/**
 * Upstream's defaults for KubeSchedulerConfiguration v1 (pkg/scheduler/apis/config/v1/defaults.go and
 * default_plugins.go): the default profile's plugins (all enabled through multiPoint, with the score weights),
 * how a profile's own plugin sets merge into them, and each plugin's default args.
 */

import { DEFAULT_MULTI_POINT } from '../plugins/registry.js';
import {
  DEFAULT_SCHEDULER_NAME,
  EXTENSION_POINTS,
  type KubeSchedulerConfiguration,
  type KubeSchedulerProfile,
  type PluginConfig,
  type PluginRef,
  type PluginSet,
  type Plugins,
} from './types.js';

/** Upstream's volume plugins: part of the default profile, evaluated only once volumes exist here. */
export const VOLUME_PLUGINS = ['VolumeRestrictions', 'NodeVolumeLimits', 'VolumeBinding', 'VolumeZone'] as const;

/** The default plugins, in upstream v1.33's order, all through multiPoint (the registry's list). */
export function defaultPlugins(): Plugins {
  const multiPoint: PluginRef[] = DEFAULT_MULTI_POINT.map((p) => ({ ...p }));
  const plugins = emptyPlugins();
  plugins.multiPoint.enabled = multiPoint;
  return plugins;
}

export function emptyPlugins(): Plugins {
  const p = { multiPoint: { enabled: [], disabled: [] } } as unknown as Plugins;
  for (const e of EXTENSION_POINTS) p[e] = { enabled: [], disabled: [] };
  return p;
}

/**
 * Upstream's mergePluginSet: default plugins stay in order unless disabled (by name or `*`); a default plugin
 * enabled again in the custom set is replaced in place by the custom entry (e.g. a new weight); the other custom
 * plugins follow.
 */
export function mergePluginSet(defaults: PluginSet, custom: PluginSet): PluginSet {
  const disabled: PluginRef[] = [];
  const disabledNames = new Set<string>();
  for (const p of [...custom.disabled, ...defaults.disabled]) {
    disabled.push({ name: p.name });
    disabledNames.add(p.name);
  }
  const customIndex = new Map<string, number>();
  custom.enabled.forEach((p, i) => {
    customIndex.set(p.name, i);
  });
  const replaced = new Set<number>();
  const enabled: PluginRef[] = [];
  if (!disabledNames.has('*')) {
    for (const p of defaults.enabled) {
      if (disabledNames.has(p.name)) continue;
      const i = customIndex.get(p.name);
      if (i !== undefined) {
        enabled.push({ ...(custom.enabled[i] as PluginRef) });
        replaced.add(i);
      } else {
        enabled.push({ ...p });
      }
    }
  }
  custom.enabled.forEach((p, i) => {
    if (!replaced.has(i)) enabled.push({ ...p });
  });
  return { enabled, disabled };
}

export function mergePlugins(defaults: Plugins, custom: Plugins | undefined): Plugins {
  if (!custom) return defaults;
  const out = emptyPlugins();
  for (const e of ['multiPoint', ...EXTENSION_POINTS] as const) out[e] = mergePluginSet(defaults[e], custom[e]);
  return out;
}

const DEFAULT_RESOURCE_SPEC = () => [
  { name: 'cpu', weight: 1 },
  { name: 'memory', weight: 1 },
];

type ArgsDefaulter = (args: Record<string, unknown>) => Record<string, unknown>;

function withResourceWeights(resources: unknown): { name: string; weight: number }[] {
  if (!Array.isArray(resources) || resources.length === 0) return DEFAULT_RESOURCE_SPEC();
  return resources.map((r) => ({ ...r, weight: r?.weight ? r.weight : 1 }));
}

/** The plugins that have an `<Name>Args` kind upstream, with its defaulting. */
export const PLUGIN_ARGS_DEFAULTS: Record<string, ArgsDefaulter> = {
  DefaultPreemption: (a) => ({ minCandidateNodesPercentage: 10, minCandidateNodesAbsolute: 100, ...a }),
  InterPodAffinity: (a) => ({ hardPodAffinityWeight: 1, ...a }),
  NodeAffinity: (a) => ({ ...a }),
  NodeResourcesBalancedAllocation: (a) => ({ ...a, resources: withResourceWeights(a.resources) }),
  NodeResourcesFit: (a) => {
    const strategy = (a.scoringStrategy as Record<string, unknown> | undefined) ?? { type: 'LeastAllocated' };
    return { ...a, scoringStrategy: { ...strategy, resources: withResourceWeights(strategy.resources) } };
  },
  PodTopologySpread: (a) => ({ defaultingType: 'System', ...a }),
  VolumeBinding: (a) => ({ bindTimeoutSeconds: 600, ...a }),
};

/** Every plugin name enabled at any extension point of the profile. */
export function pluginNames(plugins: Plugins): string[] {
  const names = new Set<string>();
  for (const e of ['multiPoint', ...EXTENSION_POINTS] as const) for (const p of plugins[e].enabled) names.add(p.name);
  return [...names].sort();
}

/** Upstream's setDefaults_KubeSchedulerProfile: merged plugins, then args defaulted (and added) per plugin. */
export function defaultProfile(profile: Partial<KubeSchedulerProfile> & { plugins?: Plugins }): KubeSchedulerProfile {
  const plugins = mergePlugins(defaultPlugins(), profile.plugins);
  const pluginConfig: PluginConfig[] = (profile.pluginConfig ?? []).map((pc) => {
    const defaulter = PLUGIN_ARGS_DEFAULTS[pc.name];
    return { name: pc.name, args: defaulter ? defaulter(pc.args ?? {}) : { ...(pc.args ?? {}) } };
  });
  const existing = new Set(pluginConfig.map((pc) => pc.name));
  for (const name of pluginNames(plugins)) {
    const defaulter = PLUGIN_ARGS_DEFAULTS[name];
    if (!defaulter || existing.has(name)) continue;
    pluginConfig.push({ name, args: defaulter({}) });
  }
  const out: KubeSchedulerProfile = {
    schedulerName: profile.schedulerName ?? DEFAULT_SCHEDULER_NAME,
    plugins,
    pluginConfig,
  };
  if (profile.percentageOfNodesToScore !== undefined) out.percentageOfNodesToScore = profile.percentageOfNodesToScore;
  return out;
}

/** kube-scheduler's defaults (one `default-scheduler` profile with the default plugins). */
export function defaultConfiguration(): KubeSchedulerConfiguration {
  return {
    parallelism: 16,
    leaderElection: {
      leaderElect: true,
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2_000,
      resourceLock: 'leases',
      resourceName: 'kube-scheduler',
      resourceNamespace: 'kube-system',
    },
    clientConnection: {
      kubeconfig: '',
      acceptContentTypes: '',
      contentType: 'application/vnd.kubernetes.protobuf',
      qps: 50,
      burst: 100,
    },
    percentageOfNodesToScore: 0,
    podInitialBackoffSeconds: 1,
    podMaxBackoffSeconds: 10,
    profiles: [defaultProfile({ schedulerName: DEFAULT_SCHEDULER_NAME })],
    delayCacheUntilActive: false,
  };
}
