/**
 * In-place pod resize (pods/resize, on by default in v1.33) against a control plane with one simulated node:
 * `kubectl patch --subresource resize` changes a running pod's cpu and memory, the kubelet takes it
 * (PodResizeInProgress, then the new resources in the container status) or holds it (PodResizePending, Infeasible
 * or Deferred, with upstream's messages), and the apiserver refuses what upstream's ValidatePodResize refuses.
 */
import { after, before, describe, it } from 'node:test';
import { type ControlPlane, startControlPlane } from '../../src/index.js';
import { apiRequest, kubectl, openWatch } from '../../src/testing/api-client.js';
import assert from '../../src/testing/assert.js';
import { eventually } from '../../src/testing/controllers.js';

const PODS = '/api/v1/namespaces/default/pods';

interface Resources {
  requests?: Record<string, string>;
  limits?: Record<string, string>;
}

function podWith(name: string, resources: Resources, extra: Record<string, unknown> = {}) {
  return {
    metadata: { name },
    spec: { nodeName: 'node-1', containers: [{ name: 'app', image: 'nginx:1.25', resources, ...extra }] },
  };
}

describe('pods/resize', () => {
  let cp: ControlPlane;
  const get = async (name: string) => (await apiRequest(cp, 'GET', `${PODS}/${name}`)).body;
  const resize = (name: string, body: unknown) =>
    apiRequest(cp, 'PATCH', `${PODS}/${name}/resize`, {
      contentType: 'application/strategic-merge-patch+json',
      body,
    });
  const running = (name: string) =>
    eventually(async () => {
      const pod = await get(name);
      assert.equal(pod.status.phase, 'Running');
      return pod;
    });
  const conditionTypes = (pod: { status: { conditions: { type: string }[] } }) =>
    pod.status.conditions.map((c) => c.type);

  before(async () => {
    cp = await startControlPlane({ nodes: 1 });
    const made = await apiRequest(cp, 'POST', PODS, {
      body: podWith('web', { requests: { cpu: '100m', memory: '64Mi' }, limits: { cpu: '200m', memory: '128Mi' } }),
    });
    assert.equal(made.status, 201, made.text);
    await running('web');
  });
  after(async () => {
    await cp?.stop();
  });

  it('is in discovery, and the kubelet reports what each container was given', async () => {
    const v1 = await apiRequest(cp, 'GET', '/api/v1');
    assert.ok(v1.body.resources.some((r: { name: string }) => r.name === 'pods/resize'));
    const [status] = (await get('web')).status.containerStatuses;
    assert.deepEqual(status.allocatedResources, { cpu: '100m', memory: '64Mi' });
    assert.deepEqual(status.resources, {
      limits: { cpu: '200m', memory: '128Mi' },
      requests: { cpu: '100m', memory: '64Mi' },
    });
  });

  it('kubectl patch --subresource resize changes cpu in place: in progress, then applied', async () => {
    // Every state the pod goes through from here, in order (the in-progress one lasts only a relist).
    const from = (await get('web')).metadata.resourceVersion;
    const watch = openWatch(cp, `${PODS}?watch=1&fieldSelector=metadata.name%3Dweb&resourceVersion=${from}`);
    const patched = await kubectl(cp, [
      'patch',
      'pod',
      'web',
      '--subresource',
      'resize',
      '-p',
      '{"spec":{"containers":[{"name":"app","resources":{"requests":{"cpu":"150m"},"limits":{"cpu":"300m"}}}]}}',
    ]);
    assert.equal(patched.code, 0, patched.stderr);
    assert.equal(patched.stdout.trim(), 'pod/web patched');
    const inProgress = await eventually(() => {
      const seen = watch.events.map((e) => e.object).find((pod) => conditionTypes(pod)[0] === 'PodResizeInProgress');
      assert.ok(seen, 'the pod showed PodResizeInProgress');
      return seen;
    });
    watch.stop();
    // The allocation changes when the resize is taken; what the container runs with, once applied.
    assert.deepEqual(inProgress.status.containerStatuses[0].allocatedResources, { cpu: '150m', memory: '64Mi' });
    assert.equal(inProgress.status.containerStatuses[0].resources.requests.cpu, '100m');
    assert.equal(inProgress.metadata.generation, 2, 'a spec change counts as one');
    assert.deepEqual(inProgress.spec.containers[0].resources, {
      limits: { cpu: '300m', memory: '128Mi' },
      requests: { cpu: '150m', memory: '64Mi' },
    });
    const cond = inProgress.status.conditions[0];
    assert.equal(cond.status, 'True');
    assert.equal(typeof cond.lastProbeTime, 'string', 'the kubelet stamps its resize conditions');
    const applied = await eventually(async () => {
      const pod = await get('web');
      assert.deepEqual(conditionTypes(pod), [
        'PodReadyToStartContainers',
        'Initialized',
        'Ready',
        'ContainersReady',
        'PodScheduled',
      ]);
      return pod;
    });
    const [status] = applied.status.containerStatuses;
    assert.deepEqual(status.resources, {
      limits: { cpu: '300m', memory: '128Mi' },
      requests: { cpu: '150m', memory: '64Mi' },
    });
    assert.deepEqual(status.allocatedResources, { cpu: '150m', memory: '64Mi' });
    assert.equal(status.restartCount, 0);
  });

  it('takes only resources and resizePolicy from the body', async () => {
    const pod = await get('web');
    const put = await apiRequest(cp, 'PUT', `${PODS}/web/resize`, {
      body: {
        ...pod,
        metadata: { ...pod.metadata, labels: { ignored: 'yes' } },
        spec: {
          ...pod.spec,
          activeDeadlineSeconds: 100,
          containers: [{ ...pod.spec.containers[0], image: 'nginx:1.27' }],
        },
      },
    });
    assert.equal(put.status, 200, put.text);
    assert.equal(put.body.metadata.labels, undefined);
    assert.equal(put.body.spec.containers[0].image, 'nginx:1.25');
    assert.equal(put.body.spec.activeDeadlineSeconds, undefined);
  });

  it("refuses what upstream's ValidatePodResize refuses", async () => {
    const cases: [unknown, string][] = [
      [
        // Requests equal to the limits would make it Guaranteed.
        { spec: { containers: [{ name: 'app', resources: { requests: { cpu: '300m', memory: '128Mi' } } }] } },
        'spec: Invalid value: "Burstable": Pod QOS Class may not change as a result of resizing',
      ],
      [
        { spec: { containers: [{ name: 'app', resources: { limits: { memory: '100Mi' } } }] } },
        'spec.containers[0].resources.limits[memory]: Forbidden: memory limits cannot be decreased unless resizePolicy is RestartContainer',
      ],
      [
        {
          spec: {
            containers: [{ name: 'app', resources: { requests: { 'ephemeral-storage': '1Gi' } } }],
          },
        },
        'spec: Forbidden: only cpu and memory resources are mutable',
      ],
      [
        // (A request removed would come back from its limit, as defaulting copies limits to missing requests.)
        { spec: { containers: [{ name: 'app', resources: { limits: { cpu: null } } }] } },
        'spec.containers[0].resources.limits: Forbidden: resource limits cannot be removed',
      ],
    ];
    for (const [body, message] of cases) {
      const res = await resize('web', body);
      assert.equal(res.status, 422, res.text);
      assert.equal(res.body.reason, 'Invalid');
      assert.ok(res.body.message.includes(message), `${res.body.message}\nshould include\n${message}`);
    }
    // A plain update still may not touch resources.
    const plain = await apiRequest(cp, 'PATCH', `${PODS}/web`, {
      contentType: 'application/strategic-merge-patch+json',
      body: { spec: { containers: [{ name: 'app', resources: { requests: { cpu: '160m' } } }] } },
    });
    assert.equal(plain.status, 422, plain.text);
    assert.match(plain.body.message, /spec: Forbidden: pod updates may not change fields other than/);
  });

  it('validates resizePolicy as upstream does', async () => {
    const res = await apiRequest(cp, 'POST', PODS, {
      body: {
        metadata: { name: 'never' },
        spec: {
          restartPolicy: 'Never',
          containers: [
            {
              name: 'app',
              image: 'nginx',
              resizePolicy: [
                { resourceName: 'memory', restartPolicy: 'RestartContainer' },
                { resourceName: 'memory', restartPolicy: 'NotRequired' },
                { resourceName: 'gpu', restartPolicy: 'NotRequired' },
              ],
            },
          ],
        },
      },
    });
    assert.equal(res.status, 422, res.text);
    assert.equal(
      res.body.message,
      'Pod "never" is invalid: [' +
        "spec.containers[0].resizePolicy: Invalid value: \"RestartContainer\": must be 'NotRequired' when `restartPolicy` is 'Never', " +
        'spec.containers[0].resizePolicy[1]: Duplicate value: "memory", ' +
        'spec.containers[0].resizePolicy: Unsupported value: "gpu": supported values: "cpu", "memory"]',
    );
  });

  it('holds a resize the node cannot take: Infeasible, or Deferred until room is made', async () => {
    const tooBig = await resize('web', {
      spec: { containers: [{ name: 'app', resources: { requests: { cpu: '100' }, limits: { cpu: '100' } } }] },
    });
    assert.equal(tooBig.status, 200, tooBig.text);
    const allocatable = (await apiRequest(cp, 'GET', '/api/v1/nodes/node-1')).body.status.allocatable;
    const capacity = Number(allocatable.cpu) * 1000;
    const pending = await eventually(async () => {
      const pod = await get('web');
      assert.equal(pod.status.conditions[0].type, 'PodResizePending');
      return pod.status.conditions[0];
    });
    assert.equal(pending.reason, 'Infeasible');
    assert.equal(pending.message, `Node didn't have enough capacity: cpu, requested: 100000, capacity: ${capacity}`);
    // A resize not taken takes no room: a new pod is admitted beside the pod as it is allocated.
    const beside = await apiRequest(cp, 'POST', PODS, { body: podWith('beside', { requests: { cpu: '1' } }) });
    assert.equal(beside.status, 201, beside.text);
    await running('beside');
    assert.equal((await apiRequest(cp, 'DELETE', `${PODS}/beside?gracePeriodSeconds=0`)).status, 200);
    // Back to what it has: nothing is pending any more.
    const back = await resize('web', {
      spec: { containers: [{ name: 'app', resources: { requests: { cpu: '150m' }, limits: { cpu: '300m' } } }] },
    });
    assert.equal(back.status, 200, back.text);
    await eventually(async () => assert.equal(conditionTypes(await get('web'))[0], 'PodReadyToStartContainers'));

    // Another pod takes most of the node's cpu for a while; the resize waits for it to end.
    const hogPod = podWith('hog', { requests: { cpu: `${capacity - 500}m` } });
    const hog = await apiRequest(cp, 'POST', PODS, {
      body: {
        ...hogPod,
        metadata: {
          name: 'hog',
          annotations: { 'sim.wheelhouse.dev/lifecycle': 'complete', 'sim.wheelhouse.dev/run-seconds': '3' },
        },
        spec: { ...hogPod.spec, restartPolicy: 'Never' },
      },
    });
    assert.equal(hog.status, 201, hog.text);
    await running('hog');
    const more = await resize('web', {
      spec: { containers: [{ name: 'app', resources: { requests: { cpu: '1' }, limits: { cpu: '1' } } }] },
    });
    assert.equal(more.status, 200, more.text);
    const deferred = await eventually(async () => {
      const pod = await get('web');
      assert.equal(pod.status.conditions[0].reason, 'Deferred');
      return pod.status.conditions[0];
    });
    assert.equal(
      deferred.message,
      `Node didn't have enough resource: cpu, requested: 1000, used: ${capacity - 500}, capacity: ${capacity}`,
    );
    // It ends (Succeeded, not deleted): the room it leaves is given to the resize.
    const applied = await eventually(async () => {
      assert.equal((await get('hog')).status.phase, 'Succeeded');
      const pod = await get('web');
      assert.equal(conditionTypes(pod)[0], 'PodReadyToStartContainers');
      return pod.status.containerStatuses[0].resources;
    });
    assert.deepEqual(applied, { limits: { cpu: '1', memory: '128Mi' }, requests: { cpu: '1', memory: '64Mi' } });
  });

  it('restarts a container whose resizePolicy asks for it, once the resize is applied', async () => {
    const made = await apiRequest(cp, 'POST', PODS, {
      body: podWith(
        'db',
        { requests: { cpu: '100m', memory: '128Mi' }, limits: { memory: '256Mi' } },
        { resizePolicy: [{ resourceName: 'memory', restartPolicy: 'RestartContainer' }] },
      ),
    });
    assert.equal(made.status, 201, made.text);
    const before = (await running('db')).status.containerStatuses[0];
    const cpuOnly = await resize('db', {
      spec: { containers: [{ name: 'app', resources: { requests: { cpu: '200m' } } }] },
    });
    assert.equal(cpuOnly.status, 200, cpuOnly.text);
    await eventually(async () => {
      const [status] = (await get('db')).status.containerStatuses;
      assert.equal(status.resources.requests.cpu, '200m');
      assert.equal(status.restartCount, 0, 'cpu has no policy: NotRequired');
    });
    const smaller = await resize('db', {
      spec: { containers: [{ name: 'app', resources: { limits: { memory: '192Mi' } } }] },
    });
    assert.equal(smaller.status, 200, smaller.text);
    const after = await eventually(async () => {
      const [status] = (await get('db')).status.containerStatuses;
      assert.equal(status.restartCount, 1);
      return status;
    });
    assert.deepEqual(after.resources.limits, { memory: '192Mi' });
    assert.equal(after.lastState.terminated.containerID, before.containerID);
    assert.notEqual(after.containerID, before.containerID);
    assert.ok(after.state.running);
    const events = await apiRequest(
      cp,
      'GET',
      '/api/v1/namespaces/default/events?fieldSelector=involvedObject.name=db',
    );
    assert.ok(
      events.body.items.some(
        (e: { reason: string; message: string }) =>
          e.reason === 'Killing' && e.message === 'Container app resize requires restart',
      ),
      JSON.stringify(events.body.items.map((e: { reason: string }) => e.reason)),
    );
  });

  it('refuses a resize when the node does not report container resources', async () => {
    // A pod on a node with no kubelet here, whose status (written as an old kubelet would) has none.
    const made = await apiRequest(cp, 'POST', PODS, {
      body: {
        metadata: { name: 'old' },
        spec: {
          nodeName: 'n0',
          containers: [{ name: 'app', image: 'nginx:1.25', resources: { requests: { cpu: '100m' } } }],
        },
      },
    });
    assert.equal(made.status, 201, made.text);
    const status = await apiRequest(cp, 'PATCH', `${PODS}/old/status`, {
      contentType: 'application/merge-patch+json',
      body: {
        status: {
          phase: 'Running',
          containerStatuses: [
            {
              name: 'app',
              ready: true,
              restartCount: 0,
              image: 'nginx:1.25',
              imageID: '',
              state: { running: { startedAt: '2026-01-01T00:00:00Z' } },
            },
          ],
        },
      },
    });
    assert.equal(status.status, 200, status.text);
    const res = await resize('old', {
      spec: { containers: [{ name: 'app', resources: { requests: { cpu: '200m' } } }] },
    });
    assert.equal(res.status, 422, res.text);
    assert.match(res.body.message, /spec: Forbidden: Pod running on node without support for resize/);
  });
});
