import { describe, it } from 'node:test';
import assert from '../../testing/assert.js';
import type { RequestContext } from '../context.js';
import { forbiddenMessage } from './authorization.js';

const ctx = (info: Record<string, unknown>, path = '/'): RequestContext =>
  ({
    user: { name: 'jane', groups: ['system:authenticated'] },
    info: { isResourceRequest: true, subresource: '', name: '', namespace: '', ...info },
    url: new URL(`https://127.0.0.1${path}`),
  }) as unknown as RequestContext;

describe('forbiddenMessage', () => {
  it('names the resource qualified by its group, as upstream (deployments.apps, pods)', () => {
    assert.equal(
      forbiddenMessage(ctx({ verb: 'list', apiGroup: 'apps', resource: 'deployments', namespace: 'default' })),
      'deployments.apps is forbidden: User "jane" cannot list resource "deployments" in API group "apps" in the namespace "default"',
    );
    assert.equal(
      forbiddenMessage(
        ctx({ verb: 'update', apiGroup: 'coordination.k8s.io', resource: 'leases', name: 'n2', namespace: 'x' }),
      ),
      'leases.coordination.k8s.io "n2" is forbidden: User "jane" cannot update resource "leases" in API group "coordination.k8s.io" in the namespace "x"',
    );
    assert.equal(
      forbiddenMessage(ctx({ verb: 'patch', apiGroup: '', resource: 'nodes', subresource: 'status', name: 'n2' })),
      'nodes "n2" is forbidden: User "jane" cannot patch resource "nodes/status" in API group "" at the cluster scope',
    );
  });

  it('puts listing and creating namespaces at the cluster scope, and a named namespace in itself', () => {
    assert.equal(
      forbiddenMessage(ctx({ verb: 'list', apiGroup: '', resource: 'namespaces' })),
      'namespaces is forbidden: User "jane" cannot list resource "namespaces" in API group "" at the cluster scope',
    );
    assert.equal(
      forbiddenMessage(ctx({ verb: 'get', apiGroup: '', resource: 'namespaces', name: 'demo', namespace: 'demo' })),
      'namespaces "demo" is forbidden: User "jane" cannot get resource "namespaces" in API group "" in the namespace "demo"',
    );
  });

  it('names the path of a non-resource request', () => {
    assert.equal(
      forbiddenMessage(ctx({ isResourceRequest: false, verb: 'get' }, '/metrics')),
      'forbidden: User "jane" cannot get path "/metrics"',
    );
  });
});
