import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { ensurePki, type Pki } from '../apiserver/bootstrap/pki.js';
import assert from '../testing/assert.js';
import { buildKubeconfig, loadKubeconfig, mergeKubeconfig, writeKubeconfig } from './kubeconfig.js';

// The real kubectl reads the files we write. `config` subcommands need no server.
const KUBECTL = '/usr/bin/kubectl';
const skip = !existsSync(KUBECTL) && 'kubectl is not installed';
const run = promisify(execFile);

let dir: string;
let pki: Pki;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wheelhouse-kubectl-'));
  pki = await ensurePki(join(dir, 'pki'), { hostname: 'h' });
});
after(() => rm(dir, { recursive: true, force: true }));

async function kubectl(args: string[], env: NodeJS.ProcessEnv = {}): Promise<string> {
  const { stdout } = await run(KUBECTL, args, { env: { PATH: process.env.PATH, HOME: dir, ...env } });
  return stdout;
}

function ourConfig(server: string) {
  return buildKubeconfig({ server, caPem: pki.ca.certPem, certPem: pki.admin.certPem, keyPem: pki.admin.keyPem });
}

test('kubectl reads the server and the embedded credentials of a written kubeconfig', { skip }, async () => {
  const file = join(dir, 'kubeconfig');
  await writeKubeconfig(file, ourConfig('https://127.0.0.1:6443'));
  const server = await kubectl([
    '--kubeconfig',
    file,
    'config',
    'view',
    '--raw',
    '-o',
    'jsonpath={.clusters[0].cluster.server}',
  ]);
  assert.equal(server, 'https://127.0.0.1:6443');
  const caData = await kubectl([
    '--kubeconfig',
    file,
    'config',
    'view',
    '--raw',
    '-o',
    'jsonpath={.clusters[0].cluster.certificate-authority-data}',
  ]);
  assert.equal(Buffer.from(caData, 'base64').toString(), pki.ca.certPem);
  const keyData = await kubectl([
    '--kubeconfig',
    file,
    'config',
    'view',
    '--raw',
    '-o',
    'jsonpath={.users[0].user.client-key-data}',
  ]);
  assert.equal(Buffer.from(keyData, 'base64').toString(), pki.admin.keyPem);
  assert.equal((await kubectl(['--kubeconfig', file, 'config', 'current-context'])).trim(), 'wheelhouse');
});

test('after a merge into a file with another context, kubectl lists both and uses ours', { skip }, async () => {
  const file = join(dir, 'merged');
  await writeFile(
    file,
    `apiVersion: v1
kind: Config
clusters:
- cluster: {server: "https://prod.example.test"}
  name: prod
contexts:
- context: {cluster: prod, user: ops}
  name: prod
current-context: prod
users:
- name: ops
  user: {token: secret}
`,
  );
  await mergeKubeconfig(file, ourConfig('https://127.0.0.1:6443'));
  const contexts = await kubectl(['--kubeconfig', file, 'config', 'get-contexts', '-o', 'name']);
  assert.deepEqual(contexts.trim().split('\n').sort(), ['prod', 'wheelhouse']);
  const table = await kubectl(['--kubeconfig', file, 'config', 'get-contexts']);
  assert.match(table, /^\*\s+wheelhouse\s+wheelhouse\s+wheelhouse-admin/m, 'ours is current');
  assert.match(table, /^\s+prod\s+prod\s+ops/m);
  const minified = await kubectl([
    '--kubeconfig',
    file,
    'config',
    'view',
    '--minify',
    '-o',
    'jsonpath={.clusters[0].cluster.server}',
  ]);
  assert.equal(minified, 'https://127.0.0.1:6443');
  const token = await kubectl([
    '--kubeconfig',
    file,
    'config',
    'view',
    '--raw',
    '-o',
    'jsonpath={.users[?(@.name=="ops")].user.token}',
  ]);
  assert.equal(token, 'secret');
});

test('KUBECONFIG with two files: kubectl and loadKubeconfig pick the same server and context', { skip }, async () => {
  const first = join(dir, 'kc-first');
  const second = join(dir, 'kc-second');
  // Both define the cluster `wheelhouse`; only the second sets a current context.
  const firstConfig = ourConfig('https://first.example.test:6443');
  await writeKubeconfig(first, { ...firstConfig, 'current-context': '' });
  await writeKubeconfig(second, ourConfig('https://second.example.test:6443'));
  for (const order of [`${first}:${second}`, `${second}:${first}`]) {
    const view = ['config', 'view', '--minify', '-o', 'jsonpath={.clusters[0].cluster.server}'];
    const fromKubectl = await kubectl(view, { KUBECONFIG: order });
    const ours = await loadKubeconfig(order);
    assert.equal(ours.server, fromKubectl, order);
    assert.equal((await kubectl(['config', 'current-context'], { KUBECONFIG: order })).trim(), ours.contextName);
  }
  assert.equal((await loadKubeconfig(`${first}:${second}`)).server, 'https://first.example.test:6443');
});
