import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { loadKubeconfig } from '../client/kubeconfig.js';
import { KubeClient, userAgentFor } from '../client/rest.js';
import { defaultConfiguration } from '../scheduler/config/defaults.js';
import { loadConfigurationFile } from '../scheduler/config/load.js';
import type { KubeSchedulerConfiguration } from '../scheduler/config/types.js';
import { IN_TREE_PLUGINS } from '../scheduler/plugins/registry.js';
import { Scheduler } from '../scheduler/scheduler.js';
import { parseDuration } from '../util/duration.js';
import { createLogger } from '../util/logger.js';
import { UsageError } from './storage-flags.js';

export const schedulerHelp = `Usage: wheelhouse scheduler --kubeconfig FILE [flags]

kube-scheduler alone, with upstream's flag names and defaults:
  --config FILE                          a KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1)
  --kubeconfig FILE                      how to reach the apiserver (its user is the scheduler's identity)
  --leader-elect BOOL                    campaign for kube-system/kube-scheduler (default true)
  --leader-elect-lease-duration D        (15s)   --leader-elect-renew-deadline D (10s)
  --leader-elect-retry-period D          (2s)    --leader-elect-resource-namespace / -name
  --secure-port N                        HTTPS port for /healthz, /metrics, /debug/verdicts (default 10259; 0: off)
  --bind-address IP                      (default 0.0.0.0)
  --tls-cert-file FILE / --tls-private-key-file FILE   serving certificate (default: self-signed)
  --kube-api-qps N / --kube-api-burst N  client rate limits (default 50 / 100; ignored with --config)
  --pod-initial-backoff-seconds N        (1)     --pod-max-backoff-seconds N (10; ignored with --config)
  --pod-max-in-unschedulable-pods-duration D   (5m)
  -v N                                   log verbosity

Without --config the scheduler runs upstream's default profile (default-scheduler); pods naming another
schedulerName are left alone.`;

export const schedulerFlagSpec = {
  config: { type: 'string' },
  kubeconfig: { type: 'string' },
  master: { type: 'string' },
  'leader-elect': { type: 'string' },
  'leader-elect-lease-duration': { type: 'string' },
  'leader-elect-renew-deadline': { type: 'string' },
  'leader-elect-retry-period': { type: 'string' },
  'leader-elect-resource-lock': { type: 'string' },
  'leader-elect-resource-name': { type: 'string' },
  'leader-elect-resource-namespace': { type: 'string' },
  'secure-port': { type: 'string' },
  'bind-address': { type: 'string' },
  'tls-cert-file': { type: 'string' },
  'tls-private-key-file': { type: 'string' },
  'kube-api-qps': { type: 'string' },
  'kube-api-burst': { type: 'string' },
  'kube-api-content-type': { type: 'string' },
  'pod-initial-backoff-seconds': { type: 'string' },
  'pod-max-backoff-seconds': { type: 'string' },
  'pod-max-in-unschedulable-pods-duration': { type: 'string' },
} as const;

function bool(flag: string, raw: string): boolean {
  if (raw === 'true' || raw === '') return true;
  if (raw === 'false') return false;
  throw new UsageError(
    `invalid argument "${raw}" for "--${flag}" flag: strconv.ParseBool: parsing "${raw}": invalid syntax`,
  );
}

function number(flag: string, raw: string, integer: boolean): number {
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(n) || (integer && !Number.isInteger(n))) {
    throw new UsageError(`invalid argument "${raw}" for "--${flag}" flag: invalid syntax`);
  }
  return n;
}

function duration(flag: string, raw: string): number {
  try {
    return parseDuration(raw);
  } catch {
    throw new UsageError(`invalid argument "${raw}" for "--${flag}" flag: time: invalid duration "${raw}"`);
  }
}

export interface SchedulerFlags {
  config: KubeSchedulerConfiguration;
  kubeconfig: string | undefined;
  securePort: number;
  bindAddress: string;
  tlsCertFile: string | undefined;
  tlsKeyFile: string | undefined;
  podMaxInUnschedulablePodsMs: number | undefined;
}

/**
 * The configuration kube-scheduler's flags say (upstream's Options.Complete): without --config the deprecated
 * flags (--kubeconfig, --kube-api-*, --pod-*-backoff-seconds) apply; the leader election flags always do.
 */
