import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeTestCerts, type TestCerts } from './openssl-certs.js';

/**
 * Starts real etcd members (Debian's etcd-server package) on free loopback ports for tests and benchmarks, and
 * stops them by PID.
 */
export const ETCD_BINARY = process.env.WHEELHOUSE_ETCD ?? 'etcd';

/** Why etcd tests cannot run here, or undefined when they can. */
export function etcdUnavailableReason(): string | undefined {
  const probe = spawnSync(ETCD_BINARY, ['--version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) {
    return `etcd is not installed (install Debian's etcd-server package: apt-get install etcd-server)`;
  }
  return undefined;
}

/**
 * The node:test skip option for etcd tests: a visible reason when etcd is missing, or a thrown error instead when
 * WHEELHOUSE_REQUIRE_ETCD=1 says it must be there.
 */
export function etcdSkip(): string | false {
  const reason = etcdUnavailableReason();
  if (!reason) return false;
  if (process.env.WHEELHOUSE_REQUIRE_ETCD === '1') throw new Error(`WHEELHOUSE_REQUIRE_ETCD=1 but ${reason}`);
  process.stdout.write(`# SKIP etcd tests: ${reason}\n`);
  return reason;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

export interface EtcdMember {
  name: string;
  clientUrl: string;
  peerUrl: string;
  dataDir: string;
  process: ChildProcess | undefined;
}

export class EtcdCluster {
  private constructor(
    readonly members: EtcdMember[],
    private readonly root: string,
    private readonly token: string,
    /** Set when the cluster serves clients over TLS and requires client certificates. */
    readonly certs: TestCerts | undefined,
  ) {}

  /**
   * Starts size members that form one cluster and waits until every one answers /health. With tls, clients must
   * connect over https with a certificate signed by the cluster's test CA (etcd's --client-cert-auth).
   */
  static async start(size = 1, opts: { tls?: boolean } = {}): Promise<EtcdCluster> {
    // A port found free may be taken by another process before etcd binds it (tests run side by side): a member
    // that exits during start is most likely that, so the cluster is started afresh on other ports, twice at most.
    for (let attempt = 1; ; attempt++) {
      try {
        return await EtcdCluster.startOnce(size, opts);
      } catch (err) {
        if (attempt >= 3 || !/exited during start/.test(String(err))) throw err;
      }
    }
  }

  private static async startOnce(size: number, opts: { tls?: boolean }): Promise<EtcdCluster> {
    const root = mkdtempSync(join(tmpdir(), 'wheelhouse-etcd-'));
    const certs = opts.tls ? makeTestCerts(root) : undefined;
    // Two ports a member, none the same (a port just released may be handed out again at once).
    const ports = new Set<number>();
    while (ports.size < 2 * size) ports.add(await freePort());
    const [...picked] = ports;
    const members: EtcdMember[] = [];
    for (let i = 0; i < size; i++) {
      members.push({
        name: `m${i}`,
        clientUrl: `${certs ? 'https' : 'http'}://127.0.0.1:${picked[2 * i]}`,
        peerUrl: `http://127.0.0.1:${picked[2 * i + 1]}`,
        dataDir: join(root, `m${i}`),
        process: undefined,
      });
    }
    const cluster = new EtcdCluster(members, root, `wheelhouse-${process.pid}-${Date.now()}`, certs);
    try {
      for (const m of members) cluster.spawnMember(m);
      await Promise.all(members.map((m) => cluster.waitHealthy(m)));
    } catch (err) {
      await cluster.stop();
      throw err;
    }
    return cluster;
  }

  get clientUrls(): string[] {
    return this.members.map((m) => m.clientUrl);
  }

  /** Kills one member with SIGKILL and waits until its process has gone. */
  async kill(member: EtcdMember): Promise<void> {
    const child = member.process;
    member.process = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGKILL');
    await exited;
  }

  /** The member that is the raft leader now, by asking each live member's /metrics. */
  async leader(): Promise<EtcdMember> {
    for (let attempt = 0; attempt < 100; attempt++) {
      for (const m of this.members) {
        if (!m.process) continue;
        try {
          const text = await this.httpGet(`${m.clientUrl}/metrics`);
          if (/^etcd_server_is_leader 1$/m.test(text)) return m;
        } catch {
          // not answering yet
        }
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('no etcd leader found');
  }

  async stop(): Promise<void> {
    await Promise.all(this.members.map((m) => this.kill(m)));
    rmSync(this.root, { recursive: true, force: true });
  }

  private spawnMember(m: EtcdMember): void {
    const initialCluster = this.members.map((x) => `${x.name}=${x.peerUrl}`).join(',');
    const child = spawn(
      ETCD_BINARY,
      [
        `--name=${m.name}`,
        `--data-dir=${m.dataDir}`,
        `--listen-client-urls=${m.clientUrl}`,
        `--advertise-client-urls=${m.clientUrl}`,
        `--listen-peer-urls=${m.peerUrl}`,
        `--initial-advertise-peer-urls=${m.peerUrl}`,
        `--initial-cluster=${initialCluster}`,
        '--initial-cluster-state=new',
        `--initial-cluster-token=${this.token}`,
        '--heartbeat-interval=50',
        '--election-timeout=500',
        '--logger=zap',
        '--log-outputs=stderr',
        '--log-level=error',
        ...(this.certs
          ? [
              `--cert-file=${this.certs.serverCertFile}`,
              `--key-file=${this.certs.serverKeyFile}`,
              `--trusted-ca-file=${this.certs.caFile}`,
              '--client-cert-auth',
            ]
          : []),
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    child.stderr?.resume();
    m.process = child;
  }

  /** GET over http, or over https with the test client certificate. */
  private async httpGet(url: string): Promise<string> {
    if (!this.certs) return (await fetch(url)).text();
    const certs = this.certs;
    return new Promise((resolve, reject) => {
      const req = request(
        url,
        {
          ca: readFileSync(certs.caFile),
          cert: readFileSync(certs.clientCertFile),
          key: readFileSync(certs.clientKeyFile),
        },
        (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (d) => {
            body += d;
          });
          res.on('end', () => resolve(body));
        },
      );
      req.on('error', reject);
      req.end();
    });
  }

  private async waitHealthy(m: EtcdMember): Promise<void> {
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline) {
      if (!m.process || m.process.exitCode !== null) throw new Error(`etcd member ${m.name} exited during start`);
      try {
        const body = JSON.parse(await this.httpGet(`${m.clientUrl}/health`)) as { health?: string };
        if (body.health === 'true') return;
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`etcd member ${m.name} did not become healthy`);
  }
}
