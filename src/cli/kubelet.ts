import { readFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import { parseArgs } from 'node:util';
import { parse as parseYaml } from 'yaml';
import { loadKubeconfig } from '../client/kubeconfig.js';
import { KubeClient, userAgentFor } from '../client/rest.js';
import { checkNodeConfig } from '../kubelet/nodestatus/node-config.js';
import { Lifecycles } from '../kubelet/runtimes/sim/lifecycle-config.js';
import { DEFAULT_POD_DNS } from '../kubelet/server/pod-dns.js';
import {
  DEFAULT_EVENT_BURST,
  DEFAULT_EVENT_QPS,
  DEFAULT_KUBELET_PORT,
  DEFAULT_NODE_NAME_PREFIX,
  type SimKubeletsOptions,
} from '../kubelet/sim.js';
import { parseDuration } from '../util/duration.js';
import { createLogger } from '../util/logger.js';
import { UsageError } from './storage-flags.js';

export const kubeletHelp = `Usage: wheelhouse kubelet --sim --kubeconfig FILE [flags]

Runs simulated kubelets (runtime sim) in this process, against any apiserver: each registers a Node, renews its
Lease in kube-node-lease, reports node status, and runs the pods bound to it through their simulated lifecycles.
Every node of the process, and their volume provisioner, acts as the --kubeconfig's user: one identity for all,
which must be allowed what they all do (e.g. system:masters, or cluster-admin). The nodes of wheelhouse up each act
as their own system:node:<name>, with tokens only that process's apiserver knows.

Flags:
  --sim                                   use the simulated runtime (the only one so far)
  --kubeconfig FILE                       how to reach the apiserver (the kubelets act as its user)
  --nodes N                               how many nodes (default 3), named <prefix>1 … <prefix>N
  --node-name-prefix P                    (default node-)
  --lifecycle-config FILE                 YAML: defaults and rules choosing pods' lifecycles by label selector
  --node-config FILE                      YAML: capacity, labels, taints, zones and node groups
  --kubelet-port N                        port advertised in daemonEndpoints (default 10250)
  --cluster-dns IP[,IP]                   the DNS Service in pods' resolv.conf (default 10.96.0.10, as kubeadm)
  --cluster-domain D                      the cluster's DNS domain (default cluster.local, as kubeadm)
  --node-status-update-frequency D        (default 10s)   --node-lease-duration-seconds N (default 40)
  --kube-api-qps N / --kube-api-burst N   per node (default 50 / 100), shared by all nodes
  --event-qps N / --event-burst N         each node's limit on event writes (default 50 / 100; 0: 5 / 10)
  -v N                                    log verbosity

Lifecycles (annotation sim.wheelhouse.dev/lifecycle, or the config file): run (default for restartPolicy Always),
complete (default for Never/OnFailure; exit 0 after 1 s), fail, crashloop, never-ready; also the annotations
sim.wheelhouse.dev/exit-code, /run-seconds, /start-seconds, /stop-seconds and /logs.
Stop a node from another shell with: wheelhouse node stop NAME (and start it again with wheelhouse node start NAME).`;

/** The flags of the simulated kubelets, shared with wheelhouse up. */
export const kubeletFlagSpec = {
  nodes: { type: 'string' },
  'node-name-prefix': { type: 'string' },
  'lifecycle-config': { type: 'string' },
  'node-config': { type: 'string' },
  'kubelet-port': { type: 'string' },
  'cluster-dns': { type: 'string' },
  'cluster-domain': { type: 'string' },
  'node-status-update-frequency': { type: 'string' },
  'node-lease-duration-seconds': { type: 'string' },
  'event-qps': { type: 'string' },
  'event-burst': { type: 'string' },
} as const;

function count(flag: string, raw: string | undefined, fallback: number, min = 0): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isInteger(n) || n < min) {
    throw new UsageError(`invalid argument "${raw}" for "--${flag}" flag: must be a whole number ≥ ${min}`);
  }
  return n;
}

