/**
 * wheelhouse as a library: start a whole control plane inside a Node process (for tests of controllers and
 * tools), or use the storage layer directly.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { embeddedAdmissionOptions } from './apiserver/admission/embedded-defaults.js';
import type { AdmissionOptions } from './apiserver/admission/options.js';
import { withNodeRestriction } from './apiserver/admission/plugins/node-restriction.js';
import { bootstrapCluster, buildRegistry, type WatchCacheOptions } from './apiserver/assemble.js';
import type { AuditOptions } from './apiserver/audit/auditor.js';
import type { AuthenticationOptions } from './apiserver/authn/options.js';
import { ensureServiceAccountKeyPair } from './apiserver/authn/serviceaccount/keys.js';
import { authorizationModesOf, DEFAULT_AUTHORIZATION_MODES } from './apiserver/authz/modes.js';
import type { WebhookAuthorizerOptions } from './apiserver/authz/webhook/webhook-authorizer.js';
import { ensureClusterInfo } from './apiserver/bootstrap/cluster-info.js';
import { ensurePki } from './apiserver/bootstrap/pki.js';
import { defaultComponentProbes, httpsHealthProbe, inProcessProbe } from './apiserver/component-status.js';
import type { EncryptionRule } from './apiserver/encryption/config.js';
import { encryptedStore } from './apiserver/encryption/open.js';
import { APIServer } from './apiserver/server.js';
import {
  buildKubeconfig,
  type Kubeconfig,
  kubeconfigToYaml,
  resolveKubeconfig,
  writeKubeconfig,
} from './client/kubeconfig.js';
import { KubeClient, userAgentFor } from './client/rest.js';
import type { ControllerManager } from './controllers/manager.js';
import { type ControllerManagerOptions, DEFAULT_CONTROLLER_MANAGER_OPTIONS } from './controllers/options.js';
import { type SimNodeClients, SimNodeIdentities } from './kubelet/identities.js';
import { simNodeNames } from './kubelet/node-names.js';
import type { SimKubeletsOptions } from './kubelet/sim.js';
import type { SimNodes } from './kubelet/sim-nodes.js';
import { ensureSimNodesRbac } from './kubelet/sim-rbac.js';
import type { KubeSchedulerConfiguration } from './scheduler/config/types.js';
import type { Scheduler } from './scheduler/scheduler.js';
import { type CompactionPolicy, Compactor } from './storage/compactor.js';
import { openStore, type StorageConfig } from './storage/open.js';
import type { Store } from './storage/types.js';
import { type Logger, silentLogger } from './util/logger.js';

export type { AdmissionOptions } from './apiserver/admission/options.js';
export type { WatchCacheOptions } from './apiserver/assemble.js';
export type { AuthenticationOptions } from './apiserver/authn/options.js';
export { SharedInformerFactory } from './client/cache/factory.js';
export { Lister } from './client/cache/listers.js';
export { SharedIndexInformer } from './client/cache/shared-informer.js';
export { DeletedFinalStateUnknown, metaNamespaceKeyFunc, splitMetaNamespaceKey } from './client/cache/store.js';
export { serverPreferredResources, serverResources } from './client/discovery.js';
export { EventBroadcaster, type EventRecorder } from './client/events/broadcaster.js';
export { loadKubeconfig } from './client/kubeconfig.js';
export { LeaderElector } from './client/leader-election.js';
export { KubeClient, type RestConfig } from './client/rest.js';
export {
  ApiError,
  type DeleteOptions,
  type GroupVersionResource,
  isAlreadyExists,
  isConflict,
  isGone,
  isNotFound,
  type KubeObject,
  type ListerWatcher,
  type ListOptions as ClientListOptions,
  type ObjectList,
  type ObjectMeta,
  type PatchType,
  type ResourceClient,
  type WatchEvent as ClientWatchEvent,
  type WatchStream,
  type WriteOptions,
} from './client/types.js';
export { createRateLimitingQueue, RateLimitingQueue } from './client/workqueue/rate-limiting.js';
export type { ControllerManager } from './controllers/manager.js';
export type { ControllerManagerOptions } from './controllers/options.js';
export type { KubeSchedulerConfiguration } from './scheduler/config/types.js';
export type { Scheduler } from './scheduler/scheduler.js';
export { type CompactionPolicy, Compactor, DEFAULT_COMPACTION } from './storage/compactor.js';
export type { EtcdStoreOptions } from './storage/etcd/store.js';
export { MemoryStore } from './storage/memory.js';
export { openStore, type StorageConfig } from './storage/open.js';
export { inspectSnapshot, restoreSnapshot, type SnapshotInfo, saveSnapshot } from './storage/sqlite/snapshot.js';
export { SqliteStore, type SqliteStoreOptions } from './storage/sqlite/store.js';
export * from './storage/types.js';

/** The file in the data directory that holds the in-process scheduler's secure URL. */
export const SCHEDULER_URL_FILE = 'scheduler.url';

