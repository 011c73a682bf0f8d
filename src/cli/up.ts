import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { standaloneAdmissionOptions } from '../apiserver/admission/embedded-defaults.js';
import {
  type AdmissionOptions,
  admissionOptionErrors,
  admissionOptionsMessage,
  parsePluginList,
} from '../apiserver/admission/options.js';
import { parseAuthorizationModes } from '../apiserver/authz/modes.js';
import { DEFAULT_CONTROLLER_MANAGER_OPTIONS } from '../controllers/options.js';
import { startControlPlane } from '../index.js';
import { createLogger } from '../util/logger.js';
import {
  admissionConfigFlagSpec,
  admissionConfigFlagsHelp,
  admissionConfigOptionsOf,
} from './admission-config-flags.js';
import { auditFlagArgs, auditFlagSpec, auditFlagsHelp, auditOptionsOf } from './audit-flags.js';
import { authenticationFlagSpec, authenticationFlagsHelp, authenticationOptionsOf } from './authentication-flags.js';
import {
  authorizationWebhookFlagSpec,
  authorizationWebhookFlagsHelp,
  authorizationWebhookOptionsOf,
} from './authorization-flags.js';
import { controllerManagerFlagSpec, controllerManagerOptionsOf } from './controller-manager.js';
import { encryptionFlagSpec, encryptionFlagsHelp, encryptionOptionsOf } from './encryption-flags.js';
import { kubeletFlagSpec, simKubeletOptionsOf } from './kubelet.js';
import { compactionPolicyOf, dataDirOf, storageConfigOf, storageFlagSpec, UsageError } from './storage-flags.js';

export const upHelp = `Usage: wheelhouse up [flags]

Starts a control plane in this process: the API server (HTTPS on --bind-address:--secure-port) over the
chosen storage, with a PKI and an admin kubeconfig in --data-dir. Runs until interrupted (Ctrl-C).

Flags:
  --data-dir DIR                   where state, PKI and kubeconfig live (default ./.wheelhouse)
  --storage memory|sqlite|etcd     storage backend (default sqlite; --etcd-servers implies etcd)
  --etcd-servers URL[,URL…]        etcd client URLs; with --etcd-cafile, --etcd-certfile, --etcd-keyfile
  --secure-port N                  HTTPS port (default 6443; 0 picks a free one)
  --bind-address IP                address to listen on (default 127.0.0.1)
  --service-cluster-ip-range CIDR  Service ClusterIPs (default 10.96.0.0/12)
  --service-node-port-range A-B    Service node ports (default 30000-32767)
  --etcd-compaction-interval D     how often to compact history (default 5m; 0 = never)
  --storage-retain-revisions N     revisions always kept (default 1000)
  --storage-retain-duration D      history always kept (default 5m)
  --enable-admission-plugins LIST  admission plugins besides the default ones (upstream's names)
  --disable-admission-plugins LIST admission plugins not to run, default ones included
${admissionConfigFlagsHelp}
  --default-not-ready-toleration-seconds N    toleration added to every pod for not-ready:NoExecute (300)
  --default-unreachable-toleration-seconds N  toleration added to every pod for unreachable:NoExecute (300)
  --authorization-mode LIST        AlwaysAllow, AlwaysDeny, Node, RBAC, Webhook (default Node,RBAC, as kubeadm)
${authorizationWebhookFlagsHelp}
${authenticationFlagsHelp}
${auditFlagsHelp}
${encryptionFlagsHelp}
  -v N                             log verbosity

kube-controller-manager runs inside too, with its flags (see wheelhouse controller-manager --help), e.g.
  --controllers LIST               *,bootstrapsigner,tokencleaner (default, as kubeadm), NAME, -NAME
  --use-service-account-credentials BOOL  each controller as ServiceAccount kube-system/<name> (default true, as kubeadm)
  --kube-api-qps N                 its client's rate limit (default 20; --kube-api-burst 30)
  --terminated-pod-gc-threshold N  (default 12500)

Simulated nodes run inside too (see wheelhouse kubelet --help):
  --nodes N                        how many (default 3; 0 for none), named node-1 … node-N
  --lifecycle-config F / --node-config F   pod lifecycles and node groups (capacity, labels, zones)
  --event-qps N / --event-burst N  each node's event writes a second and their burst (default 50 / 100)
  --cluster-dns IP / --cluster-domain D   pods' resolv.conf (default 10.96.0.10 and cluster.local, as kubeadm)

kube-scheduler runs inside too: --scheduler-config FILE takes a KubeSchedulerConfiguration
(kubescheduler.config.k8s.io/v1); wheelhouse explain pod NAME shows its per-node verdicts.`;

