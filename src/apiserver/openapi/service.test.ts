import { createHash } from 'node:crypto';
import { createServer, get as httpGet, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import assert from '../../testing/assert.js';
import type { RequestContext } from '../context.js';
import { parseRequestInfo } from '../request-info.js';
import { OpenAPIService } from './service.js';
import { addSample, sampleRegistry } from './test-registry.js';

const registry = sampleRegistry();
const service = new OpenAPIService(registry, { infoVersion: 'v1.33.0-test' });
let server: Server;
let base: string;
const answered: string[] = [];

before(async () => {
  server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const ctx: RequestContext = {
      req,
      res,
      method: req.method ?? 'GET',
      url,
      info: parseRequestInfo(req.method ?? 'GET', url.pathname, url.searchParams),
      user: undefined,
      auditId: 'a',
      startedAt: 0,
      longRunning: false,
      auditAnnotations: {},
    };
    if (service.serve(ctx)) answered.push(url.pathname);
    else {
      res.writeHead(404);
      res.end('not ours');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function get(path: string, headers: Record<string, string> = {}, method = 'GET') {
  const res = await fetch(base + path, { method, headers, redirect: 'manual' });
  return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
}

const sha512 = (b: Buffer) => createHash('sha512').update(b).digest('hex').toUpperCase();

describe('/openapi/v3', () => {
  test('lists each served group/version with a URL carrying the hash of its document', async () => {
    const res = await get('/openapi/v3');
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/json');
    assert.equal(res.headers.get('etag'), `"${sha512(res.body)}"`);
    assert.equal(res.headers.get('cache-control'), 'no-cache, private');
    const discovery = JSON.parse(res.body.toString());
    assert.deepEqual(Object.keys(discovery.paths), ['api/v1', 'apis/apps/v1']);
    for (const [key, { serverRelativeURL }] of Object.entries<{ serverRelativeURL: string }>(discovery.paths)) {
      assert.match(serverRelativeURL, new RegExp(`^/openapi/v3/${key}\\?hash=[0-9A-F]{128}$`));
      const doc = await get(serverRelativeURL);
      assert.equal(doc.status, 200);
      assert.equal(serverRelativeURL.split('hash=')[1], sha512(doc.body), 'the hash is the SHA-512 of the document');
      assert.equal(doc.headers.get('etag'), `"${sha512(doc.body)}"`);
      assert.equal(doc.headers.get('cache-control'), 'public, immutable');
      assert.equal(doc.headers.get('vary'), 'Accept');
      const expires = Date.parse(doc.headers.get('expires') ?? '');
      assert.ok(expires > Date.now() + 360 * 24 * 3600 * 1000, 'expires about a year ahead');
      assert.equal(JSON.parse(doc.body.toString()).openapi, '3.0.0');
    }
  });

  test('a stale hash is redirected to the current one; no hash is served uncached; 304 for a known ETag', async () => {
    const current = JSON.parse((await get('/openapi/v3')).body.toString()).paths['api/v1'].serverRelativeURL;
    const stale = await get('/openapi/v3/api/v1?hash=0123');
    assert.equal(stale.status, 301);
    assert.equal(stale.headers.get('location'), current);
    assert.equal(stale.body.length, 0);
    const plain = await get('/openapi/v3/api/v1');
    assert.equal(plain.status, 200);
    assert.equal(plain.headers.get('cache-control'), 'no-cache, private');
    const etag = plain.headers.get('etag') ?? '';
    const again = await get('/openapi/v3/api/v1', { 'if-none-match': etag });
    assert.equal(again.status, 304);
    assert.equal(again.body.length, 0);
    const head = await get(current, {}, 'HEAD');
    assert.equal(head.status, 200);
    assert.equal(head.headers.get('content-length'), String(plain.body.length));
  });

  test('JSON only: protobuf-only clients get 406; unknown group/versions an empty 200 as upstream', async () => {
    const pb = 'application/com.github.proto-openapi.spec.v3@v1.0+protobuf';
    assert.equal((await get('/openapi/v3/api/v1', { accept: pb })).status, 406);
    const either = await get('/openapi/v3/api/v1', { accept: `${pb}, application/json;q=0.5` });
    assert.equal(either.status, 200);
    assert.equal(either.headers.get('content-type'), 'application/json');
    const missing = await get('/openapi/v3/apis/nothing/v1');
    assert.equal(missing.status, 200);
    assert.equal(missing.body.length, 0);
  });

  test('documents follow the registry: a newly served resource changes the hashes', async () => {
    const before = JSON.parse((await get('/openapi/v3')).body.toString());
    addSample(registry, { group: 'apps', resource: 'replicasets', kind: 'ReplicaSet' });
    const afterAdd = JSON.parse((await get('/openapi/v3')).body.toString());
    assert.equal(afterAdd.paths['api/v1'].serverRelativeURL, before.paths['api/v1'].serverRelativeURL);
    assert.notEqual(afterAdd.paths['apis/apps/v1'].serverRelativeURL, before.paths['apis/apps/v1'].serverRelativeURL);
    const apps = JSON.parse((await get(afterAdd.paths['apis/apps/v1'].serverRelativeURL)).body.toString());
    assert.ok(apps.paths['/apis/apps/v1/namespaces/{namespace}/replicasets/{name}']);
  });
});

describe('/openapi/v2', () => {
  test('serves JSON or protobuf (what kubectl asks for), gzip-compressed when accepted; 406 for anything else', async () => {
    const refused = await get('/openapi/v2', { accept: 'text/html' });
    assert.equal(refused.status, 406);
    assert.equal(refused.body.length, 0);
    const kubectlAccept = { accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf' };
    const pb = await get('/openapi/v2', { ...kubectlAccept, 'accept-encoding': 'identity' });
    assert.equal(pb.status, 200);
    assert.equal(pb.headers.get('content-type'), 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf');
    assert.equal(pb.body[0], 0x0a, 'Document.swagger (field 1) first');
    assert.equal(pb.body.subarray(2, 5).toString(), '2.0');
    const plain = await get('/openapi/v2', { accept: 'application/json', 'accept-encoding': 'identity' });
    assert.equal(pb.headers.get('etag'), plain.headers.get('etag'), "the ETag is the JSON document's, as upstream's");
    assert.equal(plain.status, 200);
    assert.equal(plain.headers.get('content-encoding'), null);
    const doc = JSON.parse(plain.body.toString());
    assert.equal(doc.swagger, '2.0');
    assert.equal(doc.info.version, 'v1.33.0-test');
    assert.ok(doc.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale']);
    // fetch decompresses on its own: read the raw bytes with node:http.
    const raw = await new Promise<{ encoding: string | undefined; body: Buffer }>((resolve, reject) => {
      httpGet(`${base}/openapi/v2`, { headers: { 'accept-encoding': 'gzip' } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ encoding: res.headers['content-encoding'], body: Buffer.concat(chunks) }));
      }).on('error', reject);
    });
    assert.equal(raw.encoding, 'gzip');
    assert.deepEqual(gunzipSync(raw.body), plain.body);
  });

  test('leaves other paths alone', async () => {
    answered.length = 0;
    assert.equal((await get('/openapi/v2/')).status, 404);
    assert.equal((await get('/openapi')).status, 404);
    assert.deepEqual(answered, []);
  });
});
