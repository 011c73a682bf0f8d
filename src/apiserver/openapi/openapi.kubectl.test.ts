/**
 * The real kubectl against an in-process apiserver with the OpenAPI service (and, for creates and updates, the
 * field validation helpers) put in front of the server's routes — the way server.ts and rest.ts are meant to
 * wire them. kubectl must explain fields from /openapi/v3, find `fieldValidation` there and send it, and compute
 * client-side apply patches from v3; it reads /openapi/v2 (in protobuf) only for `explain
 * --output=plaintext-openapiv2` and to check the items of a List.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { descriptionsOf, schemaForKind } from '../../api/schema.js';
import { buildKubeconfig, writeKubeconfig } from '../../client/kubeconfig.js';
import { MemoryStore } from '../../storage/memory.js';
import assert from '../../testing/assert.js';
import { silentLogger } from '../../util/logger.js';
import type { APIRegistry } from '../api-registry.js';
import { buildRegistry, ensureSystemNamespaces } from '../assemble.js';
import { ensurePki } from '../bootstrap/pki.js';
import type { Handler, HttpRequest, RequestContext } from '../context.js';
import { contentTypeOf, decodeBody, readBody } from '../handlers/body.js';
import {
  addWarnings,
  dropUnknownFields,
  fieldValidationDirective,
  requestBodyStrictErrors,
  strictDecodingError,
} from '../registry/field-validation.js';
import { APIServer } from '../server.js';
import { OpenAPIService } from './service.js';

const KUBECTL = '/usr/bin/kubectl';
const skip = !existsSync(KUBECTL) && 'kubectl is not installed';

interface Seen {
  method: string;
  path: string;
  query: URLSearchParams;
  contentType: string;
  accept: string;
}

let dir: string;
let kubeconfig: string;
let server: APIServer;
let storage: MemoryStore;
const seen: Seen[] = [];

/**
 * What rest.ts is to do for create and update: check the body's fields against the directive, then drop the
 * unknown ones, before the rest of the handler sees the object.
 */
async function validateFields(ctx: RequestContext, registry: APIRegistry): Promise<void> {
  const { info } = ctx;
  if (!info.isResourceRequest || (info.verb !== 'create' && info.verb !== 'update')) return;
  const served = registry.lookup(info.apiGroup, info.apiVersion, info.resource);
  if (!served || info.subresource) return;
  const directive = fieldValidationDirective(
    ctx.url.searchParams,
    info.verb === 'create' ? 'CreateOptions' : 'UpdateOptions',
  );
  const raw = await readBody(ctx);
  const { def } = served;
  const schema = schemaForKind({ group: def.group, version: def.version, kind: def.kind });
  const decoded = decodeBody(raw, contentTypeOf(ctx)) as { apiVersion?: unknown; kind?: unknown };
  if (schema && directive !== 'Ignore') {
    const errors = requestBodyStrictErrors(raw.toString('utf8'), contentTypeOf(ctx), decoded, schema);
    if (errors.length > 0 && directive === 'Strict') throw strictDecodingError(decoded, def, errors);
    addWarnings(ctx.res, errors);
  }
  if (schema) dropUnknownFields(decoded, schema);
  // Hand the (pruned) body on to the real handler (test-only plumbing).
  const body = Buffer.from(JSON.stringify(decoded));
  const headers = { ...ctx.req.headers, 'content-type': 'application/json', 'content-length': String(body.length) };
  ctx.req = Object.assign(Readable.from([body]), { headers, method: ctx.req.method }) as unknown as HttpRequest;
}

before(async () => {
  if (skip) return;
  dir = await mkdtemp(join(tmpdir(), 'wheelhouse-openapi-'));
  storage = new MemoryStore();
  const pki = await ensurePki(join(dir, 'pki'), { extraSans: ['127.0.0.1'] });
  const registry = buildRegistry(storage, silentLogger);
  server = new APIServer({
    storage,
    registry,
    tls: { certPem: pki.apiserver.certPem, keyPem: pki.apiserver.keyPem, clientCaPem: pki.ca.certPem },
    bindAddress: '127.0.0.1',
    securePort: 0,
  });
  const openapi = new OpenAPIService(registry);
  const wrapped = server as unknown as { route: Handler };
  const inner = wrapped.route;
  wrapped.route = async (ctx) => {
    const header = (name: string) => String(ctx.req.headers[name] ?? '');
    seen.push({
      method: ctx.method,
      path: ctx.url.pathname,
      query: ctx.url.searchParams,
      contentType: header('content-type'),
      accept: header('accept'),
    });
    if (openapi.serve(ctx)) return;
    await validateFields(ctx, registry);
    return inner(ctx);
  };
  const url = await server.start();
  await ensureSystemNamespaces(registry);
  kubeconfig = join(dir, 'kubeconfig');
  await writeKubeconfig(
    kubeconfig,
    buildKubeconfig({ server: url, caPem: pki.ca.certPem, certPem: pki.admin.certPem, keyPem: pki.admin.keyPem }),
  );
});

