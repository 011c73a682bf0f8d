import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { after, test } from 'node:test';
import { parse } from 'yaml';
import assert from '../testing/assert.js';
import {
  buildKubeconfig,
  kubeconfigPaths,
  kubeconfigToYaml,
  loadKubeconfig,
  mergeKubeconfig,
  resolveKubeconfig,
  writeKubeconfig,
} from './kubeconfig.js';

// Stand-ins for PEM texts: the loader passes them through without parsing.
const CA = '-----BEGIN CERTIFICATE-----\nCA\n-----END CERTIFICATE-----\n';
const CERT = '-----BEGIN CERTIFICATE-----\nADMIN\n-----END CERTIFICATE-----\n';
const KEY = '-----BEGIN PRIVATE KEY-----\nKEY\n-----END PRIVATE KEY-----\n';

const dirs: string[] = [];
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'wheelhouse-kubeconfig-'));
  dirs.push(dir);
  return dir;
}
after(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

const b64 = (text: string) => Buffer.from(text).toString('base64');

test('a built kubeconfig has one cluster, user and context, with embedded base64 data', () => {
  const config = buildKubeconfig({ server: 'https://127.0.0.1:6443', caPem: CA, certPem: CERT, keyPem: KEY });
  const read = parse(kubeconfigToYaml(config), { version: '1.1' });
  assert.deepEqual(read, {
    apiVersion: 'v1',
    clusters: [
      { name: 'wheelhouse', cluster: { 'certificate-authority-data': b64(CA), server: 'https://127.0.0.1:6443' } },
    ],
    contexts: [{ name: 'wheelhouse', context: { cluster: 'wheelhouse', user: 'wheelhouse-admin' } }],
    'current-context': 'wheelhouse',
    kind: 'Config',
    preferences: {},
    users: [{ name: 'wheelhouse-admin', user: { 'client-certificate-data': b64(CERT), 'client-key-data': b64(KEY) } }],
  });
});

test('names YAML 1.1 would misread are quoted', () => {
  const yaml = kubeconfigToYaml(
    buildKubeconfig({ server: 'https://h', caPem: CA, contextName: 'yes', namespace: 'on' }),
  );
  const read = parse(yaml, { version: '1.1' });
  assert.equal(read['current-context'], 'yes');
  assert.equal(read.contexts[0].context.namespace, 'on');
});

test('written with mode 0600 and read back as the current context', async () => {
  const dir = await tempDir();
  const file = join(dir, 'sub', 'kubeconfig');
  await writeKubeconfig(
    file,
    buildKubeconfig({ server: 'https://127.0.0.1:6443', caPem: CA, certPem: CERT, keyPem: KEY }),
  );
  assert.equal((await stat(file)).mode & 0o777, 0o600);
  assert.deepEqual(await loadKubeconfig(file), {
    contextName: 'wheelhouse',
    clusterName: 'wheelhouse',
    userName: 'wheelhouse-admin',
    server: 'https://127.0.0.1:6443',
    caPem: CA,
    certPem: CERT,
    keyPem: KEY,
    namespace: 'default',
  });
});

test('relative file paths are resolved against the kubeconfig file, not the working directory', async () => {
  const dir = await tempDir();
  await mkdir(join(dir, 'certs'));
  await writeFile(join(dir, 'certs', 'ca.crt'), CA);
  await writeFile(join(dir, 'certs', 'admin.crt'), CERT);
  await writeFile(join(dir, 'certs', 'admin.key'), KEY);
  await writeFile(join(dir, 'token'), 'file-token\n');
  const file = join(dir, 'config');
  await writeFile(
    file,
    `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: {server: "https://10.0.0.1:6443", certificate-authority: certs/ca.crt, insecure-skip-tls-verify: yes}
users:
- name: cert-user
  user: {client-certificate: certs/admin.crt, client-key: ./certs/admin.key}
- name: token-user
  user: {token: inline-token, tokenFile: token}
contexts:
- name: with-cert
  context: {cluster: c, user: cert-user, namespace: kube-system}
- name: with-token
  context: {cluster: c, user: token-user}
current-context: with-cert
`,
  );
  const withCert = await loadKubeconfig(file);
  assert.equal(withCert.caPem, CA);
  assert.equal(withCert.certPem, CERT);
  assert.equal(withCert.keyPem, KEY);
  assert.equal(withCert.namespace, 'kube-system');
  assert.equal(withCert.insecureSkipTlsVerify, true, 'yes is true in YAML 1.1');
  const withToken = await loadKubeconfig(file, { context: 'with-token' });
  assert.equal(withToken.token, 'file-token', 'a readable tokenFile wins over token');
  assert.equal(withToken.certPem, undefined);
});

test('embedded data wins over a file path', async () => {
  const dir = await tempDir();
  const file = join(dir, 'config');
  await writeFile(
    file,
    `clusters:
- name: c
  cluster: {server: "https://h", certificate-authority: /nonexistent/ca.crt, certificate-authority-data: ${b64(CA)}}
users:
- {name: nobody, user: {}}
contexts:
- {name: x, context: {cluster: c, user: nobody}}
current-context: x
`,
  );
  const connection = await loadKubeconfig(file);
  assert.equal(connection.caPem, CA);
  assert.equal(connection.token, undefined, 'a user with no fields has no credentials');
});

test('several files: the first to name an entry owns it whole; the first current-context wins', async () => {
  const dir = await tempDir();
  const first = join(dir, 'first');
  const second = join(dir, 'second');
  await writeFile(
    first,
    `clusters:
- {name: shared, cluster: {server: "https://first"}}
users:
- {name: u, user: {token: first-token}}
`,
  );
  await writeFile(
    second,
    `clusters:
- {name: shared, cluster: {server: "https://second", certificate-authority-data: ${b64(CA)}}}
- {name: only-second, cluster: {server: "https://only-second"}}
users:
- {name: u, user: {token: second-token, client-certificate-data: ${b64(CERT)}}}
contexts:
- {name: a, context: {cluster: shared, user: u}}
- {name: b, context: {cluster: only-second, user: u}}
current-context: a
`,
  );
  const merged = await loadKubeconfig(`${first}:${join(dir, 'missing')}:${second}`);
  assert.equal(merged.server, 'https://first');
  assert.equal(merged.caPem, undefined, "the second file's fields for the same cluster are not mixed in");
  assert.equal(merged.token, 'first-token');
  assert.equal(merged.certPem, undefined);
  assert.equal((await loadKubeconfig([first, second], { context: 'b' })).server, 'https://only-second');
  assert.equal((await loadKubeconfig([second, first])).server, 'https://second');
  const third = join(dir, 'third');
  await writeFile(third, 'current-context: b\n');
  assert.equal((await loadKubeconfig([third, second])).contextName, 'b');
  assert.equal((await loadKubeconfig([second, third])).contextName, 'a');
});

test('errors: no file, no context, unknown context, no server, unknown user or cluster, duplicate names', async () => {
  const dir = await tempDir();
  await assert.rejects(loadKubeconfig(join(dir, 'none')), /no kubeconfig file found/);
  await assert.rejects(loadKubeconfig({ kubeconfigPath: join(dir, 'none') }), /kubeconfig file .*none does not exist/);
  const file = join(dir, 'config');
  await writeFile(
    file,
    `clusters:
- {name: c, cluster: {}}
users:
- {name: u, user: {}}
contexts:
- {name: x, context: {cluster: c, user: u}}
- {name: no-user, context: {cluster: c, user: ghost}}
- {name: no-cluster, context: {cluster: nowhere, user: u}}
- {name: neither, context: {cluster: nowhere}}
`,
  );
  await assert.rejects(loadKubeconfig(file), /no context chosen: current-context is not set/);
  await assert.rejects(
    loadKubeconfig(file, { context: 'y' }),
    /^Error: invalid configuration: context was not found for specified context: y$/,
  );
  await assert.rejects(
    loadKubeconfig(file, { context: 'x' }),
    /invalid configuration: no server found for cluster "c"/,
  );
  await assert.rejects(
    loadKubeconfig(file, { context: 'no-user' }),
    /user "ghost" was not found for context "no-user"/,
  );
  await assert.rejects(
    loadKubeconfig({ kubeconfigPath: file, context: 'no-cluster' }),
    /cluster "nowhere" was not found for context "no-cluster"/,
  );
  await assert.rejects(
    loadKubeconfig(file, { context: 'neither' }),
    /invalid configuration: \[user was not specified for context "neither", cluster "nowhere" was not found/,
  );
  await writeFile(file, 'clusters:\n- {name: c, cluster: {server: a}}\n- {name: c, cluster: {server: b}}\n');
  await assert.rejects(loadKubeconfig(file), /duplicate name "c"/);
});

test('merging into an existing file keeps other entries and comments, replaces ours, and sets the context', async () => {
  const dir = await tempDir();
  const file = join(dir, 'config');
  const existing = `# my clusters
apiVersion: v1
kind: Config
clusters:
- cluster:
    server: https://prod.example.test
  name: prod
contexts:
- context:
    cluster: prod
    user: ops
  name: prod
current-context: prod
users:
- name: ops
  user:
    token: secret
`;
  await writeFile(file, existing);
  const ours = buildKubeconfig({ server: 'https://127.0.0.1:6443', caPem: CA, certPem: CERT, keyPem: KEY });
  await mergeKubeconfig(file, ours);
  await mergeKubeconfig(
    file,
    buildKubeconfig({ server: 'https://127.0.0.1:7000', caPem: CA, certPem: CERT, keyPem: KEY }),
  );
  const text = await readFile(file, 'utf8');
  assert.match(text, /^# my clusters\n/);
  const read = parse(text, { version: '1.1' });
  assert.deepEqual(
    read.clusters.map((c: { name: string }) => c.name),
    ['prod', 'wheelhouse'],
  );
  assert.deepEqual(
    read.users.map((u: { name: string }) => u.name),
    ['ops', 'wheelhouse-admin'],
  );
  assert.deepEqual(
    read.contexts.map((c: { name: string }) => c.name),
    ['prod', 'wheelhouse'],
  );
  assert.deepEqual(read.users[0], { name: 'ops', user: { token: 'secret' } });
  assert.equal(read['current-context'], 'wheelhouse');
  assert.equal((await loadKubeconfig(file)).server, 'https://127.0.0.1:7000', 'the second merge replaced the first');
  assert.equal((await loadKubeconfig(file, { context: 'prod' })).token, 'secret');
  assert.equal((await stat(file)).mode & 0o777, 0o600);
});

test('merge without taking the current context, into a new file, and while kubectl holds the lock', async () => {
  const dir = await tempDir();
  const file = join(dir, 'config');
  await writeFile(file, 'current-context: mine\ncontexts:\n- {name: mine, context: {cluster: m, user: m}}\n');
  const ours = buildKubeconfig({ server: 'https://127.0.0.1:6443', caPem: CA });
  await mergeKubeconfig(file, ours, { setCurrentContext: false });
  assert.equal(parse(await readFile(file, 'utf8'))['current-context'], 'mine');

  const fresh = join(dir, 'new', 'config');
  await mergeKubeconfig(fresh, ours, { setCurrentContext: false });
  assert.equal((await loadKubeconfig(fresh)).server, 'https://127.0.0.1:6443', 'an empty file takes our context');

  await writeFile(`${file}.lock`, '');
  await assert.rejects(mergeKubeconfig(file, ours), /being edited/);
});

test('kubectl looks in $KUBECONFIG, else ~/.kube/config', () => {
  assert.deepEqual(kubeconfigPaths({ KUBECONFIG: '/a:/b' }), ['/a', '/b']);
  assert.match(kubeconfigPaths({})[0] ?? '', /\.kube\/config$/);
  assert.deepEqual(kubeconfigPaths({ HOME: '/home/x' }), ['/home/x/.kube/config']);
});

test('with options: --kubeconfig alone, else $KUBECONFIG merged, else ~/.kube/config; --context', async () => {
  const dir = await tempDir();
  const first = join(dir, 'first');
  const second = join(dir, 'second');
  await writeFile(
    first,
    `clusters:
- {name: c, cluster: {server: "https://from-first"}}
users:
- {name: u, user: {token: t1}}
contexts:
- {name: dev, context: {cluster: c, user: u, namespace: dev-ns}}
`,
  );
  await writeFile(
    second,
    `clusters:
- {name: c, cluster: {server: "https://from-second"}}
- {name: other, cluster: {server: "https://other"}}
users:
- {name: u, user: {token: t2}}
contexts:
- {name: dev, context: {cluster: other, user: u}}
- {name: prod, context: {cluster: other, user: u}}
current-context: dev
`,
  );
  const env = { KUBECONFIG: [first, join(dir, 'missing'), second].join(delimiter), HOME: join(dir, 'home') };
  const merged = await loadKubeconfig({ env });
  assert.equal(merged.contextName, 'dev', 'current-context comes from the second file');
  assert.equal(merged.server, 'https://from-first', "context dev and cluster c are the first file's");
  assert.equal(merged.token, 't1');
  assert.equal(merged.namespace, 'dev-ns');
  const prod = await loadKubeconfig({ env, context: 'prod' });
  assert.equal(prod.server, 'https://other');
  assert.equal(prod.namespace, 'default', 'a context without a namespace means default');

  const explicit = await loadKubeconfig({ kubeconfigPath: second, env });
  assert.equal(explicit.server, 'https://other', '--kubeconfig ignores $KUBECONFIG');
  assert.equal(explicit.token, 't2');

  await mkdir(join(dir, 'home', '.kube'), { recursive: true });
  await writeFile(join(dir, 'home', '.kube', 'config'), (await readFile(second, 'utf8')).replace('dev', 'home'));
  const fromHome = await loadKubeconfig({ env: { HOME: join(dir, 'home') }, context: 'prod' });
  assert.equal(fromHome.server, 'https://other');
  await assert.rejects(loadKubeconfig({ env: { HOME: join(dir, 'nobody') } }), /no kubeconfig file found/);
});

test('an in-memory kubeconfig resolves like a file', async () => {
  const config = buildKubeconfig({ server: 'https://h:1', caPem: CA, token: 'abc', namespace: 'team' });
  const connection = await resolveKubeconfig(config);
  assert.equal(connection.server, 'https://h:1');
  assert.equal(connection.caPem, CA);
  assert.equal(connection.token, 'abc');
  assert.equal(connection.namespace, 'team');
});
