import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { loadKubeconfig } from '../client/kubeconfig.js';
import { KubeClient, userAgentFor } from '../client/rest.js';
import { type ControllerManagerOptions, DEFAULT_CONTROLLER_MANAGER_OPTIONS } from '../controllers/options.js';
import { startComponentServer } from '../util/component-server.js';
import { parseDuration } from '../util/duration.js';
import { createLogger } from '../util/logger.js';
import { applyCertificatesFlags, certificatesFlagSpec, certificatesFlagsHelp } from './certificates-flags.js';
import { UsageError } from './storage-flags.js';

export const controllerManagerHelp = `Usage: wheelhouse controller-manager --kubeconfig FILE [flags]

kube-controller-manager alone, with upstream's flag names and defaults:
  --kubeconfig FILE                      how to reach the apiserver (its user is the controller-manager's identity)
  --controllers LIST                     * (all on by default), NAME to enable, -NAME to disable (default *)
  --use-service-account-credentials BOOL each controller acts as ServiceAccount kube-system/<name> with a
                                         TokenRequest token, not as the kubeconfig's user (default false)
  --kube-api-qps N / --kube-api-burst N  client rate limits (default 20 / 30)
  --leader-elect BOOL                    campaign for kube-system/kube-controller-manager (default true)
  --leader-elect-lease-duration D        (15s)   --leader-elect-renew-deadline D (10s)
  --leader-elect-retry-period D          (2s)    --leader-elect-resource-namespace / -name
  --concurrent-deployment-syncs N        and the other --concurrent-*-syncs flags
  --terminated-pod-gc-threshold N        (12500)
  --horizontal-pod-autoscaler-sync-period D (15s)  --horizontal-pod-autoscaler-downscale-stabilization D (5m)
  --horizontal-pod-autoscaler-tolerance F (0.1)     --horizontal-pod-autoscaler-cpu-initialization-period D (5m)
  --horizontal-pod-autoscaler-initial-readiness-delay D (30s)
  --node-monitor-period D                (5s)    --node-monitor-grace-period D (50s)
  --node-startup-grace-period D          (1m)    --node-eviction-rate F (0.1)
  --secondary-node-eviction-rate F       (0.01)  --large-cluster-size-threshold N (50)
  --unhealthy-zone-threshold F           (0.55)
  --root-ca-file FILE                    CA published as kube-root-ca.crt (default: the kubeconfig's CA)
${certificatesFlagsHelp}
  --secure-port N                        HTTPS for /healthz, /livez, /readyz, /metrics (default 10257; 0 = off)
  --bind-address IP                      address for it (default 0.0.0.0)
  --tls-cert-file F / --tls-private-key-file F   its certificate (default: self-signed at start)
  -v N                                   log verbosity`;

