// kube-controller-manager benchmark: the compiled `wheelhouse apiserver` (sqlite) and `wheelhouse controller-manager`
// as two child processes, driven over real HTTPS.
// - A Deployment scaled 0 → 10,000 replicas: pods created per second through the API (counted by a watch), and
//   the time until the ReplicaSet's status says 10,000 replicas.
// - A namespace holding 10,000 ConfigMaps deleted: the time until the namespace is gone.
// - A DaemonSet over 5000 simulated nodes, placed by kube-scheduler: seconds until every pod is Running
//   (`daemonSet5000Sec`; --quick: 500 nodes).
// - 1000 Jobs of 10 completions on simulated kubelets: job completions per second (`jobCompletionsPerSec`).
// Prints one JSON object as its last line. `--quick` uses 2,000 of each and runs in under a minute;
// `--only=deployment,namespace,daemonset,jobs` runs only the parts named; `--cpu-prof=DIR` writes a CPU profile of
// each child process there; `--request-counts` logs the apiserver's request counts after the Jobs;
// `--job-syncs=N` sets the controller manager's --concurrent-job-syncs (default here 50; upstream's default is 5).
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parse as parseYaml } from 'yaml';
import { credentialsFromKubeconfig, Http2Client } from './http2-client.js';
import { procCpuSeconds, round } from './stats.js';

const quick = process.argv.includes('--quick');
const PARTS = ['deployment', 'namespace', 'daemonset', 'jobs'] as const;
const only = process.argv
  .find((a) => a.startsWith('--only='))
  ?.slice('--only='.length)
  .split(',');
const unknownPart = only?.find((p) => !(PARTS as readonly string[]).includes(p));
if (unknownPart) throw new Error(`--only: no part "${unknownPart}" (parts: ${PARTS.join(', ')})`);
const runs = (part: (typeof PARTS)[number]) => !only || only.includes(part);
const cpuProfDir = process.argv.find((a) => a.startsWith('--cpu-prof='))?.slice('--cpu-prof='.length);
/** `--request-counts`: log the apiserver's request counts once the Jobs are complete. */
const requestCounts = process.argv.includes('--request-counts');
/** The running children by command, for their CPU use. */
const children = new Map<string, ChildProcess>();
/** CPU seconds each child has used so far. */
const childCpu = () => new Map([...children].map(([name, c]) => [name, procCpuSeconds(c.pid as number)]));
/** CPU milliseconds each child used since `before`, per unit of work. */
function cpuMsPer(before: Map<string, number>, units: number): string {
  const after = childCpu();
  return [...after]
    .map(([name, s]) => `${name} ${round(((s - (before.get(name) ?? 0)) * 1000) / units, 2)}`)
    .join(', ');
}
const REPLICAS = quick ? 2000 : 10_000;
const OBJECTS = quick ? 2000 : 10_000;
const QPS = 5000;
/**
 * The controller manager's --concurrent-job-syncs: how many Jobs it syncs at once. Upstream's default, 5, leaves a
 * Job controller waiting on API round trips, not on CPU; a user running thousands of Jobs raises it, as this
 * benchmark raises the client QPS. The JSON line says which value ran.
 */
const JOB_SYNCS = Number(process.argv.find((a) => a.startsWith('--job-syncs='))?.slice('--job-syncs='.length) ?? 50);
const root = join(import.meta.dirname, '..');
const log = (msg: string) => process.stderr.write(`${msg}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A port free on loopback right now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Spawns a compiled wheelhouse command and waits for its "Press Ctrl-C" line; the URL it printed, if any. Simulated
 * kubelets get a free port for their endpoint, as 10250 may be taken on a shared machine.
 */
async function spawnCommand(args: string[]): Promise<{ child: ChildProcess; url: string }> {
  if (args[0] === 'kubelet' && !args.includes('--kubelet-port')) args.push('--kubelet-port', String(await freePort()));
  const child = spawn(
    process.execPath,
    [
      ...(cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${cpuProfDir}`] : []),
      join(root, 'bin', 'wheelhouse.mjs'),
      ...args,
    ],
    { env: { ...process.env, WHEELHOUSE_COMPILED: '1' }, stdio: ['ignore', 'pipe', 'ignore'] },
  );
  children.set(args[0] as string, child);
  child.once('exit', () => children.delete(args[0] as string));
  let out = '';
  child.stdout?.on('data', (d) => {
    out += d;
  });
  for (;;) {
    if (out.includes('Press Ctrl-C')) return { child, url: /ready at (https:\/\/[\d.]+:\d+)/.exec(out)?.[1] ?? '' };
    if (child.exitCode !== null) throw new Error(`wheelhouse ${args[0]} exited: ${out}`);
    await sleep(5);
  }
}