/** SimKubelets options (all but the client) from the flags; reads the config files they name. */
export async function simKubeletOptionsOf(
  values: Record<string, string | boolean | undefined>,
): Promise<Omit<SimKubeletsOptions, 'client'>> {
  const str = (k: string) => (typeof values[k] === 'string' ? (values[k] as string) : undefined);
  const opts: Omit<SimKubeletsOptions, 'client'> = {
    nodes: count('nodes', str('nodes'), 3),
    namePrefix: str('node-name-prefix') ?? DEFAULT_NODE_NAME_PREFIX,
    kubeletPort: count('kubelet-port', str('kubelet-port'), DEFAULT_KUBELET_PORT, 1),
  };
  const clusterDNS = str('cluster-dns');
  const clusterDomain = str('cluster-domain');
  if (clusterDNS !== undefined || clusterDomain !== undefined) {
    opts.podDNS = {
      // As the kubelet, addresses that do not parse are left out.
      clusterDNS:
        clusterDNS === undefined
          ? DEFAULT_POD_DNS.clusterDNS
          : clusterDNS
              .split(',')
              .map((ip) => ip.trim())
              .filter((ip) => isIP(ip) !== 0),
      clusterDomain: clusterDomain ?? DEFAULT_POD_DNS.clusterDomain,
    };
  }
  const lifecycleFile = str('lifecycle-config');
  if (lifecycleFile) {
    try {
      opts.lifecycles = Lifecycles.parse(await readFile(lifecycleFile, 'utf8'));
    } catch (err) {
      throw new UsageError(`--lifecycle-config ${lifecycleFile}: ${(err as Error).message}`);
    }
  }
  const nodeFile = str('node-config');
  if (nodeFile) {
    try {
      opts.nodeConfig = checkNodeConfig(parseYaml(await readFile(nodeFile, 'utf8')));
    } catch (err) {
      throw new UsageError(`--node-config ${nodeFile}: ${(err as Error).message}`);
    }
  }
  const frequency = str('node-status-update-frequency');
  if (frequency !== undefined) {
    try {
      opts.nodeStatusUpdateFrequencyMs = parseDuration(frequency);
    } catch {
      throw new UsageError(
        `invalid argument "${frequency}" for "--node-status-update-frequency" flag: time: invalid duration "${frequency}"`,
      );
    }
  }
  // 0 leaves client-go's defaults; a negative limit is refused as upstream's configuration validation refuses it.
  const eventLimit = (flag: string, field: string, fallback: number) => {
    const raw = str(flag);
    if (raw === undefined) return fallback;
    const n = count(flag, raw.trim().startsWith('-') ? raw.trim().slice(1) : raw, fallback);
    if (raw.trim().startsWith('-') && n !== 0) {
      throw new UsageError(`invalid configuration: ${field} (--${flag}) -${n} must not be a negative number`);
    }
    return n;
  };
  opts.eventQps = eventLimit('event-qps', 'eventRecordQPS', DEFAULT_EVENT_QPS);
  opts.eventBurst = eventLimit('event-burst', 'eventBurst', DEFAULT_EVENT_BURST);
  const lease = str('node-lease-duration-seconds');
  if (lease !== undefined) opts.leaseDurationSeconds = count('node-lease-duration-seconds', lease, 40, 1);
  return opts;
}

/** `wheelhouse kubelet --sim`: simulated kubelets against an apiserver, API clients like any other. */
export async function kubeletCommand(args: string[], out: (line: string) => void): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      ...kubeletFlagSpec,
      sim: { type: 'boolean' },
      kubeconfig: { type: 'string' },
      'kube-api-qps': { type: 'string' },
      'kube-api-burst': { type: 'string' },
      v: { type: 'string', short: 'v' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    out(kubeletHelp);
    return 0;
  }
  if (!values.sim) throw new UsageError('only simulated nodes are supported so far: pass --sim');
  const options = await simKubeletOptionsOf(values);
  const nodes = options.nodes as number;
  const qps = Number(values['kube-api-qps'] ?? '50');
  const burst = Number(values['kube-api-burst'] ?? '100');
  if (!Number.isFinite(qps) || qps <= 0)
    throw new UsageError(`invalid argument "${values['kube-api-qps']}" for "--kube-api-qps" flag`);
  if (!Number.isFinite(burst) || burst <= 0)
    throw new UsageError(`invalid argument "${values['kube-api-burst']}" for "--kube-api-burst" flag`);
  const log = createLogger({ component: 'kubelet', verbosity: Number(values.v ?? 0) });
  const connection = await loadKubeconfig(values.kubeconfig ? { kubeconfigPath: values.kubeconfig } : {});
  // Each upstream kubelet has its own client, identity and limits; here they share one (the kubeconfig's user, for
  // every node: tokens for system:node:<name> identities exist only inside `wheelhouse up`'s apiserver), with the
  // sum of their limits.
  const client = new KubeClient({
    ...connection,
    userAgent: userAgentFor('kubelet'),
    qps: qps * Math.max(1, nodes),
    burst: burst * Math.max(1, nodes),
    logger: log.child('client'),
  });
  out(`wheelhouse: starting ${nodes} simulated kubelet(s) against ${connection.server}`);
  const { startSimNodes } = await import('../kubelet/sim-nodes.js');
  const sim = await startSimNodes({ ...options, client, logger: log });
  const kubelets = sim.kubelets;
  out(`  kubelet endpoint (logs, exec, port-forward): https://127.0.0.1:${sim.port}`);
  const names = kubelets.nodeNames();
  out(`  nodes: ${names.length > 6 ? `${names.slice(0, 3).join(', ')} … ${names.at(-1)}` : names.join(', ')}`);
  out('  Press Ctrl-C to stop.');
  await new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  await sim.stop();
  client.close();
  out('wheelhouse: stopped');
  return 0;
}
