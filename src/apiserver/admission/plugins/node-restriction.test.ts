import { describe, it } from 'node:test';
import assert from '../../../testing/assert.js';
import type { KubeObject } from '../../registry/object.js';
import { attributesFor } from '../attributes.js';
import type { AdmissionAttributes, Operation } from '../types.js';
import { forbiddenNodeLabels, NODE_RESTRICTION, nodeRestriction, withNodeRestriction } from './node-restriction.js';

const node1 = { name: 'system:node:node-1', groups: ['system:nodes', 'system:authenticated'] };
const PODS = { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true };
const NODES = { group: '', version: 'v1', resource: 'nodes', kind: 'Node', namespaced: false };
const LEASES = { group: 'coordination.k8s.io', version: 'v1', resource: 'leases', kind: 'Lease', namespaced: true };
const SAS = { group: '', version: 'v1', resource: 'serviceaccounts', kind: 'ServiceAccount', namespaced: true };

const stored: Record<string, KubeObject> = {
  'pods/dev/mine': {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'mine', namespace: 'dev', uid: 'p1' },
    spec: { nodeName: 'node-1' },
  },
  'pods/dev/theirs': {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'theirs', namespace: 'dev', uid: 'p2' },
    spec: { nodeName: 'node-2' },
  },
  'nodes//node-1': { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1', uid: 'n1' } },
};
const plugin = nodeRestriction({
  get: async (ref, ns, name) => stored[`${ref.resource}/${ns}/${name}`],
});

type Def = typeof PODS;
function req(def: Def, operation: Operation, name: string, more: Partial<Parameters<typeof attributesFor>[1]> = {}) {
  return attributesFor(def, { operation, object: undefined, namespace: 'dev', name, user: node1, ...more });
}

async function refusal(attrs: AdmissionAttributes): Promise<string> {
  try {
    await plugin.admit?.(attrs);
  } catch (err) {
    const e = err as { code: number; message: string };
    assert.equal(e.code, 403);
    return e.message;
  }
  throw new Error('admitted');
}

const mirror = (over: Record<string, unknown> = {}, spec: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name: 'static-node-1',
    namespace: 'dev',
    annotations: { 'kubernetes.io/config.mirror': 'hash' },
    ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'node-1', uid: 'n1', controller: true }],
    ...over,
  },
  spec: { nodeName: 'node-1', containers: [{ name: 'c', image: 'i' }], ...spec },
});

