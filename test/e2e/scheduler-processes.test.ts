/**
 * `wheelhouse up --nodes 2` with things a user adds beside it: two `wheelhouse scheduler` processes reading one
 * KubeSchedulerConfiguration (a profile of their own, leader election on a Lease of their own) — the leader is
 * killed and the other takes over — and the real kubectl's logs and exec on a pod of the simulated nodes.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import assert from '../../src/testing/assert.js';
import { eventually } from '../../src/testing/controllers.js';
import { kubectlFor, nodesReady } from '../../src/testing/kubectl.js';
import { startWheelhouse, type WheelhouseProcess } from '../../src/testing/wheelhouse-process.js';

describe('wheelhouse up with schedulers of its own, and kubectl logs and exec on simulated pods', () => {
  const root = mkdtempSync(join(tmpdir(), 'wheelhouse-sched-procs-'));
  const dataDir = join(root, 'data');
  const kubeconfig = join(dataDir, 'kubeconfig');
  let up: WheelhouseProcess;
  const schedulers: WheelhouseProcess[] = [];
  const { kubectl, apply } = kubectlFor({ kubeconfig, workDir: root });
  const slow = { timeoutMs: 30_000, intervalMs: 200 };

  before(async () => {
    // wheelhouse up's own scheduler gets a second profile from --scheduler-config.
    const upConfig = join(root, 'up-scheduler.yaml');
    writeFileSync(
      upConfig,
      `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
- schedulerName: up-second
`,
    );
    up = await startWheelhouse('up', [
      '--storage',
      'memory',
      '--data-dir',
      dataDir,
      '--nodes',
      '2',
      '--scheduler-config',
      upConfig,
    ]);
    await nodesReady(kubectl, 2, slow);
  });
  after(async () => {
    for (const s of schedulers) if (s.child.exitCode === null && s.child.signalCode === null) await s.stop();
    if (up) assert.equal(await up.stop(), 0, up.out());
    rmSync(root, { recursive: true, force: true });
  });

  it("wheelhouse up --scheduler-config gives its scheduler the file's profiles", async () => {
    await apply(`apiVersion: v1
kind: Pod
metadata:
  name: by-up-second
spec:
  schedulerName: up-second
  containers:
  - name: app
    image: busybox
`);
    await eventually(async () => {
      const events = JSON.parse(
        await kubectl('get', 'events', '--field-selector', 'involvedObject.name=by-up-second', '-o', 'json'),
      ).items as { reason: string; message?: string; reportingComponent?: string; source?: { component?: string } }[];
      const scheduled = events.find((e) => e.reason === 'Scheduled');
      assert.equal(scheduled?.reportingComponent || scheduled?.source?.component, 'up-second');
      assert.match(scheduled?.message ?? '', /^Successfully assigned default\/by-up-second to node-[12]$/);
    }, slow);
    await kubectl('delete', 'pod', 'by-up-second', '--wait=false');
  });

  it('kubectl logs shows the lines the lifecycle wrote, and kubectl exec runs the built-in commands', async () => {
    await apply(`apiVersion: v1
kind: Pod
metadata:
  name: talker
  annotations:
    sim.wheelhouse.dev/logs: |-
      hello
      world
spec:
  containers:
  - name: app
    image: busybox
`);
    await kubectl('wait', '--for=condition=Ready', 'pod/talker', '--timeout=30s');
    assert.equal(await kubectl('logs', 'talker'), 'hello\nworld\n');
    assert.equal(await kubectl('exec', 'talker', '--', 'echo', 'hi', 'there'), 'hi there\n');
    // A command's exit code comes back as kubectl's own, with upstream's message.
    await assert.rejects(kubectl('exec', 'talker', '--', 'sh', '-c', 'exit 3'), (err: Error & { code?: number }) => {
      assert.equal(err.code, 3);
      assert.match(String((err as { stderr?: string }).stderr), /command terminated with exit code 3/);
      return true;
    });
    // The service account volume's token: the node's kubelet asks for a TokenRequest bound to the pod when a
    // command reads it, and it authenticates as the pod's service account.
    const sa = '/var/run/secrets/kubernetes.io/serviceaccount';
    assert.equal(await kubectl('exec', 'talker', '--', 'ls', sa), 'ca.crt\nnamespace\ntoken\n');
    const token = await kubectl('exec', 'talker', '--', 'cat', `${sa}/token`);
    const server = await kubectl('config', 'view', '-o', 'jsonpath={.clusters[0].cluster.server}');
    const { kubectl: withToken } = kubectlFor({ kubeconfig: '/dev/null', workDir: root });
    const ca = join(dataDir, 'pki', 'ca.crt');
    const who = JSON.parse(
      await withToken(
        '--server',
        server,
        '--certificate-authority',
        ca,
        '--token',
        token,
        'auth',
        'whoami',
        '-o',
        'json',
      ),
    );
    assert.equal(who.status.userInfo.username, 'system:serviceaccount:default:default');
    assert.deepEqual(who.status.userInfo.extra['authentication.kubernetes.io/pod-name'], ['talker']);
    assert.equal(
      await kubectl('exec', 'talker', '--', 'cat', `${sa}/token`),
      token,
      'the same token until its renewal',
    );
    await kubectl('delete', 'pod', 'talker', '--wait=false');
    // kubectl logs -f follows a container until it exits.
    await apply(`apiVersion: v1
kind: Pod
metadata:
  name: once
  annotations:
    sim.wheelhouse.dev/lifecycle: complete
    sim.wheelhouse.dev/run-seconds: "2"
    sim.wheelhouse.dev/logs: working
spec:
  restartPolicy: Never
  containers:
  - name: app
    image: busybox
`);
    const phase = () => kubectl('get', 'pod', 'once', '-o', 'jsonpath={.status.phase}');
    await eventually(async () => assert.match(await phase(), /^(Running|Succeeded)$/), slow);
    assert.equal(await kubectl('logs', '-f', 'once'), 'working\n');
    await eventually(async () => assert.equal(await phase(), 'Succeeded'), slow);
  });

  it('two wheelhouse scheduler processes share a configured profile by leader election; killing the leader, the other takes over', async () => {
    const config = join(root, 'second-scheduler.yaml');
    writeFileSync(
      config,
      `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection:
  kubeconfig: ${kubeconfig}
leaderElection:
  leaderElect: true
  leaseDuration: 3s
  renewDeadline: 2s
  retryPeriod: 500ms
  resourceNamespace: kube-system
  resourceName: second-scheduler
profiles:
- schedulerName: second-scheduler
  plugins:
    score:
      disabled: [{ name: '*' }]
      enabled: [{ name: NodeResourcesFit, weight: 1 }]
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: MostAllocated
        resources: [{ name: cpu, weight: 1 }]
`,
    );
    for (let i = 0; i < 2; i++) schedulers.push(await startWheelhouse('scheduler', ['--config', config]));
    const identities = schedulers.map((s) => /identity (\S+)\)/.exec(s.out())?.[1] ?? '');
    assert.ok(identities.every((id) => id !== '') && identities[0] !== identities[1], identities.join(' '));
    for (const s of schedulers) assert.match(s.out(), /profiles: second-scheduler/);
    const holder = async () =>
      kubectl('get', 'lease', '-n', 'kube-system', 'second-scheduler', '-o', 'jsonpath={.spec.holderIdentity}');
    const leader = await eventually(async () => {
      const id = await holder();
      assert.ok(identities.includes(id), `holder ${id}`);
      return id;
    }, slow);
    const pod = (name: string) => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
spec:
  schedulerName: second-scheduler
  containers:
  - name: app
    image: busybox
    resources: { requests: { cpu: "1" } }
`;
    const nodeOf = async (name: string) => kubectl('get', 'pod', name, '-o', 'jsonpath={.spec.nodeName}');
    await apply(pod('by-first-leader'));
    const packedOn = await eventually(async () => {
      const node = await nodeOf('by-first-leader');
      assert.match(node, /^node-[12]$/);
      return node;
    }, slow);
    // The profile scores by MostAllocated alone: the next pod goes where the first went (the default profile's
    // LeastAllocated and spreading would send it to the other node).
    await apply(pod('packed'));
    await eventually(async () => assert.equal(await nodeOf('packed'), packedOn), slow);
    // The Scheduled event names the profile's scheduler.
    await eventually(async () => {
      const events = JSON.parse(
        await kubectl('get', 'events', '--field-selector', 'involvedObject.name=by-first-leader', '-o', 'json'),
      ).items as { reason: string; source?: { component?: string }; reportingComponent?: string }[];
      const scheduled = events.find((e) => e.reason === 'Scheduled');
      assert.equal(scheduled?.reportingComponent || scheduled?.source?.component, 'second-scheduler');
    }, slow);

    // Kill the leader outright: its Lease is not given up, so the other waits for it to expire.
    const index = identities.indexOf(leader);
    const killed = schedulers[index] as WheelhouseProcess;
    killed.child.kill('SIGKILL');
    await killed.exited;
    await apply(pod('by-second-leader'));
    const other = identities[1 - index] as string;
    await eventually(async () => assert.equal(await holder(), other), slow);
    await eventually(async () => assert.equal(await nodeOf('by-second-leader'), packedOn), slow);
    const survivor = schedulers[1 - index] as WheelhouseProcess;
    assert.equal(await survivor.stop(), 0, survivor.out());
  });
});
