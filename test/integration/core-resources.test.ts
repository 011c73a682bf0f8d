import { after, before, describe, it } from 'node:test';
import { type ControlPlane, startControlPlane } from '../../src/index.js';
import { apiRequest, kubectl } from '../../src/testing/api-client.js';
import assert from '../../src/testing/assert.js';

const NS = '/api/v1/namespaces/default';

/** The header and first row of `kubectl get`, split on column gaps. */
async function table(cp: ControlPlane, args: string[]): Promise<{ header: string[]; row: string[] }> {
  const res = await kubectl(cp, ['get', ...args]);
  assert.equal(res.code, 0, res.stderr);
  const [header = '', row = ''] = res.stdout.trimEnd().split('\n');
  return { header: header.split(/\s{2,}/), row: row.split(/\s{2,}/) };
}

describe('core/v1 nodes, endpoints, workloads, storage and policy through the API', () => {
  let cp: ControlPlane;
  before(async () => {
    cp = await startControlPlane();
  });
  after(async () => {
    await cp?.stop();
  });

  it('registers nodes with their status and prints them', async () => {
    const res = await apiRequest(cp, 'POST', '/api/v1/nodes', {
      body: {
        metadata: { name: 'node-1', labels: { 'node-role.kubernetes.io/control-plane': '' } },
        spec: { unschedulable: true },
        status: {
          capacity: { cpu: '4', memory: '8Gi', pods: '110' },
          conditions: [{ type: 'Ready', status: 'True' }],
          addresses: [{ type: 'InternalIP', address: '172.18.0.2' }],
          nodeInfo: {
            kubeletVersion: 'v1.33.1',
            osImage: 'Debian GNU/Linux 12 (bookworm)',
            kernelVersion: '6.1.0',
            containerRuntimeVersion: 'containerd://1.7.24',
          },
        },
      },
    });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(res.body.status.allocatable, { cpu: '4', memory: '8Gi', pods: '110' });
    const unschedulable = await apiRequest(cp, 'GET', '/api/v1/nodes?fieldSelector=spec.unschedulable%3Dtrue');
    assert.equal(unschedulable.body.items.length, 1);
    const { header, row } = await table(cp, ['nodes', '-o', 'wide']);
    assert.deepEqual(header, [
      'NAME',
      'STATUS',
      'ROLES',
      'AGE',
      'VERSION',
      'INTERNAL-IP',
      'EXTERNAL-IP',
      'OS-IMAGE',
      'KERNEL-VERSION',
      'CONTAINER-RUNTIME',
    ]);
    assert.deepEqual(
      [row[0], row[1], row[2], row[4], row[5], row[6], row[7], row[8], row[9]],
      [
        'node-1',
        'Ready,SchedulingDisabled',
        'control-plane',
        'v1.33.1',
        '172.18.0.2',
        '<none>',
        'Debian GNU/Linux 12 (bookworm)',
        '6.1.0',
        'containerd://1.7.24',
      ],
    );
  });

  it('prints endpoints with their addresses', async () => {
    const res = await apiRequest(cp, 'POST', `${NS}/endpoints`, {
      body: {
        metadata: { name: 'web' },
        subsets: [{ addresses: [{ ip: '10.244.1.5' }, { ip: '10.244.2.6' }], ports: [{ port: 8080 }] }],
      },
    });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.subsets[0].ports[0].protocol, 'TCP');
    const { header, row } = await table(cp, ['endpoints', 'web']);
    assert.deepEqual(header, ['NAME', 'ENDPOINTS', 'AGE']);
    assert.deepEqual(row.slice(0, 2), ['web', '10.244.1.5:8080,10.244.2.6:8080']);
  });

  it('defaults a replication controller from its template and serves its scale', async () => {
    const res = await apiRequest(cp, 'POST', `${NS}/replicationcontrollers`, {
      body: {
        metadata: { name: 'web' },
        spec: {
          template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx' }] } },
        },
      },
    });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(res.body.spec.selector, { app: 'web' });
    assert.equal(res.body.spec.replicas, 1);
    assert.deepEqual(res.body.metadata.labels, { app: 'web' });
    assert.deepEqual(res.body.status, { replicas: 0 });
    const scale = await apiRequest(cp, 'GET', `${NS}/replicationcontrollers/web/scale`);
    assert.equal(scale.body.status.selector, 'app=web');
    const { header, row } = await table(cp, ['rc', 'web', '-o', 'wide']);
    assert.deepEqual(header, ['NAME', 'DESIRED', 'CURRENT', 'READY', 'AGE', 'CONTAINERS', 'IMAGES', 'SELECTOR']);
    assert.deepEqual(
      [row[0], row[1], row[2], row[3], row[5], row[6], row[7]],
      ['web', '1', '0', '0', 'web', 'nginx', 'app=web'],
    );
    const bad = await apiRequest(cp, 'POST', `${NS}/replicationcontrollers`, {
      body: {
        metadata: { name: 'bad' },
        spec: {
          selector: { app: 'x' },
          template: { metadata: { labels: { app: 'y' } }, spec: { containers: [{ name: 'c', image: 'i' }] } },
        },
      },
    });
    assert.equal(
      bad.body.message,
      'ReplicationController "bad" is invalid: spec.template.metadata.labels: Invalid value: map[string]string{"app":"y"}: `selector` does not match template `labels`',
    );
  });

  it('stores pod templates with pod spec defaults', async () => {
    const res = await apiRequest(cp, 'POST', `${NS}/podtemplates`, {
      body: {
        metadata: { name: 'tpl' },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] },
        },
      },
    });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.template.spec.restartPolicy, 'Always');
    assert.equal(res.body.template.spec.containers[0].imagePullPolicy, 'IfNotPresent');
    const { header, row } = await table(cp, ['podtemplates']);
    assert.deepEqual(header, ['NAME', 'CONTAINERS', 'IMAGES', 'POD LABELS']);
    assert.deepEqual(row, ['tpl', 'web', 'nginx:1.27', 'app=web']);
  });

  it('stores persistent volumes and claims as Pending and prints them', async () => {
    const pv = await apiRequest(cp, 'POST', '/api/v1/persistentvolumes', {
      body: {
        metadata: { name: 'pv-1' },
        spec: { capacity: { storage: '5Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/data/pv-1' } },
      },
    });
    assert.equal(pv.status, 201, pv.text);
    assert.equal(pv.body.spec.persistentVolumeReclaimPolicy, 'Retain');
    assert.equal(pv.body.spec.volumeMode, 'Filesystem');
    assert.equal(pv.body.status.phase, 'Pending');
    const pvTable = await table(cp, ['pv']);
    assert.deepEqual(pvTable.header, [
      'NAME',
      'CAPACITY',
      'ACCESS MODES',
      'RECLAIM POLICY',
      'STATUS',
      'CLAIM',
      'STORAGECLASS',
      'VOLUMEATTRIBUTESCLASS',
      'REASON',
      'AGE',
    ]);
    const pvc = await apiRequest(cp, 'POST', `${NS}/persistentvolumeclaims`, {
      body: {
        metadata: { name: 'data' },
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
      },
    });
    assert.equal(pvc.status, 201, pvc.text);
    assert.equal(pvc.body.status.phase, 'Pending');
    const pvcTable = await table(cp, ['pvc']);
    assert.deepEqual(pvcTable.header, [
      'NAME',
      'STATUS',
      'VOLUME',
      'CAPACITY',
      'ACCESS MODES',
      'STORAGECLASS',
      'VOLUMEATTRIBUTESCLASS',
      'AGE',
    ]);
    const missing = await apiRequest(cp, 'POST', `${NS}/persistentvolumeclaims`, {
      body: { metadata: { name: 'empty' }, spec: {} },
    });
    assert.equal(
      missing.body.message,
      'PersistentVolumeClaim "empty" is invalid: [spec.accessModes: Required value: at least 1 access mode is required, spec.resources[storage]: Required value]',
    );
  });

  it('defaults limit ranges and prints resource quotas', async () => {
    const lr = await apiRequest(cp, 'POST', `${NS}/limitranges`, {
      body: { metadata: { name: 'limits' }, spec: { limits: [{ type: 'Container', max: { memory: '1024Mi' } }] } },
    });
    assert.equal(lr.status, 201, lr.text);
    assert.deepEqual(lr.body.spec.limits[0].default, { memory: '1Gi' });
    assert.deepEqual(lr.body.spec.limits[0].defaultRequest, { memory: '1Gi' });
    const quota = await apiRequest(cp, 'POST', `${NS}/resourcequotas`, {
      body: { metadata: { name: 'compute' }, spec: { hard: { pods: '10', 'limits.cpu': '4' } } },
    });
    assert.equal(quota.status, 201, quota.text);
    const status = await apiRequest(cp, 'PUT', `${NS}/resourcequotas/compute/status`, {
      body: {
        ...quota.body,
        status: { hard: { pods: '10', 'limits.cpu': '4' }, used: { pods: '2', 'limits.cpu': '500m' } },
      },
    });
    assert.equal(status.status, 200, status.text);
    const { header, row } = await table(cp, ['quota', 'compute']);
    assert.deepEqual(header, ['NAME', 'AGE', 'REQUEST', 'LIMIT']);
    assert.deepEqual([row[0], row[2], row[3]], ['compute', 'pods: 2/10', 'limits.cpu: 500m/4']);
  });
});