export interface ControlPlaneOptions {
  /** 'memory' (default), 'sqlite' (in dataDir) or a full storage configuration. */
  storage?: 'memory' | 'sqlite' | StorageConfig;
  /** Where the PKI, kubeconfig and (for sqlite) state live; a fresh temporary directory by default. */
  dataDir?: string;
  /** --bind-address; 127.0.0.1 by default. */
  bindAddress?: string;
  /** --secure-port; 0 (a free port) by default. */
  securePort?: number;
  /** --service-cluster-ip-range (default 10.96.0.0/12). */
  serviceClusterIpRange?: string;
  /** --service-node-port-range (default 30000-32767). */
  serviceNodePortRange?: string;
  /**
   * kube-apiserver's admission flags: --enable-admission-plugins, --disable-admission-plugins,
   * --default-not-ready-toleration-seconds, --default-unreachable-toleration-seconds (upstream's defaults when
   * absent). Unknown plugin names make startControlPlane throw with upstream's message. Without `controllers`,
   * ServiceAccount admission is off unless named here (nothing would make the `default` ServiceAccounts), as in
   * upstream's integration-test apiservers.
   */
  admission?: AdmissionOptions;
  /**
   * kube-apiserver's authentication flags (--anonymous-auth, --token-auth-file, --service-account-key-file,
   * --service-account-signing-key-file, --service-account-issuer, --api-audiences). Without a service-account key
   * flag, the PKI directory's sa.key/sa.pub (an ECDSA pair made the first time, as kubeadm names them) are used.
   */
  authentication?: AuthenticationOptions;
  /** Audit: a policy (file or object) and a log path (`-` for stdout), as --audit-policy-file/--audit-log-*. */
  audit?: AuditOptions;
  /** --encryption-provider-config: an EncryptionConfiguration file, or its rules already parsed. */
  encryptionProviderConfig?: string | EncryptionRule[];
  /**
   * kube-apiserver's --authorization-mode: a list of AlwaysAllow, AlwaysDeny, Node, RBAC, Webhook (with `webhook`,
   * the --authorization-webhook-* flags). Undefined: Node,RBAC, as kubeadm sets it (upstream's flag default is
   * AlwaysAllow; pass `{ modes: ['AlwaysAllow'] }` for that). system:masters is always allowed, ahead of the modes.
   */
  authorization?: { modes: string[]; webhook?: WebhookAuthorizerOptions };
  /** How often to compact storage history and how much to keep (undefined: never compact). */
  compaction?: CompactionPolicy;
  /**
   * The bounds of each resource's watch-cache window of recent events (default 10,000 to 102,400), custom
   * resources' included: a watch from an older resourceVersion than the window holds is 410 Expired.
   */
  watchCache?: WatchCacheOptions;
  /**
   * Runs kube-controller-manager in this process too (as `wheelhouse up` does), with its own identity
   * (system:kube-controller-manager) and kubeconfig; `true` for upstream's defaults, or flag values. As kubeadm sets
   * it, `useServiceAccountCredentials` is on unless turned off here: each controller acts as its ServiceAccount
   * kube-system/<name>, with the bootstrap role system:controller:<name>. Off by default: tests of a controller
   * usually want only the apiserver.
   */
  controllers?: boolean | Partial<ControllerManagerOptions>;
  /**
   * Runs kube-scheduler in this process too (as `wheelhouse up` does), with its own identity
   * (system:kube-scheduler); `true` for upstream's default profile, or a KubeSchedulerConfiguration.
   */
  scheduler?: boolean | KubeSchedulerConfiguration;
  /**
   * Simulated nodes (kubelets with the `sim` runtime) run in this process: how many, or SimKubelets options
   * (node groups, lifecycles, …). Their kubelet endpoint (logs, exec, port-forward) listens on a free loopback port.
   * Each kubelet acts as its own node, `system:node:<name>` in `system:nodes` (a random token per node, held by the
   * apiserver as a static token), so the Node authorizer and NodeRestriction govern it; their shared informers and
   * their volume provisioner act as `system:wheelhouse:sim-kubelets` and `system:wheelhouse:sim-local-provisioner`,
   * with ClusterRoles created when the nodes start (kubelet/identities.ts, kubelet/sim-rbac.ts).
   */
  nodes?: number | Omit<SimKubeletsOptions, 'client' | 'nodeClient'>;
  logger?: Logger;
}

