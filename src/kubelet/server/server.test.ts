import { request } from 'node:https';
import { after, before, describe, it } from 'node:test';
import { WebSocket } from 'ws';
import type { KubeObject } from '../../client/types.js';
import assert from '../../testing/assert.js';
import { FakePodRuntime } from './fake-runtime.js';
import { KubeletServer } from './server.js';

const running = { running: { startedAt: '2025-01-01T00:00:00Z' } };

function podObject(name: string, extra: { ports?: number[]; state?: object } = {}): KubeObject {
  return {
    metadata: { name, namespace: 'default', uid: `uid-${name}` },
    spec: {
      nodeName: 'node-1',
      containers: [
        { name: 'app', image: 'nginx', ports: (extra.ports ?? []).map((containerPort) => ({ containerPort })) },
      ],
    },
    status: { phase: 'Running', containerStatuses: [{ name: 'app', state: extra.state ?? running }] },
  };
}

function get(port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, rejectUnauthorized: false }, (res) => {
      let body = '';
      res.on('data', (c) => {
        body += c;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

interface Session {
  messages: Buffer[];
  protocol: string;
  closed: Promise<number>;
  ws: WebSocket;
}

/** Opens a WebSocket to the kubelet and records every message until it closes. */
function open(port: number, path: string, protocols: string[]): Promise<Session> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`wss://127.0.0.1:${port}${path}`, protocols, { rejectUnauthorized: false });
    const messages: Buffer[] = [];
    const closed = new Promise<number>((r) => ws.on('close', (code) => r(code)));
    ws.on('message', (data, isBinary) => {
      messages.push(isBinary ? (data as Buffer) : Buffer.from(data.toString(), 'latin1'));
    });
    ws.on('open', () => resolve({ messages, protocol: ws.protocol, closed, ws }));
    ws.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c) => {
        body += c;
      });
      res.on('end', () => reject(new Error(`${res.statusCode} ${body}`)));
    });
    ws.on('error', reject);
  });
}

/** Messages by channel, concatenated. */
function byChannel(messages: Buffer[]): Record<number, string> {
  const out: Record<number, string> = {};
  for (const m of messages) {
    const ch = m[0] as number;
    out[ch] = (out[ch] ?? '') + m.subarray(1).toString('utf8');
  }
  return out;
}

