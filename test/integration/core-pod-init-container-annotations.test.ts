import { after, before, describe, it } from 'node:test';
import { type ControlPlane, startControlPlane } from '../../src/index.js';
import { apiRequest } from '../../src/testing/api-client.js';
import assert from '../../src/testing/assert.js';

/** Upstream's v1 conversion drops the pre-1.8 init-container annotations from pods and pod templates. */
const OLD = 'pod.beta.kubernetes.io/init-containers';
const containers = [{ name: 'c', image: 'nginx' }];

describe('the pre-1.8 init-container annotations', () => {
  let cp: ControlPlane;
  before(async () => {
    cp = await startControlPlane();
  });
  after(async () => {
    await cp?.stop();
  });

  it('are dropped from a pod, and the annotations with them when nothing else is left', async () => {
    const kept = await apiRequest(cp, 'POST', '/api/v1/namespaces/default/pods', {
      body: {
        metadata: {
          name: 'kept',
          annotations: { [OLD]: '[]', 'pod.alpha.kubernetes.io/init-containers': '[]', a: 'b' },
        },
        spec: { containers },
      },
    });
    assert.equal(kept.status, 201, kept.text);
    assert.deepEqual(kept.body.metadata.annotations, { a: 'b' });
    const emptied = await apiRequest(cp, 'POST', '/api/v1/namespaces/default/pods', {
      body: { metadata: { name: 'emptied', annotations: { [OLD]: '[]' } }, spec: { containers } },
    });
    assert.equal(emptied.status, 201, emptied.text);
    assert.ok(!('annotations' in emptied.body.metadata), emptied.text);
  });

  it('are dropped from the pod template of a Deployment, a ReplicationController and a PodTemplate', async () => {
    const template = { metadata: { labels: { app: 'x' }, annotations: { [OLD]: '[]', a: 'b' } }, spec: { containers } };
    const deployment = await apiRequest(cp, 'POST', '/apis/apps/v1/namespaces/default/deployments', {
      body: { metadata: { name: 'd' }, spec: { selector: { matchLabels: { app: 'x' } }, template } },
    });
    assert.equal(deployment.status, 201, deployment.text);
    assert.deepEqual(deployment.body.spec.template.metadata.annotations, { a: 'b' });
    const rc = await apiRequest(cp, 'POST', '/api/v1/namespaces/default/replicationcontrollers', {
      body: { metadata: { name: 'rc' }, spec: { selector: { app: 'x' }, template } },
    });
    assert.equal(rc.status, 201, rc.text);
    assert.deepEqual(rc.body.spec.template.metadata.annotations, { a: 'b' });
    const podTemplate = await apiRequest(cp, 'POST', '/api/v1/namespaces/default/podtemplates', {
      body: { metadata: { name: 'pt', annotations: { [OLD]: 'kept on the PodTemplate itself' } }, template },
    });
    assert.equal(podTemplate.status, 201, podTemplate.text);
    assert.deepEqual(podTemplate.body.template.metadata.annotations, { a: 'b' });
    assert.deepEqual(podTemplate.body.metadata.annotations, { [OLD]: 'kept on the PodTemplate itself' });
  });
});
