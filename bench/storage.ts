// Storage benchmark: memory vs sqlite vs a real etcd (single member, same machine), all through the same contract.
// Prints one JSON object as its last line. `--quick` runs in under a minute.
import { closeSync, fdatasyncSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { EtcdStore } from '../src/storage/etcd/store.js';
import { MemoryStore } from '../src/storage/memory.js';
import { SqliteStore } from '../src/storage/sqlite/store.js';
import type { Store } from '../src/storage/types.js';
import { EtcdCluster, etcdUnavailableReason } from '../src/testing/etcd.js';
import { median, percentile, round } from './stats.js';

const quick = process.argv.includes('--quick');
const cfg = quick
  ? { seconds: 1.5, listKeys: 10_000, gets: 2_000, watchSeconds: 2, fsyncSeconds: 1 }
  : { seconds: 5, listKeys: 10_000, gets: 10_000, watchSeconds: 5, fsyncSeconds: 3 };
const CONCURRENCY = 64;
const WATCH_RATE = 1000; // writes per second
const log = (msg: string) => process.stderr.write(`${msg}\n`);

/** A ~1 KB JSON value, about the size of a small stored object. */
function value(i: number): string {
  return JSON.stringify({
    kind: 'ConfigMap',
    metadata: { name: `cm-${i}`, namespace: 'bench' },
    data: { blob: 'x'.repeat(900) },
  });
}

/** The disk's raw rate of 4 KiB write + fdatasync, the physical limit for unbatched durable writes. */
function fsyncPerSec(dir: string): number {
  const fd = openSync(join(dir, 'fsync-probe'), 'w');
  const buf = Buffer.alloc(4096, 1);
  let n = 0;
  const end = performance.now() + cfg.fsyncSeconds * 1000;
  while (performance.now() < end) {
    writeSync(fd, buf, 0, buf.length, (n % 256) * 4096);
    fdatasyncSync(fd);
    n++;
  }
  closeSync(fd);
  return n / cfg.fsyncSeconds;
}

async function seqWrites(store: Store, prefix: string): Promise<number> {
  let n = 0;
  const start = performance.now();
  const end = start + cfg.seconds * 1000;
  while (performance.now() < end) await store.create(`${prefix}seq/${n}`, value(n++));
  return n / ((performance.now() - start) / 1000);
}

async function concurrentWrites(store: Store, prefix: string): Promise<number> {
  let n = 0;
  const start = performance.now();
  const end = start + cfg.seconds * 1000;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < end) {
        const i = n++;
        await store.create(`${prefix}conc/${i}`, value(i));
      }
    }),
  );
  return n / ((performance.now() - start) / 1000);
}

async function fill(store: Store, prefix: string, count: number): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < count) {
        const i = next++;
        await store.create(`${prefix}${String(i).padStart(6, '0')}`, value(i));
      }
    }),
  );
}

async function gets(store: Store, prefix: string): Promise<{ p50: number; p99: number }> {
  const samples: number[] = [];
  for (let i = 0; i < cfg.gets; i++) {
    const key = `${prefix}${String(Math.floor(Math.random() * cfg.listKeys)).padStart(6, '0')}`;
    const t = performance.now();
    await store.get(key);
    samples.push(performance.now() - t);
  }
  return { p50: percentile(samples, 50), p99: percentile(samples, 99) };
}

async function list10k(store: Store, prefix: string): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    const res = await store.list(prefix);
    samples.push(performance.now() - t);
    if (res.items.length !== cfg.listKeys) throw new Error(`listed ${res.items.length} keys, expected ${cfg.listKeys}`);
  }
  return median(samples);
}

/** Writes at WATCH_RATE per second and measures, per write, the time from its acknowledgement to its delivery. */
async function watchLatency(store: Store, prefix: string): Promise<{ p50: number; p99: number; events: number }> {
  const acked = new Map<number, number>();
  const delivered = new Map<number, number>();
  const watch = store.watch(`${prefix}w/`, await store.currentRevision(), {
    onEvent: (e) => delivered.set(e.revision, performance.now()),
    onError: (err) => log(`watch error: ${err.message}`),
  });
  const total = WATCH_RATE * cfg.watchSeconds;
  const start = performance.now();
  const inflight: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / WATCH_RATE;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    inflight.push(
      store.create(`${prefix}w/${i}`, value(i)).then((r) => {
        acked.set(r.revision, performance.now());
      }),
    );
  }
  await Promise.all(inflight);
  const deadline = performance.now() + 10_000;
  while (delivered.size < total && performance.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  watch.close();
  const latencies = [...acked].map(([rev, at]) => Math.max(0, (delivered.get(rev) ?? Number.POSITIVE_INFINITY) - at));
  return { p50: percentile(latencies, 50), p99: percentile(latencies, 99), events: delivered.size };
}

async function measure(name: string, store: Store) {
  const prefix = `/registry/bench-${Date.now()}/`;
  log(`${name}: sequential writes`);
  const seq = await seqWrites(store, prefix);
  log(`${name}: ${CONCURRENCY} concurrent writers`);
  const conc = await concurrentWrites(store, prefix);
  log(`${name}: filling ${cfg.listKeys} keys`);
  await fill(store, `${prefix}list/`, cfg.listKeys);
  const get = await gets(store, `${prefix}list/`);
  const list = await list10k(store, `${prefix}list/`);
  log(`${name}: watch latency at ${WATCH_RATE} writes/s`);
  const watch = await watchLatency(store, prefix);
  const result = {
    seqWritesPerSec: round(seq, 0),
    concurrentWritesPerSec: round(conc, 0),
    getP50Ms: round(get.p50),
    getP99Ms: round(get.p99),
    list10kMs: round(list, 1),
    watchP50Ms: round(watch.p50),
    watchP99Ms: round(watch.p99),
  };
  log(`${name}: ${JSON.stringify(result)}`);
  return result;
}

const dir = mkdtempSync(join(tmpdir(), 'wheelhouse-bench-'));
const out: Record<string, unknown> = { quick, date: new Date().toISOString() };
try {
  out.fsyncPerSec = round(fsyncPerSec(dir), 0);
  log(`disk: ${out.fsyncPerSec} fsync/s`);
  const memory = new MemoryStore();
  out.memory = await measure('memory', memory);
  await memory.close();
  const sqlite = new SqliteStore({ path: join(dir, 'state.db') });
  out.sqlite = await measure('sqlite', sqlite);
  await sqlite.close();
  const noEtcd = etcdUnavailableReason();
  if (noEtcd) {
    out.etcd = { skipped: noEtcd };
  } else {
    const cluster = await EtcdCluster.start(1);
    try {
      const etcd = new EtcdStore({ servers: cluster.clientUrls });
      out.etcd = await measure('etcd', etcd);
      await etcd.close();
    } finally {
      await cluster.stop();
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
console.log(JSON.stringify(out));
