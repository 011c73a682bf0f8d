/**
 * The real kubectl's logs, exec, attach and port-forward against the apiserver's pod subresources, proxied to the
 * kubelet endpoint serving a fake runtime (the simulated kubelets plug in the same way).
 */
import { type ChildProcessWithoutNullStreams, execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { connect } from 'node:tls';
import { promisify } from 'node:util';
import { type ControlPlane, type KubeObject, startControlPlane } from '../../src/index.js';
import { FakePodRuntime } from '../../src/kubelet/server/fake-runtime.js';
import { apiObjectSource } from '../../src/kubelet/server/object-source.js';
import { KubeletServer } from '../../src/kubelet/server/server.js';
import { apiRequest, kubectl } from '../../src/testing/api-client.js';
import assert from '../../src/testing/assert.js';
import { eventually } from '../../src/testing/controllers.js';
import { startWebhookServer } from '../../src/testing/webhook-server.js';

const running = { running: { startedAt: new Date().toISOString() } };

/** Creates a pod, binds it to node-1 (unless unbound) and reports the given container states. */
async function addPod(
  cp: ControlPlane,
  runtime: FakePodRuntime,
  spec: KubeObject['spec'],
  name: string,
  opts: { bind?: boolean; node?: string; states?: Record<string, object> } = {},
): Promise<void> {
  const pods = cp.client.pods('default');
  await pods.create({ metadata: { name }, spec });
  if (opts.bind === false) return;
  await pods.createSubresource(name, 'binding', {
    apiVersion: 'v1',
    kind: 'Binding',
    metadata: { name },
    target: { kind: 'Node', name: opts.node ?? 'node-1' },
  });
  const pod = await pods.get(name);
  const containers = (spec?.containers ?? []) as { name: string; image: string }[];
  const anyWaiting = containers.some((c) => opts.states?.[c.name] && 'waiting' in (opts.states[c.name] as object));
  pod.status = {
    phase: anyWaiting ? 'Pending' : 'Running',
    containerStatuses: containers.map((c) => ({
      name: c.name,
      image: c.image,
      imageID: '',
      ready: !anyWaiting,
      restartCount: 0,
      state: opts.states?.[c.name] ?? running,
    })),
  };
  runtime.setPod(await pods.updateStatus(pod));
}

/** Sends a WebSocket upgrade request without credentials and returns the response's first line. */
function anonymousUpgrade(cp: ControlPlane, path: string): Promise<string> {
  const url = new URL(cp.url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: url.hostname, port: Number(url.port), rejectUnauthorized: false }, () => {
      socket.write(
        `GET ${path} HTTP/1.1\r\nHost: ${url.host}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n` +
          'Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n' +
          'Sec-WebSocket-Protocol: v5.channel.k8s.io\r\n\r\n',
      );
    });
    let text = '';
    socket.on('data', (d) => {
      text += d;
      if (text.includes('\r\n')) {
        resolve(text.slice(0, text.indexOf('\r\n')));
        socket.destroy();
      }
    });
    socket.on('error', reject);
  });
}

/** Starts a long-running kubectl and collects its output. */
/**
 * A kubectl exec result without kubectl's own "Unknown stream id N, discarding message" log line. kubectl starts
 * reading the WebSocket before it has made its streams, and the server's first message is an empty one on the
 * lowest output channel — upstream's kubelet and apiserver send it too, to say the streams are up — so on a busy
 * machine kubectl may log that it dropped it. Nothing the user would see is lost: the message is empty.
 */
function withoutDroppedReadyLine<T extends { stderr: string }>(res: T): T {
  return {
    ...res,
    stderr: res.stderr.replace(
      /^E\d{4} [\d:.]+\s+\d+ websocket\.go:\d+\] Unknown stream id \d+, discarding message\n/gm,
      '',
    ),
  };
}

function start(cp: ControlPlane, args: string[]) {
  const child: ChildProcessWithoutNullStreams = spawn('kubectl', [
    '--kubeconfig',
    cp.kubeconfig.path,
    '--cache-dir',
    join(cp.dataDir, 'kubectl-cache'),
    ...args,
  ]);
  const out = { stdout: '', stderr: '' };
  child.stdout.on('data', (d) => {
    out.stdout += d;
  });
  child.stderr.on('data', (d) => {
    out.stderr += d;
  });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  return {
    out,
    async stop() {
      child.kill();
      await exited;
    },
  };
}