export interface ControlPlane {
  /** https://127.0.0.1:<port> */
  url: string;
  dataDir: string;
  /** The admin kubeconfig: where it was written, and its contents. */
  kubeconfig: { path: string; config: Kubeconfig; yaml: string };
  storage: Store;
  /** A client of this control plane as its admin, with no client-side rate limit; closed by stop(). */
  client: KubeClient;
  /** The controller manager, when `controllers` asked for one. */
  controllerManager?: ControllerManager;
  /** The scheduler, when `scheduler` asked for one. */
  scheduler?: Scheduler;
  /** The simulated nodes, when `nodes` asked for some. */
  nodes?: SimNodes;
  stop(): Promise<void>;
}

/**
 * Starts an apiserver over its own storage on a free loopback port, with its own PKI and an admin kubeconfig. Many
 * can run in one process. The same HTTPS server that kubectl talks to is what tests talk to.
 */
export async function startControlPlane(opts: ControlPlaneOptions = {}): Promise<ControlPlane> {
  const ownDir = opts.dataDir === undefined;
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'wheelhouse-'));
  mkdirSync(dataDir, { recursive: true });
  const log = opts.logger ?? silentLogger;
  const config: StorageConfig =
    opts.storage === undefined || opts.storage === 'memory'
      ? { backend: 'memory' }
      : opts.storage === 'sqlite'
        ? { backend: 'sqlite', dataDir }
        : opts.storage;
  const storage = encryptedStore(await openStore(config, log.child('storage')), opts.encryptionProviderConfig);
  const bindAddress = opts.bindAddress ?? '127.0.0.1';
  try {
    const pki = await ensurePki(join(dataDir, 'pki'), {
      ...(bindAddress === '0.0.0.0' ? {} : { extraSans: [bindAddress] }),
      ...(opts.serviceClusterIpRange ? { serviceClusterIpRange: opts.serviceClusterIpRange } : {}),
    });
    const admission = withNodeRestriction(embeddedAdmissionOptions(opts.admission, Boolean(opts.controllers)));
    const registry = buildRegistry(storage, log, {
      ...(opts.serviceClusterIpRange ? { serviceClusterIPRange: opts.serviceClusterIpRange } : {}),
      ...(opts.serviceNodePortRange ? { serviceNodePortRange: opts.serviceNodePortRange } : {}),
      ...(admission ? { admission } : {}),
      ...(opts.watchCache ? { watchCache: opts.watchCache } : {}),
    });
    const authentication: AuthenticationOptions = { ...opts.authentication };
    const simNodeOpts =
      opts.nodes === undefined || opts.nodes === 0
        ? undefined
        : typeof opts.nodes === 'number'
          ? { nodes: opts.nodes }
          : opts.nodes;
    // The simulated nodes' identities: a token for each node and each of their add-ons, known to the apiserver.
    const simIdentities = simNodeOpts ? new SimNodeIdentities(simNodeNames(simNodeOpts)) : undefined;
    if (simIdentities) {
      authentication.staticTokens = [...(authentication.staticTokens ?? []), ...simIdentities.staticTokens()];
    }
    if (!authentication.serviceAccountSigningKeyFile && !authentication.serviceAccountKeyFiles?.length) {
      const sa = ensureServiceAccountKeyPair(join(dataDir, 'pki'));
      authentication.serviceAccountSigningKeyFile = sa.keyFile;
      authentication.serviceAccountKeyFiles = [sa.pubFile];
    }
    // --client-ca-file's bundle is trusted besides the cluster CA.
    const clientCaPem = authentication.clientCAFile
      ? `${pki.ca.certPem.trimEnd()}\n${await readFile(authentication.clientCAFile, 'utf8')}`
      : pki.ca.certPem;
    // Set once started below; componentstatuses asks them for their health.
    let controllerManager: ControllerManager | undefined;
    let scheduler: Scheduler | undefined;
    const server = new APIServer({
      storage,
      registry,
      authentication,
      ...(opts.authorization ? { authorizationModes: authorizationModesOf(opts.authorization) } : {}),
      ...(opts.authorization?.webhook ? { authorizationWebhook: opts.authorization.webhook } : {}),
      tls: {
        certPem: pki.apiserver.certPem,
        keyPem: pki.apiserver.keyPem,
        clientCaPem,
      },
      bindAddress,
      securePort: opts.securePort ?? 0,
      logger: log.child('apiserver'),
      ...(opts.audit ? { audit: opts.audit } : {}),
      // The components this process runs answer for themselves; the others are looked for where upstream looks.
      componentProbes: () =>
        defaultComponentProbes(storage).map((probe) => {
          if (probe.name === 'scheduler' && scheduler?.url)
            return httpsHealthProbe('scheduler', `${scheduler.url}/healthz`);
          if (probe.name === 'controller-manager' && controllerManager) {
            const cm = controllerManager;
            return inProcessProbe('controller-manager', () => cm.healthChecks());
          }
          return probe;
        }),
    });
    const url = await server.start();
    await bootstrapCluster(registry, {
      finished: (hook) => server.finishHook(hook),
      advertiseAddress: bindAddress === '0.0.0.0' ? '127.0.0.1' : bindAddress,
      securePort: Number(new URL(url).port),
      ...(opts.serviceClusterIpRange ? { serviceClusterIpRange: opts.serviceClusterIpRange } : {}),
    });
    // A whole cluster, as kubeadm init leaves one: cluster-info in kube-public for joining nodes.
    if (opts.controllers) await ensureClusterInfo(registry, url, pki.ca.certPem);
    const compactor = opts.compaction
      ? new Compactor(storage, opts.compaction, undefined, log.child('compactor'))
      : undefined;
    compactor?.start();
    const kubeconfig = buildKubeconfig({
      server: url,
      caPem: pki.ca.certPem,
      certPem: pki.admin.certPem,
      keyPem: pki.admin.keyPem,
    });
    const kubeconfigPath = join(dataDir, 'kubeconfig');
    await writeKubeconfig(kubeconfigPath, kubeconfig);
    const client = new KubeClient({
      ...(await resolveKubeconfig(kubeconfig)),
      qps: Number.POSITIVE_INFINITY,
      logger: log.child('client'),
    });
    /** A component's kubeconfig (its own certificate), written to the data dir, and a client from it. */
    const componentClient = async (
      pair: { certPem: string; keyPem: string },
      userName: string,
      c: { file: string; program: string; qps: number; burst: number; logger: Logger },
    ): Promise<KubeClient> => {
      const kc = buildKubeconfig({ server: url, caPem: pki.ca.certPem, ...pair, userName });
      await writeKubeconfig(join(dataDir, c.file), kc);
      return new KubeClient({
        ...(await resolveKubeconfig(kc)),
        userAgent: userAgentFor(c.program),
        qps: c.qps,
        burst: c.burst,
        logger: c.logger,
      });
    };
    let controllerClient: KubeClient | undefined;
    if (opts.controllers) {
      const options: ControllerManagerOptions = {
        ...DEFAULT_CONTROLLER_MANAGER_OPTIONS,
        // As kubeadm runs kube-controller-manager: every controller with its own ServiceAccount.
        useServiceAccountCredentials: true,
        ...(opts.controllers === true ? {} : opts.controllers),
      };
      options.rootCaPem ??= pki.ca.certPem;
      // As kubeadm configures kube-controller-manager: the cluster CA signs CSRs, sa.key signs legacy tokens.
      options.clusterSigning ??= {
        kubeApiserverClient: pki.ca,
        kubeletClient: pki.ca,
        kubeletServing: pki.ca,
        legacyUnknown: pki.ca,
      };
      if (options.serviceAccountPrivateKeyPem === undefined && authentication.serviceAccountSigningKeyFile) {
        options.serviceAccountPrivateKeyPem = await readFile(authentication.serviceAccountSigningKeyFile, 'utf8');
      }
      controllerClient = await componentClient(pki.controllerManager, 'system:kube-controller-manager', {
        file: 'controller-manager.kubeconfig',
        program: 'kube-controller-manager',
        qps: options.kubeApiQps,
        burst: options.kubeApiBurst,
        logger: log.child('kube-controller-manager/client'),
      });
      // Loaded only when asked for: the apiserver alone starts faster without them.
      const [{ ControllerManager }, { CONTROLLERS }] = await Promise.all([
        import('./controllers/manager.js'),
        import('./controllers/registry.js'),
      ]);
      controllerManager = new ControllerManager({
        client: controllerClient,
        descriptors: CONTROLLERS,
        options,
        logger: log.child('kube-controller-manager'),
      });
      controllerManager.start();
    }
    let schedulerClient: KubeClient | undefined;
    if (opts.scheduler) {
      const [{ Scheduler }, { IN_TREE_PLUGINS }, { defaultConfiguration }] = await Promise.all([
        import('./scheduler/scheduler.js'),
        import('./scheduler/plugins/registry.js'),
        import('./scheduler/config/defaults.js'),
      ]);
      const config = opts.scheduler === true ? defaultConfiguration() : opts.scheduler;
      schedulerClient = await componentClient(pki.scheduler, 'system:kube-scheduler', {
        file: 'scheduler.kubeconfig',
        program: 'kube-scheduler',
        qps: config.clientConnection.qps,
        burst: config.clientConnection.burst,
        logger: log.child('kube-scheduler/client'),
      });
      scheduler = new Scheduler({
        client: schedulerClient,
        registry: IN_TREE_PLUGINS,
        config,
        logger: log.child('kube-scheduler'),
        // Its secure port (health, metrics, /debug/verdicts) on a free loopback port, written down for
        // `wheelhouse explain` and the dashboard.
        secureServing: { port: 0, bindAddress: '127.0.0.1' },
      });
      await scheduler.start();
      if (scheduler.url) await writeFile(join(dataDir, SCHEDULER_URL_FILE), `${scheduler.url}\n`);
    }
    let nodes: SimNodes | undefined;
    let simClients: SimNodeClients | undefined;
    if (simNodeOpts && simIdentities) {
      // The add-on's RBAC first (a cluster with RBAC but not the Node mode also gets system:node bound to
      // system:nodes), then clients of every identity over one connection without a client certificate.
      const modes = opts.authorization?.modes ?? DEFAULT_AUTHORIZATION_MODES;
      await ensureSimNodesRbac(client, { bindNodeRole: modes.includes('RBAC') && !modes.includes('Node') });
      const clients = simIdentities.clients(
        { server: url, caPem: pki.ca.certPem },
        { logger: log.child('kubelet/client') },
      );
      simClients = clients;
      await clients.waitUntilAuthorized();
      const { startSimNodes } = await import('./kubelet/sim-nodes.js');
      nodes = await startSimNodes({
        ...simNodeOpts,
        client: clients.fleet,
        nodeClient: (name) => clients.node(name),
        provisionerClient: clients.provisioner,
        logger: log.child('kubelet'),
      });
      // The simulated nodes bring their provisioner; its class is the cluster's default (kind's `standard`).
      const { ensureDefaultStorageClass } = await import('./kubelet/provisioner/storage-class.js');
      await ensureDefaultStorageClass(client);
    }
    return {
      url,
      dataDir,
      kubeconfig: { path: kubeconfigPath, config: kubeconfig, yaml: kubeconfigToYaml(kubeconfig) },
      storage,
      client,
      ...(controllerManager ? { controllerManager } : {}),
      ...(scheduler ? { scheduler } : {}),
      ...(nodes ? { nodes } : {}),
      async stop() {
        await nodes?.stop();
        simClients?.close();
        await scheduler?.stop();
        schedulerClient?.close();
        await controllerManager?.stop();
        controllerClient?.close();
        client.close();
        compactor?.stop();
        await server.stop();
        await storage.close();
        if (ownDir) rmSync(dataDir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await storage.close();
    if (ownDir) rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
}
