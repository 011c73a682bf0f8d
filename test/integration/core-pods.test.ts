import { after, before, describe, it } from 'node:test';
import { type ControlPlane, startControlPlane } from '../../src/index.js';
import { apiRequest, kubectl, openWatch } from '../../src/testing/api-client.js';
import assert from '../../src/testing/assert.js';

const PODS = '/api/v1/namespaces/default/pods';
const pod = (name: string, spec: Record<string, unknown> = {}, labels?: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, ...(labels ? { labels } : {}) },
  spec: { containers: [{ name: 'web', image: 'nginx:1.27', ports: [{ containerPort: 80 }] }], ...spec },
});

describe('core/v1 pods through the API', () => {
  let cp: ControlPlane;
  before(async () => {
    cp = await startControlPlane();
  });
  after(async () => {
    await cp?.stop();
  });

  it("stores a pod with upstream's defaults and a Pending status", async () => {
    const res = await apiRequest(cp, 'POST', PODS, {
      body: pod('defaults', {
        containers: [{ name: 'web', image: 'nginx', resources: { limits: { cpu: '500m', memory: '128Mi' } } }],
      }),
    });
    assert.equal(res.status, 201, res.text);
    const { spec, status, metadata } = res.body;
    assert.equal(spec.restartPolicy, 'Always');
    assert.equal(spec.dnsPolicy, 'ClusterFirst');
    assert.equal(spec.schedulerName, 'default-scheduler');
    assert.equal(spec.terminationGracePeriodSeconds, 30);
    assert.deepEqual(spec.securityContext, {});
    assert.equal(spec.enableServiceLinks, true);
    assert.equal(spec.containers[0].imagePullPolicy, 'Always');
    assert.equal(spec.containers[0].terminationMessagePath, '/dev/termination-log');
    assert.equal(spec.containers[0].terminationMessagePolicy, 'File');
    assert.deepEqual(spec.containers[0].resources.requests, { cpu: '500m', memory: '128Mi' });
    assert.deepEqual(status, { phase: 'Pending', qosClass: 'Guaranteed' });
    assert.equal(metadata.generation, 1);
    const read = await apiRequest(cp, 'GET', `${PODS}/defaults`);
    assert.deepEqual(read.body.spec, spec);
  });

  it("refuses a bad pod with upstream's message", async () => {
    const res = await apiRequest(cp, 'POST', PODS, {
      body: pod('bad', { restartPolicy: 'Sometimes', containers: [{ name: 'web' }] }),
    });
    assert.equal(res.status, 422);
    assert.equal(res.body.reason, 'Invalid');
    assert.equal(
      res.body.message,
      'Pod "bad" is invalid: [spec.containers[0].image: Required value, spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"]',
    );
    assert.deepEqual(res.body.details.causes[0], {
      reason: 'FieldValueRequired',
      message: 'Required value',
      field: 'spec.containers[0].image',
    });
  });

  it('lets an update change images only', async () => {
    const created = (await apiRequest(cp, 'POST', PODS, { body: pod('immutable') })).body;
    const image = await apiRequest(cp, 'PATCH', `${PODS}/immutable`, {
      body: { spec: { containers: [{ name: 'web', image: 'nginx:1.28' }] } },
      contentType: 'application/strategic-merge-patch+json',
    });
    assert.equal(image.status, 200, image.text);
    assert.equal(image.body.spec.containers[0].image, 'nginx:1.28');
    assert.equal(image.body.metadata.generation, 2);
    const changed = { ...image.body, spec: { ...image.body.spec, restartPolicy: 'Never' } };
    const res = await apiRequest(cp, 'PUT', `${PODS}/immutable`, { body: changed });
    assert.equal(res.status, 422);
    assert.ok(
      res.body.message.startsWith(
        'Pod "immutable" is invalid: spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)\n',
      ),
      res.body.message,
    );
    assert.equal(created.metadata.uid, image.body.metadata.uid);
  });

  it('stores nulls as decoding into the Pod struct leaves them (create, update, patch)', async () => {
    // Dropped where the field has omitempty; a non-pointer field gets its zero value; a zero Time stays null.
    const created = await apiRequest(cp, 'POST', PODS, {
      body: {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'nulls', annotations: null, labels: { tier: null } },
        spec: {
          hostname: null,
          containers: [
            { name: 'web', image: 'nginx', args: null, command: ['run', null], resources: { limits: { cpu: null } } },
          ],
        },
      },
    });
    assert.equal(created.status, 201, created.text);
    assert.equal('annotations' in created.body.metadata, false);
    assert.deepEqual(created.body.metadata.labels, { tier: '' }, 'a null map value is its zero value');
    assert.equal('hostname' in created.body.spec, false);
    assert.equal('args' in created.body.spec.containers[0], false);
    assert.deepEqual(created.body.spec.containers[0].command, ['run', '']);
    // A null Quantity decodes as zero (and the request defaults to the limit).
    assert.deepEqual(created.body.spec.containers[0].resources, { limits: { cpu: '0' }, requests: { cpu: '0' } });
    const updated = await apiRequest(cp, 'PUT', `${PODS}/nulls`, {
      body: { ...created.body, spec: { ...created.body.spec, activeDeadlineSeconds: null } },
    });
    assert.equal(updated.status, 200, updated.text);
    assert.equal('activeDeadlineSeconds' in updated.body.spec, false);
    // A strategic merge patch appends an item to a list the pod has as it is; the struct then drops its empty
    // strings. (Into a pod without conditions the whole list would come in with its nulls discarded.)
    const first = await apiRequest(cp, 'PATCH', `${PODS}/nulls/status`, {
      body: { status: { conditions: [{ type: 'PodScheduled', status: 'True' }] } },
      contentType: 'application/strategic-merge-patch+json',
    });
    assert.equal(first.status, 200, first.text);
    const patched = await apiRequest(cp, 'PATCH', `${PODS}/nulls/status`, {
      body: {
        status: {
          conditions: [{ type: 'Example', status: 'True', reason: null, message: null, lastProbeTime: null }],
        },
      },
      contentType: 'application/strategic-merge-patch+json',
    });
    assert.equal(patched.status, 200, patched.text);
    const condition = patched.body.status.conditions.find((c: { type: string }) => c.type === 'Example');
    // Both times are Go structs in PodCondition: absent or null, each is the zero time, written null.
    assert.deepEqual(condition, { type: 'Example', status: 'True', lastProbeTime: null, lastTransitionTime: null });
    const read = await apiRequest(cp, 'GET', `${PODS}/nulls`);
    assert.deepEqual(read.body.status, patched.body.status);
    const owned = read.body.metadata.managedFields.find((m: { subresource?: string }) => m.subresource === 'status');
    assert.deepEqual(Object.keys(owned.fieldsV1['f:status']['f:conditions']['k:{"type":"Example"}']), [
      '.',
      'f:lastProbeTime',
      'f:lastTransitionTime',
      'f:status',
      'f:type',
    ]);
  });

  it('writes status through the status subresource only, and selects on it', async () => {
    const created = (await apiRequest(cp, 'POST', PODS, { body: pod('running', { nodeName: 'node-a' }) })).body;
    const ignored = await apiRequest(cp, 'PUT', `${PODS}/running`, {
      body: { ...created, status: { phase: 'Running' } },
    });
    assert.equal(ignored.body.status.phase, 'Pending', 'status is not written through the main resource');
    const status = await apiRequest(cp, 'PUT', `${PODS}/running/status`, {
      body: {
        ...created,
        spec: { ...created.spec, nodeName: 'elsewhere' },
        status: { phase: 'Running', podIP: '10.244.0.7' },
      },
    });
    assert.equal(status.status, 200, status.text);
    assert.equal(status.body.spec.nodeName, 'node-a', 'spec is not written through status');
    assert.deepEqual(status.body.status.podIPs, [{ ip: '10.244.0.7' }]);
    assert.equal(status.body.status.qosClass, 'BestEffort');
    const byIP = await apiRequest(cp, 'GET', `${PODS}?fieldSelector=status.podIP%3D10.244.0.7`);
    assert.deepEqual(
      byIP.body.items.map((p: { metadata: { name: string } }) => p.metadata.name),
      ['running'],
    );
    const byNode = await apiRequest(
      cp,
      'GET',
      `/api/v1/pods?fieldSelector=spec.nodeName%3Dnode-a,status.phase%3DRunning`,
    );
    assert.deepEqual(
      byNode.body.items.map((p: { metadata: { name: string } }) => p.metadata.name),
      ['running'],
    );
    const unsupported = await apiRequest(cp, 'GET', `${PODS}?fieldSelector=spec.image%3Dnginx`);
    assert.equal(unsupported.status, 400);
    assert.equal(unsupported.body.message, 'field label not supported: spec.image');
  });

  it('deletes unscheduled pods at once and gives bound pods their grace period', async () => {
    await apiRequest(cp, 'POST', PODS, { body: pod('loose') });
    const gone = await apiRequest(cp, 'DELETE', `${PODS}/loose`);
    assert.equal(gone.status, 200);
    assert.equal(gone.body.kind, 'Pod', 'pods answer a DELETE with the deleted pod');
    assert.equal((await apiRequest(cp, 'GET', `${PODS}/loose`)).status, 404);
    await apiRequest(cp, 'POST', PODS, {
      body: pod('bound', { nodeName: 'node-a', terminationGracePeriodSeconds: 45 }),
    });
    const marked = await apiRequest(cp, 'DELETE', `${PODS}/bound`);
    assert.equal(marked.status, 200);
    assert.equal(marked.body.metadata.deletionGracePeriodSeconds, 45);
    assert.ok(Date.parse(marked.body.metadata.deletionTimestamp) > Date.now() + 30_000);
    assert.equal((await apiRequest(cp, 'GET', `${PODS}/bound`)).status, 200);
    const table = await apiRequest(cp, 'GET', `${PODS}/bound`, {
      headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' },
    });
    assert.equal(table.body.rows[0].cells[2], 'Terminating');
    // Writes during the grace period (labels, the kubelet's status) keep the pod: only its kubelet finishes it.
    const labelled = await apiRequest(cp, 'PATCH', `${PODS}/bound`, {
      body: { metadata: { labels: { touched: 'yes' } } },
      contentType: 'application/merge-patch+json',
    });
    assert.equal(labelled.status, 200);
    assert.equal((await apiRequest(cp, 'GET', `${PODS}/bound`)).body.metadata.labels.touched, 'yes');
    const forced = await apiRequest(cp, 'DELETE', `${PODS}/bound?gracePeriodSeconds=0`);
    assert.equal(forced.status, 200);
    assert.equal((await apiRequest(cp, 'GET', `${PODS}/bound`)).status, 404);
  });

  it('marks a pod deleted with no grace period before it goes, so a watch sees it terminating, then deleted', async () => {
    await apiRequest(cp, 'POST', PODS, { body: pod('forced', { nodeName: 'node-a' }) });
    await apiRequest(cp, 'POST', PODS, { body: pod('unplaced') });
    const listed = await apiRequest(cp, 'GET', PODS);
    const watch = openWatch(cp, `${PODS}?watch=1&resourceVersion=${listed.body.metadata.resourceVersion}`);
    try {
      const forced = await apiRequest(cp, 'DELETE', `${PODS}/forced?gracePeriodSeconds=0`);
      assert.equal(forced.status, 200, forced.text);
      assert.equal(forced.body.metadata.deletionGracePeriodSeconds, 0, 'the answer is the pod as it went');
      const unplaced = await apiRequest(cp, 'DELETE', `${PODS}/unplaced`);
      assert.equal(unplaced.status, 200, unplaced.text);
      const events = await watch.waitFor(4);
      assert.deepEqual(
        events.map((e) => [e.type, e.object.metadata.name, e.object.metadata.deletionGracePeriodSeconds]),
        [
          ['MODIFIED', 'forced', 0],
          ['DELETED', 'forced', 0],
          ['MODIFIED', 'unplaced', 0],
          ['DELETED', 'unplaced', 0],
        ],
      );
      for (const e of events) assert.ok(e.object.metadata.deletionTimestamp, `${e.type} carries deletionTimestamp`);
      assert.equal((await apiRequest(cp, 'GET', `${PODS}/forced`)).status, 404);
      assert.equal((await apiRequest(cp, 'GET', `${PODS}/unplaced`)).status, 404);
    } finally {
      watch.stop();
    }
  });

  it('prints pods for kubectl get -o wide', async () => {
    await apiRequest(cp, 'POST', '/api/v1/namespaces', { body: { metadata: { name: 'wide' } } });
    await apiRequest(cp, 'POST', '/api/v1/namespaces/wide/pods', { body: pod('web-0', { nodeName: 'node-b' }) });
    const res = await kubectl(cp, ['get', 'pods', '-n', 'wide', '-o', 'wide']);
    assert.equal(res.code, 0, res.stderr);
    const [header, row] = res.stdout.trimEnd().split('\n');
    assert.deepEqual(header?.split(/\s{2,}/), [
      'NAME',
      'READY',
      'STATUS',
      'RESTARTS',
      'AGE',
      'IP',
      'NODE',
      'NOMINATED NODE',
      'READINESS GATES',
    ]);
    const cells = row?.split(/\s+/) ?? [];
    assert.deepEqual([cells[0], cells[1], cells[2], cells[3]], ['web-0', '0/1', 'Pending', '0']);
    assert.deepEqual(cells.slice(5), ['<none>', 'node-b', '<none>', '<none>']);
  });
});