describe('NodeRestriction', () => {
  it('leaves requests of users that are not nodes alone', async () => {
    const jane = { name: 'jane', groups: [] };
    await plugin.admit?.(req(NODES, 'UPDATE', 'node-2', { user: jane }));
    await plugin.admit?.(req(NODES, 'UPDATE', 'node-2', { user: undefined }));
  });

  it('a node modifies only its own Node, never its taints or restricted labels', async () => {
    assert.equal(
      await refusal(req(NODES, 'UPDATE', 'node-2')),
      'nodes "node-2" is forbidden: node "node-1" is not allowed to modify node "node-2"',
    );
    const old: KubeObject = {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'node-1', labels: { a: '1' } },
      spec: {},
    };
    const edit = (labels: Record<string, string>, spec: Record<string, unknown> = {}) =>
      req(NODES, 'UPDATE', 'node-1', {
        oldObject: old,
        object: { ...old, metadata: { name: 'node-1', labels }, spec },
      });
    await plugin.admit?.(
      edit({ a: '2', 'kubernetes.io/arch': 'arm64', 'node.kubernetes.io/x': 'y', 'example.com/z': 'z' }),
    );
    await plugin.admit?.(edit({ a: '1' }, { taints: [] }));
    assert.equal(
      await refusal(edit({ a: '1' }, { taints: [{ key: 'k', effect: 'NoSchedule' }] })),
      'nodes "node-1" is forbidden: node "node-1" is not allowed to modify taints',
    );
    assert.equal(
      await refusal(edit({ 'node-restriction.kubernetes.io/pool': 'secure', 'node-role.kubernetes.io/master': '' })),
      'nodes "node-1" is forbidden: is not allowed to modify labels: node-restriction.kubernetes.io/pool, node-role.kubernetes.io/master',
    );
    const create = req(NODES, 'CREATE', 'node-1', {
      object: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1', labels: { 'foo.k8s.io/x': '1' } } },
    });
    assert.equal(
      await refusal(create),
      'nodes "node-1" is forbidden: node "node-1" is not allowed to set the following labels: foo.k8s.io/x',
    );
    assert.deepEqual(
      forbiddenNodeLabels({ 'kubelet.kubernetes.io/a': '1', 'a.node-restriction.kubernetes.io/b': '1' }, {}),
      ['a.node-restriction.kubernetes.io/b'],
    );
  });

  it('a node creates only mirror pods bound to and owned by itself, referencing nothing', async () => {
    const create = (pod: KubeObject) => req(PODS, 'CREATE', pod.metadata.name ?? '', { object: pod });
    await plugin.admit?.(create(mirror()));
    assert.equal(
      await refusal(create(mirror({ annotations: {} }))),
      'pods "static-node-1" is forbidden: pod does not have "kubernetes.io/config.mirror" annotation, node "node-1" can only create mirror pods',
    );
    assert.match(
      await refusal(create(mirror({}, { nodeName: 'node-2' }))),
      /node "node-1" can only create pods with spec.nodeName set to itself$/,
    );
    assert.match(
      await refusal(
        create(mirror({ ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'node-1', uid: 'n1' }] })),
      ),
      /can only create pods with a controller owner reference set to itself$/,
    );
    assert.match(
      await refusal(
        create(
          mirror({
            ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'node-1', uid: 'zz', controller: true }],
          }),
        ),
      ),
      /node node-1 UID mismatch: expected zz got n1$/,
    );
    assert.match(
      await refusal(create(mirror({}, { volumes: [{ name: 'v', secret: { secretName: 's' } }] }))),
      /node "node-1" can not create pods that reference secrets$/,
    );
    assert.match(
      await refusal(create(mirror({}, { volumes: [{ name: 'v', persistentVolumeClaim: { claimName: 'c' } }] }))),
      /node "node-1" can not create pods that reference persistentvolumeclaims$/,
    );
  });

  it('a node deletes, evicts and updates the status of only its own pods', async () => {
    await plugin.admit?.(req(PODS, 'DELETE', 'mine'));
    assert.equal(
      await refusal(req(PODS, 'DELETE', 'theirs')),
      'pods "theirs" is forbidden: node "node-1" can only delete pods with spec.nodeName set to itself',
    );
    await assert.rejects(plugin.admit?.(req(PODS, 'DELETE', 'gone')) as Promise<void>, { code: 404 });
    const theirs = stored['pods/dev/theirs'] as KubeObject;
    assert.match(
      await refusal(req(PODS, 'UPDATE', 'theirs', { subresource: 'status', oldObject: theirs, object: theirs })),
      /node "node-1" can only update pod status for pods with spec.nodeName set to itself$/,
    );
    const mine = stored['pods/dev/mine'] as KubeObject;
    const relabelled = { ...mine, metadata: { ...mine.metadata, labels: { x: 'y' } } };
    assert.match(
      await refusal(req(PODS, 'UPDATE', 'mine', { subresource: 'status', oldObject: mine, object: relabelled })),
      /node "node-1" cannot update labels through pod status$/,
    );
    const eviction = { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'theirs' } };
    assert.match(
      await refusal(req(PODS, 'CREATE', 'theirs', { subresource: 'eviction', object: eviction })),
      /node node-1 can only evict pods with spec.nodeName set to itself$/,
    );
    assert.equal(
      await refusal(req(PODS, 'UPDATE', 'mine', { subresource: 'exec', object: mine })),
      `pods "mine" is forbidden: unexpected pod subresource "exec", only 'status' and 'eviction' are allowed`,
    );
    assert.match(
      await refusal(req(PODS, 'UPDATE', 'mine', { object: mine, oldObject: mine })),
      /can only create and delete mirror pods$/,
    );
  });

  it('leases and tokens: only its own', async () => {
    const lease = (ns: string, name: string) =>
      req(LEASES, 'CREATE', '', {
        namespace: ns,
        object: { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name } },
      });
    await plugin.admit?.(lease('kube-node-lease', 'node-1'));
    assert.match(
      await refusal(lease('kube-node-lease', 'node-2')),
      /can only access node lease with the same name as the requesting node$/,
    );
    assert.match(
      await refusal(lease('default', 'node-1')),
      /can only access leases in the "kube-node-lease" system namespace$/,
    );
    const token = (ref: Record<string, unknown> | undefined) =>
      req(SAS, 'CREATE', 'default', {
        subresource: 'token',
        object: {
          apiVersion: 'authentication.k8s.io/v1',
          kind: 'TokenRequest',
          metadata: {},
          spec: ref ? { boundObjectRef: ref } : {},
        },
      });
    await plugin.admit?.(token({ apiVersion: 'v1', kind: 'Pod', name: 'mine', uid: 'p1' }));
    assert.match(await refusal(token(undefined)), /node requested token not bound to a pod$/);
    assert.match(await refusal(token({ apiVersion: 'v1', kind: 'Pod', name: 'mine' })), /without a uid$/);
    assert.match(
      await refusal(token({ apiVersion: 'v1', kind: 'Pod', name: 'theirs', uid: 'p2' })),
      /node requested token bound to a pod scheduled on a different node$/,
    );
  });

  it('is turned on by default unless the flags name it', () => {
    assert.deepEqual(withNodeRestriction(undefined), { enablePlugins: [NODE_RESTRICTION] });
    assert.deepEqual(withNodeRestriction({ disablePlugins: [NODE_RESTRICTION] }), {
      disablePlugins: [NODE_RESTRICTION],
    });
  });
});
