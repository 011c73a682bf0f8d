/**
 * Simulated kubelets against an in-process control plane: registration, leases, the pod lifecycles, admission,
 * graceful deletion and fault injection. Time on the kubelets' side is a FakeClock the tests step; the apiserver
 * and the informers run on real time, so each check waits (eventually) for the reports to land.
 */
import { after, before, describe, it } from 'node:test';
import type { KubeObject } from '../client/types.js';
import { type ControlPlane, startControlPlane } from '../index.js';
import assert from '../testing/assert.js';
import { eventually } from '../testing/controllers.js';
import { FakeClock } from '../util/clock.js';
import { SimKubelets, STOPPED_ANNOTATION } from './sim.js';

let cp: ControlPlane;
let kubelets: SimKubelets;
const clock = new FakeClock(Date.parse('2026-03-01T10:00:00Z'));
const NS = 'default';

async function boundPod(
  name: string,
  node: string,
  spec: Record<string, unknown> = {},
  annotations: Record<string, string> = {},
): Promise<void> {
  await cp.client.pods(NS).create({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: NS, annotations, labels: { app: name } },
    spec: { containers: [{ name: 'c', image: 'nginx:1.27' }], ...spec },
  });
  await cp.client.pods(NS).createSubresource(name, 'binding', {
    apiVersion: 'v1',
    kind: 'Binding',
    metadata: { name, namespace: NS },
    target: { apiVersion: 'v1', kind: 'Node', name: node },
  });
}

const getPod = (name: string) => cp.client.pods(NS).get(name);
const condition = (pod: KubeObject, type: string) =>
  (pod.status?.conditions ?? []).find((c: { type: string }) => c.type === type);

/** Steps the kubelets' clock in small steps, letting the reports go out between them. */
async function step(ms: number, by = 1000): Promise<void> {
  for (let done = 0; done < ms; done += by) {
    clock.step(Math.min(by, ms - done));
    await new Promise((r) => setTimeout(r, 5));
  }
}

before(async () => {
  cp = await startControlPlane();
  kubelets = new SimKubelets({
    client: cp.client,
    nodes: 3,
    clock,
    nodeConfig: { images: ['local/app:v1'], groups: [{ count: 1, capacity: { cpu: '2', memory: '4Gi' } }] },
  });
  await kubelets.start();
});

after(async () => {
  await kubelets.stop();
  await cp.stop();
});

