import { after, before, describe, it } from 'node:test';
import { type ControlPlane, startControlPlane } from '../../src/index.js';
import { apiRequest } from '../../src/testing/api-client.js';
import assert from '../../src/testing/assert.js';
import { eventually } from '../../src/testing/controllers.js';

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const WIDGETS = '/apis/example.com/v1/namespaces/default/widgets';

export function widgetCRD(extra: Record<string, unknown> = {}) {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', shortNames: ['wd'], categories: ['all'] },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          subresources: {
            status: {},
            scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' },
          },
          selectableFields: [{ jsonPath: '.spec.color' }],
          additionalPrinterColumns: [
            { name: 'Size', type: 'integer', jsonPath: '.spec.size' },
            { name: 'Color', type: 'string', jsonPath: '.spec.color' },
          ],
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: {
                  type: 'object',
                  required: ['size'],
                  'x-kubernetes-validations': [{ rule: 'self.size <= 10', message: 'size must be at most 10' }],
                  properties: {
                    size: { type: 'integer' },
                    color: {
                      type: 'string',
                      enum: ['red', 'blue'],
                      default: 'red',
                      'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'color is immutable' }],
                    },
                    replicas: { type: 'integer' },
                  },
                },
                status: { type: 'object', properties: { replicas: { type: 'integer' } } },
              },
            },
          },
        },
      ],
      ...extra,
    },
  };
}

async function established(cp: ControlPlane, name: string) {
  return eventually(async () => {
    const res = await apiRequest(cp, 'GET', `${CRDS}/${name}`);
    const cond = (res.body.status?.conditions ?? []).find((c: { type: string }) => c.type === 'Established');
    assert.equal(cond?.status, 'True');
    return res.body;
  });
}

