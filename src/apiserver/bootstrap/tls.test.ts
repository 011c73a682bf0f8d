import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { TLSSocket } from 'node:tls';
import { promisify } from 'node:util';
import { buildKubeconfig, writeKubeconfig } from '../../client/kubeconfig.js';
import assert from '../../testing/assert.js';
import { ensurePki, type Pki, parseClientIdentity } from './pki.js';

// A real TLS server with the generated serving certificate, asking for client certificates trusted by the CA,
// as kube-apiserver does with --client-ca-file. It answers with the identity it read, or 401.
let work: string;
let pki: Pki;
let foreign: Pki;
let server: Server;
let port: number;

before(async () => {
  work = await mkdtemp(join(tmpdir(), 'wheelhouse-tls-'));
  [pki, foreign] = await Promise.all([
    ensurePki(join(work, 'pki'), { hostname: 'h' }),
    ensurePki(join(work, 'other-pki'), { hostname: 'h' }),
  ]);
  server = createServer(
    {
      cert: pki.apiserver.certPem,
      key: pki.apiserver.keyPem,
      ca: pki.ca.certPem,
      requestCert: true,
      rejectUnauthorized: false,
    },
    (req, res) => {
      const socket = req.socket as TLSSocket;
      res.setHeader('content-type', 'application/json');
      if (req.url === '/version') {
        res.end(JSON.stringify({ major: '1', minor: '33', gitVersion: 'v1.33.0' }));
        return;
      }
      const identity = socket.authorized ? parseClientIdentity(socket.getPeerCertificate()) : undefined;
      res.statusCode = identity === undefined ? 401 : 200;
      res.end(JSON.stringify(identity ?? { authorizationError: String(socket.authorizationError) }));
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

after(async () => {
  await new Promise((resolve) => server.close(resolve));
  await rm(work, { recursive: true, force: true });
});

interface Call {
  ca: string;
  cert?: string;
  key?: string;
  servername?: string;
}

function call(options: Call): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/whoami', agent: false, ...options }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end();
  });
}

const adminIdentity = { user: 'kubernetes-admin', groups: ['system:masters'] };

test('a client trusting only the CA reaches the server by IP with the admin certificate', async () => {
  const response = await call({ ca: pki.ca.certPem, cert: pki.admin.certPem, key: pki.admin.keyPem });
  assert.equal(response.status, 200);
  assert.deepEqual(response.body, adminIdentity);
});

test('the same by the name localhost', async () => {
  const response = await call({
    ca: pki.ca.certPem,
    cert: pki.admin.certPem,
    key: pki.admin.keyPem,
    servername: 'localhost',
  });
  assert.deepEqual(response.body, adminIdentity);
});

test('a name the serving certificate does not carry is refused by the client', async () => {
  await assert.rejects(call({ ca: pki.ca.certPem, servername: 'elsewhere.example.test' }), {
    code: 'ERR_TLS_CERT_ALTNAME_INVALID',
  });
});

test('a client that trusts another CA does not accept the server', async () => {
  await assert.rejects(call({ ca: foreign.ca.certPem }), (error: NodeJS.ErrnoException) => {
    assert.match(String(error.code), /UNABLE_TO_VERIFY|SELF_SIGNED|CERT/);
    return true;
  });
});

test('a client certificate from another CA is not verified', async () => {
  const response = await call({ ca: pki.ca.certPem, cert: foreign.admin.certPem, key: foreign.admin.keyPem });
  assert.equal(response.status, 401);
  assert.equal(response.body.authorizationError, 'UNABLE_TO_VERIFY_LEAF_SIGNATURE');
});

test('the serving certificate is no client certificate (no clientAuth usage)', async () => {
  const response = await call({ ca: pki.ca.certPem, cert: pki.apiserver.certPem, key: pki.apiserver.keyPem });
  assert.equal(response.status, 401);
  assert.equal(response.body.authorizationError, 'INVALID_PURPOSE');
});

test('no client certificate: nobody', async () => {
  const response = await call({ ca: pki.ca.certPem });
  assert.equal(response.status, 401);
});

test('kubectl (Go TLS) trusts the CA, accepts the serving certificate and presents the admin certificate', {
  skip: !existsSync('/usr/bin/kubectl') && 'kubectl is not installed',
}, async () => {
  const run = promisify(execFile);
  for (const host of ['127.0.0.1', 'localhost']) {
    const file = join(work, `kubeconfig-${host}`);
    const credentials = { caPem: pki.ca.certPem, certPem: pki.admin.certPem, keyPem: pki.admin.keyPem };
    await writeKubeconfig(file, buildKubeconfig({ server: `https://${host}:${port}`, ...credentials }));
    const { stdout } = await run('/usr/bin/kubectl', ['--kubeconfig', file, 'get', '--raw', '/whoami']);
    assert.deepEqual(JSON.parse(stdout), adminIdentity, `by ${host}`);
  }
});
