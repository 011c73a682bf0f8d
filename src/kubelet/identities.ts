/**
 * Who the simulated kubelets act as when the process that starts them also starts the apiserver (startControlPlane,
 * `wheelhouse up`). Each node is a kubelet identity of its own, user `system:node:<name>` in group `system:nodes`,
 * as a real kubelet's client certificate names it, so that the Node authorizer and NodeRestriction govern what it
 * does: its Node, its Lease, the status and final deletion of its own pods, its events, and reads of the Secrets
 * and ConfigMaps its pods use. What no node identity may do is done by two add-on identities, each bound to a
 * ClusterRole of exactly what it needs (sim-rbac.ts): `system:wheelhouse:sim-kubelets` for the fleet's shared
 * informers (pods bound to any node, and Nodes: one watch for thousands of kubelets instead of one each), and
 * `system:wheelhouse:sim-local-provisioner` for the volume provisioner, as kind's local-path-provisioner runs under
 * its own ServiceAccount.
 *
 * Thousands of nodes stay cheap: every identity authenticates with a random bearer token the apiserver holds as an
 * in-memory static token, and all their clients share one HTTP/2 connection that carries no client certificate
 * (the apiserver tries client certificates before bearer tokens, as upstream does, so a connection with the admin
 * certificate would make every request the admin's). A node's client is a rate limit and a token over that
 * connection, with upstream's kubelet limits (50 qps, burst 100).
 */
import { randomBytes } from 'node:crypto';
import { DEFAULT_USER_AGENT, type KubeClient, TokenClientPool, userAgentFor } from '../client/rest.js';
import { ApiError } from '../client/types.js';
import { type Logger, silentLogger } from '../util/logger.js';

export const NODES_GROUP = 'system:nodes';
/** The user of the simulated kubelets' shared informers. */
export const SIM_KUBELETS_USER = 'system:wheelhouse:sim-kubelets';
/** The user of the provisioner of the simulated nodes' volumes (wheelhouse.dev/sim-local). */
export const SIM_LOCAL_PROVISIONER_USER = 'system:wheelhouse:sim-local-provisioner';

/** Upstream's kubelet defaults (--kube-api-qps, --kube-api-burst), per node. */
export const KUBELET_API_QPS = 50;
export const KUBELET_API_BURST = 100;

/** The user a kubelet of node `name` authenticates as (upstream's system:node:<nodeName>). */
export const nodeUserName = (name: string): string => `system:node:${name}`;

/** A user and the bearer token that names it. */
export interface SimIdentity {
  user: string;
  groups: string[];
  token: string;
}

/** Where the clients connect: the apiserver and the CA that signs its serving certificate (no client certificate). */
export interface SimConnection {
  server: string;
  caPem?: string;
  tlsServerName?: string;
  insecureSkipTlsVerify?: boolean;
}

const PVS = { group: '', version: 'v1', resource: 'persistentvolumes' };

const newToken = (): string => randomBytes(24).toString('base64url');

/** The identities of a set of simulated nodes and their add-ons, with fresh random tokens. */
export class SimNodeIdentities {
  readonly fleet: SimIdentity = { user: SIM_KUBELETS_USER, groups: [], token: newToken() };
  readonly provisioner: SimIdentity = { user: SIM_LOCAL_PROVISIONER_USER, groups: [], token: newToken() };
  private readonly nodes = new Map<string, SimIdentity>();

  constructor(names: Iterable<string>) {
    for (const name of names) {
      this.nodes.set(name, { user: nodeUserName(name), groups: [NODES_GROUP], token: newToken() });
    }
  }

  node(name: string): SimIdentity | undefined {
    return this.nodes.get(name);
  }

  nodeNames(): string[] {
    return [...this.nodes.keys()];
  }

  /** The apiserver's in-memory static tokens for them (AuthenticationOptions.staticTokens). */
  staticTokens(): { token: string; user: string; groups: string[] }[] {
    return [this.fleet, this.provisioner, ...this.nodes.values()].map(({ token, user, groups }) => ({
      token,
      user,
      groups: [...groups],
    }));
  }

  /** The clients of these identities, over one connection to `connection`. */
  clients(connection: SimConnection, opts: { logger?: Logger } = {}): SimNodeClients {
    return new SimNodeClients(this, connection, opts.logger ?? silentLogger);
  }
}

/** One client per identity, all over one HTTP/2 connection without a client certificate. */
export class SimNodeClients {
  /** The shared informers' client (system:wheelhouse:sim-kubelets). */
  readonly fleet: KubeClient;
  /** The volume provisioner's client (system:wheelhouse:sim-local-provisioner). */
  readonly provisioner: KubeClient;
  private readonly pool: TokenClientPool;
  private readonly nodeClients = new Map<string, KubeClient>();

  constructor(
    private readonly identities: SimNodeIdentities,
    connection: SimConnection,
    private readonly logger: Logger,
  ) {
    this.pool = new TokenClientPool(connection, logger);
    this.fleet = this.clientFor(identities.fleet);
    // The provisioner is wheelhouse's own add-on, not a kubelet: its writes keep wheelhouse's name.
    this.provisioner = this.clientFor(identities.provisioner, DEFAULT_USER_AGENT);
  }

  /** The client of node `name`'s kubelet; throws for a node these identities do not include. */
  node(name: string): KubeClient {
    let client = this.nodeClients.get(name);
    if (!client) {
      const identity = this.identities.node(name);
      if (!identity) throw new Error(`node "${name}" has no identity among the simulated nodes`);
      client = this.clientFor(identity);
      this.nodeClients.set(name, client);
    }
    return client;
  }

  /**
   * Resolves once the add-on identities' first reads (and the first node's) are no longer refused with 403: RBAC
   * objects just created take a moment to reach the authorizer, and an informer refused at start would wait out a
   * backoff. Any other answer ends the wait; after `timeoutMs` it gives up quietly (the informers retry anyway).
   */
  async waitUntilAuthorized(timeoutMs = 10_000): Promise<void> {
    const first = this.identities.nodeNames()[0];
    const checks: (() => Promise<unknown>)[] = [
      () => this.fleet.pods().list({ limit: 1, fieldSelector: 'spec.nodeName!=' }),
      () => this.fleet.nodes().list({ limit: 1 }),
      () => this.provisioner.resource(PVS).list({ limit: 1 }),
      ...(first === undefined ? [] : [() => this.node(first).nodes().get(first)]),
    ];
    const deadline = Date.now() + timeoutMs;
    for (const check of checks) {
      for (;;) {
        try {
          await check();
          break;
        } catch (err) {
          if (!(err instanceof ApiError && err.code === 403) || Date.now() > deadline) break;
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
  }

  /** Closes the shared connection (every client's requests and watches end). */
  close(): void {
    this.pool.close();
  }

  private clientFor(identity: SimIdentity, userAgent = userAgentFor('kubelet')): KubeClient {
    return this.pool.client({
      token: identity.token,
      userAgent,
      qps: KUBELET_API_QPS,
      burst: KUBELET_API_BURST,
      logger: this.logger,
    });
  }
}
