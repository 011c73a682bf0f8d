/**
 * Volumes with the real kubectl against `wheelhouse up --nodes 3`: the default StorageClass `standard`
 * (WaitForFirstConsumer, provisioned by the simulated nodes), the persistentvolume-binder, the scheduler's
 * VolumeBinding, and a StatefulSet's volumeClaimTemplates.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import assert from '../../src/testing/assert.js';
import { eventually } from '../../src/testing/controllers.js';
import { nodesReady } from '../../src/testing/kubectl.js';
import { startWheelhouse, type WheelhouseProcess } from '../../src/testing/wheelhouse-process.js';

const run = promisify(execFile);

// biome-ignore lint/suspicious/noExplicitAny: kubectl's JSON output
type Json = any;

describe('kubectl against wheelhouse up --nodes 3: volumes', () => {
  const root = mkdtempSync(join(tmpdir(), 'wheelhouse-volumes-e2e-'));
  const dataDir = join(root, 'data');
  let up: WheelhouseProcess;
  const kubectl = async (...args: string[]) =>
    (
      await run(
        'kubectl',
        ['--kubeconfig', join(dataDir, 'kubeconfig'), '--cache-dir', join(root, 'kcache'), ...args],
        {
          timeout: 90_000,
        },
      )
    ).stdout;
  const json = async (...args: string[]): Promise<Json> => JSON.parse(await kubectl(...args, '-o', 'json'));
  let manifests = 0;
  const apply = async (yaml: string) => {
    const file = join(root, `manifest-${++manifests}.yaml`);
    writeFileSync(file, yaml);
    return kubectl('apply', '-f', file);
  };
  const slow = { timeoutMs: 60_000, intervalMs: 250 };

  before(async () => {
    up = await startWheelhouse('up', ['--storage', 'memory', '--data-dir', dataDir, '--nodes', '3']);
    await nodesReady(kubectl, 3, slow);
  });
  after(async () => {
    if (up) assert.equal(await up.stop(), 0, up.out());
    rmSync(root, { recursive: true, force: true });
  });

  it('kubectl get storageclass shows standard as the default, WaitForFirstConsumer', async () => {
    const out = await kubectl('get', 'storageclass');
    assert.match(
      out,
      /^standard \(default\)\s+wheelhouse\.dev\/sim-local\s+Delete\s+WaitForFirstConsumer\s+false\s+/m,
      out,
    );
  });

  it('a claim waits for its first consumer, is provisioned on the pod node, and its volume goes with it', async () => {
    await apply(`apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 1Gi}}
`);
    await eventually(async () => {
      const describe = await kubectl('describe', 'pvc', 'data');
      assert.match(describe, /StorageClass:\s+standard/, 'default class');
      assert.match(describe, /Status:\s+Pending/, 'Pending');
      assert.match(
        describe,
        /WaitForFirstConsumer\s+.*waiting for first consumer to be created before binding/,
        describe,
      );
    }, slow);

    await apply(`apiVersion: v1
kind: Pod
metadata: {name: db}
spec:
  terminationGracePeriodSeconds: 1
  containers:
  - name: db
    image: postgres:17
    volumeMounts: [{name: data, mountPath: /var/lib/postgresql/data}]
  volumes:
  - name: data
    persistentVolumeClaim: {claimName: data}
`);
    await kubectl('wait', '--for=condition=Ready', 'pod/db', '--timeout=60s');
    const pod = await json('get', 'pod', 'db');
    const pvc = await eventually(async () => {
      const c = await json('get', 'pvc', 'data');
      assert.equal(c.status.phase, 'Bound', 'claim Bound');
      return c;
    }, slow);
    const pvName = pvc.spec.volumeName as string;
    assert.equal(pvName, `pvc-${pvc.metadata.uid}`);
    const pv = await json('get', 'pv', pvName);
    assert.equal(pv.status.phase, 'Bound');
    assert.equal(pv.metadata.annotations['pv.kubernetes.io/provisioned-by'], 'wheelhouse.dev/sim-local');
    assert.deepEqual(pv.spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0], {
      key: 'kubernetes.io/hostname',
      operator: 'In',
      values: [pod.spec.nodeName],
    });
    assert.match(
      await kubectl('get', 'pv'),
      new RegExp(`^${pvName}\\s+1Gi\\s+RWO\\s+Delete\\s+Bound\\s+default/data\\s+standard`, 'm'),
    );
    const events = await kubectl('describe', 'pvc', 'data');
    assert.match(events, /ExternalProvisioning/, events);
    assert.match(events, new RegExp(`ProvisioningSucceeded\\s+.*Successfully provisioned volume ${pvName}`), events);

    await kubectl('delete', 'pod', 'db', '--wait=true');
    await kubectl('delete', 'pvc', 'data', '--wait=true');
    await eventually(async () => {
      const left = await kubectl('get', 'pv', '-o', 'name');
      assert.ok(!left.includes(pvName), `PV ${pvName} deleted with its claim: ${left}`);
    }, slow);
  });

  it('a StatefulSet with a volumeClaimTemplate gets one bound claim per pod, on that pod node', async () => {
    await apply(`apiVersion: apps/v1
kind: StatefulSet
metadata: {name: web}
spec:
  serviceName: web
  replicas: 2
  selector: {matchLabels: {app: web-sts}}
  template:
    metadata: {labels: {app: web-sts}}
    spec:
      terminationGracePeriodSeconds: 1
      containers:
      - name: nginx
        image: nginx:1.27
        volumeMounts: [{name: www, mountPath: /usr/share/nginx/html}]
  volumeClaimTemplates:
  - metadata: {name: www}
    spec:
      accessModes: [ReadWriteOnce]
      resources: {requests: {storage: 2Gi}}
`);
    await kubectl('rollout', 'status', 'statefulset/web', '--timeout=90s');
    for (const i of [0, 1]) {
      const pvc = await eventually(async () => {
        const c = await json('get', 'pvc', `www-web-${i}`);
        assert.equal(c.status.phase, 'Bound', `www-web-${i} Bound`);
        return c;
      }, slow);
      assert.equal(pvc.spec.storageClassName, 'standard');
      const pod = await json('get', 'pod', `web-${i}`);
      const pv = await json('get', 'pv', pvc.spec.volumeName);
      assert.deepEqual(pv.spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].values, [
        pod.spec.nodeName,
      ]);
      assert.equal(pv.spec.capacity.storage, '2Gi');
    }
    await kubectl('delete', 'statefulset', 'web', '--wait=true');
  });
});