/** Flag name → option key and kind, for the flags that map one to one. */
const FLAGS: Record<string, [keyof ControllerManagerOptions, 'int' | 'number' | 'duration' | 'bool' | 'string']> = {
  'use-service-account-credentials': ['useServiceAccountCredentials', 'bool'],
  'kube-api-qps': ['kubeApiQps', 'number'],
  'kube-api-burst': ['kubeApiBurst', 'int'],
  'leader-elect': ['leaderElect', 'bool'],
  'leader-elect-lease-duration': ['leaderElectLeaseDurationMs', 'duration'],
  'leader-elect-renew-deadline': ['leaderElectRenewDeadlineMs', 'duration'],
  'leader-elect-retry-period': ['leaderElectRetryPeriodMs', 'duration'],
  'leader-elect-resource-namespace': ['leaderElectResourceNamespace', 'string'],
  'leader-elect-resource-name': ['leaderElectResourceName', 'string'],
  'concurrent-deployment-syncs': ['concurrentDeploymentSyncs', 'int'],
  'concurrent-replicaset-syncs': ['concurrentReplicasetSyncs', 'int'],
  'concurrent-rc-syncs': ['concurrentRcSyncs', 'int'],
  'concurrent-namespace-syncs': ['concurrentNamespaceSyncs', 'int'],
  'concurrent-serviceaccount-token-syncs': ['concurrentServiceaccountTokenSyncs', 'int'],
  'concurrent-endpoint-syncs': ['concurrentEndpointSyncs', 'int'],
  'concurrent-service-endpoint-syncs': ['concurrentServiceEndpointSyncs', 'int'],
  'mirroring-concurrent-service-endpoint-syncs': ['mirroringConcurrentServiceEndpointSyncs', 'int'],
  'concurrent-gc-syncs': ['concurrentGcSyncs', 'int'],
  'concurrent-resource-quota-syncs': ['concurrentResourceQuotaSyncs', 'int'],
  'concurrent-ttl-after-finished-syncs': ['concurrentTtlAfterFinishedSyncs', 'int'],
  'concurrent-job-syncs': ['concurrentJobSyncs', 'int'],
  'concurrent-cron-job-syncs': ['concurrentCronJobSyncs', 'int'],
  'concurrent-statefulset-syncs': ['concurrentStatefulsetSyncs', 'int'],
  'concurrent-daemonset-syncs': ['concurrentDaemonsetSyncs', 'int'],
  'concurrent-horizontal-pod-autoscaler-syncs': ['concurrentHorizontalPodAutoscalerSyncs', 'int'],
  'horizontal-pod-autoscaler-sync-period': ['horizontalPodAutoscalerSyncPeriodMs', 'duration'],
  'horizontal-pod-autoscaler-downscale-stabilization': ['horizontalPodAutoscalerDownscaleStabilizationMs', 'duration'],
  'horizontal-pod-autoscaler-tolerance': ['horizontalPodAutoscalerTolerance', 'number'],
  'horizontal-pod-autoscaler-cpu-initialization-period': [
    'horizontalPodAutoscalerCpuInitializationPeriodMs',
    'duration',
  ],
  'horizontal-pod-autoscaler-initial-readiness-delay': ['horizontalPodAutoscalerInitialReadinessDelayMs', 'duration'],
  'max-endpoints-per-slice': ['maxEndpointsPerSlice', 'int'],
  'mirroring-max-endpoints-per-subset': ['mirroringMaxEndpointsPerSubset', 'int'],
  'terminated-pod-gc-threshold': ['terminatedPodGcThreshold', 'int'],
  'namespace-sync-period': ['namespaceSyncPeriodMs', 'duration'],
  'resource-quota-sync-period': ['resourceQuotaSyncPeriodMs', 'duration'],
  'min-resync-period': ['minResyncPeriodMs', 'duration'],
  'enable-garbage-collector': ['enableGarbageCollector', 'bool'],
  'node-monitor-period': ['nodeMonitorPeriodMs', 'duration'],
  'node-monitor-grace-period': ['nodeMonitorGracePeriodMs', 'duration'],
  'node-startup-grace-period': ['nodeStartupGracePeriodMs', 'duration'],
  'node-eviction-rate': ['nodeEvictionRate', 'number'],
  'secondary-node-eviction-rate': ['secondaryNodeEvictionRate', 'number'],
  'large-cluster-size-threshold': ['largeClusterSizeThreshold', 'int'],
  'unhealthy-zone-threshold': ['unhealthyZoneThreshold', 'number'],
};

/**
 * The ControllerManagerOptions that kube-controller-manager's flags (as parsed strings) say over `defaults`
 * (upstream's unless given); throws UsageError.
 */
export function controllerManagerOptionsOf(
  values: Record<string, string | undefined>,
  defaults: Readonly<ControllerManagerOptions> = DEFAULT_CONTROLLER_MANAGER_OPTIONS,
): ControllerManagerOptions {
  const options: Record<string, unknown> = { ...defaults };
  if (values.controllers !== undefined) {
    options.controllers = values.controllers
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  }
  for (const [flag, [key, kind]] of Object.entries(FLAGS)) {
    const raw = values[flag];
    if (raw === undefined) continue;
    options[key] = parseFlag(flag, raw, kind);
  }
  return options as unknown as ControllerManagerOptions;
}

