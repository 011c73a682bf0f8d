// apiserver benchmark: real HTTPS (HTTP/2) against `wheelhouse up` (compiled) in a child process.
// Prints one JSON object as its last line. `--quick` runs in under a minute (no 100k-pod list).
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { parse as parseYaml } from 'yaml';
import { DEFAULT_ON_PLUGINS } from '../src/apiserver/admission/order.js';
import { NODE_RESTRICTION } from '../src/apiserver/admission/plugins/node-restriction.js';
import { freePort } from '../src/testing/etcd.js';
import { credentialsFromKubeconfig, Http2Client } from './http2-client.js';
import { benchPod } from './pod.js';
import { median, percentile, procCpuSeconds, round } from './stats.js';

const run = promisify(execFile);
const quick = process.argv.includes('--quick');
/** `--gate-only`: just the cost-of-the-gate figures. */
const gateOnly = process.argv.includes('--gate-only');
/**
 * `--gate-control`: the cost-of-the-gate measurement with the gate on in both servers, so that every difference it
 * reports is the measurement's own noise (what a figure of the real comparison can be trusted to).
 */
const gateControl = process.argv.includes('--gate-control');
const storage = process.argv.find((a) => a.startsWith('--storage='))?.slice('--storage='.length) ?? 'sqlite';
const root = join(import.meta.dirname, '..');
const bin = join(root, 'bin', 'wheelhouse.mjs');
const log = (msg: string) => process.stderr.write(`${msg}\n`);
const CLIENTS = 32;

interface Server {
  child: ChildProcess;
  url: string;
  dataDir: string;
  kubeconfig: string;
}

/**
 * Starts the compiled command on a free port and waits until /readyz answers ok; readyMs is the time from spawning
 * it. `up` starts the whole cluster (controllers, scheduler, 3 simulated nodes) and is what start-up is measured
 * on; the load figures use `apiserver` alone, so that no scheduler or kubelet works on the benchmark's pods.
 */
async function startServer(
  dataDir: string,
  command: 'up' | 'apiserver',
  extraArgs: readonly string[] = [],
): Promise<Server & { readyMs: number }> {
  const port = await freePort();
  const t0 = performance.now();
  const child = spawn(
    process.execPath,
    [
      ...(process.env.PROF_DIR
        ? ['--cpu-prof', `--cpu-prof-dir=${process.env.PROF_DIR}/${dataDir.split('/').pop()}`]
        : []),
      bin,
      command,
      '--data-dir',
      dataDir,
      '--secure-port',
      String(port),
      '--bind-address',
      '127.0.0.1',
      `--storage=${storage}`,
      ...extraArgs,
    ],
    {
      env: { ...process.env, WHEELHOUSE_COMPILED: '1' },
      stdio: ['ignore', 'ignore', 'ignore'],
    },
  );
  const url = `https://127.0.0.1:${port}`;
  while (!(await readyz(url))) {
    if (child.exitCode !== null) throw new Error(`wheelhouse ${command} exited with ${child.exitCode}`);
    await new Promise((r) => setTimeout(r, 2));
  }
  const readyMs = performance.now() - t0;
  // The kubeconfig is written once the control plane has started; wait for it.
  const kubeconfig = join(dataDir, 'kubeconfig');
  while (!existsSync(kubeconfig)) await new Promise((r) => setTimeout(r, 5));
  return { child, url, dataDir, kubeconfig, readyMs };
}

function readyz(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request(`${url}/readyz`, { rejectUnauthorized: false }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('error', () => resolve(false));
    req.end();
  });
}

async function stopServer(s: Server): Promise<void> {
  const exited = new Promise((r) => s.child.once('exit', r));
  s.child.kill('SIGINT');
  await exited;
}

function rssBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0);
  return kb * 1024;
}

/**
 * Makes a namespace and its `default` ServiceAccount: the ServiceAccount admission plugin refuses pods in a namespace
 * without one, and a lone apiserver has no controller manager to make it.
 */
async function makeNamespace(client: Http2Client, name: string): Promise<void> {
  for (const [path, body] of [
    ['/api/v1/namespaces', { metadata: { name } }],
    [`/api/v1/namespaces/${name}/serviceaccounts`, { metadata: { name: 'default' } }],
  ] as const) {
    const res = await client.request('POST', path, body);
    if (res.status !== 201) throw new Error(`POST ${path}: ${res.status} ${res.text.slice(0, 300)}`);
  }
}

