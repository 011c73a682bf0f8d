/**
 * The real kubectl 1.33 sends `kubectl create …` bodies as Kubernetes protobuf. A small HTTPS server stands in
 * for the apiserver, records each POST body and answers with its decoding; each body must decode to exactly the
 * object `kubectl create … --dry-run=client -o json` prints for the same command (Go's JSON of the same struct).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { decodeKubernetesProtobuf } from '../../src/api/protobuf/decode.js';
import assert from '../../src/testing/assert.js';

const run = promisify(execFile);
const KUBECTL = '/usr/bin/kubectl';
const missing = !existsSync(KUBECTL) ? 'kubectl is not installed' : undefined;

interface Recorded {
  path: string;
  contentType: string;
  userAgent: string;
  body: Buffer;
}

const resource = (name: string, kind: string, namespaced: boolean) => ({
  name,
  singularName: '',
  namespaced,
  kind,
  verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
});

const DISCOVERY: Record<string, unknown> = {
  '/version': { major: '1', minor: '33', gitVersion: 'v1.33.0' },
  '/api': { kind: 'APIVersions', versions: ['v1'] },
  '/apis': {
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: [
      {
        name: 'apps',
        versions: [{ groupVersion: 'apps/v1', version: 'v1' }],
        preferredVersion: { groupVersion: 'apps/v1', version: 'v1' },
      },
    ],
  },
  '/api/v1': {
    kind: 'APIResourceList',
    groupVersion: 'v1',
    resources: [
      resource('configmaps', 'ConfigMap', true),
      resource('secrets', 'Secret', true),
      resource('namespaces', 'Namespace', false),
      resource('serviceaccounts', 'ServiceAccount', true),
    ],
  },
  '/apis/apps/v1': {
    kind: 'APIResourceList',
    groupVersion: 'apps/v1',
    resources: [resource('deployments', 'Deployment', true)],
  },
};

/** kubectl create commands; flags for the dry run go before them, since some end in `-- command`. */
const COMMANDS: Record<string, string[]> = {
  configmap: ['create', 'configmap', 'c', '--from-literal=a=b', '--from-literal=x=y', '-n', 'default'],
  secret: ['create', 'secret', 'generic', 's', '--from-literal=k=v'],
  deployment: ['create', 'deployment', 'd', '--image=nginx', '--replicas=2', '--port=80'],
  namespace: ['create', 'namespace', 'n'],
  serviceaccount: ['create', 'serviceaccount', 'sa'],
  service: ['create', 'service', 'clusterip', 'svc', '--tcp=80:8080'],
  pdb: ['create', 'poddisruptionbudget', 'pdb', '--selector=app=x', '--min-available=50%'],
  quota: ['create', 'quota', 'q', '--hard=cpu=1,memory=1G,pods=2', '--scopes=BestEffort'],
  priorityclass: ['create', 'priorityclass', 'pc', '--value=1000', '--preemption-policy=Never'],
  cronjob: ['create', 'cronjob', 'cj', '--image=busybox', '--schedule=*/5 * * * *', '--', 'date'],
  binary: ['create', 'configmap', 'bin', '--from-file=BINARY'],
};

describe('kubectl protobuf request bodies', { skip: missing }, () => {
  let dir = '';
  let server: Server | undefined;
  const recorded: Recorded[] = [];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'wheelhouse-protobuf-'));
    await run('openssl', [
      ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'],
      ...['-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-days', '1', '-subj', '/CN=127.0.0.1'],
    ]);
    writeFileSync(join(dir, 'binary.dat'), Uint8Array.of(0, 0xff, 0xfe, 0x80, 0x41));
    server = createServer({ key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) });
    server.on('request', (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const path = (req.url ?? '').split('?')[0] ?? '';
        res.setHeader('Content-Type', 'application/json');
        if (req.method === 'GET' && path in DISCOVERY) {
          res.end(JSON.stringify(DISCOVERY[path]));
          return;
        }
        if (req.method === 'POST') {
          const body = Buffer.concat(chunks);
          recorded.push({
            path,
            body,
            contentType: String(req.headers['content-type']),
            userAgent: String(req.headers['user-agent']),
          });
          try {
            res.statusCode = 201;
            res.end(JSON.stringify(decodeKubernetesProtobuf(body).object));
          } catch (err) {
            res.statusCode = 400;
            res.end(
              JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', message: String(err), code: 400 }),
            );
          }
          return;
        }
        res.statusCode = 404;
        res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404 }));
      });
    });
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    writeFileSync(
      join(dir, 'kubeconfig'),
      [
        'apiVersion: v1',
        'kind: Config',
        `clusters: [{name: c, cluster: {server: "https://127.0.0.1:${port}", insecure-skip-tls-verify: true}}]`,
        'users: [{name: u, user: {token: t}}]',
        'contexts: [{name: c, context: {cluster: c, user: u, namespace: default}}]',
        'current-context: c',
      ].join('\n'),
    );
  });

  after(() => {
    server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const kubectl = async (args: string[]): Promise<string> => {
    const resolved = args.map((a) => a.replace('BINARY', join(dir, 'binary.dat')));
    const env = { ...process.env, KUBECONFIG: join(dir, 'kubeconfig'), HOME: dir };
    const { stdout } = await run(KUBECTL, ['--cache-dir', join(dir, 'cache'), ...resolved], { env, timeout: 30_000 });
    return stdout;
  };

  it('decodes every body to the object kubectl meant', async () => {
    const expected = await Promise.all(
      Object.values(COMMANDS).map(async (args) =>
        JSON.parse(await kubectl(['-o', 'json', '--dry-run=client', ...args])),
      ),
    );
    assert.equal(recorded.length, 0, 'a dry run sent nothing');
    await Promise.all(Object.values(COMMANDS).map((args) => kubectl(args)));
    assert.equal(recorded.length, expected.length);

    for (const request of recorded) {
      assert.equal(request.contentType, 'application/vnd.kubernetes.protobuf', request.path);
      assert.match(request.userAgent, /^kubectl\/v1\.33\./);
      const decoded = decodeKubernetesProtobuf(request.body);
      const name = (decoded.object.metadata as { name?: string }).name;
      const want = expected.find((e) => e.kind === decoded.kind && e.metadata.name === name);
      assert.ok(want, `${decoded.kind} ${name}`);
      assert.deepEqual(decoded.object, want, `${decoded.kind} ${name}`);
    }

    const byName = (kind: string, name: string): Record<string, unknown> => {
      const found = recorded
        .map((r) => decodeKubernetesProtobuf(r.body).object)
        .find((o) => o.kind === kind && (o.metadata as { name: string }).name === name);
      assert.ok(found, `${kind} ${name}`);
      return found;
    };
    assert.deepEqual(byName('ConfigMap', 'c'), {
      kind: 'ConfigMap',
      apiVersion: 'v1',
      metadata: { name: 'c', namespace: 'default', creationTimestamp: null },
      data: { a: 'b', x: 'y' },
    });
    assert.deepEqual(byName('Secret', 's').data, { k: 'dg==' });
    assert.deepEqual(byName('ConfigMap', 'bin').binaryData, { 'binary.dat': 'AP/+gEE=' });
    assert.equal((byName('Deployment', 'd').spec as { replicas: number }).replicas, 2);
    assert.equal((byName('PodDisruptionBudget', 'pdb').spec as { minAvailable: unknown }).minAvailable, '50%');
    const ports = (byName('Service', 'svc').spec as { ports: { port: number; targetPort: unknown }[] }).ports;
    assert.deepEqual(
      ports.map((p) => [p.port, p.targetPort]),
      [[80, 8080]],
    );
  });
});
