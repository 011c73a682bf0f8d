/**
 * The apiserver's readiness follows its start-up steps: each of upstream's post-start hooks it has fails
 * (`not finished`) until its step is done, and the shutdown check fails once it stops.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { MemoryStore } from '../storage/memory.js';
import assert from '../testing/assert.js';
import { silentLogger } from '../util/logger.js';
import { buildRegistry } from './assemble.js';
import { ensurePki } from './bootstrap/pki.js';
import { APIServer, POST_START_HOOKS } from './server.js';

describe('apiserver readiness', () => {
  it('is not ready until every post-start hook is finished', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'wheelhouse-hooks-'));
    const storage = new MemoryStore();
    const pki = await ensurePki(join(dir, 'pki'), { extraSans: ['127.0.0.1'] });
    const server = new APIServer({
      storage,
      registry: buildRegistry(storage, silentLogger),
      tls: { certPem: pki.apiserver.certPem, keyPem: pki.apiserver.keyPem, clientCaPem: pki.ca.certPem },
      bindAddress: '127.0.0.1',
      securePort: 0,
    });
    const url = await server.start();
    const get = (path: string) =>
      new Promise<{ status: number; text: string }>((resolve, reject) => {
        const req = request(
          `${url}${path}`,
          { ca: pki.ca.certPem, cert: pki.admin.certPem, key: pki.admin.keyPem },
          (res) => {
            let text = '';
            res.on('data', (d) => {
              text += d;
            });
            res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
          },
        );
        req.on('error', reject);
        req.end();
      });
    try {
      // The server's own steps are done by start(); the cluster bootstrap's are not, with no bootstrap run.
      const before = await get('/readyz?verbose');
      assert.equal(before.status, 500);
      assert.match(before.text, /^\[\+\]poststarthook\/crd-informer-synced ok$/m);
      assert.match(before.text, /^\[-\]poststarthook\/rbac\/bootstrap-roles failed: reason withheld$/m);
      assert.match(before.text, /readyz check failed\n$/);
      assert.equal(
        (await get('/healthz/poststarthook/bootstrap-controller')).text,
        'internal server error: not finished\n',
      );
      for (const hook of POST_START_HOOKS) server.finishHook(hook);
      assert.deepEqual(await get('/readyz'), { status: 200, text: 'ok' });
    } finally {
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
