import { describe, test } from 'node:test';
import { descriptionsOf } from '../../api/schema.js';
import assert from '../../testing/assert.js';
import { buildV2Document } from './document-v2.js';
import { buildV3Document } from './document-v3.js';
import { operationIdPart } from './operations.js';
import { servedByGroupVersion } from './served.js';
import { realRegistry, sampleRegistry } from './test-registry.js';

// biome-ignore lint/suspicious/noExplicitAny: tests walk arbitrary JSON
type Json = any;
const METHODS = ['get', 'put', 'post', 'patch', 'delete'];

function refsOf(value: Json, into: { ref: string; siblings: string[] }[] = []) {
  if (Array.isArray(value)) for (const v of value) refsOf(v, into);
  else if (value && typeof value === 'object') {
    if (typeof value.$ref === 'string')
      into.push({ ref: value.$ref, siblings: Object.keys(value).filter((k) => k !== '$ref') });
    for (const v of Object.values(value)) refsOf(v, into);
  }
  return into;
}

function operations(doc: Json): { path: string; method: string; op: Json; item: Json }[] {
  return Object.entries<Json>(doc.paths).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m]).map((method) => ({ path, method, op: item[method], item })),
  );
}

const v3Documents = (registry = sampleRegistry()): Map<string, Json> =>
  new Map(servedByGroupVersion(registry).map((gv) => [`${gv.group}/${gv.version}`, buildV3Document(gv, 'v1.33.0')]));

function find(doc: Json, path: string, method: string): Json {
  const op = doc.paths[path]?.[method];
  assert.ok(op, `${method.toUpperCase()} ${path} is published`);
  return op;
}