describe('simulated kubelets', () => {
  it('register nodes with upstream labels, capacity, conditions and a lease', async () => {
    const node = await cp.client.nodes().get('node-2');
    assert.deepEqual(node.metadata.labels, {
      'beta.kubernetes.io/arch': 'amd64',
      'beta.kubernetes.io/os': 'linux',
      'kubernetes.io/arch': 'amd64',
      'kubernetes.io/hostname': 'node-2',
      'kubernetes.io/os': 'linux',
      'topology.kubernetes.io/region': 'region-1',
      'topology.kubernetes.io/zone': 'zone-b',
    });
    assert.equal(node.spec.podCIDR, '10.244.2.0/24');
    assert.deepEqual(node.spec.podCIDRs, ['10.244.2.0/24']);
    assert.equal(node.status.capacity.pods, '110');
    assert.equal(node.status.allocatable.cpu, '8');
    assert.deepEqual(
      node.status.conditions.map((c: Record<string, string>) => [c.type, c.status, c.reason, c.message]),
      [
        ['MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'],
        ['DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'],
        ['PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'],
        ['Ready', 'True', 'KubeletReady', 'kubelet is posting ready status'],
      ],
    );
    assert.deepEqual(node.status.addresses, [
      { type: 'InternalIP', address: '127.0.0.1' },
      { type: 'Hostname', address: 'node-2' },
    ]);
    assert.deepEqual(node.status.daemonEndpoints, { kubeletEndpoint: { Port: 10250 } });
    assert.match(node.status.nodeInfo.kubeletVersion, /^v1\.33\.\d+-wheelhouse/);
    assert.match(node.status.nodeInfo.containerRuntimeVersion, /^sim:\/\//);
    const small = await cp.client.nodes().get('node-1');
    assert.equal(small.status.capacity.cpu, '2');
    assert.equal(small.metadata.labels?.['topology.kubernetes.io/zone'], 'zone-a');

    const lease = await cp.client.leases('kube-node-lease').get('node-2');
    assert.equal(lease.spec.holderIdentity, 'node-2');
    assert.equal(lease.spec.leaseDurationSeconds, 40);
    assert.ok(lease.spec.renewTime);
    assert.deepEqual(lease.metadata.ownerReferences, [
      { apiVersion: 'v1', kind: 'Node', name: 'node-2', uid: node.metadata.uid },
    ]);
  });

  it('runs a bound pod: Running and Ready, with an IP from the pod CIDR', async () => {
    await boundPod('web', 'node-2');
    const pending = await eventually(async () => {
      const p = await getPod('web');
      assert.equal(p.status.containerStatuses?.[0]?.state?.waiting?.reason, 'ContainerCreating');
      return p;
    });
    assert.equal(pending.status.phase, 'Pending');
    assert.equal(condition(pending, 'Ready').reason, 'ContainersNotReady');
    assert.equal(condition(pending, 'Ready').message, 'containers with unready status: [c]');
    await step(1000);
    const pod = await eventually(async () => {
      const p = await getPod('web');
      assert.equal(p.status.phase, 'Running');
      return p;
    });
    const s = pod.status;
    assert.match(s.podIP, /^10\.244\.2\.\d+$/);
    assert.deepEqual(s.podIPs, [{ ip: s.podIP }]);
    assert.equal(s.hostIP, '127.0.0.1');
    assert.deepEqual(s.hostIPs, [{ ip: '127.0.0.1' }]);
    assert.ok(s.startTime);
    assert.equal(s.qosClass, 'BestEffort');
    assert.deepEqual(
      s.conditions.map((c: Record<string, string>) => [c.type, c.status]),
      [
        ['PodReadyToStartContainers', 'True'],
        ['Initialized', 'True'],
        ['Ready', 'True'],
        ['ContainersReady', 'True'],
        ['PodScheduled', 'True'],
      ],
    );
    const cs = s.containerStatuses[0];
    assert.equal(cs.name, 'c');
    assert.ok(cs.state.running.startedAt);
    assert.equal(cs.ready, true);
    assert.equal(cs.started, true);
    assert.equal(cs.restartCount, 0);
    assert.equal(cs.image, 'docker.io/library/nginx:1.27');
    assert.match(cs.imageID, /^docker\.io\/library\/nginx@sha256:[0-9a-f]{64}$/);
    assert.match(cs.containerID, /^sim:\/\/[0-9a-f]{64}$/);
    await eventually(async () => {
      const events = await cp.client.events(NS).list({ fieldSelector: 'involvedObject.name=web' });
      const seen = events.items.map((e) => `${e.reason}: ${e.message}`);
      assert.ok(seen.includes('Created: Created container: c'), seen.join('\n'));
      assert.ok(seen.includes('Started: Started container c'), seen.join('\n'));
      assert.ok(
        seen.some((e) => e.startsWith('Pulled: ')),
        seen.join('\n'),
      );
      const started = events.items.find((e) => e.reason === 'Started');
      assert.equal(started?.source?.component, 'kubelet');
      assert.equal(started?.source?.host, 'node-2');
      assert.equal(started?.involvedObject?.fieldPath, 'spec.containers{c}');
    });
  });

  it('starts an ephemeral container added by kubectl debug: running, never ready, with its events', async () => {
    await boundPod('debugged', 'node-3');
    await step(1000);
    await eventually(async () => assert.equal((await getPod('debugged')).status.phase, 'Running'));
    await cp.client
      .pods(NS)
      .patch(
        'debugged',
        'strategic',
        { spec: { ephemeralContainers: [{ name: 'debugger-abcde', image: 'busybox:1.36', stdin: true, tty: true }] } },
        { subresource: 'ephemeralcontainers' },
      );
    const pod = await eventually(async () => {
      const p = await getPod('debugged');
      assert.equal(p.status.ephemeralContainerStatuses?.[0]?.state?.running !== undefined, true);
      return p;
    });
    const [status] = pod.status.ephemeralContainerStatuses;
    assert.equal(status.name, 'debugger-abcde');
    assert.equal(status.ready, false);
    assert.equal(status.image, 'docker.io/library/busybox:1.36');
    assert.equal(pod.status.phase, 'Running');
    assert.equal(condition(pod, 'Ready').status, 'True', 'the pod stays ready');
    await eventually(async () => {
      const events = await cp.client.events(NS).list({ fieldSelector: 'involvedObject.name=debugged' });
      const started = events.items.find(
        (e) => e.reason === 'Started' && e.message === 'Started container debugger-abcde',
      );
      assert.equal(started?.involvedObject?.fieldPath, 'spec.ephemeralContainers{debugger-abcde}');
    });
  });

  it('holds a container whose environment names a missing ConfigMap or key (CreateContainerConfigError)', async () => {
    await boundPod('needs-config', 'node-2', {
      containers: [
        {
          name: 'c',
          image: 'busybox',
          env: [{ name: 'X', valueFrom: { configMapKeyRef: { name: 'app-config', key: 'mode' } } }],
        },
      ],
    });
    // Started once preflight has read the API: reported Pending, the sandbox made a second later.
    await eventually(async () =>
      assert.equal(
        (await getPod('needs-config')).status.containerStatuses?.[0]?.state?.waiting?.reason,
        'ContainerCreating',
      ),
    );
    await step(1000);
    const waiting = await eventually(async () => {
      const p = await getPod('needs-config');
      assert.equal(p.status.containerStatuses?.[0]?.state?.waiting?.reason, 'CreateContainerConfigError');
      return p;
    });
    assert.equal(waiting.status.containerStatuses[0].state.waiting.message, 'configmap "app-config" not found');
    assert.equal(waiting.status.phase, 'Pending');
    await eventually(async () => {
      const events = await cp.client.events(NS).list({ fieldSelector: 'involvedObject.name=needs-config' });
      assert.ok(
        events.items.some((e) => e.reason === 'Failed' && e.message === 'Error: configmap "app-config" not found'),
      );
    });
    // The ConfigMap without the key: the message names the key.
    await cp.client
      .configMaps(NS)
      .create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'app-config' }, data: {} });
    await step(10_000, 2000);
    await eventually(async () =>
      assert.equal(
        (await getPod('needs-config')).status.containerStatuses?.[0]?.state?.waiting?.message,
        "couldn't find key mode in ConfigMap default/app-config",
      ),
    );
    await cp.client.configMaps(NS).patch('app-config', 'merge', { data: { mode: 'fast' } });
    await step(10_000, 2000);
    await eventually(async () => assert.equal((await getPod('needs-config')).status.phase, 'Running'));
  });

  it('keeps a pod whose Secret volume is missing in ContainerCreating, with FailedMount, until it appears', async () => {
    await boundPod('needs-secret', 'node-2', {
      volumes: [{ name: 'creds', secret: { secretName: 'db-creds' } }],
      containers: [{ name: 'c', image: 'busybox', volumeMounts: [{ name: 'creds', mountPath: '/creds' }] }],
    });
    await eventually(async () => {
      const events = await cp.client.events(NS).list({ fieldSelector: 'involvedObject.name=needs-secret' });
      const failed = events.items.find((e) => e.reason === 'FailedMount');
      assert.equal(failed?.message, 'MountVolume.SetUp failed for volume "creds" : secret "db-creds" not found');
      assert.equal(failed?.type, 'Warning');
    });
    const pending = await getPod('needs-secret');
    assert.equal(pending.status.phase, 'Pending');
    assert.ok(pending.status.startTime, 'admitted: a start time');
    assert.equal(pending.status.containerStatuses?.[0]?.state?.waiting?.reason, 'ContainerCreating');
    await cp.client.secrets(NS).create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'db-creds' }, data: {} });
    await step(5000, 500);
    await eventually(async () => assert.equal((await getPod('needs-secret')).status.phase, 'Running'));
  });

  it('completes a pod whose restartPolicy is Never with exit code 0', async () => {
    await boundPod('job-pod', 'node-3', { restartPolicy: 'Never' });
    await step(3000);
    const pod = await eventually(async () => {
      const p = await getPod('job-pod');
      assert.equal(p.status.phase, 'Succeeded');
      return p;
    });
    const t = pod.status.containerStatuses[0].state.terminated;
    assert.equal(t.exitCode, 0);
    assert.equal(t.reason, 'Completed');
    assert.equal(condition(pod, 'Ready').status, 'False');
    assert.equal(condition(pod, 'Ready').reason, 'PodCompleted');
    assert.equal(condition(pod, 'PodReadyToStartContainers').status, 'False');
    assert.equal(condition(pod, 'Initialized').reason, 'PodCompleted');
  });

  it('fails a pod with the fail lifecycle and the exit code it asks for', async () => {
    await boundPod(
      'failing',
      'node-3',
      { restartPolicy: 'Never' },
      {
        'sim.wheelhouse.dev/lifecycle': 'fail',
        'sim.wheelhouse.dev/exit-code': '3',
        'sim.wheelhouse.dev/run-seconds': '2',
      },
    );
    await step(4000);
    const pod = await eventually(async () => {
      const p = await getPod('failing');
      assert.equal(p.status.phase, 'Failed');
      return p;
    });
    const t = pod.status.containerStatuses[0].state.terminated;
    assert.equal(t.exitCode, 3);
    assert.equal(t.reason, 'Error');
    assert.equal(condition(pod, 'Ready').reason, 'PodFailed');
  });

  it('crash-loops with upstream back-off and CrashLoopBackOff', async () => {
    await boundPod('crasher', 'node-3', {}, { 'sim.wheelhouse.dev/lifecycle': 'crashloop' });
    // start (1 s), run (1 s), exit, noticed (1 s): restarted at once the first time.
    await step(3000);
    await eventually(async () => {
      const p = await getPod('crasher');
      const cs = p.status.containerStatuses[0];
      assert.equal(cs.restartCount, 1);
      assert.equal(cs.lastState.terminated.exitCode, 1);
      assert.equal(cs.lastState.terminated.reason, 'Error');
      assert.equal(p.status.phase, 'Running');
    });
    // Runs 1 s, exits, noticed 1 s later: now within the 10 s back-off.
    await step(2000);
    const uid = (await getPod('crasher')).metadata.uid;
    await eventually(async () => {
      const p = await getPod('crasher');
      const cs = p.status.containerStatuses[0];
      assert.equal(cs.state.waiting?.reason, 'CrashLoopBackOff');
      assert.equal(cs.state.waiting?.message, `back-off 10s restarting failed container=c pod=crasher_default(${uid})`);
      assert.equal(cs.restartCount, 1);
      assert.equal(cs.ready, false);
      assert.equal(p.status.phase, 'Running');
      assert.equal(condition(p, 'Ready').message, 'containers with unready status: [c]');
    });
    await step(10_000);
    await eventually(async () => {
      const cs = (await getPod('crasher')).status.containerStatuses[0];
      assert.equal(cs.restartCount, 2);
    });
    await step(3000);
    await eventually(async () => {
      const cs = (await getPod('crasher')).status.containerStatuses[0];
      assert.equal(cs.state.waiting?.message, `back-off 20s restarting failed container=c pod=crasher_default(${uid})`);
    });
    await eventually(async () => {
      const events = await cp.client.events(NS).list({ fieldSelector: 'involvedObject.name=crasher' });
      const backoff = events.items.find((e) => e.reason === 'BackOff');
      assert.equal(backoff?.type, 'Warning');
      assert.equal(backoff?.message, `Back-off restarting failed container c in pod crasher_default(${uid})`);
    });
  });

  it('keeps a never-ready pod running but not Ready', async () => {
    await boundPod('unready', 'node-3', {}, { 'sim.wheelhouse.dev/lifecycle': 'never-ready' });
    await step(2000);
    const pod = await eventually(async () => {
      const p = await getPod('unready');
      assert.equal(p.status.phase, 'Running');
      return p;
    });
    assert.equal(pod.status.containerStatuses[0].ready, false);
    assert.ok(pod.status.containerStatuses[0].state.running);
    assert.equal(condition(pod, 'Ready').status, 'False');
    assert.equal(condition(pod, 'ContainersReady').reason, 'ContainersNotReady');
  });

  it('reports each failed readiness probe of a never-ready pod as one Unhealthy event, counted', async () => {
    await boundPod(
      'probed',
      'node-3',
      { containers: [{ name: 'c', image: 'nginx:1.27', readinessProbe: { httpGet: { port: 80 }, periodSeconds: 5 } }] },
      { 'sim.wheelhouse.dev/lifecycle': 'never-ready' },
    );
    // Started at 1 s; probes fail at once and then every 5 s: at 1, 6 and 11 s.
    for (let i = 0; i < 12; i++) await step(1000);
    await eventually(async () => {
      const events = await cp.client.events(NS).list({ fieldSelector: 'involvedObject.name=probed' });
      const unhealthy = events.items.filter((e) => e.reason === 'Unhealthy');
      assert.equal(unhealthy.length, 1, 'the repeats are counted on one event');
      const e = unhealthy[0] as (typeof unhealthy)[number];
      assert.equal(e.type, 'Warning');
      assert.equal(e.message, 'Readiness probe failed: HTTP probe failed with statuscode: 503');
      assert.equal(e.involvedObject.fieldPath, 'spec.containers{c}');
      assert.equal(e.count, 3);
    });
  });

  it('runs an image the node config loaded under pull policy Never; another waits in ErrImageNeverPull', async () => {
    const node = await cp.client.nodes().get('node-3');
    assert.ok(
      node.status.images.some((i: { names: string[] }) => i.names.includes('docker.io/local/app:v1')),
      JSON.stringify(node.status.images),
    );
    // The same image under its full name: a runtime stores references normalised.
    await boundPod('loaded', 'node-3', {
      containers: [{ name: 'c', image: 'docker.io/local/app:v1', imagePullPolicy: 'Never' }],
    });
    await boundPod('unloaded', 'node-3', {
      containers: [{ name: 'c', image: 'local/other:v1', imagePullPolicy: 'Never' }],
    });
    await step(1000);
    await eventually(async () => {
      assert.ok((await getPod('loaded')).status.containerStatuses[0].state.running);
      assert.deepEqual((await getPod('unloaded')).status.containerStatuses[0].state.waiting, {
        reason: 'ErrImageNeverPull',
        message: 'Container image "local/other:v1" is not present with pull policy of Never',
      });
    });
    await cp.client.pods(NS).delete('loaded', { gracePeriodSeconds: 0 });
    await cp.client.pods(NS).delete('unloaded', { gracePeriodSeconds: 0 });
  });

  it('runs init containers to completion first', async () => {
    await boundPod('with-init', 'node-3', {
      initContainers: [
        { name: 'setup', image: 'busybox:1.36' },
        { name: 'migrate', image: 'busybox:1.36' },
      ],
    });
    await step(2000);
    await eventually(async () => {
      const p = await getPod('with-init');
      assert.equal(p.status.phase, 'Pending');
      assert.equal(p.status.initContainerStatuses[0].state.terminated?.reason, 'Completed');
      assert.ok(p.status.initContainerStatuses[1].state.running);
      assert.equal(p.status.containerStatuses[0].state.waiting?.reason, 'PodInitializing');
      assert.equal(condition(p, 'Initialized').message, 'containers with incomplete status: [migrate]');
    });
    await step(2000);
    await eventually(async () => {
      const p = await getPod('with-init');
      assert.equal(p.status.phase, 'Running');
      assert.equal(condition(p, 'Initialized').status, 'True');
      assert.equal(p.status.initContainerStatuses[1].ready, true);
    });
  });

  it('refuses a pod too big for the node with OutOfcpu', async () => {
    await boundPod('too-big', 'node-1', {
      containers: [{ name: 'c', image: 'nginx:1.27', resources: { requests: { cpu: '3' } } }],
    });
    const pod = await eventually(async () => {
      const p = await getPod('too-big');
      assert.equal(p.status.phase, 'Failed');
      return p;
    });
    assert.equal(pod.status.reason, 'OutOfcpu');
    assert.equal(
      pod.status.message,
      "Pod was rejected: Node didn't have enough resource: cpu, requested: 3000, used: 0, capacity: 2000",
    );
    await eventually(async () => {
      const events = await cp.client.events(NS).list({ fieldSelector: 'involvedObject.name=too-big' });
      assert.ok(events.items.some((e) => e.reason === 'OutOfcpu' && e.type === 'Warning'));
    });
  });

  it('admits against the requests of the pods still running, not of those that finished', async () => {
    const requesting = (cpu: string) => ({
      containers: [{ name: 'c', image: 'nginx:1.27', resources: { requests: { cpu } } }],
    });
    await boundPod(
      'done-big',
      'node-1',
      { ...requesting('1500m'), restartPolicy: 'Never' },
      { 'sim.wheelhouse.dev/lifecycle': 'complete', 'sim.wheelhouse.dev/run-seconds': '1' },
    );
    await step(3000);
    await eventually(async () => assert.equal((await getPod('done-big')).status.phase, 'Succeeded'));
    // The finished pod's 1.5 CPU no longer counts: this one fits on the node's 2.
    await boundPod('runs-big', 'node-1', requesting('1500m'));
    await step(2000);
    await eventually(async () => assert.equal((await getPod('runs-big')).status.phase, 'Running'));
    // A running pod's does.
    await boundPod('no-room', 'node-1', requesting('1'));
    const refused = await eventually(async () => {
      const p = await getPod('no-room');
      assert.equal(p.status.phase, 'Failed');
      return p;
    });
    assert.equal(
      refused.status.message,
      "Pod was rejected: Node didn't have enough resource: cpu, requested: 1000, used: 1500, capacity: 2000",
    );
    await cp.client.pods(NS).delete('runs-big', { gracePeriodSeconds: 0 });
  });

  it('finishes a graceful deletion after the grace period', async () => {
    await boundPod('doomed', 'node-2', { terminationGracePeriodSeconds: 30 });
    await step(1000);
    await eventually(async () => assert.equal((await getPod('doomed')).status.phase, 'Running'));
    await cp.client.pods(NS).delete('doomed');
    await eventually(async () => assert.ok((await getPod('doomed')).metadata.deletionTimestamp));
    await step(20_000, 5000);
    await new Promise((r) => setTimeout(r, 100));
    assert.ok((await getPod('doomed')).metadata.deletionTimestamp, 'still terminating within the grace period');
    await step(10_000, 5000);
    await eventually(async () => {
      await assert.rejects(getPod('doomed'), /not found/);
    });
    const events = await cp.client.events(NS).list({ fieldSelector: 'involvedObject.name=doomed' });
    assert.ok(events.items.some((e) => e.reason === 'Killing' && e.message === 'Stopping container c'));
  });

  it('stops renewing the lease of a stopped node, and resumes when started', async () => {
    const renewTime = async () => (await cp.client.leases('kube-node-lease').get('node-3')).spec.renewTime as string;
    const before = await renewTime();
    await step(10_000);
    const renewed = await eventually(async () => {
      const t = await renewTime();
      assert.notEqual(t, before);
      return t;
    });
    kubelets.stopNode('node-3');
    // Away: a pod bound meanwhile is not started, and what others write over its pods' status stays for now.
    await boundPod('while-away', 'node-3');
    await cp.client
      .pods(NS)
      .patch(
        'with-init',
        'strategic',
        { status: { conditions: [{ type: 'Ready', status: 'False', lastTransitionTime: new Date().toISOString() }] } },
        { subresource: 'status' },
      );
    await step(30_000, 5000);
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(await renewTime(), renewed);
    assert.equal((await getPod('while-away')).status.containerStatuses, undefined);
    kubelets.startNode('node-3');
    await eventually(async () => assert.notEqual(await renewTime(), renewed));
    await eventually(async () => assert.equal(condition(await getPod('with-init'), 'Ready').status, 'True'));
    await step(1000);
    await eventually(async () => assert.equal((await getPod('while-away')).status.phase, 'Running'));
  });

  it('obeys the stopped annotation on the Node', async () => {
    const renewTime = async () => (await cp.client.leases('kube-node-lease').get('node-1')).spec.renewTime as string;
    await cp.client.nodes().patch('node-1', 'merge', { metadata: { annotations: { [STOPPED_ANNOTATION]: 'true' } } });
    await eventually(() => assert.equal(kubelets.isStopped('node-1'), true));
    const frozen = await renewTime();
    await step(20_000, 5000);
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(await renewTime(), frozen);
    await cp.client.nodes().patch('node-1', 'merge', { metadata: { annotations: { [STOPPED_ANNOTATION]: null } } });
    await eventually(async () => assert.notEqual(await renewTime(), frozen));
  });

  it('records NodeNotSchedulable and NodeSchedulable at the status update after a cordon and an uncordon', async () => {
    const nodeEvents = async () =>
      (await cp.client.events('default').list({ fieldSelector: 'involvedObject.name=node-3' })).items
        .filter((e) => e.reason === 'NodeNotSchedulable' || e.reason === 'NodeSchedulable')
        .map((e) => `${e.type} ${e.reason}: ${e.message} (${e.source?.component}/${e.source?.host})`);
    assert.deepEqual(await nodeEvents(), []);
    await cp.client.nodes().patch('node-3', 'merge', { spec: { unschedulable: true } });
    await eventually(async () => {
      await step(10_000, 5000);
      assert.deepEqual(await nodeEvents(), [
        'Normal NodeNotSchedulable: Node node-3 status is now: NodeNotSchedulable (kubelet/node-3)',
      ]);
    });
    await cp.client.nodes().patch('node-3', 'merge', { spec: { unschedulable: null } });
    await eventually(async () => {
      await step(10_000, 5000);
      assert.equal(
        (await nodeEvents()).at(-1),
        'Normal NodeSchedulable: Node node-3 status is now: NodeSchedulable (kubelet/node-3)',
      );
    });
  });

  it('keeps the lines lifecycle steps write, for kubectl logs', async () => {
    await boundPod('talker', 'node-2', {}, { 'sim.wheelhouse.dev/logs': 'hello\nworld' });
    await step(1000);
    await eventually(() =>
      assert.deepEqual(
        kubelets
          .logsFor(NS, 'talker', 'c')
          ?.lines()
          .map((l) => l.text),
        ['hello', 'world'],
      ),
    );
    assert.equal(kubelets.podFor(NS, 'talker')?.node, 'node-2');
  });

  it('gives the nodes of a second kubelet process pod CIDRs no other node has', async () => {
    const extra = new SimKubelets({ client: cp.client, nodes: 2, namePrefix: 'extra-', clock });
    try {
      await extra.start();
      const cidrs = ((await cp.client.nodes().list()).items as KubeObject[]).map((n) => [
        n.metadata.name,
        n.spec?.podCIDR,
      ]);
      // node-1 … node-3 keep 10.244.1–3.0/24; extra-1 and extra-2 would have had 10.244.1 and .2 too.
      assert.deepEqual(Object.fromEntries(cidrs), {
        'extra-1': '10.244.4.0/24',
        'extra-2': '10.244.5.0/24',
        'node-1': '10.244.1.0/24',
        'node-2': '10.244.2.0/24',
        'node-3': '10.244.3.0/24',
      });
    } finally {
      await extra.stop();
      for (const name of ['extra-1', 'extra-2']) await cp.client.nodes().delete(name);
    }
  });
});