export const apiserverHelp = `Usage: wheelhouse apiserver [flags]

kube-apiserver alone, with upstream's flag names: --secure-port (6443), --bind-address (0.0.0.0),
--etcd-servers, --etcd-cafile, --etcd-certfile, --etcd-keyfile, --etcd-compaction-interval,
--service-cluster-ip-range, --service-node-port-range, --enable-admission-plugins, --disable-admission-plugins,
--default-not-ready-toleration-seconds, --default-unreachable-toleration-seconds, --authorization-mode
(AlwaysAllow, AlwaysDeny, Node, RBAC, Webhook; default Node,RBAC, as kubeadm); plus --data-dir and
--storage as for wheelhouse up.
${admissionConfigFlagsHelp}
${authorizationWebhookFlagsHelp}
Authentication:
${authenticationFlagsHelp}
Audit:
${auditFlagsHelp}
Encryption at rest:
${encryptionFlagsHelp}`;

const admissionFlagSpec = {
  'enable-admission-plugins': { type: 'string' },
  'disable-admission-plugins': { type: 'string' },
  'default-not-ready-toleration-seconds': { type: 'string' },
  'default-unreachable-toleration-seconds': { type: 'string' },
} as const;

/** kube-apiserver's admission flags; unknown plugin names are refused with upstream's message. */
function admissionOptionsOf(values: Record<string, string | boolean | undefined>): AdmissionOptions {
  const flag = (name: keyof typeof admissionFlagSpec) => {
    const v = values[name];
    return typeof v === 'string' ? v : undefined;
  };
  const seconds = (name: keyof typeof admissionFlagSpec) => {
    const v = flag(name);
    if (v === undefined) return undefined;
    if (!/^-?\d+$/.test(v.trim())) throw new UsageError(`--${name} must be an integer, not ${JSON.stringify(v)}`);
    return Number(v);
  };
  const notReady = seconds('default-not-ready-toleration-seconds');
  const unreachable = seconds('default-unreachable-toleration-seconds');
  const opts: AdmissionOptions = {
    enablePlugins: parsePluginList(flag('enable-admission-plugins')),
    disablePlugins: parsePluginList(flag('disable-admission-plugins')),
    ...(notReady !== undefined ? { defaultNotReadyTolerationSeconds: notReady } : {}),
    ...(unreachable !== undefined ? { defaultUnreachableTolerationSeconds: unreachable } : {}),
  };
  const errors = admissionOptionErrors(opts);
  if (errors.length > 0) throw new UsageError(admissionOptionsMessage(errors));
  return opts;
}

/** --authorization-mode, checked as kube-apiserver checks it (unknown, repeated or not yet built modes refused). */
function authorizationOf(flag: string | undefined): { modes: string[] } | undefined {
  if (flag === undefined) return undefined;
  try {
    return { modes: parseAuthorizationModes(flag) };
  } catch (err) {
    throw new UsageError(`--authorization-mode: ${(err as Error).message}`);
  }
}

/** `wheelhouse up`: the whole control plane in one process. */
export function upCommand(args: string[], out: (line: string) => void): Promise<number> {
  return serve(args, out, { help: upHelp, defaultBindAddress: '127.0.0.1', controllers: true });
}

/** `wheelhouse apiserver`: kube-apiserver alone, listening on all addresses by default as upstream does. */
export function apiserverCommand(args: string[], out: (line: string) => void): Promise<number> {
  return serve(args, out, { help: apiserverHelp, defaultBindAddress: '0.0.0.0' });
}

