/**
 * Reading a KubeSchedulerConfiguration file (kube-scheduler --config): YAML or JSON, apiVersion
 * kubescheduler.config.k8s.io/v1 only (v1beta3 went in v1.29), unknown fields refused as upstream's strict
 * decoding does, upstream's defaults applied, then validated.
 */
import { readFile } from 'node:fs/promises';
import { parse } from 'yaml';
import { parseDuration } from '../../util/duration.js';
import { defaultConfiguration, defaultProfile, emptyPlugins } from './defaults.js';
import {
  EXTENSION_POINTS,
  type KubeSchedulerConfiguration,
  type KubeSchedulerProfile,
  type PluginConfig,
  type PluginRef,
  type PluginSet,
  type Plugins,
  SCHEDULER_CONFIG_API_VERSION,
  SCHEDULER_CONFIG_KIND,
} from './types.js';

export class SchedulerConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SchedulerConfigError';
  }
}

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function strict(obj: Obj, allowed: readonly string[], path: string): void {
  for (const key of Object.keys(obj)) {
    if (!allowed.includes(key)) {
      throw new SchedulerConfigError(`strict decoding error: unknown field "${path ? `${path}.` : ''}${key}"`);
    }
  }
}

function num(v: unknown, path: string): number | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v)) {
    throw new SchedulerConfigError(`${path}: expected a number, got ${JSON.stringify(v)}`);
  }
  return v;
}

function str(v: unknown, path: string): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw new SchedulerConfigError(`${path}: expected a string, got ${JSON.stringify(v)}`);
  return v;
}

function duration(v: unknown, path: string): number | undefined {
  const s = str(v, path);
  if (s === undefined) return undefined;
  try {
    return parseDuration(s);
  } catch {
    throw new SchedulerConfigError(`${path}: time: invalid duration "${s}"`);
  }
}

function pluginRefs(v: unknown, path: string, weighted: boolean): PluginRef[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new SchedulerConfigError(`${path}: expected a list`);
  return v.map((p, i) => {
    if (!isObj(p)) throw new SchedulerConfigError(`${path}[${i}]: expected an object`);
    strict(p, weighted ? ['name', 'weight'] : ['name', 'weight'], `${path}[${i}]`);
    const name = str(p.name, `${path}[${i}].name`) ?? '';
    const weight = num(p.weight, `${path}[${i}].weight`);
    return weight === undefined ? { name } : { name, weight };
  });
}

function pluginSet(v: unknown, path: string): PluginSet {
  if (v === undefined || v === null) return { enabled: [], disabled: [] };
  if (!isObj(v)) throw new SchedulerConfigError(`${path}: expected an object`);
  strict(v, ['enabled', 'disabled'], path);
  return {
    enabled: pluginRefs(v.enabled, `${path}.enabled`, true),
    disabled: pluginRefs(v.disabled, `${path}.disabled`, false),
  };
}

function plugins(v: unknown, path: string): Plugins | undefined {
  if (v === undefined || v === null) return undefined;
  if (!isObj(v)) throw new SchedulerConfigError(`${path}: expected an object`);
  strict(v, ['multiPoint', ...EXTENSION_POINTS], path);
  const out = emptyPlugins();
  for (const e of ['multiPoint', ...EXTENSION_POINTS] as const) out[e] = pluginSet(v[e], `${path}.${e}`);
  return out;
}

function pluginConfig(v: unknown, path: string): PluginConfig[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new SchedulerConfigError(`${path}: expected a list`);
  return v.map((pc, i) => {
    if (!isObj(pc)) throw new SchedulerConfigError(`${path}[${i}]: expected an object`);
    strict(pc, ['name', 'args'], `${path}[${i}]`);
    const args = pc.args ?? {};
    if (!isObj(args)) throw new SchedulerConfigError(`${path}[${i}].args: expected an object`);
    const { apiVersion: _a, kind: _k, ...rest } = args;
    return { name: str(pc.name, `${path}[${i}].name`) ?? '', args: rest };
  });
}

function profile(v: unknown, path: string, single: boolean): KubeSchedulerProfile {
  if (!isObj(v)) throw new SchedulerConfigError(`${path}: expected an object`);
  strict(v, ['schedulerName', 'percentageOfNodesToScore', 'plugins', 'pluginConfig'], path);
  const name = str(v.schedulerName, `${path}.schedulerName`);
  const p: Partial<KubeSchedulerProfile> & { plugins?: Plugins } = {
    // Only a lone profile gets the default name (upstream).
    schedulerName: name ?? (single ? undefined : ''),
    pluginConfig: pluginConfig(v.pluginConfig, `${path}.pluginConfig`),
  };
  const pl = plugins(v.plugins, `${path}.plugins`);
  if (pl) p.plugins = pl;
  const pct = num(v.percentageOfNodesToScore, `${path}.percentageOfNodesToScore`);
  if (pct !== undefined) p.percentageOfNodesToScore = pct;
  return defaultProfile(p);
}

