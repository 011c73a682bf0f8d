import { request } from 'node:https';
import { after, before, describe, it } from 'node:test';
import { type ControlPlane, startControlPlane } from '../../src/index.js';
import assert from '../../src/testing/assert.js';
import { eventually } from '../../src/testing/controllers.js';
import { freePort } from '../../src/testing/etcd.js';
import { startWheelhouse, type WheelhouseProcess } from '../../src/testing/wheelhouse-process.js';

function get(url: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { rejectUnauthorized: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => {
        text += d;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('wheelhouse controller-manager alone against an apiserver', () => {
  let cp: ControlPlane;
  let kcm: WheelhouseProcess;
  let port: number;
  before(async () => {
    cp = await startControlPlane({ storage: 'memory' });
    port = await freePort();
    kcm = await startWheelhouse('controller-manager', [
      '--kubeconfig',
      cp.kubeconfig.path,
      '--secure-port',
      String(port),
      '--bind-address',
      '127.0.0.1',
      '--controllers',
      '*,-garbagecollector',
      '--leader-elect-retry-period',
      '200ms',
    ]);
  });
  after(async () => {
    if (kcm) assert.equal(await kcm.stop(), 0);
    await cp?.stop();
  });

  it('runs the controllers it was asked for, under leader election, with health and metrics on its secure port', async () => {
    assert.match(kcm.out(), /controllers: .*deployment-controller/);
    assert.doesNotMatch(kcm.out(), /[ ,]garbage-collector-controller/);
    await cp.client.deployments('default').create({
      metadata: { name: 'web' },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
      },
    });
    await eventually(async () => {
      assert.equal((await cp.client.pods('default').list({ labelSelector: 'app=web' })).items.length, 2);
    });
    const healthz = await get(`https://127.0.0.1:${port}/healthz?verbose`);
    assert.equal(healthz.status, 200);
    assert.match(healthz.text, /^\[\+\]leaderElection ok$/m);
    assert.equal((await get(`https://127.0.0.1:${port}/readyz`)).text, 'ok');
    const metrics = await get(`https://127.0.0.1:${port}/metrics`);
    assert.match(metrics.text, /^leader_election_master_status\{name="kube-controller-manager"\} 1$/m);
    assert.match(
      metrics.text,
      /^running_managed_controllers\{manager="kube-controller-manager",name="deployment-controller"\} 1$/m,
    );
    const lease = await cp.client.leases('kube-system').get('kube-controller-manager');
    assert.match(lease.spec.holderIdentity, /_[0-9a-f-]{36}$/);
  });

  it('refuses an unknown controller with upstream text and exit code 2', async () => {
    const { spawnSync } = await import('node:child_process');
    const { WHEELHOUSE_BIN } = await import('../../src/testing/wheelhouse-process.js');
    const res = spawnSync(
      process.execPath,
      [WHEELHOUSE_BIN, 'controller-manager', '--kubeconfig', cp.kubeconfig.path, '--controllers', 'nope'],
      {
        encoding: 'utf8',
      },
    );
    assert.notEqual(res.status, 0);
    assert.match(res.stderr, /"nope" is not in the list of known controllers/);
  });
});
