import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { newGarbageCollectorController } from '../../src/controllers/garbagecollector/index.js';
import { namespaceController } from '../../src/controllers/namespace/index.js';
import { type ControlPlane, startControlPlane } from '../../src/index.js';
import { apiRequest } from '../../src/testing/api-client.js';
import assert from '../../src/testing/assert.js';
import { eventually, runControllers } from '../../src/testing/controllers.js';
import { crdManifest as crd } from '../../src/testing/crd-fixtures.js';

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
}

async function condition(cp: ControlPlane, name: string, type: string): Promise<Condition | undefined> {
  const res = await apiRequest(cp, 'GET', `${CRDS}/${name}`);
  return (res.body.status?.conditions ?? []).find((c: Condition) => c.type === type);
}

async function establish(cp: ControlPlane, body: unknown): Promise<void> {
  const res = await apiRequest(cp, 'POST', CRDS, { body });
  assert.equal(res.status, 201, res.text);
  await eventually(async () =>
    assert.equal((await condition(cp, res.body.metadata.name, 'Established'))?.status, 'True'),
  );
}

describe('CustomResourceDefinitions: validation, names, versions and deletion', () => {
  let cp: ControlPlane;
  before(async () => {
    cp = await startControlPlane();
  });
  after(async () => {
    await cp?.stop();
  });

  it('refuses invalid CRDs with upstream messages', async () => {
    const body = crd('foos', 'Foo');
    body.metadata.name = 'bars.example.org';
    (body.spec.versions[0] as { storage: boolean }).storage = false;
    const res = await apiRequest(cp, 'POST', CRDS, { body });
    assert.equal(res.status, 422);
    const messages = res.body.details.causes.map((c: { field: string; message: string }) => `${c.field}: ${c.message}`);
    assert.ok(
      messages.includes('metadata.name: Invalid value: "bars.example.org": must be spec.names.plural+"."+spec.group'),
      messages.join('\n'),
    );
    assert.ok(
      messages.some(
        (m: string) =>
          m.startsWith('spec.versions: Invalid value:') &&
          m.endsWith('must have exactly one version marked as storage version'),
      ),
      messages.join('\n'),
    );
    const noGroup = crd('foos', 'Foo', 'nodot');
    const bad = await apiRequest(cp, 'POST', CRDS, { body: noGroup });
    assert.equal(bad.status, 422);
    assert.match(bad.body.message, /spec\.group: Invalid value: "nodot": should be a domain with at least one dot/);
    const columns = crd('foos', 'Foo', 'example.org', [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: 'object' } },
        additionalPrinterColumns: [{ name: 'X', type: 'text', jsonPath: 'spec.x' }],
        subresources: { scale: { specReplicasPath: '.status.replicas', statusReplicasPath: '.status.replicas' } },
      },
    ]);
    const badColumns = await apiRequest(cp, 'POST', CRDS, { body: columns });
    assert.equal(badColumns.status, 422);
    const fields = badColumns.body.details.causes.map(
      (c: { field: string; message: string }) => `${c.field}: ${c.message}`,
    );
    assert.ok(
      fields.includes(
        'spec.versions[0].additionalPrinterColumns[0].type: Invalid value: "text": must be one of boolean,date,integer,number,string',
      ),
      fields.join('\n'),
    );
    assert.ok(
      fields.includes(
        'spec.versions[0].additionalPrinterColumns[0].JSONPath: Invalid value: "spec.x": must be a simple json path starting with .',
      ),
      fields.join('\n'),
    );
    assert.ok(
      fields.includes(
        'spec.versions[0].subresources.scale.specReplicasPath: Invalid value: ".status.replicas": should be a json path under .spec',
      ),
      fields.join('\n'),
    );
  });

  it('accepts names first come, first served, and frees them when a CRD goes', async () => {
    await establish(cp, crd('gadgets', 'Gadget'));
    // The kind is taken; its list kind is not (a taken list kind is reported after the kind, and wins, as upstream).
    const things = crd('things', 'Gadget');
    Object.assign(things.spec.names, { listKind: 'ThingList' });
    const res = await apiRequest(cp, 'POST', CRDS, { body: things });
    assert.equal(res.status, 201, res.text);
    await eventually(async () => {
      const names = await condition(cp, 'things.example.org', 'NamesAccepted');
      assert.deepEqual(names, {
        type: 'NamesAccepted',
        status: 'False',
        reason: 'KindConflict',
        message: '"Gadget" is already in use',
        lastTransitionTime: names?.lastTransitionTime,
      });
    });
    const est = await condition(cp, 'things.example.org', 'Established');
    assert.equal(est?.status, 'False');
    assert.equal(est?.reason, 'NotAccepted');
    assert.equal((await apiRequest(cp, 'GET', '/apis/example.org/v1/namespaces/default/things')).status, 404);
    assert.equal((await apiRequest(cp, 'DELETE', `${CRDS}/gadgets.example.org`)).status, 200);
    await eventually(async () =>
      assert.equal((await condition(cp, 'things.example.org', 'Established'))?.status, 'True'),
    );
    assert.equal((await apiRequest(cp, 'GET', '/apis/example.org/v1/namespaces/default/things')).status, 200);
  });

  it('serves several versions, stores one, and warns on a deprecated one', async () => {
    const schema = {
      openAPIV3Schema: {
        type: 'object',
        properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      },
    };
    await establish(
      cp,
      crd('gizmos', 'Gizmo', 'example.net', [
        { name: 'v1alpha1', served: false, storage: false, schema },
        { name: 'v1beta1', served: true, storage: false, deprecated: true, schema },
        { name: 'v1', served: true, storage: true, schema },
      ]),
    );
    const created = await apiRequest(cp, 'POST', '/apis/example.net/v1beta1/namespaces/default/gizmos', {
      body: { apiVersion: 'example.net/v1beta1', kind: 'Gizmo', metadata: { name: 'g1' }, spec: { a: 1 } },
    });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.body.apiVersion, 'example.net/v1beta1');
    assert.equal(created.headers.warning, '299 - "example.net/v1beta1 Gizmo is deprecated; use example.net/v1 Gizmo"');
    const v1 = await apiRequest(cp, 'GET', '/apis/example.net/v1/namespaces/default/gizmos/g1');
    assert.equal(v1.body.apiVersion, 'example.net/v1');
    assert.equal(v1.headers.warning, undefined);
    const stored = await cp.storage.get('/registry/example.net/gizmos/default/g1');
    assert.equal(JSON.parse(Buffer.from(stored?.value ?? '').toString()).apiVersion, 'example.net/v1');
    assert.equal((await apiRequest(cp, 'GET', '/apis/example.net/v1alpha1/namespaces/default/gizmos')).status, 404);
    const group = await apiRequest(cp, 'GET', '/apis/example.net');
    assert.deepEqual(group.body.preferredVersion, { groupVersion: 'example.net/v1', version: 'v1' });
    assert.deepEqual(
      group.body.versions.map((v: { version: string }) => v.version),
      ['v1', 'v1beta1'],
    );
    const aggregated = await apiRequest(cp, 'GET', '/apis', {
      headers: { accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' },
    });
    const item = aggregated.body.items.find((i: { metadata: { name: string } }) => i.metadata.name === 'example.net');
    assert.deepEqual(
      item.versions.map((v: { version: string }) => v.version),
      ['v1', 'v1beta1'],
    );
    assert.equal(item.versions[0].resources[0].resource, 'gizmos');
  });

  it('serves a changed schema, short names and a new version at once', async () => {
    const schema = (props: Record<string, unknown>) => ({
      openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: props } } },
    });
    const v1 = { name: 'v1', served: true, storage: true, schema: schema({ a: { type: 'string' } }) };
    await establish(cp, crd('sprockets', 'Sprocket', 'example.org', [v1]));
    const path = '/apis/example.org/v1/namespaces/default/sprockets';
    const body = (name: string) => ({ metadata: { name }, spec: { a: 'x', b: 'y' } });
    const before = await apiRequest(cp, 'POST', path, { body: body('s1') });
    assert.deepEqual(before.body.spec, { a: 'x' });
    const changed = await apiRequest(cp, 'PATCH', `${CRDS}/sprockets.example.org`, {
      contentType: 'application/merge-patch+json',
      body: {
        spec: {
          names: { shortNames: ['spr'] },
          versions: [
            { ...v1, schema: schema({ a: { type: 'string' }, b: { type: 'string' } }) },
            { name: 'v2', served: true, storage: false, schema: schema({ a: { type: 'string' } }) },
          ],
        },
      },
    });
    assert.equal(changed.status, 200, changed.text);
    assert.equal(changed.body.metadata.generation, 2);
    await eventually(async () => {
      const after = await apiRequest(cp, 'POST', path, { body: body('s2') });
      assert.equal(after.status, 201, after.text);
      assert.deepEqual(after.body.spec, { a: 'x', b: 'y' });
    });
    await eventually(async () => {
      const list = await apiRequest(cp, 'GET', '/apis/example.org/v1');
      const sprockets = list.body.resources.find((r: { name: string }) => r.name === 'sprockets');
      assert.deepEqual(sprockets.shortNames, ['spr']);
    });
    const v2 = await apiRequest(cp, 'GET', '/apis/example.org/v2/namespaces/default/sprockets/s1');
    assert.equal(v2.status, 200, v2.text);
    assert.equal(v2.body.apiVersion, 'example.org/v2');
  });

  it('serves cluster-scoped custom resources', async () => {
    await establish(cp, crd('regions', 'Region', 'example.org', undefined, { scope: 'Cluster' }));
    const made = await apiRequest(cp, 'POST', '/apis/example.org/v1/regions', {
      body: { apiVersion: 'example.org/v1', kind: 'Region', metadata: { name: 'eu' } },
    });
    assert.equal(made.status, 201, made.text);
    assert.equal(made.body.metadata.namespace, undefined);
    assert.equal((await apiRequest(cp, 'GET', '/apis/example.org/v1/regions/eu')).status, 200);
    assert.equal((await apiRequest(cp, 'GET', '/apis/example.org/v1/namespaces/default/regions/eu')).status, 404);
    assert.ok(await cp.storage.get('/registry/example.org/regions/eu'));
  });

  it('deletes the stored instances of a CRD that serves no version any more', async () => {
    await establish(cp, crd('relics', 'Relic'));
    const path = '/apis/example.org/v1/namespaces/default/relics';
    assert.equal((await apiRequest(cp, 'POST', path, { body: { metadata: { name: 'r1' } } })).status, 201);
    const hidden = await apiRequest(cp, 'PATCH', `${CRDS}/relics.example.org`, {
      contentType: 'application/json-patch+json',
      body: [{ op: 'replace', path: '/spec/versions/0/served', value: false }],
    });
    assert.equal(hidden.status, 200, hidden.text);
    await eventually(async () => assert.equal((await apiRequest(cp, 'GET', path)).status, 404));
    assert.equal((await apiRequest(cp, 'DELETE', `${CRDS}/relics.example.org`)).status, 200);
    await eventually(async () => assert.equal((await apiRequest(cp, 'GET', `${CRDS}/relics.example.org`)).status, 404));
    assert.equal(await cp.storage.count('/registry/example.org/relics/'), 0);
  });

  it('keeps a CRD Terminating while a custom resource has a finalizer, refusing creates meanwhile', async () => {
    await establish(cp, crd('locks', 'Lock'));
    const path = '/apis/example.org/v1/namespaces/default/locks';
    const made = await apiRequest(cp, 'POST', path, {
      body: { apiVersion: 'example.org/v1', kind: 'Lock', metadata: { name: 'l1', finalizers: ['example.org/hold'] } },
    });
    assert.equal(made.status, 201, made.text);
    assert.equal((await apiRequest(cp, 'DELETE', `${CRDS}/locks.example.org`)).status, 200);
    await eventually(async () => {
      const t = await condition(cp, 'locks.example.org', 'Terminating');
      assert.equal(t?.reason, 'InstanceDeletionInProgress');
      assert.equal(t?.message, 'CustomResource deletion is in progress');
    });
    const refused = await apiRequest(cp, 'POST', path, {
      body: { apiVersion: 'example.org/v1', kind: 'Lock', metadata: { name: 'l2' } },
    });
    assert.equal(refused.status, 405);
    assert.equal(refused.body.message, 'create not allowed while custom resource definition is terminating');
    const held = await apiRequest(cp, 'GET', `${path}/l1`);
    assert.ok(held.body.metadata.deletionTimestamp);
    const release = await apiRequest(cp, 'PATCH', `${path}/l1`, {
      body: { metadata: { finalizers: null } },
      contentType: 'application/merge-patch+json',
    });
    assert.equal(release.status, 200, release.text);
    await eventually(async () => assert.equal((await apiRequest(cp, 'GET', `${CRDS}/locks.example.org`)).status, 404));
  });
});

