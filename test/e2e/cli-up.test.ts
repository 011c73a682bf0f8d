import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { compactionPolicyOf, storageConfigOf, UsageError } from '../../src/cli/storage-flags.js';
import assert from '../../src/testing/assert.js';
import { startWheelhouse, WHEELHOUSE_BIN as wheelhouse } from '../../src/testing/wheelhouse-process.js';

const run = promisify(execFile);
const root = mkdtempSync(join(tmpdir(), 'wheelhouse-cli-'));
after(() => rmSync(root, { recursive: true, force: true }));

/** Starts `wheelhouse up` (or another command) and waits until it says it is ready. */
const up = (args: string[], command = 'up') => startWheelhouse(command, args);

async function kubectl(kubeconfig: string, ...args: string[]): Promise<string> {
  const { stdout } = await run('kubectl', ['--kubeconfig', kubeconfig, '--cache-dir', join(root, 'kcache'), ...args]);
  return stdout;
}

describe('wheelhouse up', () => {
  it('serves the API on sqlite, prints how to use it, and keeps objects and resourceVersions across restarts', async () => {
    const dataDir = join(root, 'data');
    const first = await up(['--data-dir', dataDir]);
    const kubeconfig = join(dataDir, 'kubeconfig');
    assert.match(first.out(), /the API server is ready at https:\/\/127\.0\.0\.1:\d+/);
    assert.match(first.out(), new RegExp(`export KUBECONFIG=${kubeconfig}`));
    assert.match(first.out(), new RegExp(`storage: sqlite \\(${dataDir}/state\\.db\\)`));
    const body = join(root, 'cm.json');
    writeFileSync(
      body,
      JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'kept' }, data: { k: 'v' } }),
    );
    await kubectl(kubeconfig, 'create', '--raw', '/api/v1/namespaces/default/configmaps', '-f', body);
    const before = JSON.parse(await kubectl(kubeconfig, 'get', 'configmap', 'kept', '-n', 'default', '-o', 'json'));
    first.child.kill('SIGINT');
    assert.equal(await first.exited, 0);
    assert.match(first.out(), /wheelhouse: stopped/);

    const second = await up(['--data-dir', dataDir]);
    const afterRestart = JSON.parse(
      await kubectl(kubeconfig, 'get', 'configmap', 'kept', '-n', 'default', '-o', 'json'),
    );
    assert.equal(afterRestart.metadata.resourceVersion, before.metadata.resourceVersion);
    assert.equal(afterRestart.metadata.uid, before.metadata.uid);
    assert.deepEqual(afterRestart.data, { k: 'v' });
    second.child.kill('SIGTERM');
    assert.equal(await second.exited, 0);
  });

  it('runs kube-apiserver alone with upstream flag names', async () => {
    const dataDir = join(root, 'apiserver');
    const server = await up(
      [
        '--bind-address',
        '127.0.0.1',
        '--storage',
        'memory',
        '--service-cluster-ip-range',
        '10.200.0.0/16',
        '--data-dir',
        dataDir,
      ],
      'apiserver',
    );
    const ip = await kubectl(
      join(dataDir, 'kubeconfig'),
      'get',
      'svc',
      'kubernetes',
      '-o',
      'jsonpath={.spec.clusterIP}',
    );
    assert.equal(ip, '10.200.0.1');
    server.child.kill('SIGINT');
    assert.equal(await server.exited, 0);
  });

  it('prints the kubeconfig, and refuses bad flags with a clear message and exit code 2', async () => {
    const runCli = (args: string[]) =>
      new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
        const child = spawn(process.execPath, [wheelhouse, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        let err = '';
        child.stdout.on('data', (d) => {
          out += d;
        });
        child.stderr.on('data', (d) => {
          err += d;
        });
        child.once('exit', (code) => resolve({ code, out, err }));
      });
    const printed = await runCli(['kubeconfig', '--data-dir', join(root, 'data')]);
    assert.equal(printed.code, 0);
    assert.match(printed.out, /current-context: wheelhouse/);
    const target = join(root, 'user-kubeconfig');
    writeFileSync(
      target,
      'apiVersion: v1\nkind: Config\nclusters:\n- name: prod\n  cluster: {server: "https://prod.invalid"}\nusers:\n- name: me\n  user: {token: t}\ncontexts:\n- name: prod\n  context: {cluster: prod, user: me}\ncurrent-context: prod\n',
    );
    const merged = await runCli(['kubeconfig', '--data-dir', join(root, 'data'), '--merge', '--kubeconfig', target]);
    assert.equal(merged.code, 0, merged.err);
    const contexts = await run('kubectl', ['--kubeconfig', target, 'config', 'get-contexts', '-o', 'name']);
    assert.deepEqual(contexts.stdout.trim().split('\n').sort(), ['prod', 'wheelhouse']);
    const current = await run('kubectl', ['--kubeconfig', target, 'config', 'current-context']);
    assert.equal(current.stdout.trim(), 'wheelhouse');
    const missing = await runCli(['kubeconfig', '--data-dir', join(root, 'none')]);
    assert.equal(missing.code, 2);
    assert.match(missing.err, /start the cluster first with wheelhouse up/);
    const bad = await runCli(['up', '--storage', 'cassandra']);
    assert.equal(bad.code, 2);
    assert.match(bad.err, /--storage must be memory, sqlite or etcd/);
    const unknown = await runCli(['up', '--no-such-flag']);
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
