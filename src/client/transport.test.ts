/**
 * The REST client's wire behaviour against a small HTTP/2 (cleartext) server of the test's own: retries, the
 * rate limit, time limits, made-up errors, reconnection and watch decoding. Time is a FakeClock throughout.
 */
import {
  constants,
  createServer,
  type Http2ServerRequest,
  type Http2ServerResponse,
  type ServerHttp2Session,
} from 'node:http2';
import type { AddressInfo } from 'node:net';
import { after, describe, test } from 'node:test';
import assert from '../testing/assert.js';
import { FakeClock } from '../util/clock.js';
import { createLogger } from '../util/logger.js';
import { KubeClient, RequestTimeoutError, type RestConfig } from './rest.js';
import { ApiError, isGone, type WatchEvent } from './types.js';

type Handler = (req: Http2ServerRequest, res: Http2ServerResponse, hit: number) => void;

interface FakeServer {
  url: string;
  /** Requests seen so far. */
  hits: { method: string; url: string; headers: Http2ServerRequest['headers']; body: string }[];
  sessions: ServerHttp2Session[];
  close(): void;
}

const servers: FakeServer[] = [];
const clients: KubeClient[] = [];
after(() => {
  for (const c of clients) c.close();
  for (const s of servers) s.close();
});

async function fakeServer(handler: Handler): Promise<FakeServer> {
  const hits: FakeServer['hits'] = [];
  const sessions: ServerHttp2Session[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      hits.push({
        method: req.method,
        url: req.url,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      handler(req, res, hits.length);
    });
  });
  server.on('session', (s) => sessions.push(s));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const fake: FakeServer = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits,
    sessions,
    close() {
      for (const s of sessions) s.destroy();
      server.close();
    },
  };
  servers.push(fake);
  return fake;
}

function clientFor(server: FakeServer, clock: FakeClock, extra: Partial<RestConfig> = {}): KubeClient {
  const client = new KubeClient({
    server: server.url,
    clock,
    qps: Number.POSITIVE_INFINITY,
    timeoutMs: 0,
    ...extra,
  });
  clients.push(client);
  return client;
}

/** Lets I/O and promise callbacks run until cond holds (bounded, so a broken test fails instead of hanging). */
async function until(cond: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 2000; i++) {
    if (cond()) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error(`never happened: ${what}`);
}

