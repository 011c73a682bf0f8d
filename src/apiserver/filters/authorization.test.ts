import { describe, it } from 'node:test';
import { StatusError } from '../../api/status-error.js';
import assert from '../../testing/assert.js';
import type { RequestContext } from '../context.js';
import { type Authorizer, forbiddenMessage, withAuthorization } from './authorization.js';

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

describe('withAuthorization: the audit annotations of the decision', () => {
  const request = () =>
    ({
      ...ctx({ verb: 'list', apiGroup: '', resource: 'pods', namespace: 'default' }),
      auditAnnotations: {},
    }) as RequestContext;
  const run = async (...authorizers: Authorizer[]) => {
    const c = request();
    let served = false;
    let error: unknown;
    try {
      await withAuthorization(authorizers)(async () => {
        served = true;
      })(c);
    } catch (err) {
      error = err;
    }
    return { annotations: c.auditAnnotations, served, error };
  };

  it('an allowed request: decision allow and the reason of the authorizer that allowed it', async () => {
    const reason = 'RBAC: allowed by ClusterRoleBinding "b" of ClusterRole "view" to User "jane"';
    const { annotations, served } = await run(
      () => ({ decision: 'no-opinion', reason: 'not me' }),
      () => ({ decision: 'allow', reason }),
    );
    assert.equal(served, true);
    assert.deepEqual(annotations, { 'authorization.k8s.io/decision': 'allow', 'authorization.k8s.io/reason': reason });
  });

  it('an empty reason is recorded as empty, allowed or forbidden, as upstream records it', async () => {
    const allowed = await run(() => 'allow');
    assert.deepEqual(allowed.annotations, {
      'authorization.k8s.io/decision': 'allow',
      'authorization.k8s.io/reason': '',
    });
    const forbidden = await run(() => 'no-opinion');
    assert.equal((forbidden.error as StatusError).status.code, 403);
    assert.deepEqual(forbidden.annotations, {
      'authorization.k8s.io/decision': 'forbid',
      'authorization.k8s.io/reason': '',
    });
  });

  it('a forbidden request carries the reasons the authorizers gave, one per line', async () => {
    const { annotations, served } = await run(
      () => ({ decision: 'no-opinion', reason: 'RBAC: clusterrole.rbac.authorization.k8s.io "gone" not found' }),
      () => ({ decision: 'deny', reason: 'deletes go through change control' }),
    );
    assert.equal(served, false);
    assert.deepEqual(annotations, {
      'authorization.k8s.io/decision': 'forbid',
      'authorization.k8s.io/reason':
        'RBAC: clusterrole.rbac.authorization.k8s.io "gone" not found\ndeletes go through change control',
    });
  });

  it('an authorizer that fails: reason "internal error" and no decision', async () => {
    const { annotations, error } = await run(() => {
      throw new StatusError(500, 'InternalError', 'Internal error occurred: webhook unreachable');
    });
    assert.equal((error as StatusError).status.code, 500);
    assert.deepEqual(annotations, { 'authorization.k8s.io/reason': 'internal error' });
  });
});