async function serve(
  args: string[],
  out: (line: string) => void,
  mode: { help: string; defaultBindAddress: string; controllers?: boolean },
): Promise<number> {
  const { values } = parseArgs({
    args: auditFlagArgs(args),
    options: {
      ...storageFlagSpec,
      ...admissionFlagSpec,
      ...admissionConfigFlagSpec,
      ...authenticationFlagSpec,
      ...auditFlagSpec,
      ...encryptionFlagSpec,
      ...authorizationWebhookFlagSpec,
      ...(mode.controllers ? controllerManagerFlagSpec : {}),
      ...(mode.controllers ? { 'scheduler-config': { type: 'string' }, ...kubeletFlagSpec } : {}),
      'secure-port': { type: 'string' },
      'bind-address': { type: 'string' },
      'service-cluster-ip-range': { type: 'string' },
      'service-node-port-range': { type: 'string' },
      'authorization-mode': { type: 'string' },
      v: { type: 'string', short: 'v' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    out(mode.help);
    return 0;
  }
  const storage = storageConfigOf(values);
  const compaction = compactionPolicyOf(values);
  const port = Number(values['secure-port'] ?? '6443');
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new UsageError(`--secure-port must be a port number, not ${values['secure-port']}`);
  const dataDir = dataDirOf(values);
  const admission = {
    ...admissionOptionsOf(values as Record<string, string | boolean | undefined>),
    ...admissionConfigOptionsOf(values),
  };
  const authorization = authorizationOf(values['authorization-mode'] as string | undefined);
  // Read before anything starts: a bad file stops the command with kube-apiserver's message.
  const encryption = encryptionOptionsOf(values);
  const authorizationWebhook = authorizationWebhookOptionsOf(values, authorization?.modes);
  const nodeOptions = mode.controllers
    ? await simKubeletOptionsOf(values as Record<string, string | boolean | undefined>)
    : undefined;
  // Several clusters may run on one machine: the kubelet endpoint takes a free port unless one is asked for.
  if (nodeOptions && values['kubelet-port'] === undefined) nodeOptions.kubeletPort = 0;
  // As kubeadm runs kube-controller-manager: --use-service-account-credentials, and the bootstrap token controllers
  // on beside the default set, unless the flags say otherwise.
  const controllers = mode.controllers
    ? controllerManagerOptionsOf(values as Record<string, string | undefined>, {
        ...DEFAULT_CONTROLLER_MANAGER_OPTIONS,
        controllers: ['*', 'bootstrapsigner', 'tokencleaner'],
        useServiceAccountCredentials: true,
      })
    : undefined;
  const log = createLogger({ component: 'wheelhouse', verbosity: Number(values.v ?? 0) });
  const cp = await startControlPlane({
    storage,
    dataDir,
    securePort: port,
    bindAddress: values['bind-address'] ?? mode.defaultBindAddress,
    ...(values['service-cluster-ip-range'] ? { serviceClusterIpRange: values['service-cluster-ip-range'] } : {}),
    ...(values['service-node-port-range'] ? { serviceNodePortRange: values['service-node-port-range'] } : {}),
    ...(compaction ? { compaction } : {}),
    admission: mode.controllers ? admission : standaloneAdmissionOptions(admission),
    authentication: authenticationOptionsOf(values),
    ...auditOptionsOf(values),
    ...encryption,
    ...(authorization ? { authorization: { ...authorization, ...authorizationWebhook } } : {}),
    ...(controllers ? { controllers } : {}),
    ...(nodeOptions ? { nodes: nodeOptions } : {}),
    ...(mode.controllers
      ? {
          scheduler: values['scheduler-config']
            ? // Loaded only here: the configuration's checks pull in every scheduler plugin.
              await (await import('../scheduler/config/load.js')).loadConfigurationFile(
                values['scheduler-config'] as string,
              )
            : true,
        }
      : {}),
    logger: log,
  });
  const where =
    storage.backend === 'sqlite'
      ? `sqlite (${join(dataDir, 'state.db')})`
      : storage.backend === 'etcd'
        ? `etcd (${storage.servers.join(',')})`
        : 'memory (nothing is kept after exit)';
  out(`wheelhouse: the API server is ready at ${cp.url}`);
  out(`  storage: ${where}, revision ${await cp.storage.currentRevision()}`);
  out(`  kubeconfig: ${cp.kubeconfig.path}`);
  if (cp.scheduler)
    out(`  kube-scheduler: profiles ${cp.scheduler.config.profiles.map((p) => p.schedulerName).join(', ')}`);
  if (cp.controllerManager) {
    const names = cp.controllerManager.enabledDescriptors().map((d) => d.name);
    out(`  kube-controller-manager: ${names.length} controllers (${names.join(', ')})`);
  }
  out('');
  out(`  export KUBECONFIG=${cp.kubeconfig.path}`);
  out('  kubectl get namespaces');
  out('');
  out('  Press Ctrl-C to stop.');
  await new Promise<void>((resolve) => {
    // The server's handles keep the process alive; a signal ends it.
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await cp.stop();
  out('wheelhouse: stopped');
  return 0;
}