describe('OpenAPI v3 documents', () => {
  test('every $ref resolves inside its own document, and no $ref has siblings', () => {
    for (const [gv, doc] of v3Documents(realRegistry())) {
      for (const { ref, siblings } of refsOf(doc)) {
        assert.match(ref, /^#\/components\/schemas\//, `${gv}: ${ref}`);
        assert.ok(doc.components.schemas[ref.slice('#/components/schemas/'.length)], `${gv}: ${ref} resolves`);
        assert.deepEqual(siblings, [], `${gv}: ${ref} stands alone`);
      }
      const ids = operations(doc).map((o) => o.op.operationId);
      assert.equal(new Set(ids).size, ids.length, `${gv}: operationIds are unique`);
    }
  });

  test('every served resource has its collection and item paths, its kind schema, and fieldValidation on PATCH', () => {
    const registry = realRegistry();
    const docs = v3Documents(registry);
    for (const { def } of registry.all()) {
      const doc = docs.get(`${def.group}/${def.version}`);
      assert.ok(doc, `${def.group}/${def.version} has a document`);
      const prefix = def.group ? `/apis/${def.group}/${def.version}` : `/api/${def.version}`;
      const base = def.namespaced ? `${prefix}/namespaces/{namespace}/${def.resource}` : `${prefix}/${def.resource}`;
      const gvk = { group: def.group, kind: def.kind, version: def.version };
      for (const method of ['get', 'post'])
        assert.deepEqual(find(doc, base, method)['x-kubernetes-group-version-kind'], gvk);
      const patch = find(doc, `${base}/{name}`, 'patch');
      const own = patch.parameters.map((p: Json) => `${p.in}:${p.name}`);
      assert.ok(own.includes('query:fieldValidation'), `PATCH ${base}/{name} takes fieldValidation`);
      assert.ok(Object.keys(patch.requestBody.content).includes('application/strategic-merge-patch+json'));
      const schemas = Object.values<Json>(doc.components.schemas);
      assert.ok(
        schemas.some((s) =>
          (s['x-kubernetes-group-version-kind'] ?? []).some((g: Json) => JSON.stringify(g) === JSON.stringify(gvk)),
        ),
        `a schema carries ${JSON.stringify(gvk)}`,
      );
    }
  });

  test('namespaced resources: operations, ids, actions and parameters as upstream lays them out', () => {
    const core = v3Documents().get('/v1');
    const list = find(core, '/api/v1/namespaces/{namespace}/configmaps', 'get');
    assert.equal(list.operationId, 'listCoreV1NamespacedConfigMap');
    assert.equal(list['x-kubernetes-action'], 'list');
    assert.deepEqual(
      list.parameters.map((p: Json) => p.name),
      [
        'allowWatchBookmarks',
        'continue',
        'fieldSelector',
        'labelSelector',
        'limit',
        'resourceVersion',
        'resourceVersionMatch',
        'sendInitialEvents',
        'timeoutSeconds',
        'watch',
      ],
    );
    assert.deepEqual(
      core.paths['/api/v1/namespaces/{namespace}/configmaps'].parameters.map((p: Json) => [
        p.name,
        p.in,
        p.required ?? false,
      ]),
      [
        ['namespace', 'path', true],
        ['pretty', 'query', false],
      ],
    );
    assert.deepEqual(Object.keys(list.responses[200].content).sort(), [
      'application/json',
      'application/json;stream=watch',
      'application/yaml',
    ]);
    assert.equal(
      list.responses[200].content['application/json'].schema.$ref,
      '#/components/schemas/io.k8s.api.core.v1.ConfigMapList',
    );
    assert.equal(
      find(core, '/api/v1/namespaces/{namespace}/configmaps', 'post').operationId,
      'createCoreV1NamespacedConfigMap',
    );
    const dc = find(core, '/api/v1/namespaces/{namespace}/configmaps', 'delete');
    assert.equal(dc.operationId, 'deleteCoreV1CollectionNamespacedConfigMap');
    assert.equal(dc['x-kubernetes-action'], 'deletecollection');
    assert.equal(find(core, '/api/v1/configmaps', 'get').operationId, 'listCoreV1ConfigMapForAllNamespaces');
    assert.equal(
      find(core, '/api/v1/watch/namespaces/{namespace}/configmaps', 'get').operationId,
      'watchCoreV1NamespacedConfigMapList',
    );
    assert.equal(find(core, '/api/v1/watch/configmaps', 'get').operationId, 'watchCoreV1ConfigMapListForAllNamespaces');
    const watch = find(core, '/api/v1/watch/namespaces/{namespace}/configmaps/{name}', 'get');
    assert.equal(watch['x-kubernetes-action'], 'watch');
    const patch = find(core, '/api/v1/namespaces/{namespace}/configmaps/{name}', 'patch');
    assert.deepEqual(
      patch.parameters.map((p: Json) => p.name),
      ['dryRun', 'fieldManager', 'fieldValidation', 'force'],
    );
    assert.deepEqual(Object.keys(patch.requestBody.content), [
      'application/json-patch+json',
      'application/merge-patch+json',
      'application/strategic-merge-patch+json',
      'application/apply-patch+yaml',
    ]);
    const put = find(core, '/api/v1/namespaces/{namespace}/configmaps/{name}', 'put');
    assert.deepEqual(
      put.parameters.map((p: Json) => p.name),
      ['dryRun', 'fieldManager', 'fieldValidation'],
    );
    assert.deepEqual(Object.keys(put.responses), ['200', '201', '401']);
    const del = find(core, '/api/v1/namespaces/{namespace}/configmaps/{name}', 'delete');
    assert.equal(
      del.responses[200].content['application/json'].schema.$ref,
      '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.Status',
    );
    assert.equal(find(core, '/api/v1/', 'get').operationId, 'getCoreV1APIResources');
  });

  test('cluster-scoped resources and subresources, including a subresource of another kind', () => {
    const core = v3Documents().get('/v1');
    assert.equal(find(core, '/api/v1/namespaces', 'get').operationId, 'listCoreV1Namespace');
    assert.equal(find(core, '/api/v1/namespaces/{name}', 'get').operationId, 'readCoreV1Namespace');
    assert.equal(core.paths['/api/v1/namespaces/{namespace}/namespaces'], undefined);
    for (const [method, id] of [
      ['get', 'readCoreV1NamespaceStatus'],
      ['put', 'replaceCoreV1NamespaceStatus'],
      ['patch', 'patchCoreV1NamespaceStatus'],
    ]) {
      assert.equal(find(core, '/api/v1/namespaces/{name}/status', method as string).operationId, id);
    }
    assert.ok(
      find(core, '/api/v1/namespaces/{name}/status', 'patch').parameters.some(
        (p: Json) => p.name === 'fieldValidation',
      ),
    );
    const apps = v3Documents().get('apps/v1');
    const scale = find(apps, '/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale', 'patch');
    assert.equal(scale.operationId, 'patchAppsV1NamespacedDeploymentScale');
    assert.deepEqual(scale['x-kubernetes-group-version-kind'], { group: 'autoscaling', kind: 'Scale', version: 'v1' });
    assert.ok(apps.components.schemas['io.k8s.api.autoscaling.v1.Scale']);
    assert.equal(find(apps, '/apis/apps/v1/', 'get').tags[0], 'apps_v1');
  });

  test('schemas carry the extensions clients read, with v3 conventions', () => {
    const apps = v3Documents().get('apps/v1');
    const s = apps.components.schemas;
    const containers = s['io.k8s.api.core.v1.PodSpec'].properties.containers;
    assert.equal(containers['x-kubernetes-patch-strategy'], 'merge');
    assert.equal(containers['x-kubernetes-patch-merge-key'], 'name');
    assert.equal(containers['x-kubernetes-list-type'], 'map');
    assert.deepEqual(containers['x-kubernetes-list-map-keys'], ['name']);
    assert.equal(containers.items.$ref, '#/components/schemas/io.k8s.api.core.v1.Container');
    assert.deepEqual(s['io.k8s.api.apps.v1.Deployment']['x-kubernetes-group-version-kind'], [
      { group: 'apps', kind: 'Deployment', version: 'v1' },
    ]);
    assert.deepEqual(s['io.k8s.apimachinery.pkg.util.intstr.IntOrString'], {
      description: descriptionsOf('io.k8s.apimachinery.pkg.util.intstr.IntOrString')?.[''],
      format: 'int-or-string',
      oneOf: [{ type: 'integer' }, { type: 'string' }],
    });
    assert.equal(s['io.k8s.api.core.v1.SeccompProfile']['x-kubernetes-unions'][0].discriminator, 'type');
    // A described reference is wrapped in an allOf, as kube-openapi publishes it (a v3 $ref has no siblings).
    assert.deepEqual(s['io.k8s.api.apps.v1.DeploymentSpec'].properties.selector, {
      allOf: [{ $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector' }],
      description: descriptionsOf('io.k8s.api.apps.v1.DeploymentSpec')?.selector,
    });
    assert.match(s['io.k8s.api.apps.v1.DeploymentSpec'].properties.selector.description, /\w+ \w+/);
    assert.equal(s['io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector']['x-kubernetes-map-type'], 'atomic');
    assert.equal(s['io.k8s.api.core.v1.ConfigMap'], undefined, 'apps/v1 carries only what its operations reach');
  });
});

describe('OpenAPI v2 document', () => {
  test('one Swagger 2.0 document of everything served, every $ref resolving', () => {
    const doc = buildV2Document(servedByGroupVersion(realRegistry()), 'v1.33.0');
    assert.equal(doc.swagger, '2.0');
    const d: Json = doc;
    for (const { ref } of refsOf(d)) {
      assert.match(ref, /^#\/definitions\//);
      assert.ok(d.definitions[ref.slice('#/definitions/'.length)], `${ref} resolves`);
    }
    const ids = operations(d).map((o) => o.op.operationId);
    assert.equal(new Set(ids).size, ids.length, 'operationIds are unique');
    const patch = d.paths['/api/v1/namespaces/{namespace}/configmaps/{name}'].patch;
    assert.deepEqual(patch.parameters[0], {
      name: 'body',
      in: 'body',
      required: true,
      schema: { $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Patch' },
    });
    assert.ok(
      patch.parameters.some((p: Json) => p.name === 'fieldValidation' && p.in === 'query' && p.type === 'string'),
    );
    assert.deepEqual(patch['x-kubernetes-group-version-kind'], { group: '', kind: 'ConfigMap', version: 'v1' });
    assert.equal(
      d.paths['/api/v1/namespaces/{namespace}/configmaps'].post.responses[201].schema.$ref,
      '#/definitions/io.k8s.api.core.v1.ConfigMap',
    );
  });
});

test('operationIdPart drops separators and capitalizes what follows, as upstream', () => {
  assert.equal(operationIdPart('rbac.authorization', true), 'RbacAuthorization');
  assert.equal(operationIdPart('rbac.authorization', false), 'rbacAuthorization');
  assert.equal(operationIdPart('flowcontrol.apiserver', true), 'FlowcontrolApiserver');
  assert.equal(operationIdPart('v2', true), 'V2');
  assert.equal(operationIdPart('1a-b', false), 'AB', 'a leading digit is dropped and capitalizes the next letter');
});