describe('CustomResourceDefinitions: serving custom resources', () => {
  let cp: ControlPlane;
  before(async () => {
    cp = await startControlPlane();
  });
  after(async () => {
    await cp?.stop();
  });

  it('establishes a CRD with accepted names and stored versions', async () => {
    const res = await apiRequest(cp, 'POST', CRDS, { body: widgetCRD() });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(res.body.status.storedVersions, ['v1']);
    assert.equal(res.body.spec.names.listKind, 'WidgetList');
    assert.deepEqual(res.body.spec.conversion, { strategy: 'None' });
    const crd = await established(cp, 'widgets.example.com');
    assert.deepEqual(crd.status.acceptedNames, {
      plural: 'widgets',
      singular: 'widget',
      kind: 'Widget',
      listKind: 'WidgetList',
      shortNames: ['wd'],
      categories: ['all'],
    });
    const names = crd.status.conditions.find((c: { type: string }) => c.type === 'NamesAccepted');
    assert.equal(names.reason, 'NoConflicts');
    assert.equal(names.message, 'no conflicts found');
  });

  it('creates, defaults, prunes and validates custom resources', async () => {
    const created = await apiRequest(cp, 'POST', WIDGETS, {
      body: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1' }, spec: { size: 3, extra: 1 } },
    });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(created.body.spec, { size: 3, color: 'red' });
    assert.equal(created.body.metadata.generation, 1);
    assert.match(String(created.headers.warning), /unknown field \\"spec.extra\\"/);
    const got = await apiRequest(cp, 'GET', `${WIDGETS}/w1`);
    assert.equal(got.body.kind, 'Widget');
    assert.equal(got.body.apiVersion, 'example.com/v1');

    const bad = await apiRequest(cp, 'POST', WIDGETS, {
      body: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w2' }, spec: { size: 'big' } },
    });
    assert.equal(bad.status, 422, bad.text);
    assert.equal(bad.body.reason, 'Invalid');
    assert.equal(bad.body.details.kind, 'Widget');
    assert.equal(bad.body.details.causes[0].field, 'spec.size');

    const strict = await apiRequest(cp, 'POST', `${WIDGETS}?fieldValidation=Strict`, {
      body: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w3' }, spec: { size: 1, foo: 2 } },
    });
    assert.equal(strict.status, 400);
    assert.equal(
      strict.body.message,
      'Widget in version "v1" cannot be handled as a Widget: strict decoding error: unknown field "spec.foo"',
    );
  });

  it('checks CEL rules, transition rules included', async () => {
    const big = await apiRequest(cp, 'POST', WIDGETS, {
      body: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'big' }, spec: { size: 11 } },
    });
    assert.equal(big.status, 422, big.text);
    assert.equal(
      big.body.message,
      'Widget.example.com "big" is invalid: spec: Invalid value: "object": size must be at most 10',
    );
    const recolor = await apiRequest(cp, 'PATCH', `${WIDGETS}/w1`, {
      body: { spec: { color: 'blue' } },
      contentType: 'application/merge-patch+json',
    });
    assert.equal(recolor.status, 422, recolor.text);
    assert.equal(recolor.body.details.causes[0].field, 'spec.color');
    assert.match(recolor.body.message, /color is immutable/);
  });

  it('refuses an update without resourceVersion, of a custom resource and of a CRD', async () => {
    const made = await apiRequest(cp, 'POST', WIDGETS, {
      body: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'rv1' }, spec: { size: 3 } },
    });
    assert.equal(made.status, 201, made.text);
    const put = await apiRequest(cp, 'PUT', `${WIDGETS}/rv1`, {
      body: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'rv1' }, spec: { size: 4 } },
    });
    assert.equal(put.status, 422, put.text);
    assert.equal(
      put.body.message,
      'widgets.example.com "rv1" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update',
    );
    assert.deepEqual(put.body.details, {
      name: 'rv1',
      group: 'example.com',
      kind: 'widgets',
      causes: [
        {
          reason: 'FieldValueInvalid',
          message: 'Invalid value: 0x0: must be specified for an update',
          field: 'metadata.resourceVersion',
        },
      ],
    });
    const current = await apiRequest(cp, 'GET', `${WIDGETS}/rv1`);
    const withRV = await apiRequest(cp, 'PUT', `${WIDGETS}/rv1`, { body: { ...current.body, spec: { size: 4 } } });
    assert.equal(withRV.status, 200, withRV.text);
    assert.equal((await apiRequest(cp, 'DELETE', `${WIDGETS}/rv1`)).status, 200);
    // A missing object is still NotFound first, as the store reads it before the update function runs.
    const missing = await apiRequest(cp, 'PUT', `${WIDGETS}/nope`, {
      body: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'nope' }, spec: { size: 1 } },
    });
    assert.equal(missing.status, 404, missing.text);
    const crd = await apiRequest(cp, 'GET', `${CRDS}/widgets.example.com`);
    const { resourceVersion: _, ...metadata } = crd.body.metadata;
    const crdPut = await apiRequest(cp, 'PUT', `${CRDS}/widgets.example.com`, { body: { ...crd.body, metadata } });
    assert.equal(crdPut.status, 422, crdPut.text);
    assert.equal(
      crdPut.body.message,
      'customresourcedefinitions.apiextensions.k8s.io "widgets.example.com" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update',
    );
    // A built-in resource takes an update without resourceVersion, as upstream's strategies allow.
    const cm = await apiRequest(cp, 'POST', '/api/v1/namespaces/default/configmaps', {
      body: { metadata: { name: 'unconditional' }, data: { a: '1' } },
    });
    assert.equal(cm.status, 201, cm.text);
    const cmPut = await apiRequest(cp, 'PUT', '/api/v1/namespaces/default/configmaps/unconditional', {
      body: { metadata: { name: 'unconditional' }, data: { a: '2' } },
    });
    assert.equal(cmPut.status, 200, cmPut.text);
  });

  it("records managedFields by the schema's list types and map keys, and field by field where unknown fields are kept", async () => {
    const gadgets = widgetCRD();
    // biome-ignore lint/suspicious/noExplicitAny: a test CRD is plain JSON
    const spec = gadgets.spec as Record<string, any>;
    gadgets.metadata.name = 'gadgets.example.org';
    spec.group = 'example.org';
    spec.names = { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' };
    spec.versions = [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: {
                  ports: {
                    type: 'array',
                    'x-kubernetes-list-type': 'map',
                    'x-kubernetes-list-map-keys': ['name'],
                    items: {
                      type: 'object',
                      required: ['name'],
                      properties: { name: { type: 'string' }, port: { type: 'integer' } },
                    },
                  },
                  tags: { type: 'array', items: { type: 'string' } },
                  extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
                },
              },
            },
          },
        },
      },
    ];
    const made = await apiRequest(cp, 'POST', CRDS, { body: gadgets });
    assert.equal(made.status, 201, made.text);
    await established(cp, 'gadgets.example.org');
    const created = await apiRequest(cp, 'POST', '/apis/example.org/v1/namespaces/default/gadgets', {
      body: {
        apiVersion: 'example.org/v1',
        kind: 'Gadget',
        metadata: { name: 'g1', labels: { a: 'b' } },
        spec: { ports: [{ name: 'http', port: 80 }], tags: ['x'], extra: { deep: { n: 1 } } },
      },
      headers: { 'user-agent': 'gadget-writer/1.0' },
    });
    assert.equal(created.status, 201, created.text);
    const [entry] = created.body.metadata.managedFields;
    assert.equal(entry.manager, 'gadget-writer');
    assert.deepEqual(entry.fieldsV1, {
      'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} } },
      // A struct has no "." of its own, a map has; keyed list elements are k:{…}; a plain list is atomic.
      'f:spec': {
        'f:extra': { '.': {}, 'f:deep': { '.': {}, 'f:n': {} } },
        'f:ports': { 'k:{"name":"http"}': { '.': {}, 'f:name': {}, 'f:port': {} } },
        'f:tags': {},
      },
    });
  });

  it('publishes the schema in OpenAPI v3 and v2', async () => {
    const index = await apiRequest(cp, 'GET', '/openapi/v3');
    const entry = index.body.paths['apis/example.com/v1'];
    assert.ok(entry, 'example.com/v1 is listed');
    const doc = await apiRequest(cp, 'GET', entry.serverRelativeURL);
    const widget = doc.body.components.schemas['com.example.v1.Widget'];
    assert.deepEqual(widget['x-kubernetes-group-version-kind'], [
      { group: 'example.com', kind: 'Widget', version: 'v1' },
    ]);
    assert.equal(widget.properties.spec.properties.size.type, 'integer');
    // v3 carries the CEL rules, as upstream's structural schema writes them; v2 does not.
    assert.deepEqual(widget.properties.spec['x-kubernetes-validations'], [
      { rule: 'self.size <= 10', message: 'size must be at most 10' },
    ]);
    assert.ok(doc.body.components.schemas['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta']);
    assert.ok(doc.body.paths['/apis/example.com/v1/namespaces/{namespace}/widgets/{name}/scale']);
    const v2 = await apiRequest(cp, 'GET', '/openapi/v2');
    assert.ok(v2.body.definitions['com.example.v1.WidgetList']);
    assert.equal(v2.body.definitions['com.example.v1.Widget'].properties.spec['x-kubernetes-validations'], undefined);
    assert.ok(v2.body.paths['/apis/example.com/v1/namespaces/{namespace}/widgets']);
  });

  it('lists with selectors, and answers Tables with the printer columns', async () => {
    const list = await apiRequest(cp, 'GET', `${WIDGETS}?fieldSelector=metadata.name=w1`);
    assert.equal(list.body.kind, 'WidgetList');
    assert.deepEqual(
      list.body.items.map((i: { metadata: { name: string } }) => i.metadata.name),
      ['w1'],
    );
    const table = await apiRequest(cp, 'GET', WIDGETS, {
      headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' },
    });
    assert.deepEqual(
      table.body.columnDefinitions.map((c: { name: string }) => c.name),
      ['Name', 'Size', 'Color'],
    );
    assert.deepEqual(table.body.rows[0].cells, ['w1', 3, 'red']);
  });

  it('selects by labels and by the selectable fields, watches and deletes collections', async () => {
    for (const [name, color] of [
      ['s1', 'blue'],
      ['s2', 'red'],
    ]) {
      const res = await apiRequest(cp, 'POST', WIDGETS, {
        body: {
          apiVersion: 'example.com/v1',
          kind: 'Widget',
          metadata: { name, labels: { set: 's' } },
          spec: { size: 1, color },
        },
      });
      assert.equal(res.status, 201, res.text);
    }
    const names = (body: { items: { metadata: { name: string } }[] }) => body.items.map((i) => i.metadata.name);
    assert.deepEqual(names((await apiRequest(cp, 'GET', `${WIDGETS}?labelSelector=set%3Ds`)).body), ['s1', 's2']);
    assert.deepEqual(names((await apiRequest(cp, 'GET', `${WIDGETS}?fieldSelector=spec.color%3Dblue`)).body), ['s1']);
    const unknown = await apiRequest(cp, 'GET', `${WIDGETS}?fieldSelector=spec.size%3D1`);
    assert.equal(unknown.status, 400);
    assert.match(unknown.body.message, /field label not supported: spec\.size/);
    const watch = await apiRequest(
      cp,
      'GET',
      `${WIDGETS}?watch=true&resourceVersion=0&timeoutSeconds=1&labelSelector=set%3Ds`,
    );
    const events = watch.text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    assert.deepEqual(
      events.map(
        (e: { type: string; object: { metadata: { name: string } } }) => `${e.type} ${e.object.metadata.name}`,
      ),
      ['ADDED s1', 'ADDED s2'],
    );
    const gone = await apiRequest(cp, 'DELETE', `${WIDGETS}?labelSelector=set%3Ds`);
    assert.equal(gone.status, 200, gone.text);
    assert.deepEqual(names(gone.body), ['s1', 's2']);
    assert.deepEqual(names((await apiRequest(cp, 'GET', `${WIDGETS}?labelSelector=set%3Ds`)).body), []);
  });

  it('reports unknown fields in metadata and in patches as fieldValidation asks', async () => {
    const meta = await apiRequest(cp, 'POST', `${WIDGETS}?fieldValidation=Strict`, {
      body: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'm1', colour: 'x' }, spec: { size: 1 } },
    });
    assert.equal(meta.status, 400);
    assert.match(meta.body.message, /strict decoding error: unknown field "metadata.colour"/);
    const patch = await apiRequest(cp, 'PATCH', `${WIDGETS}/w1?fieldValidation=Strict`, {
      body: { spec: { shape: 'round' } },
      contentType: 'application/merge-patch+json',
    });
    assert.equal(patch.status, 422, patch.text);
    assert.match(patch.body.message, /strict decoding error: unknown field "spec.shape"/);
    const warned = await apiRequest(cp, 'PATCH', `${WIDGETS}/w1`, {
      body: { spec: { shape: 'round' } },
      contentType: 'application/merge-patch+json',
    });
    assert.equal(warned.status, 200);
    assert.equal(warned.headers.warning, '299 - "unknown field \\"spec.shape\\""');
    assert.equal(warned.body.spec.shape, undefined);

    // Keys given twice are the decoder's errors, before the unknown fields pruning finds.
    const twice =
      '{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"d1","name":"d1"},"spec":{"size":1,"size":2,"bogus":1}}';
    const strict = await apiRequest(cp, 'POST', `${WIDGETS}?fieldValidation=Strict`, { body: twice });
    assert.equal(strict.status, 400, strict.text);
    assert.equal(
      strict.body.message,
      'Widget in version "v1" cannot be handled as a Widget: strict decoding error: duplicate field "metadata.name", duplicate field "spec.size", unknown field "spec.bogus"',
    );
    const warnedTwice = await apiRequest(cp, 'POST', WIDGETS, { body: twice });
    assert.equal(warnedTwice.status, 201, warnedTwice.text);
    assert.equal(
      warnedTwice.headers.warning,
      '299 - "duplicate field \\"metadata.name\\"", 299 - "duplicate field \\"spec.size\\"", 299 - "unknown field \\"spec.bogus\\""',
    );
    assert.equal(warnedTwice.body.spec.size, 2);
    const patchTwice = await apiRequest(cp, 'PATCH', `${WIDGETS}/d1?fieldValidation=Strict`, {
      body: '{"spec":{"size":3,"size":4}}',
      contentType: 'application/merge-patch+json',
    });
    assert.equal(patchTwice.status, 422, patchTwice.text);
    assert.match(patchTwice.body.message, /strict decoding error: duplicate field "spec.size"$/);
    assert.equal((await apiRequest(cp, 'DELETE', `${WIDGETS}/d1`)).status, 200);
  });

  it('takes nulls in metadata as ObjectMeta does (a null label value is an empty one)', async () => {
    const created = await apiRequest(cp, 'POST', WIDGETS, {
      body: {
        apiVersion: 'example.com/v1',
        kind: 'Widget',
        metadata: { name: 'n1', labels: { tier: null }, annotations: null, finalizers: null },
        spec: { size: 1 },
      },
    });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(created.body.metadata.labels, { tier: '' });
    assert.equal('annotations' in created.body.metadata, false);
    assert.equal('finalizers' in created.body.metadata, false);
    const patched = await apiRequest(cp, 'PATCH', `${WIDGETS}/n1`, {
      body: [{ op: 'add', path: '/metadata/annotations', value: { note: null } }],
      contentType: 'application/json-patch+json',
    });
    assert.equal(patched.status, 200, patched.text);
    assert.deepEqual(patched.body.metadata.annotations, { note: '' });
    assert.equal((await apiRequest(cp, 'DELETE', `${WIDGETS}/n1`)).status, 200);
  });

  it('refuses metadata of the wrong types as decoding into ObjectMeta does, never with a 500', async () => {
    for (const [metadata, why] of [
      [
        { name: 't1', labels: { tier: 1 } },
        'json: cannot unmarshal number into Go struct field ObjectMeta.labels of type string',
      ],
      [
        { name: 't1', finalizers: 'x' },
        'json: cannot unmarshal string into Go struct field ObjectMeta.finalizers of type []string',
      ],
      [
        { name: 't1', ownerReferences: [{ apiVersion: 5 }] },
        'json: cannot unmarshal number into Go struct field OwnerReference.ownerReferences.apiVersion of type string',
      ],
    ] as const) {
      const res = await apiRequest(cp, 'POST', WIDGETS, {
        body: { apiVersion: 'example.com/v1', kind: 'Widget', metadata, spec: { size: 1 } },
      });
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.message, `Widget in version "v1" cannot be handled as a Widget: ${why}`);
    }
    assert.equal(
      (await apiRequest(cp, 'POST', WIDGETS, { body: { metadata: { name: 't2' }, spec: { size: 1 } } })).status,
      201,
    );
    const patched = await apiRequest(cp, 'PATCH', `${WIDGETS}/t2`, {
      body: { metadata: { annotations: { note: true } } },
      contentType: 'application/merge-patch+json',
    });
    assert.equal(patched.status, 422, patched.text);
    assert.match(patched.body.message, /Go struct field ObjectMeta.annotations of type string$/);
    assert.equal((await apiRequest(cp, 'DELETE', `${WIDGETS}/t2`)).status, 200);
  });

  it('splits spec and status, and bumps generation on spec changes only', async () => {
    const status = await apiRequest(cp, 'PATCH', `${WIDGETS}/w1/status`, {
      body: { status: { replicas: 2 }, spec: { size: 9 } },
      contentType: 'application/merge-patch+json',
    });
    assert.equal(status.status, 200, status.text);
    assert.equal(status.body.status.replicas, 2);
    assert.equal(status.body.spec.size, 3);
    assert.equal(status.body.metadata.generation, 1);
    const spec = await apiRequest(cp, 'PATCH', `${WIDGETS}/w1`, {
      body: { spec: { size: 4 }, status: { replicas: 7 } },
      contentType: 'application/merge-patch+json',
    });
    assert.equal(spec.body.spec.size, 4);
    assert.equal(spec.body.status.replicas, 2);
    assert.equal(spec.body.metadata.generation, 2);
    const smp = await apiRequest(cp, 'PATCH', `${WIDGETS}/w1`, {
      body: { spec: { size: 5 } },
      contentType: 'application/strategic-merge-patch+json',
    });
    assert.equal(smp.status, 415);
    assert.equal(smp.body.reason, 'UnsupportedMediaType');
  });

  it('serves the scale subresource over the CRD paths', async () => {
    const put = await apiRequest(cp, 'PATCH', `${WIDGETS}/w1/scale`, {
      body: { spec: { replicas: 5 } },
      contentType: 'application/merge-patch+json',
    });
    assert.equal(put.status, 200, put.text);
    assert.equal(put.body.spec.replicas, 5);
    const scale = await apiRequest(cp, 'GET', `${WIDGETS}/w1/scale`);
    assert.equal(scale.body.kind, 'Scale');
    assert.equal(scale.body.apiVersion, 'autoscaling/v1');
    assert.deepEqual(scale.body.spec, { replicas: 5 });
    assert.deepEqual(scale.body.status, { replicas: 2 });
    const got = await apiRequest(cp, 'GET', `${WIDGETS}/w1`);
    assert.equal(got.body.spec.replicas, 5);
  });

  it('has no Scale to read while the object has no spec replicas, as upstream’s ScaleREST', async () => {
    const made = await apiRequest(cp, 'POST', WIDGETS, {
      body: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'unscaled' }, spec: { size: 1 } },
    });
    assert.equal(made.status, 201, made.text);
    const got = await apiRequest(cp, 'GET', `${WIDGETS}/unscaled/scale`);
    assert.equal(got.status, 500, got.text);
    assert.equal(got.body.reason, 'InternalError');
    assert.equal(got.body.message, 'Internal error occurred: the spec replicas field ".spec.replicas" does not exist');
    const labels = await apiRequest(cp, 'PATCH', `${WIDGETS}/unscaled/scale`, {
      body: { metadata: { labels: { a: 'b' } } },
      contentType: 'application/merge-patch+json',
    });
    assert.equal(labels.status, 400, labels.text);
    assert.equal(labels.body.message, 'the spec replicas field ".spec.replicas" cannot be empty');
    const scaled = await apiRequest(cp, 'PATCH', `${WIDGETS}/unscaled/scale`, {
      body: { spec: { replicas: 3 } },
      contentType: 'application/merge-patch+json',
    });
    assert.equal(scaled.status, 200, scaled.text);
    assert.equal(scaled.body.spec.replicas, 3);
    assert.equal((await apiRequest(cp, 'GET', `${WIDGETS}/unscaled/scale`)).body.spec.replicas, 3);
  });

  it('lists the resource in discovery', async () => {
    const list = await apiRequest(cp, 'GET', '/apis/example.com/v1');
    assert.equal(list.status, 200);
    const widgets = list.body.resources.find((r: { name: string }) => r.name === 'widgets');
    assert.deepEqual(widgets.shortNames, ['wd']);
    assert.deepEqual(widgets.categories, ['all']);
    assert.equal(widgets.singularName, 'widget');
    assert.deepEqual(
      list.body.resources.map((r: { name: string }) => r.name),
      ['widgets', 'widgets/status', 'widgets/scale'],
    );
    const groups = await apiRequest(cp, 'GET', '/apis');
    const group = groups.body.groups.find((g: { name: string }) => g.name === 'example.com');
    assert.deepEqual(group.preferredVersion, { groupVersion: 'example.com/v1', version: 'v1' });
  });

  it('deletes the custom resources before the CRD goes', async () => {
    const del = await apiRequest(cp, 'DELETE', `${CRDS}/widgets.example.com`);
    assert.equal(del.status, 200, del.text);
    await eventually(async () => {
      const gone = await apiRequest(cp, 'GET', `${CRDS}/widgets.example.com`);
      assert.equal(gone.status, 404);
    });
    const list = await apiRequest(cp, 'GET', WIDGETS);
    assert.equal(list.status, 404);
    assert.equal(await cp.storage.count('/registry/example.com/widgets/'), 0);
  });
});