/**
 * kube-apiserver and kube-controller-manager as two processes (no scheduler or kubelets, so nothing else works on
 * the pods), the controller manager's client limits raised to --kube-api-qps.
 */
async function startUp(dataDir: string): Promise<{ children: ChildProcess[]; url: string }> {
  const apiserver = await spawnCommand([
    'apiserver',
    '--data-dir',
    dataDir,
    '--secure-port',
    '0',
    '--bind-address',
    '127.0.0.1',
  ]);
  const kcm = await spawnCommand([
    'controller-manager',
    '--kubeconfig',
    join(dataDir, 'kubeconfig'),
    '--secure-port',
    '0',
    `--kube-api-qps=${QPS}`,
    `--kube-api-burst=${QPS * 2}`,
    `--concurrent-job-syncs=${JOB_SYNCS}`,
  ]);
  return { children: [kcm.child, apiserver.child], url: apiserver.url };
}

async function json(c: Http2Client, method: string, path: string, body?: unknown, headers?: Record<string, string>) {
  const res = await c.request(method, path, body, headers);
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.text.slice(0, 300)}`);
  return JSON.parse(res.text);
}

/**
 * 1000 Jobs (--quick: 100) of 10 completions each, run by simulated kubelets (`wheelhouse kubelet --sim`, a third
 * process) whose pods complete at once; the Jobs' templates bind their pods to the nodes round-robin, as there is
 * no scheduler. Answers completions per second: all pods counted in the Jobs' status.succeeded over the time until
 * the last Job's Complete condition, as a watch of the Jobs sees them.
 */
async function jobCompletionsPerSec(admin: Http2Client, dataDir: string): Promise<number> {
  const JOBS = quick ? 100 : 1000;
  const COMPLETIONS = 10;
  const NODES = 10;
  log(`${JOBS} Jobs of ${COMPLETIONS} completions on ${NODES} simulated nodes`);
  const kubelet = await spawnCommand([
    'kubelet',
    '--sim',
    '--kubeconfig',
    join(dataDir, 'kubeconfig'),
    '--nodes',
    String(NODES),
    '--kube-api-qps=500',
    '--kube-api-burst=1000',
  ]);
  try {
    await json(admin, 'POST', '/api/v1/namespaces', { metadata: { name: 'batch' } });
    // Each Job's status.succeeded once it is Complete, and when the last one was, from a watch (as an informer
    // would see them; polling a LIST of 1000 Jobs would cost the apiserver more than the Jobs' own status writes).
    const complete = new Map<string, number>();
    let lastCompleteAt = 0;
    const closeWatch = admin.watch('/apis/batch/v1/namespaces/batch/jobs?watch=1', (line) => {
      const { object: job } = JSON.parse(line);
      // biome-ignore lint/suspicious/noExplicitAny: conditions are plain JSON
      if ((job.status?.conditions ?? []).some((c: any) => c.type === 'Complete' && c.status === 'True')) {
        if (!complete.has(job.metadata.name)) lastCompleteAt = performance.now();
        complete.set(job.metadata.name, job.status.succeeded ?? 0);
      }
    });
    const cpu0 = childCpu();
    const t0 = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < JOBS) {
          const n = next++;
          await json(admin, 'POST', '/apis/batch/v1/namespaces/batch/jobs', {
            metadata: { name: `job-${n}` },
            spec: {
              completions: COMPLETIONS,
              parallelism: COMPLETIONS,
              template: {
                metadata: {
                  annotations: {
                    'sim.wheelhouse.dev/lifecycle': 'complete',
                    'sim.wheelhouse.dev/start-seconds': '0',
                    'sim.wheelhouse.dev/run-seconds': '0',
                  },
                },
                spec: {
                  restartPolicy: 'Never',
                  nodeName: `node-${(n % NODES) + 1}`,
                  containers: [{ name: 'main', image: 'busybox' }],
                },
              },
            },
          });
        }
      }),
    );
    const deadline = t0 + 900_000;
    while (complete.size < JOBS) {
      if (performance.now() > deadline) throw new Error(`only ${complete.size} of ${JOBS} Jobs complete`);
      await sleep(20);
    }
    closeWatch();
    if (requestCounts) {
      // The apiserver's requests so far by verb, resource and code, as /metrics counts them (non-zero ones).
      const m = await admin.request('GET', '/metrics');
      for (const l of m.text.split('\n')) if (l.startsWith('apiserver_request_total') && !l.endsWith(' 0')) log(l);
    }
    const succeeded = [...complete.values()].reduce((a, b) => a + b, 0);
    const perSec = round(succeeded / ((lastCompleteAt - t0) / 1000), 0);
    log(`  ${succeeded} completions, ${perSec}/s; CPU ms per completion: ${cpuMsPer(cpu0, succeeded)}`);
    return perSec;
  } finally {
    const exited = new Promise((r) => kubelet.child.once('exit', r));
    kubelet.child.kill('SIGINT');
    await exited;
  }
}

/**
 * A DaemonSet over 5000 simulated nodes (--quick: 500): `wheelhouse kubelet --sim` and `wheelhouse scheduler` as two
 * more processes, since daemon pods are placed by the scheduler as upstream does. Once every node is Ready and
 * untainted, the DaemonSet is created; answers the seconds until its status counts a ready pod on every node (and a
 * final pod list confirms that many Running). The nodes are deleted afterwards.
 */
async function daemonSetSec(admin: Http2Client, dataDir: string): Promise<number> {
  const NODES = quick ? 500 : 5000;
  log(`a DaemonSet over ${NODES} simulated nodes`);
  const kubeconfig = join(dataDir, 'kubeconfig');
  const kubelet = await spawnCommand([
    'kubelet',
    '--sim',
    '--kubeconfig',
    kubeconfig,
    '--nodes',
    String(NODES),
    '--node-name-prefix',
    'ds-node-',
    '--kube-api-qps=2000',
    '--kube-api-burst=4000',
  ]);
  const scheduler = await spawnCommand([
    'scheduler',
    '--kubeconfig',
    kubeconfig,
    '--secure-port',
    '0',
    '--leader-elect=false',
    '--kube-api-qps=5000',
    '--kube-api-burst=10000',
  ]);
  try {
    // biome-ignore lint/suspicious/noExplicitAny: the list is plain JSON
    const usable = (n: any) =>
      (n.spec?.taints ?? []).length === 0 &&
      // biome-ignore lint/suspicious/noExplicitAny: conditions are plain JSON
      (n.status?.conditions ?? []).some((c: any) => c.type === 'Ready' && c.status === 'True');
    for (const deadline = performance.now() + 300_000; ; ) {
      const nodes = await json(admin, 'GET', '/api/v1/nodes');
      if (nodes.items.filter(usable).length === NODES) break;
      if (performance.now() > deadline) throw new Error('nodes not Ready and untainted after 5 minutes');
      await sleep(500);
    }
    await json(admin, 'POST', '/api/v1/namespaces', { metadata: { name: 'daemons' } });
    const cpu0 = childCpu();
    const t0 = performance.now();
    await json(admin, 'POST', '/apis/apps/v1/namespaces/daemons/daemonsets', {
      metadata: { name: 'agent' },
      spec: {
        selector: { matchLabels: { app: 'agent' } },
        template: {
          metadata: { labels: { app: 'agent' }, annotations: { 'sim.wheelhouse.dev/start-seconds': '0' } },
          spec: { containers: [{ name: 'agent', image: 'agent:1' }] },
        },
      },
    });
    for (const deadline = t0 + 600_000; ; ) {
      const ds = await json(admin, 'GET', '/apis/apps/v1/namespaces/daemons/daemonsets/agent');
      if (ds.status?.desiredNumberScheduled === NODES && ds.status?.numberReady === NODES) break;
      if (performance.now() > deadline) throw new Error(`only ${ds.status?.numberReady} of ${NODES} daemon pods ready`);
      await sleep(100);
    }
    const sec = round((performance.now() - t0) / 1000, 2);
    log(`  ${NODES} daemon pods ready in ${sec} s; CPU ms per pod: ${cpuMsPer(cpu0, NODES)}`);
    const pods = await json(admin, 'GET', '/api/v1/namespaces/daemons/pods');
    // biome-ignore lint/suspicious/noExplicitAny: the list is plain JSON
    const running = pods.items.filter((p: any) => p.status?.phase === 'Running').length;
    if (running !== NODES) throw new Error(`${running} of ${NODES} daemon pods Running`);
    return sec;
  } finally {
    for (const c of [scheduler, kubelet]) {
      const exited = new Promise((r) => c.child.once('exit', r));
      c.child.kill('SIGINT');
      await exited;
    }
    await json(admin, 'DELETE', '/api/v1/namespaces/daemons').catch(() => {});
    await json(admin, 'DELETE', '/api/v1/nodes').catch(() => {});
  }
}

const work = mkdtempSync(join(tmpdir(), 'wheelhouse-bench-kcm-'));
const out: Record<string, unknown> = {
  quick,
  replicas: REPLICAS,
  objects: OBJECTS,
  kubeApiQps: QPS,
  concurrentJobSyncs: JOB_SYNCS,
  date: new Date().toISOString(),
};
/**
 * Each part runs on a control plane of its own, started for it, as upstream's scheduler_perf runs each workload on
 * a fresh cluster: what one part leaves (pods still being collected, a larger database, its history to compact)
 * does not weigh on the next.
 */
let up: { children: ChildProcess[]; url: string } | undefined;
let clients: Http2Client[] = [];
let admin = undefined as unknown as Http2Client;
let dataDir = '';
let started = 0;
async function stopUp(): Promise<void> {
  for (const c of clients) c.close();
  for (const child of up?.children ?? []) {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGINT');
    await exited;
  }
  up = undefined;
}
async function freshControlPlane(): Promise<void> {
  await stopUp();
  dataDir = join(work, `data-${started++}`);
  up = await startUp(dataDir);
  const creds = credentialsFromKubeconfig(
    parseYaml(readFileSync(join(dataDir, 'kubeconfig'), 'utf8'), { version: '1.1' }),
  );
  const url = up.url;
  clients = Array.from({ length: 4 }, () => new Http2Client(url, creds));
  admin = clients[0] as Http2Client;
}
try {
  if (runs('deployment')) {
    await freshControlPlane();
    log(`a Deployment scaled 0 -> ${REPLICAS}`);
    await json(admin, 'POST', '/api/v1/namespaces', { metadata: { name: 'scale' } });
    await json(admin, 'POST', '/apis/apps/v1/namespaces/scale/deployments', {
      metadata: { name: 'big' },
      spec: {
        replicas: 0,
        selector: { matchLabels: { app: 'big' } },
        template: {
          metadata: { labels: { app: 'big' } },
          spec: { containers: [{ name: 'pause', image: 'registry.k8s.io/pause:3.10' }] },
        },
      },
    });
    let rsName = '';
    while (!rsName) {
      const list = await json(admin, 'GET', '/apis/apps/v1/namespaces/scale/replicasets');
      rsName = list.items[0]?.metadata.name ?? '';
      if (!rsName) await sleep(20);
    }
    const pods = await json(admin, 'GET', '/api/v1/namespaces/scale/pods');
    let created = 0;
    let lastCreatedAt = 0;
    const closeWatch = admin.watch(
      `/api/v1/namespaces/scale/pods?watch=1&resourceVersion=${pods.metadata.resourceVersion}`,
      (line) => {
        if (line.startsWith('{"type":"ADDED"')) {
          created++;
          lastCreatedAt = performance.now();
        }
      },
    );
    await sleep(200);
    const t0 = performance.now();
    await json(
      admin,
      'PATCH',
      '/apis/apps/v1/namespaces/scale/deployments/big/scale',
      { spec: { replicas: REPLICAS } },
      { 'content-type': 'application/merge-patch+json' },
    );
    let settledAt = 0;
    const deadline = t0 + 600_000;
    while (performance.now() < deadline) {
      const rs = await json(admin, 'GET', `/apis/apps/v1/namespaces/scale/replicasets/${rsName}`);
      if (!settledAt && rs.status?.replicas === REPLICAS && rs.status?.observedGeneration === rs.metadata.generation) {
        settledAt = performance.now();
      }
      if (settledAt && created >= REPLICAS) break;
      await sleep(50);
    }
    closeWatch();
    if (created < REPLICAS || !settledAt)
      throw new Error(`only ${created} pods created; settled ${Boolean(settledAt)}`);
    out.podsCreatedPerSec = round(REPLICAS / ((lastCreatedAt - t0) / 1000), 0);
    out.replicaSetSettledSec = round((settledAt - t0) / 1000, 2);
  }
  if (runs('namespace')) {
    await freshControlPlane();
    log(`a namespace of ${OBJECTS} ConfigMaps deleted`);
    await json(admin, 'POST', '/api/v1/namespaces', { metadata: { name: 'bulk' } });
    let next = 0;
    await Promise.all(
      Array.from({ length: 32 }, async (_, i) => {
        const c = clients[i % clients.length] as Http2Client;
        while (next < OBJECTS) {
          const n = next++;
          await json(c, 'POST', '/api/v1/namespaces/bulk/configmaps', {
            metadata: { name: `cm-${n}` },
            data: { n: String(n) },
          });
        }
      }),
    );
    const t1 = performance.now();
    await json(admin, 'DELETE', '/api/v1/namespaces/bulk');
    for (;;) {
      const res = await admin.request('GET', '/api/v1/namespaces/bulk');
      if (res.status === 404) break;
      if (performance.now() - t1 > 600_000) throw new Error('namespace not gone after 10 minutes');
      await sleep(50);
    }
    out.namespace10kDeleteSec = round((performance.now() - t1) / 1000, 2);
  }
  if (runs('daemonset')) {
    await freshControlPlane();
    out.daemonSet5000Sec = await daemonSetSec(admin, dataDir);
  }
  if (runs('jobs')) {
    await freshControlPlane();
    out.jobCompletionsPerSec = await jobCompletionsPerSec(admin, dataDir);
  }
} finally {
  await stopUp();
  rmSync(work, { recursive: true, force: true });
}
console.log(JSON.stringify(out));