function json(res: Http2ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

const tooMany = {
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: 'Too many requests, please try again later.',
  reason: 'TooManyRequests',
  details: { retryAfterSeconds: 2 },
  code: 429,
};

const configMap = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns' } });

describe('retries', () => {
  test('429 with Retry-After: waits that many seconds on the clock, then sends again', async () => {
    const server = await fakeServer((_req, res, hit) => {
      if (hit === 1) json(res, 429, tooMany, { 'retry-after': '2' });
      else json(res, 200, configMap('a'));
    });
    const clock = new FakeClock();
    const client = clientFor(server, clock);
    const got = client.configMaps('ns').get('a');
    await until(() => server.hits.length === 1 && clock.pending() === 1, 'the client waits after the 429');
    clock.step(1999);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(server.hits.length, 1, 'not before Retry-After has passed');
    clock.step(1);
    assert.equal((await got).metadata.name, 'a');
    assert.equal(server.hits.length, 2);
    assert.equal(server.hits[1]?.url, '/api/v1/namespaces/ns/configmaps/a');
  });

  test('a POST is sent again after 429 and after 5xx with Retry-After; its body each time', async () => {
    const server = await fakeServer((_req, res, hit) => {
      if (hit === 1) json(res, 429, tooMany, { 'retry-after': '0' });
      else if (hit === 2) json(res, 503, { kind: 'Status', code: 503, status: 'Failure' }, { 'retry-after': '0' });
      else json(res, 201, configMap('b'));
    });
    const client = clientFor(server, new FakeClock());
    const created = await client.configMaps('ns').create(configMap('b'));
    assert.equal(created.metadata.name, 'b');
    assert.equal(server.hits.length, 3);
    for (const hit of server.hits) {
      assert.equal(hit.method, 'POST');
      assert.deepEqual(JSON.parse(hit.body), configMap('b'));
      assert.equal(hit.headers['content-type'], 'application/json');
    }
  });

  test('gives up after 10 retries with the last answer; no Retry-After, no retry', async () => {
    const server = await fakeServer((_req, res) => json(res, 429, tooMany, { 'retry-after': '0' }));
    const client = clientFor(server, new FakeClock());
    const error = await client
      .configMaps('ns')
      .get('x')
      .catch((e: unknown) => e);
    assert.ok(error instanceof ApiError);
    assert.equal(error.code, 429);
    assert.equal(error.reason, 'TooManyRequests');
    assert.equal(server.hits.length, 11, 'the first try and 10 retries');

    const plain = await fakeServer((_req, res) =>
      json(res, 500, { kind: 'Status', code: 500, reason: 'InternalError' }),
    );
    const error500 = await clientFor(plain, new FakeClock())
      .configMaps('ns')
      .get('x')
      .catch((e: unknown) => e);
    assert.equal((error500 as ApiError).reason, 'InternalError');
    assert.equal(plain.hits.length, 1);
  });

  test('a GET is sent again after the server refuses the stream; a POST is not', async () => {
    const server = await fakeServer((req, res, hit) => {
      if (hit === 1 || req.method === 'POST') req.stream.close(constants.NGHTTP2_REFUSED_STREAM);
      else json(res, 200, configMap('c'));
    });
    const clock = new FakeClock();
    const client = clientFor(server, clock);
    const got = client.configMaps('ns').get('c');
    await until(() => clock.pending() === 1, 'the client waits before trying again');
    clock.step(1000);
    assert.equal((await got).metadata.name, 'c');
    assert.equal(server.hits.length, 2);

    await assert.rejects(client.configMaps('ns').create(configMap('d')), /REFUSED_STREAM|closed/);
    assert.equal(server.hits.length, 3, 'the POST went once');
  });
});

describe('rate limit, time limit, connection', () => {
  test('requests beyond the burst wait for the token bucket (qps 1, burst 2)', async () => {
    const server = await fakeServer((_req, res) => json(res, 200, configMap('r')));
    const clock = new FakeClock();
    const client = clientFor(server, clock, { qps: 1, burst: 2 });
    const done: number[] = [];
    const requests = [0, 1, 2, 3].map((i) =>
      client
        .configMaps('ns')
        .get('r')
        .then(() => done.push(i)),
    );
    await until(() => done.length === 2, 'the burst goes at once');
    assert.equal(server.hits.length, 2);
    clock.step(999);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(server.hits.length, 2);
    clock.step(1);
    await until(() => done.length === 3, 'one more after a second');
    clock.step(1000);
    await Promise.all(requests);
    assert.equal(server.hits.length, 4);

    // Watches are not rate limited.
    const watchServer = await fakeServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end();
    });
    const limited = clientFor(watchServer, clock, { qps: 1, burst: 1 });
    for (let i = 0; i < 3; i++) (await limited.configMaps('ns').watch()).close();
    assert.equal(watchServer.hits.length, 3);
  });

  test('a request that gets no answer fails after the time limit', async () => {
    const server = await fakeServer(() => {});
    const clock = new FakeClock();
    const client = clientFor(server, clock, { timeoutMs: 5000 });
    const pending = client.request({ method: 'GET', path: '/hang' }).catch((e: unknown) => e);
    await until(() => server.hits.length === 1, 'the request arrived');
    clock.step(5000);
    const error = await pending;
    assert.ok(error instanceof RequestTimeoutError, String(error));
    const aborted = new AbortController();
    const cancelled = client.request({ method: 'GET', path: '/hang', signal: aborted.signal }).catch((e: unknown) => e);
    await until(() => server.hits.length === 2, 'the second request arrived');
    aborted.abort(new Error('cancelled by caller'));
    assert.match(String(await cancelled), /cancelled by caller/);
  });

  test('one connection for many requests; a new one after GOAWAY', async () => {
    const server = await fakeServer((req, res) => {
      json(res, 200, { path: req.url });
      if (req.url === '/goaway') req.stream.session?.goaway(constants.NGHTTP2_NO_ERROR);
    });
    const client = clientFor(server, new FakeClock());
    await Promise.all([1, 2, 3].map((i) => client.request({ method: 'GET', path: `/r${i}` })));
    assert.equal(server.sessions.length, 1);
    await client.request({ method: 'GET', path: '/goaway' });
    // The GOAWAY frame came right behind the response; let the client take it in.
    for (let i = 0; i < 10; i++) await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(await client.request({ method: 'GET', path: '/after' }), { path: '/after' });
    assert.equal(server.sessions.length, 2);
  });

  test('headers: user agent, bearer token, accept; query parameters with upstream names', async () => {
    const server = await fakeServer((_req, res) => json(res, 200, { kind: 'ConfigMapList', metadata: {}, items: [] }));
    const client = clientFor(server, new FakeClock(), { token: 'sekret', userAgent: 'tester/1.0' });
    await client.configMaps().list({
      labelSelector: 'a=b,c!=d',
      fieldSelector: 'metadata.name=x',
      limit: 10,
      continue: 'tok',
      resourceVersion: '5',
      resourceVersionMatch: 'NotOlderThan',
      timeoutSeconds: 30,
    });
    const hit = server.hits[0];
    assert.equal(hit?.headers['user-agent'], 'tester/1.0');
    assert.equal(hit?.headers.authorization, 'Bearer sekret');
    assert.equal(hit?.headers.accept, 'application/json');
    const url = new URL(hit?.url ?? '', 'http://x');
    assert.equal(url.pathname, '/api/v1/configmaps');
    assert.deepEqual(Object.fromEntries(url.searchParams), {
      labelSelector: 'a=b,c!=d',
      fieldSelector: 'metadata.name=x',
      limit: '10',
      continue: 'tok',
      resourceVersion: '5',
      resourceVersionMatch: 'NotOlderThan',
      timeoutSeconds: '30',
    });

    await client
      .deployments('ns')
      .patch('d', 'apply', 'spec: {}', { fieldManager: 'me', force: true, dryRun: 'All', fieldValidation: 'Strict' });
    const patch = server.hits[1];
    assert.equal(patch?.method, 'PATCH');
    assert.equal(patch?.headers['content-type'], 'application/apply-patch+yaml');
    assert.equal(patch?.body, 'spec: {}');
    assert.equal(
      patch?.url,
      '/apis/apps/v1/namespaces/ns/deployments/d?dryRun=All&fieldManager=me&fieldValidation=Strict&force=true',
    );

    await client.pods('ns').delete('p', { propagationPolicy: 'Background', gracePeriodSeconds: 0, dryRun: 'All' });
    const del = server.hits[2];
    assert.equal(del?.url, '/api/v1/namespaces/ns/pods/p');
    assert.deepEqual(JSON.parse(del?.body ?? ''), {
      kind: 'DeleteOptions',
      apiVersion: 'v1',
      propagationPolicy: 'Background',
      gracePeriodSeconds: 0,
      dryRun: ['All'],
    });

    const crds = client.resource({ group: 'example.com', version: 'v1', resource: 'widgets' }, { namespaced: true });
    await crds.namespace('team').get('w1');
    await client.resource({ group: 'example.com', version: 'v1', resource: 'gizmos' }).get('g1');
    await client.nodes().getSubresource('n1', 'proxy');
    assert.deepEqual(
      server.hits.slice(3).map((h) => h.url),
      ['/apis/example.com/v1/namespaces/team/widgets/w1', '/apis/example.com/v1/gizmos/g1', '/api/v1/nodes/n1/proxy'],
    );
  });
});

