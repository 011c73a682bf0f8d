import { describe, it } from 'node:test';
import assert from '../testing/assert.js';
import { parseRequestInfo } from './request-info.js';

const info = (method: string, url: string) => {
  const u = new URL(url, 'https://x');
  const r = parseRequestInfo(method, u.pathname, u.searchParams);
  return [r.isResourceRequest, r.verb, r.apiGroup, r.apiVersion, r.namespace, r.resource, r.subresource, r.name];
};

describe('parseRequestInfo', () => {
  it('reads core and group resources, collections and objects', () => {
    assert.deepEqual(info('GET', '/api/v1/namespaces/default/pods'), [
      true,
      'list',
      '',
      'v1',
      'default',
      'pods',
      '',
      '',
    ]);
    assert.deepEqual(info('GET', '/api/v1/namespaces/default/pods/p1'), [
      true,
      'get',
      '',
      'v1',
      'default',
      'pods',
      '',
      'p1',
    ]);
    assert.deepEqual(info('GET', '/api/v1/pods'), [true, 'list', '', 'v1', '', 'pods', '', '']);
    assert.deepEqual(info('POST', '/apis/apps/v1/namespaces/ns/deployments'), [
      true,
      'create',
      'apps',
      'v1',
      'ns',
      'deployments',
      '',
      '',
    ]);
    assert.deepEqual(info('PUT', '/apis/apps/v1/namespaces/ns/deployments/d/scale'), [
      true,
      'update',
      'apps',
      'v1',
      'ns',
      'deployments',
      'scale',
      'd',
    ]);
    assert.deepEqual(info('PATCH', '/api/v1/nodes/n1/status'), [true, 'patch', '', 'v1', '', 'nodes', 'status', 'n1']);
    assert.deepEqual(info('DELETE', '/api/v1/namespaces/ns/configmaps'), [
      true,
      'deletecollection',
      '',
      'v1',
      'ns',
      'configmaps',
      '',
      '',
    ]);
    assert.deepEqual(info('DELETE', '/api/v1/namespaces/ns/configmaps/c'), [
      true,
      'delete',
      '',
      'v1',
      'ns',
      'configmaps',
      '',
      'c',
    ]);
  });

  it('undoes percent-escapes in the path, as Go decodes URL.Path; keeps a broken escape as sent', () => {
    assert.deepEqual(info('GET', '/apis/rbac.authorization.k8s.io/v1/clusterroles/system%3Abasic-user'), [
      true,
      'get',
      'rbac.authorization.k8s.io',
      'v1',
      '',
      'clusterroles',
      '',
      'system:basic-user',
    ]);
    assert.equal(info('GET', '/api/v1/namespaces/d%65fault/pods/p%2')[4], 'default');
    assert.equal(info('GET', '/api/v1/namespaces/default/pods/p%2')[7], 'p%2');
  });

  it('reads watches from the query and from the old /watch/ path', () => {
    assert.deepEqual(info('GET', '/api/v1/namespaces/default/pods?watch=true'), [
      true,
      'watch',
      '',
      'v1',
      'default',
      'pods',
      '',
      '',
    ]);
    assert.deepEqual(info('GET', '/api/v1/pods?watch=1'), [true, 'watch', '', 'v1', '', 'pods', '', '']);
    assert.deepEqual(info('GET', '/api/v1/pods?watch=false'), [true, 'list', '', 'v1', '', 'pods', '', '']);
    assert.deepEqual(info('GET', '/api/v1/watch/namespaces/ns/pods'), [true, 'watch', '', 'v1', 'ns', 'pods', '', '']);
    assert.deepEqual(info('GET', '/api/v1/watch/namespaces/ns/pods/p'), [
      true,
      'watch',
      '',
      'v1',
      'ns',
      'pods',
      '',
      'p',
    ]);
  });

  it('takes the name of a list or watch from a field selector that requires metadata.name, as upstream', () => {
    const secrets = '/api/v1/namespaces/dev/secrets';
    const row = (verb: string, name: string) => [true, verb, '', 'v1', 'dev', 'secrets', '', name];
    assert.deepEqual(info('GET', `${secrets}?fieldSelector=metadata.name%3Ds1`), row('list', 's1'));
    assert.deepEqual(info('GET', `${secrets}?fieldSelector=metadata.name%3D%3Ds1&watch=true`), row('watch', 's1'));
    assert.deepEqual(info('GET', `${secrets}?fieldSelector=type%3Dx,metadata.name%3Ds1`), row('list', 's1'));
    // Not an exact name, a selector that does not parse, or a name that could not be a path segment: no name.
    assert.deepEqual(info('GET', `${secrets}?fieldSelector=metadata.name!%3Ds1`), row('list', ''));
    assert.deepEqual(info('GET', `${secrets}?fieldSelector=metadata.name`), row('list', ''));
    assert.deepEqual(info('GET', `${secrets}?fieldSelector=metadata.name%3Da%2Fb`), row('list', ''));
    assert.deepEqual(info('GET', `${secrets}?fieldSelector=metadata.name%3D..`), row('list', ''));
    // Other verbs never take it.
    assert.deepEqual(info('DELETE', `${secrets}?fieldSelector=metadata.name%3Ds1`), row('deletecollection', ''));
  });

  it('treats a namespace as the namespaces resource, with its own name as namespace', () => {
    assert.deepEqual(info('GET', '/api/v1/namespaces'), [true, 'list', '', 'v1', '', 'namespaces', '', '']);
    assert.deepEqual(info('GET', '/api/v1/namespaces/kube-system'), [
      true,
      'get',
      '',
      'v1',
      'kube-system',
      'namespaces',
      '',
      'kube-system',
    ]);
    assert.deepEqual(info('PUT', '/api/v1/namespaces/ns/finalize'), [
      true,
      'update',
      '',
      'v1',
      'ns',
      'namespaces',
      'finalize',
      'ns',
    ]);
    assert.deepEqual(info('PUT', '/api/v1/namespaces/ns/status'), [
      true,
      'update',
      '',
      'v1',
      'ns',
      'namespaces',
      'status',
      'ns',
    ]);
  });

  it('does not treat discovery and other paths as resource requests', () => {
    for (const p of [
      '/api',
      '/api/v1',
      '/apis',
      '/apis/apps',
      '/apis/apps/v1',
      '/version',
      '/healthz',
      '/openapi/v2',
    ]) {
      assert.equal(info('GET', p)[0], false, p);
    }
  });
});
