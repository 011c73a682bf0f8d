import { after, before, describe, it } from 'node:test';
import { deploymentController } from '../../src/controllers/deployment/index.js';
import type { ControllerManager } from '../../src/controllers/manager.js';
import { replicaSetController } from '../../src/controllers/replicaset/index.js';
import { type ControlPlane, startControlPlane } from '../../src/index.js';
import { kubectl } from '../../src/testing/api-client.js';
import assert from '../../src/testing/assert.js';
import { runControllers } from '../../src/testing/controllers.js';
import { markAllReady } from '../../src/testing/deployment-fixtures.js';

const MANIFEST = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: default
spec:
  replicas: 3
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: app
        image: nginx:1.25
`;

describe('kubectl rollout against the deployment and replicaset controllers', () => {
  let cp: ControlPlane;
  let manager: ControllerManager;
  let kubelet: NodeJS.Timeout;
  let stopped = false;

  before(async () => {
    cp = await startControlPlane({ storage: 'memory' });
    manager = await runControllers(cp, [deploymentController, replicaSetController]);
    // Stands in for kubelets: every pod of the Deployment becomes Running and Ready shortly after it appears.
    let busy = false;
    kubelet = setInterval(() => {
      if (busy || stopped) return;
      busy = true;
      markAllReady(cp.client, 'default', 'web')
        .catch(() => {})
        .finally(() => {
          busy = false;
        });
    }, 50);
  });
  after(async () => {
    stopped = true;
    clearInterval(kubelet);
    await manager?.stop();
    await cp?.stop();
  });

  const ok = async (...args: string[]) => {
    const res = await kubectl(cp, args);
    assert.equal(res.code, 0, `kubectl ${args.join(' ')}: ${res.stderr}`);
    return res.stdout;
  };

  it('rollout status returns once the Deployment is rolled out', async () => {
    const applied = await kubectl(cp, ['apply', '-f', '-'], { input: MANIFEST });
    assert.equal(applied.code, 0, applied.stderr);
    const out = await ok('rollout', 'status', 'deployment/web', '--timeout=30s');
    assert.match(out, /deployment "web" successfully rolled out/);
  });

  it('rollout history lists the revisions with their change-cause', async () => {
    await ok('set', 'image', 'deployment/web', 'app=nginx:1.26');
    await ok('annotate', 'deployment/web', 'kubernetes.io/change-cause=image 1.26', '--overwrite');
    assert.match(await ok('rollout', 'status', 'deployment/web', '--timeout=30s'), /successfully rolled out/);
    const history = await ok('rollout', 'history', 'deployment/web');
    assert.match(history, /^REVISION\s+CHANGE-CAUSE$/m);
    assert.match(history, /^1\s+<none>$/m);
    assert.match(history, /^2\s+image 1\.26$/m);
    const one = await ok('rollout', 'history', 'deployment/web', '--revision=1');
    assert.match(one, /Image:\s+nginx:1\.25/);
  });

  it('rollout undo restores the previous template as a new revision', async () => {
    assert.match(await ok('rollout', 'undo', 'deployment/web'), /deployment\.apps\/web rolled back/);
    assert.match(await ok('rollout', 'status', 'deployment/web', '--timeout=30s'), /successfully rolled out/);
    const image = await ok('get', 'deployment', 'web', '-o', 'jsonpath={.spec.template.spec.containers[0].image}');
    assert.equal(image, 'nginx:1.25');
    const history = await ok('rollout', 'history', 'deployment/web');
    assert.match(history, /^2\s+image 1\.26$/m);
    assert.match(history, /^3\s+<none>$/m);
    assert.doesNotMatch(history, /^1\s/m);
    const rs = JSON.parse(await ok('get', 'rs', '-l', 'app=web', '-o', 'json')).items;
    assert.equal(rs.length, 2, 'the first ReplicaSet was re-used');
  });

  it('rollout pause, resume and restart', async () => {
    await ok('rollout', 'pause', 'deployment/web');
    await ok('set', 'image', 'deployment/web', 'app=nginx:1.27');
    assert.match((await kubectl(cp, ['rollout', 'undo', 'deployment/web'])).stderr, /paused/);
    await ok('rollout', 'resume', 'deployment/web');
    assert.match(await ok('rollout', 'status', 'deployment/web', '--timeout=30s'), /successfully rolled out/);
    await ok('rollout', 'restart', 'deployment/web');
    assert.match(await ok('rollout', 'status', 'deployment/web', '--timeout=30s'), /successfully rolled out/);
    const history = await ok('rollout', 'history', 'deployment/web');
    assert.match(history, /^5\s/m);
    const pods = JSON.parse(await ok('get', 'pods', '-l', 'app=web', '-o', 'json')).items;
    assert.equal(pods.length, 3);
    for (const pod of pods) {
      assert.ok(pod.metadata.annotations?.['kubectl.kubernetes.io/restartedAt'], 'a pod of the restarted template');
    }
  });
});