describe('errors and warnings', () => {
  test('Warning headers are logged', async () => {
    const server = await fakeServer((_req, res) =>
      json(res, 200, {}, { warning: '299 - "policy/v1beta1 is \\"deprecated\\"", 299 - "second"' }),
    );
    const lines: string[] = [];
    const logger = createLogger({ component: 'test', write: (line) => lines.push(line) });
    await clientFor(server, new FakeClock(), { logger }).request({ method: 'GET', path: '/w' });
    assert.deepEqual(
      lines.map((l) => JSON.parse(l).msg),
      ['Warning: policy/v1beta1 is "deprecated"', 'Warning: second'],
    );
  });

  test('an answer that is not a Status becomes one, as client-go makes it', async () => {
    const server = await fakeServer((req, res) => {
      const code = Number(new URL(req.url, 'http://x').searchParams.get('code'));
      if (code === 502) {
        res.writeHead(code, { 'content-type': 'text/plain' });
        res.end('bad gateway\n');
      } else {
        res.writeHead(code, { 'content-type': 'application/octet-stream' });
        res.end('\u0000');
      }
    });
    const client = clientFor(server, new FakeClock());
    const fail = (code: number, method = 'GET') =>
      client
        .request({
          method,
          path: '/x',
          query: { code },
          target: { group: 'apps', resource: 'deployments', name: 'web' },
        })
        .catch((e: unknown) => e as ApiError) as Promise<ApiError>;
    const notFound = await fail(404);
    assert.equal(notFound.reason, 'NotFound');
    assert.equal(notFound.code, 404);
    assert.equal(notFound.message, 'the server could not find the requested resource (get deployments.apps web)');
    assert.equal(notFound.status.details?.causes?.[0]?.type, 'UnexpectedServerResponse');
    assert.equal((await fail(409, 'POST')).reason, 'AlreadyExists');
    assert.equal((await fail(409, 'PUT')).reason, 'Conflict');
    assert.equal((await fail(422)).reason, 'Invalid');
    assert.equal((await fail(504)).reason, 'Timeout');
    const badGateway = await fail(502);
    assert.equal(badGateway.reason, 'InternalError');
    assert.equal(
      badGateway.message,
      'an error on the server ("bad gateway") has prevented the request from succeeding (get deployments.apps web)',
    );
    assert.equal((await fail(418)).reason, 'Unknown');
  });
});