describe("CustomResourceDefinitions: the custom resources' watch cache takes startControlPlane's bounds", () => {
  let cp: ControlPlane;
  before(async () => {
    cp = await startControlPlane({ storage: 'memory', watchCache: { capacity: 20, maxCapacity: 20 } });
  });
  after(async () => {
    await cp?.stop();
  });

  it('ends a watch from before a 20-event window with 410 Expired, and serves one from within it', async () => {
    assert.equal((await apiRequest(cp, 'POST', CRDS, { body: widgetCRD() })).status, 201);
    await established(cp, 'widgets.example.com');
    const created = await eventually(async () => {
      const res = await apiRequest(cp, 'POST', WIDGETS, {
        body: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { size: 0 } },
      });
      assert.equal(res.status, 201, res.text);
      return res.body;
    });
    let last = created;
    for (let i = 1; i <= 25; i++) {
      const res = await apiRequest(cp, 'PATCH', `${WIDGETS}/w`, {
        body: { spec: { size: i % 10 } },
        contentType: 'application/merge-patch+json',
      });
      assert.equal(res.status, 200, res.text);
      last = res.body;
    }
    const tooOld = await apiRequest(
      cp,
      'GET',
      `${WIDGETS}?watch=1&resourceVersion=${created.metadata.resourceVersion}&timeoutSeconds=2`,
    );
    const event = JSON.parse(tooOld.text.trim().split('\n')[0] ?? '{}');
    assert.equal(event.type, 'ERROR');
    assert.equal(event.object.code, 410);
    assert.equal(event.object.reason, 'Expired');
    // The custom resources' cache holds the latest events: a watch from the last change but one sees the last.
    const recent = await apiRequest(
      cp,
      'GET',
      `${WIDGETS}?watch=1&resourceVersion=${last.metadata.resourceVersion}&timeoutSeconds=1`,
    );
    assert.equal(recent.status, 200);
    assert.equal(recent.text.trim(), '');
  });
});

