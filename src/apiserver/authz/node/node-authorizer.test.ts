import { describe, it } from 'node:test';
import assert from '../../../testing/assert.js';
import type { AuthorizationAttributes } from '../attributes.js';
import { boundPod, NodeGraph } from './graph.js';
import { NodeAuthorizer } from './node-authorizer.js';

const node1 = { name: 'system:node:node-1', groups: ['system:nodes', 'system:authenticated'] };

function attrs(over: Partial<AuthorizationAttributes>): AuthorizationAttributes {
  return {
    user: node1,
    verb: 'get',
    isResourceRequest: true,
    path: '/',
    apiGroup: '',
    apiVersion: 'v1',
    namespace: '',
    resource: '',
    subresource: '',
    name: '',
    ...over,
  };
}

function pod(name: string, nodeName: string, spec: Record<string, unknown> = {}) {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'dev' }, spec: { nodeName, ...spec } };
}

const withSecretVolume = (secret: string) => ({ volumes: [{ name: 'v', secret: { secretName: secret } }] });

describe('Node authorizer', () => {
  it('has no opinion about users that are not nodes, and names a node user without a node', () => {
    const a = new NodeAuthorizer(new NodeGraph());
    const jane = { name: 'jane', groups: ['system:authenticated'] };
    assert.deepEqual(a.authorize(attrs({ user: jane, resource: 'secrets', namespace: 'dev', name: 's' })), {
      decision: 'no-opinion',
      reason: '',
    });
    // The name alone is not enough: the system:nodes group is needed too.
    const noGroup = { name: 'system:node:node-1', groups: [] };
    assert.equal(a.authorize(attrs({ user: noGroup, resource: 'nodes', name: 'node-1' })).decision, 'no-opinion');
    assert.deepEqual(a.authorize(attrs({ user: { name: 'system:node:', groups: ['system:nodes'] } })), {
      decision: 'no-opinion',
      reason: 'unknown node for user "system:node:"',
    });
  });

  it('lets a node read a secret only while a pod bound to it uses the secret', () => {
    const graph = new NodeGraph();
    const a = new NodeAuthorizer(graph);
    const get = attrs({ resource: 'secrets', namespace: 'dev', name: 'db' });
    const none = { decision: 'no-opinion', reason: "no relationship found between node 'node-1' and this object" };
    assert.deepEqual(a.authorize(get), none);
    graph.setPod(pod('web', 'node-1', withSecretVolume('db')));
    assert.equal(a.authorize(get).decision, 'allow');
    // list/watch of the one secret by metadata.name field selector, as the kubelet's reflector does.
    assert.equal(a.authorize({ ...get, verb: 'watch', name: '', fieldSelector: 'metadata.name=db' }).decision, 'allow');
    assert.deepEqual(a.authorize({ ...get, verb: 'list', name: '' }), {
      decision: 'no-opinion',
      reason: 'No Object name found',
    });
    // Another node, another namespace, another secret: nothing.
    const node2 = { name: 'system:node:node-2', groups: ['system:nodes'] };
    assert.equal(a.authorize({ ...get, user: node2 }).decision, 'no-opinion');
    assert.equal(a.authorize({ ...get, namespace: 'prod' }).decision, 'no-opinion');
    assert.deepEqual(a.authorize({ ...get, verb: 'delete' }), {
      decision: 'no-opinion',
      reason: 'can only read resources of this type',
    });
    // Two pods share the secret: it stays readable until both are gone.
    graph.setPod(pod('api', 'node-1', { containers: [{ name: 'c', envFrom: [{ secretRef: { name: 'db' } }] }] }));
    graph.deletePod('dev/web');
    assert.equal(a.authorize(get).decision, 'allow');
    // The pod moves off the secret.
    graph.setPod(pod('api', 'node-1', { containers: [{ name: 'c' }] }));
    assert.deepEqual(a.authorize(get), none);
  });

  it('follows pod -> claim -> volume -> secret, configmaps, tokens and volume attachments', () => {
    const graph = new NodeGraph();
    const a = new NodeAuthorizer(graph);
    graph.setPod(
      pod('db', 'node-1', {
        serviceAccountName: 'runner',
        volumes: [
          { name: 'data', persistentVolumeClaim: { claimName: 'data' } },
          { name: 'cfg', projected: { sources: [{ configMap: { name: 'settings' } }] } },
          { name: 'scratch', ephemeral: { volumeClaimTemplate: { spec: {} } } },
        ],
      }),
    );
    graph.setPV({
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: 'pv-1' },
      spec: {
        claimRef: { namespace: 'dev', name: 'data' },
        csi: { driver: 'd', volumeHandle: 'h', nodePublishSecretRef: { name: 'csi-creds', namespace: 'storage' } },
      },
    });
    graph.setVolumeAttachment({
      apiVersion: 'storage.k8s.io/v1',
      kind: 'VolumeAttachment',
      metadata: { name: 'va-1' },
      spec: { nodeName: 'node-1' },
    });
    const allowed = (over: Partial<AuthorizationAttributes>) => a.authorize(attrs(over)).decision === 'allow';
    assert.ok(allowed({ resource: 'persistentvolumeclaims', namespace: 'dev', name: 'data' }));
    assert.ok(allowed({ resource: 'persistentvolumeclaims', namespace: 'dev', name: 'db-scratch' }));
    assert.ok(allowed({ resource: 'persistentvolumes', name: 'pv-1' }));
    assert.ok(allowed({ resource: 'secrets', namespace: 'storage', name: 'csi-creds' }));
    assert.ok(allowed({ resource: 'configmaps', namespace: 'dev', name: 'settings' }));
    assert.ok(allowed({ resource: 'volumeattachments', apiGroup: 'storage.k8s.io', name: 'va-1' }));
    assert.ok(
      allowed({ resource: 'serviceaccounts', subresource: 'token', verb: 'create', namespace: 'dev', name: 'runner' }),
    );
    assert.ok(
      allowed({
        resource: 'persistentvolumeclaims',
        subresource: 'status',
        verb: 'patch',
        namespace: 'dev',
        name: 'data',
      }),
    );
    assert.deepEqual(a.authorize(attrs({ resource: 'persistentvolumes', verb: 'list' })), {
      decision: 'no-opinion',
      reason: 'can only get individual resources of this type',
    });
    assert.deepEqual(
      a.authorize(attrs({ resource: 'serviceaccounts', verb: 'get', namespace: 'dev', name: 'runner' })),
      {
        decision: 'no-opinion',
        reason: 'can only create tokens for individual service accounts',
      },
    );
    graph.deletePV('pv-1');
    assert.ok(!allowed({ resource: 'secrets', namespace: 'storage', name: 'csi-creds' }));
    assert.ok(!allowed({ resource: 'persistentvolumes', name: 'pv-1' }));
  });

  it('lets a node read only its own Node and list only its own pods', () => {
    const graph = new NodeGraph();
    graph.setPod(pod('web', 'node-1'));
    const a = new NodeAuthorizer(graph);
    assert.equal(a.authorize(attrs({ resource: 'nodes', name: 'node-1' })).decision, 'allow');
    assert.deepEqual(a.authorize(attrs({ resource: 'nodes', name: 'node-2' })), {
      decision: 'no-opinion',
      reason: "node 'node-1' cannot read 'node-2', only its own Node object",
    });
    assert.deepEqual(a.authorize(attrs({ resource: 'nodes', verb: 'list' })), {
      decision: 'no-opinion',
      reason: "node 'node-1' cannot read all nodes, only its own Node object",
    });
    // Writes to any Node are left to NodeRestriction.
    assert.equal(a.authorize(attrs({ resource: 'nodes', verb: 'patch', name: 'node-2' })).decision, 'allow');
    assert.equal(
      a.authorize(attrs({ resource: 'nodes', subresource: 'status', verb: 'patch', name: 'node-1' })).decision,
      'allow',
    );
    assert.equal(a.authorize(attrs({ resource: 'nodes', verb: 'delete', name: 'node-1' })).decision, 'no-opinion');
    const pods = { resource: 'pods', namespace: '' };
    assert.equal(
      a.authorize(attrs({ ...pods, verb: 'watch', fieldSelector: 'spec.nodeName=node-1' })).decision,
      'allow',
    );
    assert.deepEqual(a.authorize(attrs({ ...pods, verb: 'list', fieldSelector: 'spec.nodeName=node-2' })), {
      decision: 'no-opinion',
      reason: 'can only list/watch pods with spec.nodeName field selector',
    });
    assert.equal(a.authorize(attrs({ resource: 'pods', namespace: 'dev', name: 'web' })).decision, 'allow');
    assert.equal(a.authorize(attrs({ resource: 'pods', namespace: 'dev', name: 'other' })).decision, 'no-opinion');
  });

  it('leases: only the node own in kube-node-lease; the rest from the system:node rules', () => {
    const a = new NodeAuthorizer(new NodeGraph());
    const lease = { resource: 'leases', apiGroup: 'coordination.k8s.io', namespace: 'kube-node-lease' };
    assert.equal(a.authorize(attrs({ ...lease, verb: 'update', name: 'node-1' })).decision, 'allow');
    assert.deepEqual(a.authorize(attrs({ ...lease, verb: 'update', name: 'node-2' })), {
      decision: 'no-opinion',
      reason: 'can only access node lease with the same name as the requesting node',
    });
    assert.deepEqual(a.authorize(attrs({ ...lease, namespace: 'default', name: 'node-1' })), {
      decision: 'no-opinion',
      reason: 'can only access leases in the "kube-node-lease" system namespace',
    });
    assert.equal(a.authorize(attrs({ resource: 'events', verb: 'create', namespace: 'dev' })).decision, 'allow');
    assert.equal(a.authorize(attrs({ resource: 'services', verb: 'list' })).decision, 'allow');
    assert.equal(
      a.authorize(attrs({ resource: 'deployments', apiGroup: 'apps', verb: 'list' })).decision,
      'no-opinion',
    );
    assert.deepEqual(a.rulesFor(node1), {
      resourceRules: [],
      nonResourceRules: [],
      incomplete: true,
      errors: ['node authorizer does not support user rule resolution'],
    });
  });

  it('skips the stored bytes of pods not bound to a node, and never a bound one', () => {
    const stored = (o: unknown) => Buffer.from(JSON.stringify(o));
    assert.equal(boundPod(stored(pod('a', 'node-1'))), true);
    assert.equal(boundPod(stored({ metadata: { name: 'b' }, spec: { containers: [] } })), false);
    const tricky = {
      metadata: { name: 'c', annotations: { note: '"nodeName":"node-1"' } },
      spec: { containers: [{ env: [{ valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } }] }] },
      status: { nominatedNodeName: 'node-2' },
    };
    assert.equal(boundPod(stored(tricky)), false, 'an escaped quote, a field path or nominatedNodeName is no binding');
  });
});
