/**
 * The propagation policy a DELETE takes when it names none: batch/v1 Jobs and v1 ReplicationControllers orphan their
 * dependents (upstream's DefaultGarbageCollectionPolicy OrphanDependents, kept for backward compatibility), other
 * resources delete them in the background.
 */
import { after, before, describe, it } from 'node:test';
import { type ControlPlane, startControlPlane } from '../../src/index.js';
import { apiRequest } from '../../src/testing/api-client.js';
import assert from '../../src/testing/assert.js';

const template = {
  metadata: { labels: { app: 'x' } },
  spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] },
};

describe('DELETE without a propagation policy', () => {
  let cp: ControlPlane;
  before(async () => {
    cp = await startControlPlane();
  });
  after(async () => {
    await cp?.stop();
  });

  it('orphans the pods of a Job and of a ReplicationController: the orphan finalizer, the object answered', async () => {
    const jobs = '/apis/batch/v1/namespaces/default/jobs';
    assert.equal(
      (await apiRequest(cp, 'POST', jobs, { body: { metadata: { name: 'j' }, spec: { template } } })).status,
      201,
    );
    const job = await apiRequest(cp, 'DELETE', `${jobs}/j`);
    assert.equal(job.status, 200, job.text);
    assert.equal(job.body.kind, 'Job');
    assert.deepEqual(job.body.metadata.finalizers, ['orphan']);
    assert.ok(job.body.metadata.deletionTimestamp);

    const rcs = '/api/v1/namespaces/default/replicationcontrollers';
    const always = { ...template, spec: { ...template.spec, restartPolicy: 'Always' } };
    const rc = { metadata: { name: 'rc' }, spec: { replicas: 0, selector: { app: 'x' }, template: always } };
    assert.equal((await apiRequest(cp, 'POST', rcs, { body: rc })).status, 201);
    const deleted = await apiRequest(cp, 'DELETE', `${rcs}/rc`);
    assert.equal(deleted.status, 200, deleted.text);
    assert.deepEqual(deleted.body.metadata.finalizers, ['orphan']);
  });

  it('keeps a named policy, and deletes other resources at once', async () => {
    const jobs = '/apis/batch/v1/namespaces/default/jobs';
    assert.equal(
      (await apiRequest(cp, 'POST', jobs, { body: { metadata: { name: 'bg' }, spec: { template } } })).status,
      201,
    );
    const background = await apiRequest(cp, 'DELETE', `${jobs}/bg`, { body: { propagationPolicy: 'Background' } });
    assert.equal(background.status, 200, background.text);
    assert.equal(background.body.kind, 'Status');
    assert.equal((await apiRequest(cp, 'GET', `${jobs}/bg`)).status, 404);

    const deployments = '/apis/apps/v1/namespaces/default/deployments';
    const deployment = { metadata: { name: 'd' }, spec: { selector: { matchLabels: { app: 'x' } }, template } };
    deployment.spec.template = { ...template, spec: { ...template.spec, restartPolicy: 'Always' } };
    assert.equal((await apiRequest(cp, 'POST', deployments, { body: deployment })).status, 201);
    const gone = await apiRequest(cp, 'DELETE', `${deployments}/d`);
    assert.equal(gone.status, 200, gone.text);
    assert.equal(gone.body.kind, 'Status');
  });
});