describe('kubectl logs, exec, attach and port-forward on simulated pods', () => {
  let cp: ControlPlane;
  const runtime = new FakePodRuntime();
  let kubelet: KubeletServer;

  before(async () => {
    cp = await startControlPlane({ storage: 'memory' });
    kubelet = new KubeletServer({ runtime, objects: apiObjectSource(cp.client) });
    const port = await kubelet.start();
    await cp.client.nodes().create({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'node-1' },
      status: {
        addresses: [
          { type: 'InternalIP', address: '127.0.0.1' },
          { type: 'Hostname', address: 'node-1' },
        ],
        daemonEndpoints: { kubeletEndpoint: { Port: port } },
      },
    });
    // A node whose kubelet does not answer.
    await cp.client.nodes().create({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'node-2' },
      status: {
        addresses: [{ type: 'InternalIP', address: '127.0.0.1' }],
        daemonEndpoints: { kubeletEndpoint: { Port: 1 } },
      },
    });
    await cp.client.configMaps('default').create({ metadata: { name: 'web-config' }, data: { key: 'from the map\n' } });
    await addPod(
      cp,
      runtime,
      {
        containers: [
          {
            name: 'app',
            image: 'nginx',
            ports: [{ containerPort: 80 }],
            env: [{ name: 'COLOR', value: 'blue' }],
            volumeMounts: [{ name: 'config', mountPath: '/etc/config' }],
          },
        ],
        volumes: [{ name: 'config', configMap: { name: 'web-config' } }],
      },
      'web',
    );
    await addPod(
      cp,
      runtime,
      {
        containers: [
          { name: 'a', image: 'busybox' },
          { name: 'b', image: 'busybox' },
        ],
      },
      'multi',
    );
    await addPod(cp, runtime, { containers: [{ name: 'app', image: 'nginx' }] }, 'pending', { bind: false });
    await addPod(cp, runtime, { containers: [{ name: 'app', image: 'nginx' }] }, 'creating', {
      states: { app: { waiting: { reason: 'ContainerCreating' } } },
    });
    await addPod(cp, runtime, { containers: [{ name: 'app', image: 'nginx' }] }, 'unreachable', { node: 'node-2' });
    const log = runtime.log('default', 'web', 'app');
    log.write('starting');
    log.write('listening on :80');
  });
  after(async () => {
    await kubelet?.stop();
    await cp?.stop();
  });

  it('lists the pod subresources in discovery as upstream does', async () => {
    const res = await apiRequest(cp, 'GET', '/api/v1');
    const subs = new Map<string, string[]>(
      (res.body.resources as { name: string; verbs: string[] }[])
        .filter((r) => r.name.startsWith('pods/'))
        .map((r) => [r.name, r.verbs]),
    );
    assert.deepEqual(subs.get('pods/log'), ['get']);
    assert.deepEqual(subs.get('pods/exec'), ['create', 'get']);
    assert.deepEqual(subs.get('pods/attach'), ['create', 'get']);
    assert.deepEqual(subs.get('pods/portforward'), ['create', 'get']);
  });

  it('prints logs, and the last lines with --tail', async () => {
    const all = await kubectl(cp, ['logs', 'web']);
    assert.equal(all.code, 0, all.stderr);
    assert.equal(all.stdout, 'starting\nlistening on :80\n');
    const tail = await kubectl(cp, ['logs', 'web', '--tail=1']);
    assert.equal(tail.stdout, 'listening on :80\n');
    const stamped = await kubectl(cp, ['logs', 'web', '--timestamps', '--tail=1']);
    assert.match(stamped.stdout, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z listening on :80\n$/);
  });

  it('follows logs with -f as lines are written', async () => {
    const follow = start(cp, ['logs', '-f', 'web']);
    await eventually(() => assert.match(follow.out.stdout, /listening on :80\n$/), { timeoutMs: 10_000 });
    runtime.log('default', 'web', 'app').write('GET / 200');
    await eventually(() => assert.match(follow.out.stdout, /GET \/ 200\n$/), { timeoutMs: 10_000 });
    await follow.stop();
  });

  it('runs commands with exec and passes on their exit code', async () => {
    const hi = await kubectl(cp, ['exec', 'web', '--', 'echo', 'hi']);
    assert.deepEqual(withoutDroppedReadyLine(hi), { code: 0, stdout: 'hi\n', stderr: '' });
    const three = withoutDroppedReadyLine(await kubectl(cp, ['exec', 'web', '--', 'sh', '-c', 'exit 3']));
    assert.equal(three.code, 3);
    assert.equal(three.stderr, 'command terminated with exit code 3\n');
    const missing = withoutDroppedReadyLine(await kubectl(cp, ['exec', 'web', '--', 'nginx', '-t']));
    assert.equal(missing.code, 127);
    assert.match(missing.stderr, /^sh: nginx: not found\n/);
  });

  it('reads mounted ConfigMap files and the environment', async () => {
    const cat = await kubectl(cp, ['exec', 'web', '--', 'cat', '/etc/config/key']);
    assert.deepEqual(withoutDroppedReadyLine(cat), { code: 0, stdout: 'from the map\n', stderr: '' });
    const env = await kubectl(cp, ['exec', 'web', '--', 'printenv', 'COLOR', 'HOSTNAME']);
    assert.equal(env.stdout, 'blue\nweb\n');
  });

  it('sends stdin with exec -i', async () => {
    const res = await kubectl(cp, ['exec', '-i', 'web', '--', 'cat'], { input: 'piped in\n' });
    assert.deepEqual(withoutDroppedReadyLine(res), { code: 0, stdout: 'piped in\n', stderr: '' });
  });

  it('attaches to the output of a container', async () => {
    const log = runtime.log('default', 'web', 'app');
    await eventually(() => assert.equal(log.followerCount, 0));
    const attach = start(cp, ['attach', 'web', '-c', 'app']);
    // The attach is up once the kubelet follows the container's output.
    await eventually(() => assert.equal(log.followerCount, 1), { timeoutMs: 10_000 });
    log.write('attached line');
    await eventually(() => assert.match(attach.out.stdout, /attached line\n/), { timeoutMs: 10_000 });
    await attach.stop();
  });

  it('forwards a local port to the pod', async () => {
    const pf = start(cp, ['port-forward', 'pod/web', '0:80']);
    let local = '';
    await eventually(
      () => {
        const m = /Forwarding from 127\.0\.0\.1:(\d+) -> 80/.exec(pf.out.stdout);
        assert.ok(m, pf.out.stderr);
        local = m[1] as string;
      },
      { timeoutMs: 15_000 },
    );
    for (let i = 0; i < 2; i++) {
      const res = await fetch(`http://127.0.0.1:${local}/`);
      assert.equal(res.status, 200);
      assert.equal(await res.text(), 'hello from web\n');
    }
    assert.equal(pf.out.stderr, '');
    await pf.stop();
  });

  it('answers with upstream errors', async () => {
    const waiting = await kubectl(cp, ['logs', 'creating']);
    assert.equal(waiting.code, 1);
    assert.equal(
      waiting.stderr,
      'Error from server (BadRequest): container "app" in pod "creating" is waiting to start: ContainerCreating\n',
    );
    const noHost = await kubectl(cp, ['exec', 'pending', '--', 'true']);
    assert.equal(noHost.code, 1);
    assert.equal(noHost.stderr, 'Error from server (BadRequest): pod pending does not have a host assigned\n');
    const notFound = await kubectl(cp, ['logs', 'nope']);
    assert.equal(
      notFound.stderr,
      'error: error from server (NotFound): pods "nope" not found in namespace "default"\n',
    );

    const down = await kubectl(cp, ['logs', 'unreachable']);
    assert.equal(
      down.stderr,
      'Error from server: Get "https://127.0.0.1:1/containerLogs/default/unreachable/app": ' +
        'dial tcp 127.0.0.1:1: connect: connection refused\n',
    );
    const downExec = await kubectl(cp, ['exec', 'unreachable', '--', 'true']);
    assert.equal(
      downExec.stderr,
      'Error from server: error dialing backend: dial tcp 127.0.0.1:1: connect: connection refused\n',
    );

    const choose = await apiRequest(cp, 'GET', '/api/v1/namespaces/default/pods/multi/log');
    assert.equal(choose.status, 400);
    assert.equal(choose.body.message, 'a container name must be specified for pod multi, choose one of: [a b]');
    const invalid = await apiRequest(cp, 'GET', '/api/v1/namespaces/default/pods/web/log?container=zzz');
    assert.equal(invalid.body.message, 'container zzz is not valid for pod web');
    const pendingLog = await apiRequest(cp, 'GET', '/api/v1/namespaces/default/pods/pending/log');
    assert.deepEqual([pendingLog.status, pendingLog.text], [200, ''], 'a pod with no node has an empty log');
    const tail = await apiRequest(cp, 'GET', '/api/v1/namespaces/default/pods/web/log?tailLines=-1');
    assert.equal(tail.status, 422);
    assert.equal(
      tail.body.message,
      'PodLogOptions "web" is invalid: tailLines: Invalid value: -1: must be greater than or equal to 0',
    );
    assert.equal(
      await anonymousUpgrade(cp, '/api/v1/namespaces/default/pods/web/exec?command=true&stdout=true'),
      'HTTP/1.1 403 Forbidden',
      'upgrades pass through authentication and authorization',
    );
    const plain = await apiRequest(cp, 'POST', '/api/v1/namespaces/default/pods/web/exec?command=true&stdout=true');
    assert.deepEqual([plain.status, plain.body.message], [400, 'Upgrade request required']);
  });

  const old = '/usr/lib/google-cloud-sdk/bin/kubectl.1.29';
  it('runs exec over SPDY for kubectl before 1.30', { skip: !existsSync(old) }, async () => {
    const run = promisify(execFile);
    const args = ['--kubeconfig', cp.kubeconfig.path, '--cache-dir', join(cp.dataDir, 'kubectl-1.29')];
    const hi = await run(old, [...args, 'exec', 'web', '--', 'echo', 'hi'], { encoding: 'utf8' });
    assert.equal(hi.stdout, 'hi\n');
    await assert.rejects(run(old, [...args, 'exec', 'web', '--', 'sh', '-c', 'exit 4']), (err: { code?: number }) => {
      assert.equal(err.code, 4);
      return true;
    });
  });
  it('exec is admitted as CONNECT: a validating webhook on pods/exec refuses a command, kubectl prints why', async () => {
    const hook = await startWebhookServer();
    try {
      hook.on('/exec', (review) =>
        review.request.object.command?.[0] === 'rm'
          ? { allowed: false, status: { code: 403, reason: 'Forbidden', message: 'no rm in web' } }
          : { allowed: true },
      );
      const name = 'deny-rm';
      const config = {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingWebhookConfiguration',
        metadata: { name },
        webhooks: [
          {
            name: 'exec.wheelhouse.test',
            clientConfig: { url: `${hook.url}/exec`, caBundle: hook.caBundle },
            rules: [
              {
                operations: ['CONNECT'],
                apiGroups: [''],
                apiVersions: ['v1'],
                resources: ['pods/exec', 'pods/attach', 'pods/portforward'],
              },
            ],
            sideEffects: 'None',
            admissionReviewVersions: ['v1'],
          },
        ],
      };
      const vwc = '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations';
      assert.equal((await apiRequest(cp, 'POST', vwc, { body: config })).status, 201);
      await eventually(async () => {
        const list = await apiRequest(cp, 'GET', `${vwc}?resourceVersion=0`);
        assert.equal(list.body.items.length, 1);
      });
      const denied = await kubectl(cp, ['exec', 'web', '--', 'rm', '-rf', '/']);
      assert.equal(denied.code, 1);
      assert.equal(
        denied.stderr,
        'Error from server (Forbidden): admission webhook "exec.wheelhouse.test" denied the request: no rm in web\n',
      );
      const sent = hook.received.at(-1)?.review;
      assert.equal(sent.request.operation, 'CONNECT');
      assert.deepEqual(sent.request.object, {
        kind: 'PodExecOptions',
        apiVersion: 'v1',
        stdout: true,
        stderr: true,
        container: 'app',
        command: ['rm', '-rf', '/'],
      });
      const hi = await kubectl(cp, ['exec', 'web', '--', 'echo', 'hi']);
      assert.deepEqual(withoutDroppedReadyLine(hi), { code: 0, stdout: 'hi\n', stderr: '' });
      assert.equal((await apiRequest(cp, 'DELETE', `${vwc}/${name}`)).status, 200);
    } finally {
      await hook.close();
    }
  });
});