function parseFlag(flag: string, raw: string, kind: 'int' | 'number' | 'duration' | 'bool' | 'string'): unknown {
  switch (kind) {
    case 'string':
      return raw;
    case 'bool':
      if (raw === 'true' || raw === '') return true;
      if (raw === 'false') return false;
      throw new UsageError(
        `invalid argument "${raw}" for "--${flag}" flag: strconv.ParseBool: parsing "${raw}": invalid syntax`,
      );
    case 'duration':
      try {
        return parseDuration(raw);
      } catch {
        throw new UsageError(`invalid argument "${raw}" for "--${flag}" flag: time: invalid duration "${raw}"`);
      }
    default: {
      const n = Number(raw);
      if (raw.trim() === '' || !Number.isFinite(n) || (kind === 'int' && !Number.isInteger(n))) {
        throw new UsageError(`invalid argument "${raw}" for "--${flag}" flag: invalid syntax`);
      }
      return n;
    }
  }
}

export const controllerManagerFlagSpec = {
  controllers: { type: 'string' },
  'root-ca-file': { type: 'string' },
  ...certificatesFlagSpec,
  ...Object.fromEntries(Object.keys(FLAGS).map((f) => [f, { type: 'string' }])),
} as const;

/** `wheelhouse controller-manager`: kube-controller-manager alone, an API client like any other. */
export async function controllerManagerCommand(args: string[], out: (line: string) => void): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      ...controllerManagerFlagSpec,
      kubeconfig: { type: 'string' },
      'secure-port': { type: 'string' },
      'bind-address': { type: 'string' },
      'tls-cert-file': { type: 'string' },
      'tls-private-key-file': { type: 'string' },
      v: { type: 'string', short: 'v' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    out(controllerManagerHelp);
    return 0;
  }
  const options = controllerManagerOptionsOf(values as Record<string, string | undefined>);
  const log = createLogger({ component: 'kube-controller-manager', verbosity: Number(values.v ?? 0) });
  const kubeconfigPath = values.kubeconfig;
  const connection = await loadKubeconfig(kubeconfigPath ? { kubeconfigPath } : {});
  options.rootCaPem = values['root-ca-file'] ? await readFile(values['root-ca-file'], 'utf8') : connection.caPem;
  await applyCertificatesFlags(values as Record<string, string | undefined>, options);
  const client = new KubeClient({
    ...connection,
    userAgent: userAgentFor('kube-controller-manager'),
    qps: options.kubeApiQps,
    burst: options.kubeApiBurst,
    logger: log.child('client'),
  });
  const [{ ControllerManager }, { CONTROLLERS }] = await Promise.all([
    import('../controllers/manager.js'),
    import('../controllers/registry.js'),
  ]);
  const manager = new ControllerManager({ client, descriptors: CONTROLLERS, options, logger: log });
  const port = Number(values['secure-port'] ?? '10257');
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new UsageError(`--secure-port must be a port number, not ${values['secure-port']}`);
  const certFile = values['tls-cert-file'];
  const keyFile = values['tls-private-key-file'];
  const server =
    port === 0
      ? undefined
      : await startComponentServer({
          name: 'kube-controller-manager',
          bindAddress: values['bind-address'] ?? '0.0.0.0',
          port,
          ...(certFile && keyFile
            ? { tls: { certPem: await readFile(certFile, 'utf8'), keyPem: await readFile(keyFile, 'utf8') } }
            : {}),
          checks: manager.healthChecks(),
          metrics: manager.metrics,
        });
  manager.start();
  if (server) out(`wheelhouse: kube-controller-manager serving health and metrics on https port ${server.port}`);
  out(`wheelhouse: kube-controller-manager started (identity ${manager.identity}) against ${connection.server}`);
  out(
    `  controllers: ${
      manager
        .enabledDescriptors()
        .map((d) => d.name)
        .join(', ') || '(none)'
    }`,
  );
  out('  Press Ctrl-C to stop.');
  await new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  await manager.stop();
  await server?.close();
  client.close();
  out('wheelhouse: stopped');
  return 0;
}