async function createPods(
  clients: Http2Client[],
  ns: string,
  prefix: string,
  count: number,
  pad = 0,
): Promise<number[]> {
  const latencies: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, i) => {
      const c = clients[i % clients.length] as Http2Client;
      while (next < count) {
        const n = next++;
        const t = performance.now();
        const res = await c.request('POST', `/api/v1/namespaces/${ns}/pods`, benchPod(`${prefix}-${n}`, pad));
        latencies.push(performance.now() - t);
        if (res.status !== 201) throw new Error(`create failed: ${res.status} ${res.text.slice(0, 300)}`);
      }
    }),
  );
  return latencies;
}

/**
 * Times LISTs of path: the first one alone (code paths still cold in both processes), then the median of 5 after
 * 2 more untimed ones, once the list code is compiled.
 */
async function timedList(
  client: Http2Client,
  path: string,
  want: number,
): Promise<{ firstMs: number; medianMs: number }> {
  const samples: number[] = [];
  let last: { status: number; text: string } | undefined;
  for (let i = 0; i < 8; i++) {
    const t = performance.now();
    const res = await client.request('GET', path);
    if (i === 0 || i >= 3) samples.push(performance.now() - t);
    // Nothing is written meanwhile, so every answer is the same list. It is decoded once, after the timed
    // requests: decoding 10,000 pods between them left garbage whose collection slowed the next request down.
    if (res.status !== 200 || (last && res.text.length !== last.text.length)) {
      throw new Error(`list answered ${res.status} with ${res.text.length} bytes`);
    }
    last = res;
  }
  const items = JSON.parse(last?.text ?? '{}').items?.length;
  if (items !== want) throw new Error(`listed ${items}, wanted ${want}`);
  log(`list samples (first, then 5 after warm-up): ${samples.map((x) => x.toFixed(0)).join(' ')}`);
  return { firstMs: samples[0] as number, medianMs: median(samples.slice(1)) };
}

async function fanout(clients: Http2Client[], writer: Http2Client, watchers: number, changes: number): Promise<number> {
  await makeNamespace(writer, 'fanout');
  const pod = JSON.parse((await writer.request('POST', '/api/v1/namespaces/fanout/pods', benchPod('target'))).text);
  const rv = pod.metadata.resourceVersion;
  const seen = new Map<string, number[]>();
  const closers: Array<() => void> = [];
  let connected = 0;
  for (let w = 0; w < watchers; w++) {
    const c = clients[w % clients.length] as Http2Client;
    closers.push(
      c.watch(`/api/v1/namespaces/fanout/pods?watch=1&resourceVersion=${rv}&allowWatchBookmarks=false`, (line) => {
        const ev = JSON.parse(line);
        const v = ev.object?.metadata?.labels?.v as string | undefined;
        if (!v) return;
        const list = seen.get(v) ?? [];
        list.push(performance.now());
        seen.set(v, list);
      }),
    );
    connected++;
  }
  await new Promise((r) => setTimeout(r, 1500));
  const latencies: number[] = [];
  for (let i = 0; i < changes; i++) {
    const v = `c${i}`;
    const t = performance.now();
    await writer.request(
      'PATCH',
      '/api/v1/namespaces/fanout/pods/target',
      { metadata: { labels: { v } } },
      {
        'content-type': 'application/merge-patch+json',
      },
    );
    const deadline = performance.now() + 10_000;
    while ((seen.get(v)?.length ?? 0) < connected && performance.now() < deadline)
      await new Promise((r) => setTimeout(r, 1));
    for (const at of seen.get(v) ?? []) latencies.push(at - t);
    for (let missing = seen.get(v)?.length ?? 0; missing < connected; missing++)
      latencies.push(Number.POSITIVE_INFINITY);
  }
  for (const close of closers) close();
  return percentile(latencies, 99);
}

/** Sends `count` requests from `concurrency` workers; the latency of each. */
async function timedRequests(
  clients: Http2Client[],
  concurrency: number,
  count: number,
  send: (c: Http2Client, n: number) => Promise<{ status: number; text: string }>,
  want: number,
): Promise<number[]> {
  const latencies: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, i) => {
      const c = clients[i % clients.length] as Http2Client;
      while (next < count) {
        const n = next++;
        const t = performance.now();
        const res = await send(c, n);
        latencies.push(performance.now() - t);
        if (res.status !== want) throw new Error(`request failed: ${res.status} ${res.text.slice(0, 300)}`);
      }
    }),
  );
  return latencies;
}

const GATE_BINDINGS = 1000;

