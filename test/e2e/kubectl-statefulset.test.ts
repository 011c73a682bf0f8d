/**
 * The real kubectl against `wheelhouse up --nodes 3`: StatefulSets through the statefulset controller, the
 * scheduler and simulated kubelets (issue 7's StatefulSet acceptance): ordered scale-up and reverse-order
 * scale-down, a partitioned rolling update, and kubectl rollout status, history and undo.
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

interface Pod {
  metadata: { name: string; creationTimestamp: string; labels: Record<string, string> };
  spec: { nodeName?: string; hostname?: string; subdomain?: string; containers: { image: string }[] };
  status: { phase?: string; conditions?: { type: string; status: string; lastTransitionTime: string }[] };
}

interface Event {
  metadata: { resourceVersion: string };
  reason: string;
  message: string;
  involvedObject: { kind: string; name: string };
}

const manifest = (name: string, replicas: number, partition = 0) => `apiVersion: v1
kind: Service
metadata: {name: ${name}}
spec:
  clusterIP: None
  selector: {app: ${name}}
  ports: [{port: 80}]
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: ${name}}
spec:
  serviceName: ${name}
  replicas: ${replicas}
  selector: {matchLabels: {app: ${name}}}
  updateStrategy:
    type: RollingUpdate
    rollingUpdate: {partition: ${partition}}
  template:
    metadata: {labels: {app: ${name}}}
    spec:
      terminationGracePeriodSeconds: 1
      containers:
      - name: app
        image: nginx:1.25
        resources: {requests: {cpu: 50m, memory: 32Mi}}
`;

describe('kubectl against wheelhouse up --nodes 3: StatefulSets', () => {
  const root = mkdtempSync(join(tmpdir(), 'wheelhouse-sts-e2e-'));
  const dataDir = join(root, 'data');
  let up: WheelhouseProcess;
  const kubectl = async (...args: string[]) =>
    (
      await run(
        'kubectl',
        ['--kubeconfig', join(dataDir, 'kubeconfig'), '--cache-dir', join(root, 'kcache'), ...args],
        {
          timeout: 120_000,
        },
      )
    ).stdout;
  let manifests = 0;
  const apply = async (yaml: string) => {
    const file = join(root, `manifest-${++manifests}.yaml`);
    writeFileSync(file, yaml);
    return kubectl('apply', '-f', file);
  };
  const pods = async (app: string): Promise<Pod[]> =>
    (JSON.parse(await kubectl('get', 'pods', '-l', `app=${app}`, '-o', 'json')).items as Pod[]).sort((a, b) =>
      a.metadata.name.localeCompare(b.metadata.name),
    );
  /** The set's events of a reason, in the order they were written. */
  const events = async (set: string, reason: string): Promise<string[]> =>
    (JSON.parse(await kubectl('get', 'events', '-o', 'json')).items as Event[])
      .filter((e) => e.involvedObject.kind === 'StatefulSet' && e.involvedObject.name === set && e.reason === reason)
      .sort((a, b) => Number(a.metadata.resourceVersion) - Number(b.metadata.resourceVersion))
      .map((e) => e.message);
  const readySince = (pod: Pod) =>
    Date.parse(pod.status.conditions?.find((c) => c.type === 'Ready' && c.status === 'True')?.lastTransitionTime ?? '');
  const slow = { timeoutMs: 60_000, intervalMs: 250 };

  before(async () => {
    up = await startWheelhouse('up', ['--storage', 'memory', '--data-dir', dataDir, '--nodes', '3']);
    await nodesReady(kubectl, 3, slow);
  });
  after(async () => {
    if (up) assert.equal(await up.stop(), 0, up.out());
    rmSync(root, { recursive: true, force: true });
  });

  it('scales 0→3 in ordinal order, each pod after the previous is Ready; rollout status waits for it', async () => {
    assert.match(await apply(manifest('web', 3)), /^statefulset\.apps\/web created$/m);
    const status = await kubectl('rollout', 'status', 'statefulset/web', '--timeout=90s');
    // The apiserver defaults rollingUpdate.partition to 0, so kubectl reports a (complete) partitioned rollout.
    assert.match(status, /^Waiting for 3 pods to be ready\.\.\.$/m);
    assert.match(status, /partitioned roll out complete: 3 new pods have been updated\.\.\.\n$/);
    assert.match(await kubectl('get', 'statefulset', 'web'), /^web\s+3\/3\s+/m);
    assert.deepEqual(await events('web', 'SuccessfulCreate'), [
      'create Pod web-0 in StatefulSet web successful',
      'create Pod web-1 in StatefulSet web successful',
      'create Pod web-2 in StatefulSet web successful',
    ]);
    const [web0, web1, web2] = await pods('web');
    assert.ok(web0 && web1 && web2);
    // Each pod was created no earlier than its predecessor became Ready (timestamps have 1 s resolution).
    assert.ok(Date.parse(web1.metadata.creationTimestamp) >= readySince(web0), 'web-1 after web-0 was ready');
    assert.ok(Date.parse(web2.metadata.creationTimestamp) >= readySince(web1), 'web-2 after web-1 was ready');
    for (const [i, pod] of [web0, web1, web2].entries()) {
      assert.equal(pod.spec.hostname, `web-${i}`);
      assert.equal(pod.spec.subdomain, 'web');
      assert.equal(pod.metadata.labels['statefulset.kubernetes.io/pod-name'], `web-${i}`);
      assert.equal(pod.metadata.labels['apps.kubernetes.io/pod-index'], String(i));
      assert.match(pod.spec.nodeName ?? '', /^node-[123]$/);
      assert.equal(pod.status.phase, 'Running');
    }
  });

  it('scales 3→1 in reverse ordinal order', async () => {
    assert.match(await kubectl('scale', 'statefulset', 'web', '--replicas=1'), /statefulset\.apps\/web scaled/);
    await eventually(async () => {
      const names = (await pods('web')).map((p) => p.metadata.name);
      assert.deepEqual(names, ['web-0'], 'only web-0 left');
    }, slow);
    assert.deepEqual(await events('web', 'SuccessfulDelete'), [
      'delete Pod web-2 in StatefulSet web successful',
      'delete Pod web-1 in StatefulSet web successful',
    ]);
    assert.match(await kubectl('get', 'statefulset', 'web'), /^web\s+1\/1\s+/m);
  });

  it('a rolling update with a partition updates only the ordinals at or above it', async () => {
    await apply(manifest('db', 3, 1));
    await kubectl('rollout', 'status', 'statefulset/db', '--timeout=90s');
    await kubectl('set', 'image', 'statefulset/db', 'app=nginx:1.26');
    const status = await kubectl('rollout', 'status', 'statefulset/db', '--timeout=90s');
    assert.match(status, /partitioned roll out complete: 2 new pods have been updated\.\.\./);
    const images = (await pods('db')).map((p) => `${p.metadata.name}=${p.spec.containers[0]?.image}`);
    assert.deepEqual(images, ['db-0=nginx:1.25', 'db-1=nginx:1.26', 'db-2=nginx:1.26']);
    assert.deepEqual(await events('db', 'SuccessfulDelete'), [
      'delete Pod db-2 in StatefulSet db successful',
      'delete Pod db-1 in StatefulSet db successful',
    ]);
  });

  it('rollout history lists the revisions and rollout undo goes back to the previous template', async () => {
    await kubectl('patch', 'statefulset', 'db', '-p', '{"spec":{"updateStrategy":{"rollingUpdate":{"partition":0}}}}');
    assert.match(
      await kubectl('rollout', 'status', 'statefulset/db', '--timeout=90s'),
      /partitioned roll out complete: 3 new pods have been updated\.\.\.\n$/,
    );
    const history = await kubectl('rollout', 'history', 'statefulset/db');
    assert.match(history, /^REVISION\s+CHANGE-CAUSE$/m);
    assert.match(history, /^1\s+<none>$/m);
    assert.match(history, /^2\s+<none>$/m);
    assert.match(await kubectl('rollout', 'history', 'statefulset/db', '--revision=1'), /Image:\s+nginx:1\.25/);

    assert.match(await kubectl('rollout', 'undo', 'statefulset/db'), /statefulset\.apps\/db rolled back/);
    await kubectl('rollout', 'status', 'statefulset/db', '--timeout=90s');
    await eventually(async () => {
      const images = (await pods('db')).map((p) => p.spec.containers[0]?.image);
      assert.deepEqual(images, ['nginx:1.25', 'nginx:1.25', 'nginx:1.25'], 'all back on 1.25');
    }, slow);
    const after = await kubectl('rollout', 'history', 'statefulset/db');
    assert.match(after, /^2\s+<none>$/m);
    assert.match(after, /^3\s+<none>$/m);
    assert.doesNotMatch(after, /^1\s+/m);
    assert.match(
      await kubectl('rollout', 'undo', 'statefulset/db', '--to-revision=3'),
      /statefulset\.apps\/db skipped rollback \(current template already matches revision 3\)/,
    );
  });
});