/** A configuration from an already parsed document (defaults applied, validated). */
export function configurationFromObject(doc: unknown): KubeSchedulerConfiguration {
  if (!isObj(doc)) throw new SchedulerConfigError('the configuration is not an object');
  const apiVersion = doc.apiVersion;
  const kind = doc.kind;
  if (kind !== SCHEDULER_CONFIG_KIND) {
    throw new SchedulerConfigError(
      `no kind "${String(kind ?? '')}" is registered for version "${String(apiVersion ?? '')}" in scheme "pkg/scheduler/apis/config/scheme/scheme.go:30"`,
    );
  }
  if (apiVersion !== SCHEDULER_CONFIG_API_VERSION) {
    throw new SchedulerConfigError(
      `no kind "${SCHEDULER_CONFIG_KIND}" is registered for version "${String(apiVersion ?? '')}" in scheme "pkg/scheduler/apis/config/scheme/scheme.go:30"`,
    );
  }
  strict(
    doc,
    [
      'apiVersion',
      'kind',
      'parallelism',
      'leaderElection',
      'clientConnection',
      'healthzBindAddress',
      'metricsBindAddress',
      'enableProfiling',
      'enableContentionProfiling',
      'percentageOfNodesToScore',
      'podInitialBackoffSeconds',
      'podMaxBackoffSeconds',
      'profiles',
      'extenders',
      'delayCacheUntilActive',
    ],
    '',
  );
  const cfg = defaultConfiguration();
  cfg.parallelism = num(doc.parallelism, 'parallelism') ?? cfg.parallelism;
  if (doc.leaderElection !== undefined && doc.leaderElection !== null) {
    const le = doc.leaderElection;
    if (!isObj(le)) throw new SchedulerConfigError('leaderElection: expected an object');
    const d = cfg.leaderElection;
    if (le.leaderElect !== undefined) d.leaderElect = le.leaderElect === true;
    d.leaseDurationMs = duration(le.leaseDuration, 'leaderElection.leaseDuration') ?? d.leaseDurationMs;
    d.renewDeadlineMs = duration(le.renewDeadline, 'leaderElection.renewDeadline') ?? d.renewDeadlineMs;
    d.retryPeriodMs = duration(le.retryPeriod, 'leaderElection.retryPeriod') ?? d.retryPeriodMs;
    d.resourceLock = str(le.resourceLock, 'leaderElection.resourceLock') || d.resourceLock;
    d.resourceName = str(le.resourceName, 'leaderElection.resourceName') || d.resourceName;
    d.resourceNamespace = str(le.resourceNamespace, 'leaderElection.resourceNamespace') || d.resourceNamespace;
  }
  if (doc.clientConnection !== undefined && doc.clientConnection !== null) {
    const cc = doc.clientConnection;
    if (!isObj(cc)) throw new SchedulerConfigError('clientConnection: expected an object');
    const d = cfg.clientConnection;
    d.kubeconfig = str(cc.kubeconfig, 'clientConnection.kubeconfig') ?? d.kubeconfig;
    d.acceptContentTypes = str(cc.acceptContentTypes, 'clientConnection.acceptContentTypes') ?? d.acceptContentTypes;
    d.contentType = str(cc.contentType, 'clientConnection.contentType') || d.contentType;
    d.qps = num(cc.qps, 'clientConnection.qps') || d.qps;
    d.burst = num(cc.burst, 'clientConnection.burst') || d.burst;
  }
  cfg.percentageOfNodesToScore = num(doc.percentageOfNodesToScore, 'percentageOfNodesToScore') ?? 0;
  cfg.podInitialBackoffSeconds = num(doc.podInitialBackoffSeconds, 'podInitialBackoffSeconds') ?? 1;
  cfg.podMaxBackoffSeconds = num(doc.podMaxBackoffSeconds, 'podMaxBackoffSeconds') ?? 10;
  cfg.delayCacheUntilActive = doc.delayCacheUntilActive === true;
  if (Array.isArray(doc.extenders) && doc.extenders.length > 0) {
    throw new SchedulerConfigError('extenders: scheduler extenders are not supported by wheelhouse');
  }
  if (doc.profiles !== undefined && doc.profiles !== null) {
    if (!Array.isArray(doc.profiles)) throw new SchedulerConfigError('profiles: expected a list');
    if (doc.profiles.length > 0) {
      const single = doc.profiles.length === 1;
      cfg.profiles = doc.profiles.map((p, i) => profile(p, `profiles[${i}]`, single));
    }
  }
  const errors = validateConfiguration(cfg);
  if (errors.length > 0) throw new SchedulerConfigError(`invalid KubeSchedulerConfiguration: ${errors.join(', ')}`);
  return cfg;
}