/**
 * The cost of the gate (issue 6): the same requests from an ordinary user (a static token) against two apiservers
 * started side by side, one with Node,RBAC (the default) and the default admission chain and 1000 RBAC bindings in the cluster (half
 * ClusterRoleBindings, half RoleBindings in the user's namespace, the user's own binding made last), one with
 * AlwaysAllow and every admission plugin off. The rounds alternate between the two servers so that machine noise
 * falls on both; each percentile is over all of a server's requests.
 */
async function gateCost(): Promise<Record<string, number | boolean>> {
  const tokens = join(work, 'tokens.csv');
  writeFileSync(tokens, 'gate-bench-token,jane,jane-uid,"developers"\n');
  // wheelhouse's default chain, as a user gets it: the Node authorizer (no opinion on jane), then RBAC.
  const gatedArgs = ['--authorization-mode=Node,RBAC', `--token-auth-file=${tokens}`];
  const servers = {
    gated: await startServer(join(work, 'gated'), 'apiserver', gatedArgs),
    open: await startServer(
      join(work, 'open'),
      'apiserver',
      gateControl
        ? gatedArgs
        : [
            '--authorization-mode=AlwaysAllow',
            // No admission at all: upstream's default set and NodeRestriction, which wheelhouse turns on as kubeadm does.
            `--disable-admission-plugins=${[...DEFAULT_ON_PLUGINS, NODE_RESTRICTION].join(',')}`,
            `--token-auth-file=${tokens}`,
          ],
    ),
  };
  const users: Record<string, Http2Client[]> = {};
  const admins: Http2Client[] = [];
  for (const [name, server] of Object.entries(servers)) {
    const kubeconfig = parseYaml(readFileSync(server.kubeconfig, 'utf8'), { version: '1.1' });
    const creds = credentialsFromKubeconfig(kubeconfig);
    const admin = new Http2Client(server.url, creds);
    admins.push(admin);
    await makeNamespace(admin, 'gate');
    const binding = (kind: string, i: number, namespace?: string) => ({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind,
      metadata: { name: `filler-${i}`, ...(namespace ? { namespace } : {}) },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: `user-${i}` }],
    });
    await timedRequests(
      [admin],
      16,
      GATE_BINDINGS / 2,
      (c, i) =>
        c.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', binding('ClusterRoleBinding', i)),
      201,
    );
    await timedRequests(
      [admin],
      16,
      GATE_BINDINGS / 2,
      (c, i) =>
        c.request(
          'POST',
          '/apis/rbac.authorization.k8s.io/v1/namespaces/gate/rolebindings',
          binding('RoleBinding', i, 'gate'),
        ),
      201,
    );
    // A Role of its own: the aggregated ClusterRoles (edit, admin, view) get their rules from the controller
    // manager's clusterrole-aggregation controller, which does not run beside a lone apiserver.
    const role = {
      metadata: { name: 'pod-worker' },
      rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'create'] }],
    };
    const made = await admin.request('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/gate/roles', role);
    const bound = await admin.request('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/gate/rolebindings', {
      metadata: { name: 'jane-pod-worker' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'pod-worker' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'jane' }],
    });
    if (made.status !== 201 || bound.status !== 201) throw new Error(`jane's role: ${made.text} ${bound.text}`);
    users[name] = Array.from(
      { length: 4 },
      () => new Http2Client(server.url, { ca: creds.ca, token: 'gate-bench-token' }),
    );
  }
  // The binding reaches the authorizer through its watch; wait until jane may create pods on the gated server.
  const gatedUser = (users.gated as Http2Client[])[0] as Http2Client;
  for (let tries = 0; (await gatedUser.request('GET', '/api/v1/namespaces/gate/pods')).status !== 200; tries++) {
    if (tries > 500) throw new Error('jane is still forbidden to list pods after 10 s');
    await new Promise((r) => setTimeout(r, 20));
  }
  // Many short rounds, alternating which server goes first, with every latency pooled per server: a slow moment
  // of the machine (a GC, a WAL checkpoint, another process) then falls on both servers alike. Round -1 warms both
  // servers and this process's client up and is not counted: before 12-08 the first round's cold client fell on
  // the gated server alone (in --gate-control runs the server measured first was ~6% slower on creates).
  const rounds = quick ? 8 : 24;
  const perRound = quick ? 250 : 500;
  const samples: Record<string, { create: number[]; get: number[] }> = {
    gated: { create: [], get: [] },
    open: { create: [], get: [] },
  };
  // The server's own CPU seconds spent in each phase: steadier than latency percentiles, and what the gate costs.
  const cpu: Record<string, { create: number; get: number }> = {
    gated: { create: 0, get: 0 },
    open: { create: 0, get: 0 },
  };
  const serverCpu = (name: string) => procCpuSeconds((servers as Record<string, Server>)[name]?.child.pid as number);
  for (let r = -1; r < rounds; r++) {
    for (const name of r % 2 ? ['open', 'gated'] : ['gated', 'open']) {
      const clients = users[name] as Http2Client[];
      const figures = samples[name] as { create: number[]; get: number[] };
      const used = cpu[name] as { create: number; get: number };
      const cpu0 = serverCpu(name);
      const created = await timedRequests(
        clients,
        CLIENTS,
        perRound,
        (c, n) => c.request('POST', '/api/v1/namespaces/gate/pods', benchPod(`g${r}-${n}`)),
        201,
      );
      const cpu1 = serverCpu(name);
      const got = await timedRequests(
        clients,
        8,
        perRound,
        (c) => c.request('GET', `/api/v1/namespaces/gate/pods/g${r}-${Math.floor(Math.random() * perRound)}`),
        200,
      );
      if (r < 0) continue;
      used.create += cpu1 - cpu0;
      used.get += serverCpu(name) - cpu1;
      figures.create.push(...created);
      figures.get.push(...got);
    }
  }
  for (const c of [...admins, ...Object.values(users).flat()]) c.close();
  await Promise.all(Object.values(servers).map(stopServer));
  const pct = (gated: number, open: number) => round(((gated - open) / open) * 100, 1);
  const q = (name: string, what: 'create' | 'get', p: number) =>
    percentile((samples[name] as { create: number[]; get: number[] })[what], p);
  return {
    ...(gateControl ? { gateControl: true } : {}),
    gateGetP50Ms: round(q('gated', 'get', 50), 2),
    openGetP50Ms: round(q('open', 'get', 50), 2),
    gateGetP99Ms: round(q('gated', 'get', 99), 2),
    openGetP99Ms: round(q('open', 'get', 99), 2),
    gateCreateP50Ms: round(q('gated', 'create', 50), 2),
    openCreateP50Ms: round(q('open', 'create', 50), 2),
    gateCreateP99Ms: round(q('gated', 'create', 99), 2),
    openCreateP99Ms: round(q('open', 'create', 99), 2),
    gateCreateCpuUs: round(((cpu.gated?.create ?? 0) * 1e6) / (rounds * perRound), 0),
    openCreateCpuUs: round(((cpu.open?.create ?? 0) * 1e6) / (rounds * perRound), 0),
    gateGetCpuUs: round(((cpu.gated?.get ?? 0) * 1e6) / (rounds * perRound), 0),
    openGetCpuUs: round(((cpu.open?.get ?? 0) * 1e6) / (rounds * perRound), 0),
    gateGetP99AddedPct: pct(q('gated', 'get', 99), q('open', 'get', 99)),
    gateCreateP99AddedPct: pct(q('gated', 'create', 99), q('open', 'create', 99)),
  };
}

