import { describe, it } from 'node:test';
import assert from '../testing/assert.js';
import {
  lookupKind,
  lookupResource,
  type ResourceInfo,
  resourcesOf,
  servedGroupVersions,
  storageKey,
  storageListPrefix,
} from './catalog.js';
import { RESOURCE_FACTS } from './resource-facts.js';

function must(group: string, version: string, resource: string): ResourceInfo {
  const info = lookupResource(group, version, resource);
  assert.ok(info, `${group}/${version} ${resource} is served`);
  return info;
}

describe('served group versions', () => {
  it('lists groups in upstream discovery order', () => {
    assert.deepEqual(
      servedGroupVersions().map((g) => g.group),
      [
        '',
        'apiregistration.k8s.io',
        'apps',
        'events.k8s.io',
        'authentication.k8s.io',
        'authorization.k8s.io',
        'autoscaling',
        'batch',
        'certificates.k8s.io',
        'networking.k8s.io',
        'policy',
        'rbac.authorization.k8s.io',
        'storage.k8s.io',
        'admissionregistration.k8s.io',
        'apiextensions.k8s.io',
        'scheduling.k8s.io',
        'coordination.k8s.io',
        'node.k8s.io',
        'discovery.k8s.io',
        'flowcontrol.apiserver.k8s.io',
      ],
    );
  });

  it('prefers autoscaling/v2 and serves v1 too', () => {
    const autoscaling = servedGroupVersions().find((g) => g.group === 'autoscaling');
    assert.equal(autoscaling?.preferredVersion, 'v2');
    assert.deepEqual(autoscaling?.versions, ['v2', 'v1']);
    assert.ok(lookupResource('autoscaling', 'v1', 'horizontalpodautoscalers'));
    assert.ok(lookupResource('autoscaling', 'v2', 'horizontalpodautoscalers'));
  });

  it('serves no alpha or beta version', () => {
    for (const g of servedGroupVersions()) {
      for (const v of g.versions) {
        assert.doesNotMatch(v, /alpha|beta/, `${g.group}/${v}`);
        assert.ok(resourcesOf(g.group, v).length > 0, `${g.group}/${v} has resources`);
      }
    }
    assert.deepEqual(resourcesOf('resource.k8s.io', 'v1beta1'), []);
    assert.deepEqual(resourcesOf('networking.k8s.io', 'v1beta1'), []);
    assert.ok(lookupResource('networking.k8s.io', 'v1', 'servicecidrs'));
  });
});