describe('CustomResourceDefinitions: objects read from storage, as upstream’s codec reads them', () => {
  let cp: ControlPlane;
  before(async () => {
    cp = await startControlPlane({ storage: 'memory' });
  });
  after(async () => {
    await cp?.stop();
  });

  const specOf = (properties: Record<string, unknown>) => ({
    openAPIV3Schema: {
      type: 'object',
      properties: { spec: { type: 'object', properties } },
    },
  });
  /** A namespaced CRD of stable.example.com named by its kind (plural: kind in lower case and an s). */
  const stableCRD = (kind: string, versions: Record<string, unknown>[]) => {
    const singular = kind.toLowerCase();
    return {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `${singular}s.stable.example.com` },
      spec: {
        group: 'stable.example.com',
        scope: 'Namespaced',
        names: { plural: `${singular}s`, singular, kind },
        versions,
      },
    };
  };
  const gizmos = (v1Properties: Record<string, unknown>) =>
    stableCRD('Gizmo', [
      {
        name: 'v1beta1',
        served: true,
        storage: false,
        schema: specOf({ old: { type: 'string' }, size: { type: 'integer' } }),
      },
      { name: 'v1', served: true, storage: true, schema: specOf(v1Properties) },
    ]);
  const gizmo = (version: string) => `/apis/stable.example.com/${version}/namespaces/default/gizmos`;

  it('prunes to the schema of the version it converts to, and gives the storage version’s new defaults', async () => {
    const made = await apiRequest(cp, 'POST', CRDS, { body: gizmos({ size: { type: 'integer' } }) });
    assert.equal(made.status, 201, made.text);
    await established(cp, 'gizmos.stable.example.com');
    const body = { apiVersion: 'stable.example.com/v1beta1', kind: 'Gizmo', metadata: { name: 'g1' } };
    const created = await eventually(async () => {
      const res = await apiRequest(cp, 'POST', gizmo('v1beta1'), { body: { ...body, spec: { old: 'why', size: 1 } } });
      assert.equal(res.status, 201, res.text);
      return res.body;
    });
    // Stored as v1, whose schema has no spec.old: the field is gone, through either version.
    assert.deepEqual(created.spec, { size: 1 });
    for (const version of ['v1', 'v1beta1']) {
      const got = await apiRequest(cp, 'GET', `${gizmo(version)}/g1`);
      assert.equal(got.body.apiVersion, `stable.example.com/${version}`);
      assert.deepEqual(got.body.spec, { size: 1 }, version);
    }
    // A default added to the storage version afterwards shows on the stored object when it is read (not through
    // v1beta1, whose schema does not have the field).
    const crd = (await apiRequest(cp, 'GET', `${CRDS}/gizmos.stable.example.com`)).body;
    const changed = gizmos({ size: { type: 'integer' }, shape: { type: 'string', default: 'round' } });
    const put = await apiRequest(cp, 'PUT', `${CRDS}/gizmos.stable.example.com`, {
      body: { ...changed, metadata: crd.metadata },
    });
    assert.equal(put.status, 200, put.text);
    await eventually(async () => {
      const got = await apiRequest(cp, 'GET', `${gizmo('v1')}/g1`);
      assert.deepEqual(got.body.spec, { size: 1, shape: 'round' });
    });
    const listed = await apiRequest(cp, 'GET', gizmo('v1'));
    assert.deepEqual(listed.body.items[0].spec, { size: 1, shape: 'round' });
    assert.deepEqual((await apiRequest(cp, 'GET', `${gizmo('v1beta1')}/g1`)).body.spec, { size: 1 });
    const watched = await apiRequest(cp, 'GET', `${gizmo('v1')}?watch=1&timeoutSeconds=1`);
    assert.deepEqual(JSON.parse(watched.text.trim().split('\n')[0] ?? '{}').object.spec, { size: 1, shape: 'round' });
  });

  it('prunes a field taken out of the schema after the object was written, when it is read', async () => {
    const sprockets = (properties: Record<string, unknown>) =>
      stableCRD('Sprocket', [{ name: 'v1', served: true, storage: true, schema: specOf(properties) }]);
    const path = '/apis/stable.example.com/v1/namespaces/default/sprockets';
    const kept = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
    const made = await apiRequest(cp, 'POST', CRDS, {
      body: sprockets({ size: { type: 'integer' }, color: { type: 'string' }, extra: kept }),
    });
    assert.equal(made.status, 201, made.text);
    await established(cp, 'sprockets.stable.example.com');
    const spec = { size: 1, color: 'red', extra: { anything: true } };
    await eventually(async () => {
      const res = await apiRequest(cp, 'POST', path, {
        body: { apiVersion: 'stable.example.com/v1', kind: 'Sprocket', metadata: { name: 's1' }, spec },
      });
      assert.equal(res.status, 201, res.text);
    });
    assert.deepEqual((await apiRequest(cp, 'GET', `${path}/s1`)).body.spec, spec);
    const crd = (await apiRequest(cp, 'GET', `${CRDS}/sprockets.stable.example.com`)).body;
    const put = await apiRequest(cp, 'PUT', `${CRDS}/sprockets.stable.example.com`, {
      body: { ...sprockets({ size: { type: 'integer' }, extra: kept }), metadata: crd.metadata },
    });
    assert.equal(put.status, 200, put.text);
    // Stored with color, served without it (upstream's storage decoder prunes by the schema as it is now); what
    // x-kubernetes-preserve-unknown-fields keeps stays.
    const without = { size: 1, extra: { anything: true } };
    await eventually(async () => {
      assert.deepEqual((await apiRequest(cp, 'GET', `${path}/s1`)).body.spec, without);
    });
    assert.deepEqual((await apiRequest(cp, 'GET', path)).body.items[0].spec, without);
    const watched = await apiRequest(cp, 'GET', `${path}?watch=1&timeoutSeconds=1`);
    assert.deepEqual(JSON.parse(watched.text.trim().split('\n')[0] ?? '{}').object.spec, without);
  });

  it('reads an object in the version it was stored in after the storage version changed', async () => {
    const doohickeys = (storage: string) => {
      const crd = gizmos({ size: { type: 'integer' }, shape: { type: 'string', default: 'round' } });
      crd.metadata.name = 'doohickeys.stable.example.com';
      crd.spec.names = { plural: 'doohickeys', singular: 'doohickey', kind: 'Doohickey' };
      for (const v of crd.spec.versions) v.storage = v.name === storage;
      return crd;
    };
    const path = (version: string) => `/apis/stable.example.com/${version}/namespaces/default/doohickeys`;
    const made = await apiRequest(cp, 'POST', CRDS, { body: doohickeys('v1beta1') });
    assert.equal(made.status, 201, made.text);
    await established(cp, 'doohickeys.stable.example.com');
    await eventually(async () => {
      const res = await apiRequest(cp, 'POST', path('v1beta1'), {
        body: {
          apiVersion: 'stable.example.com/v1beta1',
          kind: 'Doohickey',
          metadata: { name: 'd1' },
          spec: { old: 'why', size: 1 },
        },
      });
      assert.equal(res.status, 201, res.text);
    });
    const crd = (await apiRequest(cp, 'GET', `${CRDS}/doohickeys.stable.example.com`)).body;
    const put = await apiRequest(cp, 'PUT', `${CRDS}/doohickeys.stable.example.com`, {
      body: { ...doohickeys('v1'), metadata: crd.metadata, status: crd.status },
    });
    assert.equal(put.status, 200, put.text);
    // Still stored as v1beta1: read through v1 it is pruned to v1's schema and defaulted by v1beta1's (which has
    // no shape), as upstream's storage codec decodes it in its own version and then converts it.
    await eventually(async () => {
      const got = await apiRequest(cp, 'GET', `${path('v1')}/d1`);
      assert.deepEqual(got.body.spec, { size: 1 });
    });
    assert.deepEqual((await apiRequest(cp, 'GET', path('v1'))).body.items[0].spec, { size: 1 });
    assert.deepEqual((await apiRequest(cp, 'GET', `${path('v1beta1')}/d1`)).body.spec, { old: 'why', size: 1 });
  });
});