export async function schedulerFlagsOf(values: Record<string, string | boolean | undefined>): Promise<SchedulerFlags> {
  const v = values as Record<string, string | undefined>;
  const config = v.config ? await loadConfigurationFile(v.config) : defaultConfiguration();
  if (!v.config) {
    if (v['kube-api-qps'] !== undefined) config.clientConnection.qps = number('kube-api-qps', v['kube-api-qps'], false);
    if (v['kube-api-burst'] !== undefined)
      config.clientConnection.burst = number('kube-api-burst', v['kube-api-burst'], true);
    if (v['kube-api-content-type'] !== undefined) config.clientConnection.contentType = v['kube-api-content-type'];
    if (v['pod-initial-backoff-seconds'] !== undefined) {
      config.podInitialBackoffSeconds = number('pod-initial-backoff-seconds', v['pod-initial-backoff-seconds'], true);
    }
    if (v['pod-max-backoff-seconds'] !== undefined) {
      config.podMaxBackoffSeconds = number('pod-max-backoff-seconds', v['pod-max-backoff-seconds'], true);
    }
    if (v.kubeconfig !== undefined) config.clientConnection.kubeconfig = v.kubeconfig;
  }
  const le = config.leaderElection;
  if (v['leader-elect'] !== undefined) le.leaderElect = bool('leader-elect', v['leader-elect']);
  if (v['leader-elect-lease-duration'] !== undefined) {
    le.leaseDurationMs = duration('leader-elect-lease-duration', v['leader-elect-lease-duration']);
  }
  if (v['leader-elect-renew-deadline'] !== undefined) {
    le.renewDeadlineMs = duration('leader-elect-renew-deadline', v['leader-elect-renew-deadline']);
  }
  if (v['leader-elect-retry-period'] !== undefined) {
    le.retryPeriodMs = duration('leader-elect-retry-period', v['leader-elect-retry-period']);
  }
  if (v['leader-elect-resource-lock'] !== undefined) {
    if (v['leader-elect-resource-lock'] !== 'leases') {
      throw new UsageError(
        `invalid argument "${v['leader-elect-resource-lock']}" for "--leader-elect-resource-lock": only "leases" is supported`,
      );
    }
    le.resourceLock = 'leases';
  }
  if (v['leader-elect-resource-name'] !== undefined) le.resourceName = v['leader-elect-resource-name'];
  if (v['leader-elect-resource-namespace'] !== undefined) le.resourceNamespace = v['leader-elect-resource-namespace'];
  const securePort = v['secure-port'] === undefined ? 10259 : number('secure-port', v['secure-port'], true);
  if (securePort < 0 || securePort > 65535) {
    throw new UsageError(
      `--secure-port ${securePort} must be between 0 and 65535, inclusive. 0 for turning off secure port`,
    );
  }
  return {
    config,
    kubeconfig: config.clientConnection.kubeconfig || v.kubeconfig,
    securePort,
    bindAddress: v['bind-address'] ?? '0.0.0.0',
    tlsCertFile: v['tls-cert-file'],
    tlsKeyFile: v['tls-private-key-file'],
    podMaxInUnschedulablePodsMs:
      v['pod-max-in-unschedulable-pods-duration'] === undefined
        ? undefined
        : duration('pod-max-in-unschedulable-pods-duration', v['pod-max-in-unschedulable-pods-duration']),
  };
}

/** `wheelhouse scheduler`: kube-scheduler alone, an API client like any other. */
export async function schedulerCommand(args: string[], out: (line: string) => void): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      ...schedulerFlagSpec,
      v: { type: 'string', short: 'v' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    out(schedulerHelp);
    return 0;
  }
  const flags = await schedulerFlagsOf(values);
  if ((flags.tlsCertFile === undefined) !== (flags.tlsKeyFile === undefined)) {
    throw new UsageError('--tls-cert-file and --tls-private-key-file must be given together');
  }
  const log = createLogger({ component: 'kube-scheduler', verbosity: Number(values.v ?? 0) });
  const connection = await loadKubeconfig(flags.kubeconfig ? { kubeconfigPath: flags.kubeconfig } : {});
  if (values.master) connection.server = values.master;
  const client = new KubeClient({
    ...connection,
    userAgent: userAgentFor('kube-scheduler'),
    qps: flags.config.clientConnection.qps,
    burst: flags.config.clientConnection.burst,
    logger: log.child('client'),
  });
  const scheduler = new Scheduler({
    client,
    registry: IN_TREE_PLUGINS,
    config: flags.config,
    logger: log,
    ...(flags.podMaxInUnschedulablePodsMs !== undefined
      ? { podMaxInUnschedulablePodsMs: flags.podMaxInUnschedulablePodsMs }
      : {}),
    ...(flags.securePort > 0
      ? {
          secureServing: {
            port: flags.securePort,
            bindAddress: flags.bindAddress,
            ...(flags.tlsCertFile && flags.tlsKeyFile
              ? {
                  certPem: await readFile(flags.tlsCertFile, 'utf8'),
                  keyPem: await readFile(flags.tlsKeyFile, 'utf8'),
                }
              : {}),
          },
        }
      : {}),
  });
  const stopped = new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  await Promise.race([scheduler.start(), stopped]);
  out(`wheelhouse: kube-scheduler started (identity ${scheduler.identity}) against ${connection.server}`);
  out(`  profiles: ${flags.config.profiles.map((p) => p.schedulerName).join(', ')}`);
  if (scheduler.url) out(`  serving on ${scheduler.url} (/healthz, /metrics, /debug/verdicts/<namespace>/<pod>)`);
  out(`  leader election: ${flags.config.leaderElection.leaderElect ? 'on' : 'off'}`);
  out('  Press Ctrl-C to stop.');
  await stopped;
  await scheduler.stop();
  client.close();
  out('wheelhouse: stopped');
  return 0;
}
