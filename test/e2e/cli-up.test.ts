import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { compactionPolicyOf, storageConfigOf, UsageError } from '../../src/cli/storage-flags.js';
import { SqliteStore } from '../../src/storage/sqlite/store.js';

const wheelhouse = join(import.meta.dirname, '..', '..', 'bin', 'wheelhouse.mjs');
const root = mkdtempSync(join(tmpdir(), 'wheelhouse-cli-'));
after(() => rmSync(root, { recursive: true, force: true }));

describe('wheelhouse up', () => {
  it('opens the sqlite store in --data-dir, says what it holds, and closes it cleanly on SIGINT', async () => {
    const dataDir = join(root, 'data');
    mkdirSync(dataDir, { recursive: true });
    const seed = new SqliteStore({ path: join(dataDir, 'state.db') });
    await seed.create('/registry/pods/default/a', '{}');
    await seed.create('/registry/pods/default/b', '{}');
    const last = await seed.create('/registry/namespaces/default', '{}');
    await seed.close();

    const child = spawn(process.execPath, [wheelhouse, 'up', '--data-dir', dataDir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const deadline = Date.now() + 20_000;
    while (!out.includes('Press Ctrl-C') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.match(out, new RegExp(`storage ready: sqlite at ${dataDir}/state\\.db`));
    assert.match(out, new RegExp(`revision ${last.revision}, 3 objects`));
    assert.match(out, /pods: 2/);
    assert.match(out, /namespaces: 1/);
    child.kill('SIGINT');
    assert.equal(await exited, 0);
    assert.match(out, /storage closed/);
  });

  it('refuses bad flags with a clear message and exit code 2', async () => {
    const run = (args: string[]) =>
      new Promise<{ code: number | null; err: string }>((resolve) => {
        const child = spawn(process.execPath, [wheelhouse, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
        let err = '';
        child.stderr.on('data', (d) => {
          err += d;
        });
        child.once('exit', (code) => resolve({ code, err }));
      });
    const bad = await run(['up', '--storage', 'cassandra']);
    assert.equal(bad.code, 2);
    assert.match(bad.err, /--storage must be memory, sqlite or etcd/);
    const unknown = await run(['up', '--no-such-flag']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.err, /Unknown option '--no-such-flag'/);
  });
});

describe('storage flags', () => {
  it('chooses the backend as kube-apiserver flags would', () => {
    assert.deepEqual(storageConfigOf({ 'data-dir': '/d' }), { backend: 'sqlite', dataDir: '/d' });
    assert.deepEqual(storageConfigOf({ storage: 'memory' }), { backend: 'memory' });
    assert.deepEqual(
      storageConfigOf({
        'etcd-servers': 'https://a:2379,https://b:2379',
        'etcd-cafile': 'ca',
        'etcd-certfile': 'c',
        'etcd-keyfile': 'k',
      }),
      { backend: 'etcd', servers: ['https://a:2379', 'https://b:2379'], caFile: 'ca', certFile: 'c', keyFile: 'k' },
    );
    assert.throws(() => storageConfigOf({ storage: 'etcd' }), UsageError);
  });

  it('reads the compaction policy, with 0 turning compaction off', () => {
    assert.deepEqual(compactionPolicyOf({}), { intervalMs: 300_000, retainRevisions: 1000, retainMs: 300_000 });
    assert.deepEqual(
      compactionPolicyOf({
        'etcd-compaction-interval': '1m',
        'storage-retain-revisions': '50',
        'storage-retain-duration': '90s',
      }),
      { intervalMs: 60_000, retainRevisions: 50, retainMs: 90_000 },
    );
    assert.equal(compactionPolicyOf({ 'etcd-compaction-interval': '0' }), undefined);
    assert.throws(() => compactionPolicyOf({ 'storage-retain-revisions': 'many' }), UsageError);
    assert.throws(() => compactionPolicyOf({ 'etcd-compaction-interval': '-1m' }), UsageError);
  });
});