describe('resources', () => {
  it('describes pods as upstream discovery does', () => {
    const pods = must('', 'v1', 'pods');
    assert.equal(pods.kind, 'Pod');
    assert.equal(pods.namespaced, true);
    assert.equal(pods.singularName, 'pod');
    assert.deepEqual(pods.verbs, ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch']);
    assert.deepEqual(pods.categories, ['all']);
    assert.deepEqual(
      pods.subresources.map((s) => s.name),
      [
        'attach',
        'binding',
        'ephemeralcontainers',
        'eviction',
        'exec',
        'log',
        'portforward',
        'proxy',
        'resize',
        'status',
      ],
    );
    const sub = (name: string) => pods.subresources.find((s) => s.name === name);
    assert.deepEqual(sub('eviction'), {
      name: 'eviction',
      kind: 'Eviction',
      group: 'policy',
      version: 'v1',
      verbs: ['create'],
    });
    assert.deepEqual(sub('exec')?.verbs, ['create', 'get']);
    assert.equal(sub('exec')?.kind, 'PodExecOptions');
    assert.deepEqual(sub('log')?.verbs, ['get']);
    assert.deepEqual(sub('proxy')?.verbs, ['create', 'delete', 'get', 'patch', 'update']);
    assert.deepEqual(sub('status'), {
      name: 'status',
      kind: 'Pod',
      group: '',
      version: 'v1',
      verbs: ['get', 'patch', 'update'],
    });
  });

  it('gives deployments an autoscaling/v1 Scale subresource', () => {
    const scale = must('apps', 'v1', 'deployments').subresources.find((s) => s.name === 'scale');
    assert.deepEqual(scale, {
      name: 'scale',
      kind: 'Scale',
      group: 'autoscaling',
      version: 'v1',
      verbs: ['get', 'patch', 'update'],
    });
  });

  it('knows scope, verbs and subresources of other kinds', () => {
    const namespaces = must('', 'v1', 'namespaces');
    assert.equal(namespaces.namespaced, false);
    assert.equal(namespaces.verbs.includes('deletecollection'), false);
    assert.deepEqual(
      namespaces.subresources.map((s) => [s.name, s.verbs.join(',')]),
      [
        ['finalize', 'update'],
        ['status', 'get,patch,update'],
      ],
    );
    assert.deepEqual(must('', 'v1', 'bindings').verbs, ['create']);
    assert.deepEqual(must('', 'v1', 'componentstatuses').verbs, ['get', 'list']);
    assert.equal(must('authorization.k8s.io', 'v1', 'localsubjectaccessreviews').namespaced, true);
    assert.equal(must('', 'v1', 'serviceaccounts').subresources[0]?.group, 'authentication.k8s.io');
  });

  it('looks resources up by kind', () => {
    assert.equal(lookupKind('apps', 'v1', 'Deployment')?.resource, 'deployments');
    assert.equal(lookupKind('', 'v1', 'Endpoints')?.singularName, 'endpoints');
    assert.equal(lookupKind('networking.k8s.io', 'v1', 'Ingress')?.singularName, 'ingress');
    assert.equal(lookupKind('apps', 'v1', 'Scale'), undefined);
    assert.equal(lookupKind('apps', 'v2', 'Deployment'), undefined);
  });

  it('has the short names and categories upstream lists', () => {
    const expected: [string, string, string, string[]][] = [
      ['', 'v1', 'pods', ['po']],
      ['', 'v1', 'services', ['svc']],
      ['', 'v1', 'namespaces', ['ns']],
      ['', 'v1', 'nodes', ['no']],
      ['', 'v1', 'configmaps', ['cm']],
      ['', 'v1', 'serviceaccounts', ['sa']],
      ['', 'v1', 'endpoints', ['ep']],
      ['', 'v1', 'events', ['ev']],
      ['', 'v1', 'persistentvolumes', ['pv']],
      ['', 'v1', 'persistentvolumeclaims', ['pvc']],
      ['', 'v1', 'replicationcontrollers', ['rc']],
      ['', 'v1', 'limitranges', ['limits']],
      ['', 'v1', 'resourcequotas', ['quota']],
      ['', 'v1', 'secrets', []],
      ['apps', 'v1', 'deployments', ['deploy']],
      ['apps', 'v1', 'daemonsets', ['ds']],
      ['apps', 'v1', 'replicasets', ['rs']],
      ['apps', 'v1', 'statefulsets', ['sts']],
      ['autoscaling', 'v2', 'horizontalpodautoscalers', ['hpa']],
      ['batch', 'v1', 'cronjobs', ['cj']],
      ['policy', 'v1', 'poddisruptionbudgets', ['pdb']],
      ['scheduling.k8s.io', 'v1', 'priorityclasses', ['pc']],
      ['storage.k8s.io', 'v1', 'storageclasses', ['sc']],
      ['certificates.k8s.io', 'v1', 'certificatesigningrequests', ['csr']],
      ['apiextensions.k8s.io', 'v1', 'customresourcedefinitions', ['crd', 'crds']],
      ['networking.k8s.io', 'v1', 'networkpolicies', ['netpol']],
      ['networking.k8s.io', 'v1', 'ingresses', ['ing']],
      ['events.k8s.io', 'v1', 'events', ['ev']],
    ];
    for (const [group, version, resource, shortNames] of expected) {
      assert.deepEqual(must(group, version, resource).shortNames, shortNames, resource);
    }
    const inAll = servedGroupVersions()
      .flatMap((g) => resourcesOf(g.group, g.preferredVersion))
      .filter((r) => r.categories.includes('all'))
      .map((r) => r.resource);
    assert.deepEqual(inAll, [
      'pods',
      'replicationcontrollers',
      'services',
      'daemonsets',
      'deployments',
      'replicasets',
      'statefulsets',
      'horizontalpodautoscalers',
      'cronjobs',
      'jobs',
    ]);
    assert.deepEqual(must('apiextensions.k8s.io', 'v1', 'customresourcedefinitions').categories, ['api-extensions']);
    assert.deepEqual(must('admissionregistration.k8s.io', 'v1', 'validatingwebhookconfigurations').categories, [
      'api-extensions',
    ]);
  });

  it('has facts for exactly the served resources', () => {
    const served = new Set(
      servedGroupVersions()
        .flatMap((g) => g.versions.flatMap((v) => resourcesOf(g.group, v)))
        .map((r) => `${r.group}/${r.resource}`),
    );
    const facts = Object.entries(RESOURCE_FACTS).flatMap(([group, byResource]) =>
      Object.keys(byResource).map((resource) => `${group}/${resource}`),
    );
    assert.deepEqual([...served].sort(), [...facts].sort());
  });
});

describe('storage keys', () => {
  it('uses upstream’s historical prefixes', () => {
    assert.equal(storageKey(must('', 'v1', 'nodes'), undefined, 'n1'), '/registry/minions/n1');
    assert.equal(storageKey(must('', 'v1', 'services'), 'default', 'web'), '/registry/services/specs/default/web');
    assert.equal(storageKey(must('', 'v1', 'endpoints'), 'default', 'web'), '/registry/services/endpoints/default/web');
    assert.equal(storageKey(must('', 'v1', 'replicationcontrollers'), 'a', 'rc1'), '/registry/controllers/a/rc1');
    assert.equal(storageKey(must('networking.k8s.io', 'v1', 'ingresses'), 'a', 'i'), '/registry/ingress/a/i');
    assert.equal(storageKey(must('apps', 'v1', 'deployments'), 'a', 'd'), '/registry/deployments/a/d');
    assert.equal(
      storageKey(must('', 'v1', 'namespaces'), undefined, 'kube-system'),
      '/registry/namespaces/kube-system',
    );
    assert.equal(
      storageKey(must('apiextensions.k8s.io', 'v1', 'customresourcedefinitions'), undefined, 'foos.example.com'),
      '/registry/apiextensions.k8s.io/customresourcedefinitions/foos.example.com',
    );
    assert.equal(
      storageKey(must('apiregistration.k8s.io', 'v1', 'apiservices'), undefined, 'v1.apps'),
      '/registry/apiregistration.k8s.io/apiservices/v1.apps',
    );
  });

  it('shares one prefix across versions and event groups', () => {
    assert.equal(must('', 'v1', 'events').storagePrefix, 'events');
    assert.equal(must('events.k8s.io', 'v1', 'events').storagePrefix, 'events');
    assert.equal(
      must('autoscaling', 'v1', 'horizontalpodautoscalers').storagePrefix,
      must('autoscaling', 'v2', 'horizontalpodautoscalers').storagePrefix,
    );
  });

  it('gives list prefixes that end in a slash', () => {
    const pods = must('', 'v1', 'pods');
    assert.equal(storageListPrefix(pods), '/registry/pods/');
    assert.equal(storageListPrefix(pods, 'default'), '/registry/pods/default/');
  });

  it('stores every listable resource but componentstatuses, and nothing else', () => {
    for (const g of servedGroupVersions()) {
      for (const r of resourcesOf(g.group, g.preferredVersion)) {
        const stored = r.verbs.includes('list') && r.resource !== 'componentstatuses';
        assert.equal(r.storagePrefix !== undefined, stored, `${g.group} ${r.resource}`);
      }
    }
  });

  it('rejects keys that cannot exist', () => {
    assert.throws(() => storageKey(must('', 'v1', 'pods'), undefined, 'p'), /needs a namespace/);
    assert.throws(() => storageKey(must('', 'v1', 'nodes'), 'default', 'n'), /cluster-scoped/);
    assert.throws(
      () => storageKey(must('authentication.k8s.io', 'v1', 'tokenreviews'), undefined, 't'),
      /not a stored/,
    );
    assert.throws(() => storageKey(must('', 'v1', 'pods'), 'default', ''), /needs a name/);
  });
});
