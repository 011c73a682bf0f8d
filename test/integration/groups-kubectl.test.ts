import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { systemPriorityClasses } from '../../src/apiserver/registry/resources/groups-index.js';
import { type ControlPlane, startControlPlane } from '../../src/index.js';
import { apiRequest, kubectl } from '../../src/testing/api-client.js';
import assert from '../../src/testing/assert.js';

/** The rows of kubectl's table output, each split into cells (kubectl pads columns with at least three spaces). */
function rows(stdout: string): string[][] {
  return stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => line.trim().split(/\s{3,}/));
}

async function ok(cp: ControlPlane, args: string[]): Promise<string> {
  const res = await kubectl(cp, args);
  assert.equal(res.code, 0, `kubectl ${args.join(' ')}: ${res.stderr}`);
  return res.stdout;
}

const template = (app: string, restartPolicy?: string) => ({
  metadata: { labels: { app } },
  spec: { ...(restartPolicy ? { restartPolicy } : {}), containers: [{ name: app, image: `${app}:1.0` }] },
});

describe('kubectl against the named groups', () => {
  let cp: ControlPlane;
  before(async () => {
    cp = await startControlPlane();
    const apps = '/apis/apps/v1/namespaces/default';
    await apiRequest(cp, 'POST', `${apps}/deployments`, {
      body: {
        metadata: { name: 'web' },
        spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template: template('web') },
      },
    });
    const rs = await apiRequest(cp, 'POST', `${apps}/replicasets`, {
      body: {
        metadata: { name: 'web-abc' },
        spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template: template('web') },
      },
    });
    await apiRequest(cp, 'PUT', `${apps}/replicasets/web-abc/status`, {
      body: { ...rs.body, status: { replicas: 2, readyReplicas: 1, availableReplicas: 1 } },
    });
    const job = await apiRequest(cp, 'POST', '/apis/batch/v1/namespaces/default/jobs', {
      body: { metadata: { name: 'pi' }, spec: { template: { spec: template('pi', 'Never').spec } } },
    });
    await apiRequest(cp, 'PUT', '/apis/batch/v1/namespaces/default/jobs/pi/status', {
      body: {
        ...job.body,
        status: { startTime: new Date(Date.now() - 65_000).toISOString().replace(/\.\d+Z$/, 'Z'), active: 1 },
      },
    });
  });
  after(async () => {
    await cp?.stop();
  });

  it('prints deploy,rs,jobs -o wide with upstream columns', async () => {
    const out = rows(await ok(cp, ['get', 'deploy,rs,jobs', '-o', 'wide']));
    assert.deepEqual(out[0], ['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE', 'CONTAINERS', 'IMAGES', 'SELECTOR']);
    assert.deepEqual(
      out[1]?.filter((_, i) => i !== 4),
      ['deployment.apps/web', '0/2', '0', '0', 'web', 'web:1.0', 'app=web'],
    );
    assert.deepEqual(out[2], ['NAME', 'DESIRED', 'CURRENT', 'READY', 'AGE', 'CONTAINERS', 'IMAGES', 'SELECTOR']);
    assert.deepEqual(
      out[3]?.filter((_, i) => i !== 4),
      ['replicaset.apps/web-abc', '2', '2', '1', 'web', 'web:1.0', 'app=web'],
    );
    assert.deepEqual(out[4], ['NAME', 'STATUS', 'COMPLETIONS', 'DURATION', 'AGE', 'CONTAINERS', 'IMAGES', 'SELECTOR']);
    const jobRow = out[5] ?? [];
    assert.deepEqual(jobRow.slice(0, 3), ['job.batch/pi', 'Running', '0/1']);
    assert.match(jobRow[3] ?? '', /^6[5-9]s$/);
    assert.deepEqual(jobRow.slice(5, 7), ['pi', 'pi:1.0']);
    assert.match(jobRow[7] ?? '', /^batch\.kubernetes\.io\/controller-uid=[0-9a-f-]{36}$/);
  });

  it('hides the wide columns without -o wide', async () => {
    const out = rows(await ok(cp, ['get', 'deployments']));
    assert.deepEqual(out[0], ['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE']);
  });

  it('creates from a JSON file and scales through the scale subresource', async () => {
    const file = join(cp.dataDir, 'api.json');
    writeFileSync(
      file,
      JSON.stringify({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'api', namespace: 'default' },
        spec: { selector: { matchLabels: { app: 'api' } }, template: template('api') },
      }),
    );
    assert.match(await ok(cp, ['create', '-f', file, '--validate=false']), /deployment\.apps\/api created/);
    assert.match(await ok(cp, ['scale', 'deployment/api', '--replicas=3']), /deployment\.apps\/api scaled/);
    const got = await apiRequest(cp, 'GET', '/apis/apps/v1/namespaces/default/deployments/api');
    assert.equal(got.body.spec.replicas, 3);
  });

  it('prints priority classes, storage classes and role bindings', async () => {
    // The apiserver's bootstrap created the system priority classes; creating them again is refused.
    for (const pc of systemPriorityClasses()) {
      const res = await apiRequest(cp, 'POST', '/apis/scheduling.k8s.io/v1/priorityclasses', { body: pc });
      assert.equal(res.status, 409, res.text);
    }
    const pcs = rows(await ok(cp, ['get', 'pc']));
    assert.deepEqual(pcs[0], ['NAME', 'VALUE', 'GLOBAL-DEFAULT', 'AGE']);
    assert.deepEqual(
      pcs.slice(1).map((r) => r.slice(0, 3)),
      [
        ['system-cluster-critical', '2000000000', 'false'],
        ['system-node-critical', '2000001000', 'false'],
      ],
    );
    await apiRequest(cp, 'POST', '/apis/storage.k8s.io/v1/storageclasses', {
      body: {
        metadata: { name: 'local', annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } },
        provisioner: 'rancher.io/local-path',
      },
    });
    const scs = rows(await ok(cp, ['get', 'sc']));
    assert.deepEqual(scs[0], [
      'NAME',
      'PROVISIONER',
      'RECLAIMPOLICY',
      'VOLUMEBINDINGMODE',
      'ALLOWVOLUMEEXPANSION',
      'AGE',
    ]);
    assert.deepEqual(scs[1]?.slice(0, 5), ['local (default)', 'rancher.io/local-path', 'Delete', 'Immediate', 'false']);
    await apiRequest(cp, 'POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings', {
      body: {
        metadata: { name: 'readers' },
        roleRef: { kind: 'ClusterRole', name: 'view' },
        subjects: [
          { kind: 'User', name: 'alice' },
          { kind: 'ServiceAccount', name: 'ci', namespace: 'default' },
        ],
      },
    });
    const rbs = rows(await ok(cp, ['get', 'rolebindings', '-o', 'wide']));
    assert.deepEqual(rbs[0], ['NAME', 'ROLE', 'AGE', 'USERS', 'GROUPS', 'SERVICEACCOUNTS']);
    assert.deepEqual(
      rbs[1]?.filter((_, i) => i !== 2),
      ['readers', 'ClusterRole/view', 'alice', 'default/ci'],
    );
  });
});
