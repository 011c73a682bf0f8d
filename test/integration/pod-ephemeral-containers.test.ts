/**
 * pods/ephemeralcontainers, as `kubectl debug` uses it: an ephemeral container is added through the subresource
 * alone, with the container defaults; existing ones may be neither changed nor removed; only the fields upstream
 * allows ephemeral containers may be set.
 */
import { after, before, describe, it } from 'node:test';
import { type ControlPlane, startControlPlane } from '../../src/index.js';
import { apiRequest, kubectl } from '../../src/testing/api-client.js';
import assert from '../../src/testing/assert.js';

const PODS = '/api/v1/namespaces/default/pods';

describe('pods/ephemeralcontainers', () => {
  let cp: ControlPlane;
  before(async () => {
    cp = await startControlPlane();
    const made = await apiRequest(cp, 'POST', PODS, {
      body: { metadata: { name: 'app' }, spec: { containers: [{ name: 'main', image: 'nginx:1.25' }] } },
    });
    assert.equal(made.status, 201, made.text);
  });
  after(async () => {
    await cp?.stop();
  });

  it('kubectl debug adds an ephemeral container, and discovery lists the subresource', async () => {
    const debug = await kubectl(cp, ['debug', 'app', '--image=busybox:1.36', '--target=main', '--profile=general']);
    assert.equal(debug.code, 0, debug.stderr);
    const pod = (await apiRequest(cp, 'GET', `${PODS}/app`)).body;
    const [added] = pod.spec.ephemeralContainers;
    assert.match(added.name, /^debugger-[a-z0-9]{5}$/);
    assert.equal(added.image, 'busybox:1.36');
    assert.equal(added.targetContainerName, 'main');
    assert.equal(added.terminationMessagePath, '/dev/termination-log');
    assert.equal(added.imagePullPolicy, 'IfNotPresent');
    const resources = await apiRequest(cp, 'GET', '/api/v1');
    assert.ok(
      resources.body.resources.some((r: { name: string }) => r.name === 'pods/ephemeralcontainers'),
      'pods/ephemeralcontainers is in discovery',
    );
  });

  it('takes only ephemeral containers from the body, and refuses removing, changing or disallowed fields', async () => {
    const pod = (await apiRequest(cp, 'GET', `${PODS}/app/ephemeralcontainers`)).body;
    const relabelled = await apiRequest(cp, 'PUT', `${PODS}/app/ephemeralcontainers`, {
      body: {
        ...pod,
        metadata: { ...pod.metadata, labels: { ignored: 'yes' } },
        spec: {
          ...pod.spec,
          ephemeralContainers: [...pod.spec.ephemeralContainers, { name: 'second', image: 'busybox:1.36' }],
        },
      },
    });
    assert.equal(relabelled.status, 200, relabelled.text);
    assert.equal(relabelled.body.metadata.labels, undefined, 'metadata stays as it was');
    assert.deepEqual(relabelled.body.spec.ephemeralContainers.map((c: { name: string }) => c.name).slice(1), [
      'second',
    ]);

    const removed = await apiRequest(cp, 'PUT', `${PODS}/app/ephemeralcontainers`, {
      body: { ...relabelled.body, spec: { ...relabelled.body.spec, ephemeralContainers: [] } },
    });
    assert.equal(removed.status, 422, removed.text);
    assert.match(
      removed.body.message,
      /spec.ephemeralContainers: Forbidden: existing ephemeral containers "second" may not be removed/,
    );

    const withPorts = await apiRequest(cp, 'PATCH', `${PODS}/app/ephemeralcontainers`, {
      contentType: 'application/strategic-merge-patch+json',
      body: {
        spec: {
          ephemeralContainers: [
            { name: 'main', image: 'busybox', ports: [{ containerPort: 80 }], targetContainerName: 'nope' },
          ],
        },
      },
    });
    assert.equal(withPorts.status, 422, withPorts.text);
    const causes = withPorts.body.details.causes.map(
      (c: { field: string; message: string }) => `${c.field}: ${c.message}`,
    );
    // A strategic merge patch without $setElementOrder puts the new element first, as upstream's merge does.
    const at = 'spec.ephemeralContainers[0]';
    assert.ok(causes.includes(`${at}.name: Duplicate value: "main"`), causes.join('\n'));
    assert.ok(causes.includes(`${at}.targetContainerName: Not found: "nope"`), causes.join('\n'));
    assert.ok(causes.includes(`${at}.ports: Forbidden: cannot be set for an Ephemeral Container`), causes.join('\n'));
  });

  it('is refused on create, and a plain update may not add one', async () => {
    const created = await apiRequest(cp, 'POST', PODS, {
      body: {
        metadata: { name: 'eph' },
        spec: { containers: [{ name: 'c', image: 'x' }], ephemeralContainers: [{ name: 'e', image: 'busybox' }] },
      },
    });
    assert.equal(created.status, 422, created.text);
    assert.match(created.body.message, /spec.ephemeralContainers: Forbidden: cannot be set on create/);
  });
});
