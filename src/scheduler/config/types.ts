/**
 * KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1), the file kube-scheduler reads with --config, with
 * upstream's field names. Durations are kept in milliseconds here; on the wire they are Go duration strings.
 */

export const SCHEDULER_CONFIG_API_VERSION = 'kubescheduler.config.k8s.io/v1';
export const SCHEDULER_CONFIG_KIND = 'KubeSchedulerConfiguration';
export const DEFAULT_SCHEDULER_NAME = 'default-scheduler';

/** The extension points a profile configures, in upstream's order. */
export const EXTENSION_POINTS = [
  'preEnqueue',
  'queueSort',
  'preFilter',
  'filter',
  'postFilter',
  'preScore',
  'score',
  'reserve',
  'permit',
  'preBind',
  'bind',
  'postBind',
] as const;
export type ExtensionPoint = (typeof EXTENSION_POINTS)[number];

export interface PluginRef {
  name: string;
  /** Score weight (score and multiPoint only). */
  weight?: number;
}

export interface PluginSet {
  enabled: PluginRef[];
  disabled: PluginRef[];
}

export type Plugins = Record<ExtensionPoint | 'multiPoint', PluginSet>;

export interface PluginConfig {
  name: string;
  args: Record<string, unknown>;
}

export interface KubeSchedulerProfile {
  schedulerName: string;
  /** Overrides the global percentageOfNodesToScore for this profile. */
  percentageOfNodesToScore?: number;
  plugins: Plugins;
  pluginConfig: PluginConfig[];
}

export interface LeaderElectionConfiguration {
  leaderElect: boolean;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  resourceLock: string;
  resourceName: string;
  resourceNamespace: string;
}

export interface ClientConnectionConfiguration {
  kubeconfig: string;
  acceptContentTypes: string;
  contentType: string;
  qps: number;
  burst: number;
}

export interface KubeSchedulerConfiguration {
  parallelism: number;
  leaderElection: LeaderElectionConfiguration;
  clientConnection: ClientConnectionConfiguration;
  /** 0 (or unset): adaptive, as upstream. */
  percentageOfNodesToScore?: number;
  podInitialBackoffSeconds: number;
  podMaxBackoffSeconds: number;
  profiles: KubeSchedulerProfile[];
  delayCacheUntilActive: boolean;
}