/** Parses the text of a configuration file (YAML 1.1, as Go's yaml library reads it). */
export function parseConfiguration(text: string): KubeSchedulerConfiguration {
  let doc: unknown;
  try {
    doc = parse(text, { version: '1.1' });
  } catch (err) {
    throw new SchedulerConfigError(`couldn't decode as KubeSchedulerConfiguration: ${(err as Error).message}`);
  }
  return configurationFromObject(doc);
}

export async function loadConfigurationFile(path: string): Promise<KubeSchedulerConfiguration> {
  return parseConfiguration(await readFile(path, 'utf8'));
}

/** Upstream's ValidateKubeSchedulerConfiguration, the parts that apply here. */
export function validateConfiguration(cfg: KubeSchedulerConfiguration): string[] {
  const errors: string[] = [];
  if (cfg.parallelism <= 0)
    errors.push(`parallelism: Invalid value: ${cfg.parallelism}: should be an integer value greater than zero`);
  const pct = cfg.percentageOfNodesToScore ?? 0;
  if (pct < 0 || pct > 100) errors.push(`percentageOfNodesToScore: Invalid value: ${pct}: not in valid range [0-100]`);
  if (cfg.podInitialBackoffSeconds <= 0) {
    errors.push(`podInitialBackoffSeconds: Invalid value: ${cfg.podInitialBackoffSeconds}: must be greater than 0`);
  }
  if (cfg.podMaxBackoffSeconds < cfg.podInitialBackoffSeconds) {
    errors.push(
      `podMaxBackoffSeconds: Invalid value: ${cfg.podMaxBackoffSeconds}: must be greater than or equal to PodInitialBackoffSeconds`,
    );
  }
  const le = cfg.leaderElection;
  if (le.leaderElect) {
    if (le.leaseDurationMs <= 0) errors.push('leaderElection.leaseDuration: Invalid value: must be greater than zero');
    if (le.renewDeadlineMs <= 0) errors.push('leaderElection.renewDeadline: Invalid value: must be greater than zero');
    if (le.retryPeriodMs <= 0) errors.push('leaderElection.retryPeriod: Invalid value: must be greater than zero');
    if (le.leaseDurationMs <= le.renewDeadlineMs) {
      errors.push('leaderElection.leaseDuration: Invalid value: LeaseDuration must be greater than RenewDeadline');
    }
  }
  if (cfg.profiles.length === 0) errors.push('profiles: Required value');
  const names = new Set<string>();
  cfg.profiles.forEach((p, i) => {
    const path = `profiles[${i}]`;
    if (!p.schedulerName) errors.push(`${path}.schedulerName: Required value`);
    else if (names.has(p.schedulerName)) errors.push(`${path}.schedulerName: Duplicate value: "${p.schedulerName}"`);
    names.add(p.schedulerName);
    const ppct = p.percentageOfNodesToScore;
    if (ppct !== undefined && (ppct < 0 || ppct > 100)) {
      errors.push(`${path}.percentageOfNodesToScore: Invalid value: ${ppct}: not in valid range [0-100]`);
    }
    const configs = new Set<string>();
    p.pluginConfig.forEach((pc, j) => {
      if (configs.has(pc.name)) errors.push(`${path}.pluginConfig[${j}]: Duplicate value: "${pc.name}"`);
      configs.add(pc.name);
    });
    for (const e of ['multiPoint', 'score'] as const) {
      p.plugins[e].enabled.forEach((ref, j) => {
        if (ref.weight !== undefined && (ref.weight < 0 || !Number.isInteger(ref.weight))) {
          errors.push(
            `${path}.plugins.${e}.enabled[${j}].weight: Invalid value: ${ref.weight}: must be a non-negative integer`,
          );
        }
      });
    }
  });
  // All profiles must order the queue the same way (there is one queue).
  const first = cfg.profiles[0];
  if (first) {
    const sortOf = (p: KubeSchedulerProfile) => JSON.stringify(queueSortOf(p));
    cfg.profiles.forEach((p, i) => {
      if (i > 0 && sortOf(p) !== sortOf(first)) {
        errors.push(`profiles[${i}].plugins.queueSort: Invalid value: queueSort must be the same for all profiles`);
      }
    });
  }
  return errors;
}

/** The queue sort plugins a profile ends up with (multiPoint expansion assumed: PrioritySort is the only one). */
function queueSortOf(p: KubeSchedulerProfile): string[] {
  const qs = p.plugins.queueSort;
  if (qs.enabled.length > 0) return qs.enabled.map((x) => x.name);
  if (qs.disabled.some((d) => d.name === '*')) return [];
  return p.plugins.multiPoint.enabled
    .map((x) => x.name)
    .filter((n) => n === 'PrioritySort' && !qs.disabled.some((d) => d.name === n));
}