after(async () => {
  if (skip) return;
  await server.stop();
  await storage.close();
  await rm(dir, { recursive: true, force: true });
});

/** Runs kubectl asynchronously (the server lives in this process) with its own cache directory. */
function kubectl(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      KUBECTL,
      ['--kubeconfig', kubeconfig, '--cache-dir', join(dir, 'cache'), ...args],
      { env: { PATH: process.env.PATH, HOME: dir }, timeout: 60_000 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
        resolve({ code, stdout: String(stdout), stderr: String(stderr) });
      },
    );
  });
}

async function manifest(name: string, body: object): Promise<string> {
  const file = join(dir, name);
  await writeFile(file, JSON.stringify(body));
  return file;
}

const configMapPosts = () =>
  seen.filter((s) => s.method === 'POST' && s.path === '/api/v1/namespaces/default/configmaps');

describe('kubectl and /openapi', { skip }, () => {
  test('kubectl explain reads fields from /openapi/v3', async () => {
    const data = await kubectl('explain', 'configmap.data');
    assert.equal(data.code, 0, data.stderr);
    assert.match(data.stdout, /^KIND:\s+ConfigMap$/m);
    assert.match(data.stdout, /^VERSION:\s+v1$/m);
    assert.match(data.stdout, /^FIELD: data <map\[string\]string>$/m);
    const ns = await kubectl('explain', 'namespace.spec');
    assert.equal(ns.code, 0, ns.stderr);
    assert.match(ns.stdout, /^FIELD: spec <NamespaceSpec>$/m);
    assert.match(ns.stdout, /finalizers\s+<\[\]string>/);
    // Each field and type is described in our own words (src/api/generated/descriptions.json).
    const image = await kubectl('explain', 'pod.spec.containers.image');
    assert.equal(image.code, 0, image.stderr);
    const said = descriptionsOf('io.k8s.api.core.v1.Container')?.image ?? '';
    assert.ok(said.length > 20);
    assert.ok(
      image.stdout.replace(/\s+/g, ' ').includes(said.replace(/\s+/g, ' ')),
      `${image.stdout}\nshould describe the field as\n${said}`,
    );
    const pod = await kubectl('explain', 'pod');
    assert.ok(pod.stdout.replace(/\s+/g, ' ').includes(descriptionsOf('io.k8s.api.core.v1.Pod')?.[''] ?? '?'));
    assert.doesNotMatch(pod.stdout, /<no description>|<empty>/);
    const missing = await kubectl('explain', 'configmap.nosuchfield');
    assert.notEqual(missing.code, 0);
    assert.match(missing.stderr, /field "nosuchfield" does not exist/);
    assert.ok(seen.some((s) => s.path === '/openapi/v3'));
    const gv = seen.find((s) => s.path === '/openapi/v3/api/v1');
    assert.ok(gv, 'kubectl fetched the core/v1 document');
    assert.match(gv.query.get('hash') ?? '', /^[0-9A-F]{128}$/);
    assert.equal(gv.accept, 'application/json');
  });

  test('kubectl create finds fieldValidation in v3 and lets the server refuse unknown fields (Strict)', async () => {
    const file = await manifest('cm-strict.json', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'strict', colour: 'blue' },
      data: { a: 'b' },
      foo: 1,
    });
    const before = seen.length;
    const res = await kubectl('create', '-n', 'default', '-f', file);
    assert.notEqual(res.code, 0);
    assert.match(
      res.stderr,
      /Error from server \(BadRequest\): error when creating ".*cm-strict\.json": ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "foo", unknown field "metadata.colour"/,
    );
    assert.doesNotMatch(res.stderr, /failed to download openapi/);
    const post = seen.slice(before).find((s) => s.method === 'POST');
    assert.ok(post, 'kubectl sent the create');
    assert.equal(post.query.get('fieldValidation'), 'Strict');
    assert.equal((await kubectl('get', 'configmap', 'strict', '-n', 'default')).code, 1, 'nothing was created');
  });

  test('--validate=warn sends Warn and prints the server warnings', async () => {
    const file = await manifest('cm-warn.json', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'warned' },
      foo: 1,
    });
    const res = await kubectl('create', '-n', 'default', '--validate=warn', '-f', file);
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stderr, /Warning: unknown field "foo"/);
    assert.equal(configMapPosts().at(-1)?.query.get('fieldValidation'), 'Warn');
    const stored = JSON.parse((await kubectl('get', 'configmap', 'warned', '-n', 'default', '-o', 'json')).stdout);
    assert.equal(stored.foo, undefined, 'the unknown field is dropped, as decoding into the Go type does');
  });

  test('client-side apply computes its patch from the v3 document, never asking for /openapi/v2', async () => {
    const first = await manifest('cm-apply.json', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'applied', namespace: 'default' },
      data: { a: '1' },
    });
    assert.equal((await kubectl('apply', '-f', first)).code, 0);
    const second = await manifest('cm-apply2.json', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'applied', namespace: 'default', labels: { l: 'x' } },
      data: { b: '2' },
    });
    const res = await kubectl('apply', '-f', second);
    assert.equal(res.code, 0, res.stderr);
    assert.doesNotMatch(res.stderr, /error calculating patch/);
    const patch = seen.find((s) => s.method === 'PATCH' && s.path.endsWith('/configmaps/applied'));
    assert.ok(patch, 'apply patched the object');
    assert.equal(patch.contentType, 'application/strategic-merge-patch+json');
    assert.equal(patch.query.get('fieldValidation'), 'Strict');
    const got = JSON.parse((await kubectl('get', 'configmap', 'applied', '-n', 'default', '-o', 'json')).stdout);
    assert.deepEqual(got.data, { b: '2' });
    assert.equal(got.metadata.labels.l, 'x');
    assert.deepEqual(
      seen.filter((s) => s.path === '/openapi/v2'),
      [],
      'nothing so far needed the v2 document',
    );
  });

  test('explain --output=plaintext-openapiv2 reads /openapi/v2, which kubectl asks for as protobuf', async () => {
    const res = await kubectl('explain', 'pod.spec.containers.ports', '--output=plaintext-openapiv2');
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stdout, /^RESOURCE: ports <\[\]Object>$/m);
    assert.match(res.stdout, /^ {3}containerPort\t<integer> -required-$/m);
    const port = descriptionsOf('io.k8s.api.core.v1.ContainerPort')?.containerPort ?? '?';
    assert.ok(res.stdout.replace(/\s+/g, ' ').includes(port), 'v2 (protobuf) carries the descriptions too');
    const v2 = seen.filter((s) => s.path === '/openapi/v2');
    assert.ok(v2.length > 0);
    assert.equal(v2[0]?.accept, 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf');
  });

  test('a List is checked on the client against /openapi/v2 (kubectl has no v3 document for it)', async () => {
    const list = (items: object[]) => manifest('list.json', { apiVersion: 'v1', kind: 'List', items });
    const bad = await kubectl(
      'create',
      '-n',
      'default',
      '-f',
      await list([
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'in-list' }, data: { a: 'b' }, foo: 1 },
        { apiVersion: 'v1', kind: 'Service', metadata: { name: 'in-list' }, spec: { ports: [{ port: 'eighty' }] } },
      ]),
    );
    assert.notEqual(bad.code, 0);
    assert.match(
      bad.stderr,
      /error validating data: \[ValidationError\(ConfigMap\): unknown field "foo" in io\.k8s\.api\.core\.v1\.ConfigMap, ValidationError\(Service\.spec\.ports\[0\]\.port\): invalid type for io\.k8s\.api\.core\.v1\.ServicePort\.port: got "string", expected "integer"\]/,
    );
    assert.equal((await kubectl('get', 'configmap', 'in-list', '-n', 'default')).code, 1, 'nothing was created');
    // What `kubectl get … -o json | kubectl replace -f -` sends: a List of the objects as served.
    const good = await kubectl(
      'create',
      '-n',
      'default',
      '-f',
      await list([{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'in-list' }, data: { a: 'b' } }]),
    );
    assert.equal(good.code, 0, good.stderr);
    const served = (await kubectl('get', 'configmaps', '-n', 'default', '-o', 'json')).stdout;
    const replaced = await kubectl('replace', '-f', await manifest('served.json', JSON.parse(served)));
    assert.equal(replaced.code, 0, replaced.stderr);
    assert.match(replaced.stdout, /^configmap\/in-list replaced$/m);
  });
});