async function inProcessStart(): Promise<{ first: number; median: number }> {
  const { startControlPlane } = (await import(join(root, 'dist', 'index.js'))) as typeof import('../src/index.js');
  const samples: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    const cp = await startControlPlane({ storage: 'memory' });
    while (!(await readyz(cp.url))) await new Promise((r) => setTimeout(r, 1));
    samples.push(performance.now() - t);
    await cp.stop();
  }
  return { first: samples[0] as number, median: median(samples.slice(1)) };
}

const work = mkdtempSync(join(tmpdir(), 'wheelhouse-bench-api-'));
const out: Record<string, unknown> = { quick, storage, date: new Date().toISOString() };
try {
  if (!gateOnly) {
    log('start-up of the compiled wheelhouse up on fresh data dirs');
    const readies: number[] = [];
    for (let i = 0; i < 3; i++) {
      const s = await startServer(join(work, `fresh-${i}`), 'up');
      readies.push(s.readyMs);
      await stopServer(s);
    }
    out.upReadyMs = round(median(readies), 1);
    const inproc = await inProcessStart();
    out.inProcessStartMs = round(inproc.median, 1);
    out.inProcessFirstStartMs = round(inproc.first, 1);

    const server = await startServer(join(work, 'main'), 'apiserver');
    const kubeconfig = parseYaml(readFileSync(server.kubeconfig, 'utf8'), { version: '1.1' });
    const creds = credentialsFromKubeconfig(kubeconfig);
    const clients = Array.from({ length: 4 }, () => new Http2Client(server.url, creds));
    const admin = clients[0] as Http2Client;
    await makeNamespace(admin, 'bench');
    const rssEmpty = rssBytes(server.child.pid as number);

    log(`creates with ${CLIENTS} concurrent clients`);
    const createCount = quick ? 4000 : 10_000;
    const t = performance.now();
    const createLat = await createPods(clients, 'bench', 'p', createCount);
    out.createsPerSec = round(createCount / ((performance.now() - t) / 1000), 0);
    out.createP50Ms = round(percentile(createLat, 50), 2);
    out.createP99Ms = round(percentile(createLat, 99), 2);
    if (createCount < 10_000) await createPods(clients, 'bench', 'q', 10_000 - createCount);
    await new Promise((r) => setTimeout(r, 500));
    const rss10k = rssBytes(server.child.pid as number);
    out.rssBytesPerPodFromEmpty = round((rss10k - rssEmpty) / 10_000, 0);

    // What each further stored pod costs once the process has warmed up: the first 10,000 creates also pay for
    // fixed growth (V8's young generation, allocator arenas, TLS and HTTP/2 buffers, sqlite's page cache).
    log('RSS per stored pod (slope over further pods)');
    const slopeCount = quick ? 20_000 : 40_000;
    await makeNamespace(admin, 'mass');
    await createPods(clients, 'mass', 'm', slopeCount);
    await new Promise((r) => setTimeout(r, 500));
    const rssMass = rssBytes(server.child.pid as number);
    out.rssBytesPerPod = round((rssMass - rss10k) / slopeCount, 0);
    if (!quick) {
      await makeNamespace(admin, 'big');
      await createPods(clients, 'big', 'b', 10_000, 2500);
      await new Promise((r) => setTimeout(r, 500));
      out.rssBytesPer4kPod = round((rssBytes(server.child.pid as number) - rssMass) / 10_000, 0);
    }

    log('gets');
    const getLat: number[] = [];
    await Promise.all(
      Array.from({ length: 8 }, async (_, i) => {
        for (let n = 0; n < (quick ? 250 : 1000); n++) {
          const name = `p-${Math.floor(Math.random() * createCount)}`;
          const t0 = performance.now();
          await (clients[i % clients.length] as Http2Client).request('GET', `/api/v1/namespaces/bench/pods/${name}`);
          getLat.push(performance.now() - t0);
        }
      }),
    );
    out.getP50Ms = round(percentile(getLat, 50), 2);
    out.getP99Ms = round(percentile(getLat, 99), 2);

    log('list 10k pods from the cache');
    const list10k = '/api/v1/namespaces/bench/pods?resourceVersion=0';
    const listed = await timedList(admin, list10k, 10_000);
    out.list10kMs = round(listed.medianMs, 1);
    out.list10kFirstMs = round(listed.firstMs, 1);
    // The same with Node's default HTTP/2 windows (64 KiB), for comparison.
    const nodeWindows = new Http2Client(server.url, creds, 'node');
    out.list10kNodeWindowsMs = round((await timedList(nodeWindows, list10k, 10_000)).medianMs, 1);
    nodeWindows.close();

    log('watch fan-out');
    out.watchFanout1000P99Ms = round(await fanout(clients, admin, 1000, quick ? 5 : 20), 1);

    if (!quick) {
      log('100k pods');
      await createPods(clients, 'bench', 'r', 90_000);
      out.list100kMs = round(
        (await timedList(admin, '/api/v1/namespaces/bench/pods?resourceVersion=0', 100_000)).medianMs,
        1,
      );
    } else {
      out.list100kMs = null;
    }
    for (const c of clients) c.close();
    await stopServer(server);
  }
  log(`cost of the gate: RBAC with ${GATE_BINDINGS} bindings and the default admission chain vs neither`);
  Object.assign(out, await gateCost());

  log('heap kept per pod (in-process, after a full GC)');
  for (const [key, pad] of [
    ['', 0],
    ['4k', 2500],
  ] as const) {
    if ((quick && key) || gateOnly) continue;
    const { stdout } = await run(
      process.execPath,
      ['--expose-gc', '--import', 'tsx', join(root, 'bench', 'heap-per-pod.ts'), String(pad)],
      {
        cwd: root,
      },
    );
    const figures = JSON.parse(stdout.trim().split('\n').pop() as string);
    out[`heapBytesPer${key ? '4k' : ''}Pod`] = figures.heapBytesPerPod;
    out[`externalBytesPer${key ? '4k' : ''}Pod`] = figures.externalBytesPerPod;
    out[`podJsonBytes${key ? '4k' : ''}`] = figures.podJsonBytes;
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
console.log(JSON.stringify(out));