describe('KubeletServer', () => {
  const runtime = new FakePodRuntime();
  const server = new KubeletServer({ runtime });
  let port = 0;

  before(async () => {
    port = await server.start();
    runtime.setPod(podObject('web', { ports: [80] }));
    runtime.setPod(podObject('waiting', { state: { waiting: { reason: 'ContainerCreating' } } }));
    const log = runtime.log('default', 'web', 'app');
    log.write('one');
    log.write('two');
  });
  after(() => server.stop());

  it('is healthy', async () => {
    assert.deepEqual(await get(port, '/healthz'), { status: 200, body: 'ok' });
  });

  it('serves container logs with the kubelet errors', async () => {
    assert.deepEqual(await get(port, '/containerLogs/default/web/app'), { status: 200, body: 'one\ntwo\n' });
    assert.deepEqual(await get(port, '/containerLogs/default/web/app?tailLines=1'), { status: 200, body: 'two\n' });
    assert.deepEqual(await get(port, '/containerLogs/default/nope/app'), {
      status: 404,
      body: 'pod "nope" does not exist',
    });
    assert.deepEqual(await get(port, '/containerLogs/default/web/other'), {
      status: 404,
      body: 'container "other" not found in pod "web"',
    });
    assert.deepEqual(await get(port, '/containerLogs/default/waiting/app'), {
      status: 400,
      body: 'container "app" in pod "waiting" is waiting to start: ContainerCreating',
    });
  });

  it('runs a command over v5.channel.k8s.io and ends with its status', async () => {
    const s = await open(
      port,
      '/exec/default/web/app?command=sh&command=-c&command=echo%20hi%3B%20exit%203&stdout=1&stderr=1',
      ['v5.channel.k8s.io', 'v4.channel.k8s.io'],
    );
    assert.equal(s.protocol, 'v5.channel.k8s.io');
    assert.equal(await s.closed, 1000);
    assert.deepEqual([...(s.messages[0] as Buffer)], [1], 'an empty stdout message says the streams are ready');
    const channels = byChannel(s.messages);
    assert.equal(channels[1], 'hi\n');
    assert.deepEqual(JSON.parse(channels[3] ?? ''), {
      metadata: {},
      status: 'Failure',
      message:
        'command terminated with non-zero exit code: error executing command [sh -c echo hi; exit 3], exit code 3',
      reason: 'NonZeroExitCode',
      details: { causes: [{ reason: 'ExitCode', message: '3' }] },
    });
  });

  it('reads stdin until the v5 close signal', async () => {
    const s = await open(port, '/exec/default/web/app?command=cat&stdin=1&stdout=1', ['v5.channel.k8s.io']);
    s.ws.send(Buffer.concat([Buffer.from([0]), Buffer.from('typed\n')]));
    s.ws.send(Buffer.from([255, 0]));
    await s.closed;
    const channels = byChannel(s.messages);
    assert.equal(channels[1], 'typed\n');
    assert.deepEqual(JSON.parse(channels[3] ?? ''), { metadata: {}, status: 'Success' });
  });

  it('speaks the base64 protocol', async () => {
    const s = await open(port, '/exec/default/web/app?command=echo&command=x&stdout=1', ['v4.base64.channel.k8s.io']);
    await s.closed;
    const text = s.messages.map((m) => m.toString('latin1'));
    assert.ok(text.includes(`1${Buffer.from('x\n').toString('base64')}`), JSON.stringify(text));
  });

  it('refuses exec into a container that is not running, and requests without streams', async () => {
    await assert.rejects(
      open(port, '/exec/default/waiting/app?command=true&stdout=1', ['v5.channel.k8s.io']),
      /500 container not found \("app"\)/,
    );
    await assert.rejects(
      open(port, '/exec/default/web/app?command=true', ['v5.channel.k8s.io']),
      /400 you must specify at least 1 of stdin, stdout, stderr/,
    );
    await assert.rejects(
      open(port, '/exec/default/nope/app?command=true&stdout=1', ['v5.channel.k8s.io']),
      /404 pod does not exist/,
    );
  });

  it('attaches to what the container writes next', async () => {
    const log = runtime.log('default', 'web', 'app');
    const s = await open(port, '/attach/default/web/app?stdout=1', ['v5.channel.k8s.io']);
    await new Promise((r) => setTimeout(r, 20));
    log.write('later');
    // Past the moment a session holds its first messages back (STREAMS_SETTLE_MS).
    await new Promise((r) => setTimeout(r, 200));
    s.ws.close();
    await s.closed;
    assert.equal(byChannel(s.messages)[1], 'later\n');
  });

  it('forwards a port over WebSocket channels to the built-in responder', async () => {
    const s = await open(port, '/portForward/default/web?ports=80', ['v4.channel.k8s.io']);
    s.ws.send(Buffer.concat([Buffer.from([0]), Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\n')]));
    await s.closed;
    assert.deepEqual([...(s.messages[0] as Buffer)], [0, 80, 0], 'the data channel opens with the port');
    assert.deepEqual([...(s.messages[1] as Buffer)], [1, 80, 0], 'so does the error channel');
    const data = s.messages
      .filter((m) => m[0] === 0)
      .slice(1)
      .map((m) => m.subarray(1).toString())
      .join('');
    assert.match(data, /^HTTP\/1\.1 200 OK\r\n/);
    assert.match(data, /\r\n\r\nhello from web\n$/);
  });

  it('refuses a port the pod does not declare', async () => {
    const s = await open(port, '/portForward/default/web?ports=81', ['v4.channel.k8s.io']);
    await s.closed;
    const errors = s.messages.filter((m) => m[0] === 1).map((m) => m.subarray(1).toString());
    assert.match(errors[1] ?? '', /error forwarding port 81 to pod uid-web.*connection refused/);
  });
});
