import { after, before, describe, it } from 'node:test';
import {
  type AdmissionTestCluster,
  admissionRefusal,
  admissionTestCluster,
  runPlugin,
} from '../../../testing/admission-registry.js';
import assert from '../../../testing/assert.js';
import { attributesFor } from '../attributes.js';
import { ClusterReader } from './cluster-reader.js';
import { namespaceLifecycle } from './namespace-lifecycle.js';

describe('NamespaceLifecycle admission', () => {
  let cluster: AdmissionTestCluster;
  let plugin: ReturnType<typeof namespaceLifecycle>;
  const cm = (namespace: string, extra: Record<string, unknown> = {}) => ({
    metadata: { name: 'c', namespace, ...extra },
  });

  before(async () => {
    cluster = admissionTestCluster();
    await cluster.put('', 'v1', 'namespaces', { metadata: { name: 'live' } });
    await cluster.put('', 'v1', 'namespaces', { metadata: { name: 'going' } });
    // A delete leaves the namespace Terminating until its finalizer is gone.
    await cluster.registry.lookup('', 'v1', 'namespaces')?.store.delete('', 'going', { skipAdmission: true });
    await cluster.settle();
    plugin = namespaceLifecycle(new ClusterReader(cluster.registry));
  });
  after(() => cluster.close());

  it('lets creates into an active namespace through', async () => {
    await runPlugin(plugin, cluster.attrs('', 'v1', 'configmaps', { operation: 'CREATE', object: cm('live') }));
  });

  it('refuses creates and updates in a namespace that does not exist with NotFound for the namespace', async () => {
    for (const operation of ['CREATE', 'UPDATE'] as const) {
      const err = await admissionRefusal(
        runPlugin(
          plugin,
          cluster.attrs('', 'v1', 'configmaps', { operation, object: cm('nowhere'), oldObject: cm('nowhere') }),
        ),
        404,
      );
      assert.equal(err.code, 404);
      assert.equal(err.message, 'namespaces "nowhere" not found');
    }
  });

  it('lets a LocalSubjectAccessReview into a namespace that does not exist, and nothing else of its group', async () => {
    const review = { metadata: { namespace: 'nowhere' }, spec: { user: 'jane' } };
    const reviewIn = (group: string) =>
      attributesFor(
        {
          group,
          version: 'v1',
          resource: 'localsubjectaccessreviews',
          kind: 'LocalSubjectAccessReview',
          namespaced: true,
        },
        { operation: 'CREATE', object: review, namespace: 'nowhere', name: '' },
      );
    await runPlugin(plugin, reviewIn('authorization.k8s.io'));
    // The same resource name in another group is an ordinary namespaced write.
    await admissionRefusal(runPlugin(plugin, reviewIn('example.com')), 404);
  });

  it('finds a namespace the cache has not seen yet in storage', async () => {
    await cluster.put('', 'v1', 'namespaces', { metadata: { name: 'fresh' } });
    await runPlugin(plugin, cluster.attrs('', 'v1', 'configmaps', { operation: 'CREATE', object: cm('fresh') }));
  });

  it('refuses creates in a terminating namespace with the NamespaceTerminating cause, naming a generateName', async () => {
    const err = await admissionRefusal(
      runPlugin(
        plugin,
        cluster.attrs('', 'v1', 'configmaps', {
          operation: 'CREATE',
          object: { metadata: { generateName: 'job-', namespace: 'going' } },
          name: '',
        }),
      ),
    );
    assert.equal(err.code, 403);
    assert.equal(
      err.message,
      'configmaps "job-" is forbidden: unable to create new content in namespace going because it is being terminated',
    );
    assert.deepEqual(err.status.details?.causes, [
      { reason: 'NamespaceTerminating', message: 'namespace going is being terminated', field: 'metadata.namespace' },
    ]);
  });

  it('lets updates and deletes in a terminating namespace through (controllers clean up)', async () => {
    await runPlugin(
      plugin,
      cluster.attrs('', 'v1', 'configmaps', { operation: 'UPDATE', object: cm('going'), oldObject: cm('going') }),
    );
    await runPlugin(plugin, cluster.attrs('', 'v1', 'configmaps', { operation: 'DELETE', oldObject: cm('going') }));
  });

  it('refuses to delete default, kube-system and kube-public', async () => {
    for (const name of ['default', 'kube-system', 'kube-public']) {
      const err = await admissionRefusal(
        runPlugin(
          plugin,
          cluster.attrs('', 'v1', 'namespaces', { operation: 'DELETE', oldObject: { metadata: { name } }, name }),
        ),
      );
      assert.equal(err.code, 403);
      assert.equal(err.message, `namespaces "${name}" is forbidden: this namespace may not be deleted`);
    }
    await runPlugin(
      plugin,
      cluster.attrs('', 'v1', 'namespaces', {
        operation: 'DELETE',
        oldObject: { metadata: { name: 'live' } },
        name: 'live',
      }),
    );
  });

  it('leaves cluster-scoped objects and local access reviews alone', async () => {
    await runPlugin(
      plugin,
      cluster.attrs('rbac.authorization.k8s.io', 'v1', 'clusterroles', {
        operation: 'CREATE',
        object: { metadata: { name: 'r' } },
      }),
    );
  });
});