describe('CustomResourceDefinitions with the namespace controller and the garbage collector', () => {
  let cp: ControlPlane;
  let stopControllers: (() => Promise<void> | void) | undefined;
  const PETS = '/apis/example.org/v1/namespaces/zoo/pets';
  before(async () => {
    cp = await startControlPlane();
    await establish(cp, crd('pets', 'Pet'));
    const manager = await runControllers(cp, [
      namespaceController,
      newGarbageCollectorController({ syncPeriodMs: 200 }),
    ]);
    stopControllers = () => manager.stop();
    assert.equal(
      (await apiRequest(cp, 'POST', '/api/v1/namespaces', { body: { metadata: { name: 'zoo' } } })).status,
      201,
    );
  });
  after(async () => {
    await stopControllers?.();
    await cp?.stop();
  });

  it('collects a custom resource whose owner is gone', async () => {
    const owner = await apiRequest(cp, 'POST', '/api/v1/namespaces/zoo/configmaps', {
      body: { metadata: { name: 'owner' } },
    });
    const pet = await apiRequest(cp, 'POST', PETS, {
      body: {
        apiVersion: 'example.org/v1',
        kind: 'Pet',
        metadata: {
          name: 'rex',
          ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.body.metadata.uid }],
        },
      },
    });
    assert.equal(pet.status, 201, pet.text);
    assert.equal((await apiRequest(cp, 'DELETE', '/api/v1/namespaces/zoo/configmaps/owner')).status, 200);
    await eventually(async () => assert.equal((await apiRequest(cp, 'GET', `${PETS}/rex`)).status, 404));
  });

  it('deletes custom resources with their namespace', async () => {
    const pet = await apiRequest(cp, 'POST', PETS, {
      body: { apiVersion: 'example.org/v1', kind: 'Pet', metadata: { name: 'tom' } },
    });
    assert.equal(pet.status, 201, pet.text);
    assert.equal((await apiRequest(cp, 'DELETE', '/api/v1/namespaces/zoo')).status, 200);
    await eventually(async () => assert.equal((await apiRequest(cp, 'GET', '/api/v1/namespaces/zoo')).status, 404));
    assert.equal(await cp.storage.count('/registry/example.org/pets/zoo/'), 0);
  });
});

describe('CustomResourceDefinitions across a restart', () => {
  it('serves the stored CRDs again when the apiserver starts', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'wheelhouse-crd-'));
    try {
      let cp = await startControlPlane({ storage: 'sqlite', dataDir });
      await establish(cp, crd('tools', 'Tool'));
      const path = '/apis/example.org/v1/namespaces/default/tools';
      assert.equal((await apiRequest(cp, 'POST', path, { body: { metadata: { name: 'saw' } } })).status, 201);
      await cp.stop();
      cp = await startControlPlane({ storage: 'sqlite', dataDir });
      try {
        const got = await apiRequest(cp, 'GET', `${path}/saw`);
        assert.equal(got.status, 200, got.text);
        assert.equal(got.body.kind, 'Tool');
      } finally {
        await cp.stop();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
