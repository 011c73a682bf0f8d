import { after, before, describe, it } from 'node:test';
import { type ControlPlane, startControlPlane } from '../../src/index.js';
import { apiRequest } from '../../src/testing/api-client.js';
import assert from '../../src/testing/assert.js';

const JOBS = '/apis/batch/v1/namespaces/default/jobs';
const CRONJOBS = '/apis/batch/v1/namespaces/default/cronjobs';

const podTemplate = (restartPolicy?: string) => ({
  spec: { ...(restartPolicy ? { restartPolicy } : {}), containers: [{ name: 'pi', image: 'perl:5.34' }] },
});

describe('batch/v1 through the HTTP API', () => {
  let cp: ControlPlane;
  before(async () => {
    cp = await startControlPlane();
  });
  after(async () => {
    await cp?.stop();
  });

  it('gives a Job its generated selector and labels', async () => {
    const res = await apiRequest(cp, 'POST', JOBS, {
      body: { metadata: { name: 'pi' }, spec: { template: podTemplate('Never') } },
    });
    assert.equal(res.status, 201, res.text);
    const { metadata, spec } = res.body;
    const uid = metadata.uid;
    assert.deepEqual(spec.selector, { matchLabels: { 'batch.kubernetes.io/controller-uid': uid } });
    const expected = {
      'batch.kubernetes.io/controller-uid': uid,
      'batch.kubernetes.io/job-name': 'pi',
      'controller-uid': uid,
      'job-name': 'pi',
    };
    assert.deepEqual(spec.template.metadata.labels, expected);
    assert.deepEqual(metadata.labels, expected);
    assert.equal(spec.manualSelector, false);
    assert.equal(spec.backoffLimit, 6);
    assert.equal(spec.completions, 1);
    assert.equal(spec.parallelism, 1);
    assert.equal(spec.completionMode, 'NonIndexed');
    assert.equal(spec.suspend, false);
    assert.equal(spec.podReplacementPolicy, 'TerminatingOrFailed');
    assert.equal(metadata.generation, 1);
  });

  it('refuses the default restartPolicy with upstream text', async () => {
    const res = await apiRequest(cp, 'POST', JOBS, {
      body: { metadata: { name: 'always' }, spec: { template: podTemplate() } },
    });
    assert.equal(res.status, 422);
    assert.equal(
      res.body.message,
      'Job.batch "always" is invalid: spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"',
    );
  });

  it('keeps the template immutable and lists jobs by status.successful', async () => {
    const current = (await apiRequest(cp, 'GET', `${JOBS}/pi`)).body;
    const changed = structuredClone(current);
    changed.spec.template.spec.containers[0].image = 'perl:5.36';
    const res = await apiRequest(cp, 'PUT', `${JOBS}/pi`, { body: changed });
    assert.equal(res.status, 422);
    assert.match(
      res.body.message,
      /^Job\.batch "pi" is invalid: spec\.template: Invalid value: .*: field is immutable$/,
    );
    const done = await apiRequest(cp, 'PUT', `${JOBS}/pi/status`, { body: { ...current, status: { succeeded: 1 } } });
    assert.equal(done.status, 200, done.text);
    const one = await apiRequest(cp, 'GET', `${JOBS}?fieldSelector=status.successful=1`);
    assert.deepEqual(
      one.body.items.map((j: { metadata: { name: string } }) => j.metadata.name),
      ['pi'],
    );
    const none = await apiRequest(cp, 'GET', `${JOBS}?fieldSelector=status.successful=0`);
    assert.deepEqual(none.body.items, []);
  });

  it('defaults and validates CronJobs', async () => {
    const body = {
      metadata: { name: 'nightly' },
      spec: { schedule: '0 3 * * *', jobTemplate: { spec: { template: podTemplate('OnFailure') } } },
    };
    const res = await apiRequest(cp, 'POST', CRONJOBS, { body });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.spec.concurrencyPolicy, 'Allow');
    assert.equal(res.body.spec.suspend, false);
    assert.equal(res.body.spec.successfulJobsHistoryLimit, 3);
    assert.equal(res.body.spec.failedJobsHistoryLimit, 1);
    const bad = await apiRequest(cp, 'POST', CRONJOBS, {
      body: { ...body, metadata: { name: 'bad' }, spec: { ...body.spec, schedule: '0 25 * * *' } },
    });
    assert.equal(bad.status, 422);
    assert.equal(
      bad.body.message,
      'CronJob.batch "bad" is invalid: spec.schedule: Invalid value: "0 25 * * *": end of range (25) above maximum (23): 25',
    );
  });
});
