/**
 * kube-scheduler's identity with the real kubectl against `wheelhouse up` (Node,RBAC by default, as kubeadm runs it):
 * the scheduler's kubeconfig in the data directory authenticates as system:kube-scheduler, may do what upstream's
 * bootstrap policy lets that user do and is refused the rest with upstream's messages; and a `wheelhouse scheduler`
 * process run with that kubeconfig schedules pods of its own profile with no more than those rights.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { parse as parseYaml } from 'yaml';
import type { AuditEvent } from '../../src/apiserver/audit/event.js';
import assert from '../../src/testing/assert.js';
import { certificateExtra } from '../../src/testing/identity-request.js';
import { kubectlFor, nodesReady } from '../../src/testing/kubectl.js';
import { startWheelhouse, type WheelhouseProcess } from '../../src/testing/wheelhouse-process.js';

const run = promisify(execFile);

describe('kube-scheduler’s identity with the real kubectl against wheelhouse up', () => {
  const root = mkdtempSync(join(tmpdir(), 'wheelhouse-sched-identity-'));
  const dataDir = join(root, 'data');
  const auditLog = join(root, 'audit.log');
  const schedulerKubeconfig = join(dataDir, 'scheduler.kubeconfig');
  let up: WheelhouseProcess;
  let second: WheelhouseProcess | undefined;
  const { kubectl, apply } = kubectlFor({ kubeconfig: join(dataDir, 'kubeconfig'), workDir: root });
  /** kubectl as the scheduler: its exit code, stdout and stderr (never rejects). */
  const asScheduler = async (...args: string[]) => {
    try {
      const { stdout, stderr } = await run(
        'kubectl',
        ['--kubeconfig', schedulerKubeconfig, '--cache-dir', join(root, 'kcache'), ...args],
        { timeout: 60_000 },
      );
      return { code: 0, stdout, stderr };
    } catch (err) {
      const e = err as { code?: unknown; stdout?: string; stderr?: string };
      return { code: typeof e.code === 'number' ? e.code : -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
    }
  };
  const slow = { timeoutMs: 30_000, intervalMs: 200 };

  before(async () => {
    const policy = join(root, 'audit-policy.yaml');
    writeFileSync(policy, 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n');
    up = await startWheelhouse('up', [
      '--storage',
      'memory',
      '--data-dir',
      dataDir,
      '--nodes',
      '2',
      '--audit-policy-file',
      policy,
      '--audit-log-path',
      auditLog,
    ]);
    await nodesReady(kubectl, 2, slow);
  });
  after(async () => {
    if (second && second.child.exitCode === null && second.child.signalCode === null) await second.stop();
    if (up) assert.equal(await up.stop(), 0, up.out());
    rmSync(root, { recursive: true, force: true });
  });

  it('kubectl auth whoami with the scheduler’s kubeconfig: system:kube-scheduler', async () => {
    const who = await asScheduler('auth', 'whoami', '-o', 'json');
    assert.equal(who.code, 0, who.stderr);
    // The kubeconfig's certificate: its fingerprint is the credential ID, as upstream's x509 authenticator gives it.
    const config = parseYaml(readFileSync(schedulerKubeconfig, 'utf8'), { version: '1.1' });
    const cert = Buffer.from(config.users[0].user['client-certificate-data'], 'base64').toString('utf8');
    assert.deepEqual(JSON.parse(who.stdout).status.userInfo, {
      username: 'system:kube-scheduler',
      groups: ['system:authenticated'],
      extra: certificateExtra(cert),
    });
  });

  it('may bind pods and read nodes, and is refused with upstream’s Forbidden messages what it must not do', async () => {
    for (const [args, answer] of [
      [['create', 'pods', '--subresource=binding'], 'yes'],
      [['delete', 'pods'], 'yes'],
      [['list', 'nodes'], 'yes'],
      [['watch', 'persistentvolumeclaims', '-A'], 'yes'],
      [['create', 'pods'], 'no'],
      [['update', 'nodes'], 'no'],
      [['get', 'secrets'], 'no'],
      [['delete', 'namespaces'], 'no'],
    ] as const) {
      const res = await asScheduler('auth', 'can-i', ...args);
      assert.equal(res.stdout.trim(), answer, `can-i ${args.join(' ')}: ${res.stderr}`);
    }
    const nodes = await asScheduler('get', 'nodes', '-o', 'name');
    assert.equal(nodes.code, 0, nodes.stderr);
    assert.deepEqual(nodes.stdout.trim().split('\n'), ['node/node-1', 'node/node-2']);
    const refusals: [string[], string][] = [
      [
        ['delete', 'namespace', 'default'],
        'Error from server (Forbidden): namespaces "default" is forbidden: User "system:kube-scheduler" cannot delete resource "namespaces" in API group "" in the namespace "default"',
      ],
      [
        ['get', 'secrets', '-A'],
        'Error from server (Forbidden): secrets is forbidden: User "system:kube-scheduler" cannot list resource "secrets" in API group "" at the cluster scope',
      ],
      [
        ['get', 'secrets', '-n', 'kube-system'],
        'Error from server (Forbidden): secrets is forbidden: User "system:kube-scheduler" cannot list resource "secrets" in API group "" in the namespace "kube-system"',
      ],
      [
        ['label', 'node', 'node-1', 'x=y'],
        'Error from server (Forbidden): nodes "node-1" is forbidden: User "system:kube-scheduler" cannot patch resource "nodes" in API group "" at the cluster scope',
      ],
      [
        ['create', 'configmap', 'x', '--from-literal=a=b'],
        'error: failed to create configmap: configmaps is forbidden: User "system:kube-scheduler" cannot create resource "configmaps" in API group "" in the namespace "default"',
      ],
    ];
    for (const [args, message] of refusals) {
      const res = await asScheduler(...args);
      assert.equal(res.code, 1, `${args.join(' ')}: ${res.stdout}`);
      assert.equal(res.stderr.trim(), message);
    }
    assert.match(await kubectl('get', 'namespace', 'default'), /^default\s+Active/m);
  });

  it('a wheelhouse scheduler process with that kubeconfig schedules its profile’s pods as system:kube-scheduler', async () => {
    const config = join(root, 'second-scheduler.yaml');
    writeFileSync(
      config,
      `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection:
  kubeconfig: ${schedulerKubeconfig}
leaderElection:
  leaderElect: false
profiles:
- schedulerName: second-scheduler
`,
    );
    // It prints its ready line only once its informers have listed everything it watches: a list RBAC refused would
    // keep it waiting.
    second = await startWheelhouse('scheduler', ['--config', config]);
    await apply(`apiVersion: v1
kind: Pod
metadata:
  name: by-second
spec:
  schedulerName: second-scheduler
  containers:
  - name: app
    image: busybox
`);
    await kubectl('wait', '--for=condition=Ready', 'pod/by-second', '--timeout=30s');
    const events = JSON.parse(
      await kubectl(
        'get',
        'events',
        '--field-selector',
        'involvedObject.name=by-second,reason=Scheduled',
        '-o',
        'json',
      ),
    ).items as { message?: string; reportingComponent?: string; source?: { component?: string } }[];
    assert.equal(events.length, 1);
    assert.equal(events[0]?.reportingComponent || events[0]?.source?.component, 'second-scheduler');
    assert.match(events[0]?.message ?? '', /^Successfully assigned default\/by-second to node-[12]$/);
    // The audit log names the binding's author, and no request of the scheduler's user was refused but the test's.
    const audit = readFileSync(auditLog, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as AuditEvent)
      .filter((e) => e.stage === 'ResponseComplete');
    const binding = audit.find(
      (e) => e.objectRef?.name === 'by-second' && e.objectRef?.subresource === 'binding' && e.verb === 'create',
    );
    assert.equal(binding?.user.username, 'system:kube-scheduler');
    assert.equal(binding?.responseStatus?.code, 201);
    const refused = audit
      .filter((e) => e.user.username === 'system:kube-scheduler' && e.responseStatus?.code === 403)
      .filter((e) => !/^kubectl\//.test(e.userAgent ?? ''))
      .map((e) => `${e.verb} ${e.requestURI} (${e.userAgent})`);
    assert.deepEqual(refused, []);
  });
});
