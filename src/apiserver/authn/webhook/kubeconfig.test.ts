import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { TLSSocket } from 'node:tls';
import assert from '../../../testing/assert.js';
import { loopbackServingTLS } from '../../../testing/loopback-tls.js';
import { signCertificate } from '../../../util/certificates.js';
import { loadWebhookEndpoint } from './kubeconfig.js';

describe('webhook kubeconfig files', () => {
  let dir: string;
  let server: Server;
  let url: string;
  /** What each request showed: the client certificate's CN and the Authorization header. */
  const seen: { cn: string | undefined; authorization: string | undefined }[] = [];
  let failures = 0;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'webhook-kubeconfig-'));
    const { ca, serving } = await loopbackServingTLS({ caName: 'hook-ca', name: 'hook' });
    const now = Date.now();
    const client = await signCertificate(ca, {
      commonName: 'kube-apiserver-webhook-client',
      notBefore: new Date(now - 60_000),
      notAfter: new Date(now + 3600_000),
      extendedKeyUsages: ['clientAuth'],
    });
    writeFileSync(join(dir, 'ca.crt'), ca.certPem);
    writeFileSync(join(dir, 'client.crt'), client.certPem);
    writeFileSync(join(dir, 'client.key'), client.keyPem);
    server = createServer(
      { cert: serving.certPem, key: serving.keyPem, ca: ca.certPem, requestCert: true },
      (req, res) => {
        const cert = (req.socket as TLSSocket).getPeerCertificate();
        seen.push({ cn: cert?.subject?.CN as string | undefined, authorization: req.headers.authorization });
        req.resume();
        req.on('end', () => {
          if (failures > 0) {
            failures--;
            res.writeHead(500).end('{}');
            return;
          }
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ path: req.url }));
        });
      },
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/authorize?x=1`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  });

  const write = (name: string, user: string[]) => {
    const file = join(dir, name);
    writeFileSync(
      file,
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters:',
        '- name: hook',
        '  cluster:',
        `    server: ${url}`,
        '    certificate-authority: ca.crt',
        'users:',
        '- name: apiserver',
        '  user:',
        ...user.map((l) => `    ${l}`),
        'current-context: hook',
        'contexts:',
        '- name: hook',
        '  context: {cluster: hook, user: apiserver}',
        '',
      ].join('\n'),
    );
    return file;
  };

  it("posts to the server URL with client-go's ?timeout=, with the client certificate named by paths relative to the file", async () => {
    const { client, server: target } = loadWebhookEndpoint(
      write('certs.kubeconfig', ['client-certificate: client.crt', 'client-key: client.key']),
    );
    assert.equal(target, `${url}&timeout=30s`);
    assert.deepEqual(await client.post(target, { kind: 'TokenReview' }), { path: '/authorize?x=1&timeout=30s' });
    assert.deepEqual(seen.at(-1), { cn: 'kube-apiserver-webhook-client', authorization: undefined });
    client.close();
  });

  it('sends a token file as a bearer token, and retries a 500 with upstream backoff', async () => {
    writeFileSync(join(dir, 'token'), 'hook-token\n');
    const { client, server: target } = loadWebhookEndpoint(
      write('token.kubeconfig', ['client-certificate: client.crt', 'client-key: client.key', 'tokenFile: token']),
    );
    const before = seen.length;
    failures = 1;
    assert.deepEqual(await client.post(target, {}), { path: '/authorize?x=1&timeout=30s' });
    assert.equal(seen.length - before, 2, 'one failure, one retry');
    assert.equal(seen.at(-1)?.authorization, 'Bearer hook-token');
    client.close();
  });

  it('refuses files that name a missing context or no server', () => {
    const broken = join(dir, 'broken.kubeconfig');
    writeFileSync(broken, 'current-context: nope\ncontexts: []\nclusters: []\n');
    assert.throws(() => loadWebhookEndpoint(broken), /context "nope" not found/);
    writeFileSync(broken, 'clusters:\n- name: a\n  cluster: {}\n');
    assert.throws(() => loadWebhookEndpoint(broken), /the cluster has no server/);
  });
});