describe('watch', () => {
  test('decodes events however they are split into chunks, and ends when the server ends', async () => {
    let second: (() => void) | undefined;
    const server = await fakeServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const lines = [
        { type: 'ADDED', object: { metadata: { name: 'a' } } },
        { type: 'MODIFIED', object: { metadata: { name: 'ü-split' } } },
        { type: 'DELETED', object: { metadata: { name: 'c' } } },
      ].map((e) => Buffer.from(`${JSON.stringify(e)}\n`));
      const all = Buffer.concat(lines);
      // The first event and a part of the second, cut inside the two bytes of 'ü'.
      const cut = (lines[0]?.length ?? 0) + lines[1]!.indexOf(Buffer.from('ü')) + 1;
      res.write(all.subarray(0, cut));
      second = () => {
        res.write(all.subarray(cut, cut + 3));
        res.write(all.subarray(cut + 3));
        res.end();
      };
    });
    const client = clientFor(server, new FakeClock());
    const watch = await client.pods('ns').watch({ resourceVersion: '10', allowWatchBookmarks: true });
    const url = new URL(server.hits[0]?.url ?? '', 'http://x');
    assert.equal(url.pathname, '/api/v1/namespaces/ns/pods');
    assert.equal(url.searchParams.get('watch'), 'true');
    assert.equal(url.searchParams.get('allowWatchBookmarks'), 'true');
    const events: WatchEvent[] = [];
    for await (const event of watch) {
      events.push(event);
      if (events.length === 1) second?.();
    }
    assert.deepEqual(
      events.map((e) => [e.type, e.object.metadata.name]),
      [
        ['ADDED', 'a'],
        ['MODIFIED', 'ü-split'],
        ['DELETED', 'c'],
      ],
    );
  });

  test('an undecodable event becomes an ERROR with an InternalError Status, then the end', async () => {
    const server = await fakeServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"type":"ADDED","object":{"metadata":{"name":"a"}}}\n{not json}\n');
    });
    const watch = await clientFor(server, new FakeClock()).pods().watch();
    const events: WatchEvent[] = [];
    for await (const event of watch) events.push(event);
    assert.equal(events.length, 2);
    assert.equal(events[1]?.type, 'ERROR');
    const error = ApiError.fromStatus(events[1]?.object);
    assert.equal(error.code, 500);
    assert.equal(error.reason, 'InternalError');
    assert.match(error.message, /^unable to decode an event from the watch stream: /);
  });

  test('an error answer to the watch request rejects with its Status; close() cancels the stream', async () => {
    let cancelled = false;
    const server = await fakeServer((req, res, hit) => {
      if (hit === 1) {
        json(res, 410, {
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          message: 'too old resource version: 1 (5)',
          reason: 'Expired',
          code: 410,
        });
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('');
      req.stream.on('close', () => {
        cancelled = true;
      });
    });
    const client = clientFor(server, new FakeClock());
    const gone = await client
      .pods()
      .watch({ resourceVersion: '1' })
      .catch((e: unknown) => e);
    assert.ok(isGone(gone));
    assert.equal((gone as ApiError).message, 'too old resource version: 1 (5)');

    const watch = await client.pods().watch();
    const iteration = (async () => {
      for await (const _ of watch) {
        // no events come
      }
      return 'ended';
    })();
    watch.close();
    assert.equal(await iteration, 'ended');
    await until(() => cancelled, 'the server sees the stream cancelled');
  });
});

describe('flow control', () => {
  test("grants the server Go's client windows: 4 MiB per stream, 1 GiB for the connection", async () => {
    const server = await fakeServer((_req, res) => json(res, 200, configMap('a')));
    const client = clientFor(server, new FakeClock());
    await client.configMaps('ns').get('a');
    const session = server.sessions[0] as ServerHttp2Session;
    assert.equal(session.remoteSettings.initialWindowSize, 4 << 20, 'the stream window the client advertises');
    await until(
      () => (session.state.remoteWindowSize ?? 0) > 1 << 29,
      'the connection window the client grants grows to 1 GiB',
    );
  });
});
