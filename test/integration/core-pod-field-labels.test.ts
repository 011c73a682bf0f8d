import { after, before, describe, it } from 'node:test';
import { type ControlPlane, startControlPlane } from '../../src/index.js';
import { apiRequest } from '../../src/testing/api-client.js';
import assert from '../../src/testing/assert.js';

const PODS = '/api/v1/namespaces/default/pods';

/** Upstream's field label conversion of pods: old v1 clients' spec.host is spec.nodeName. */
describe('pod field selectors with the legacy spec.host', () => {
  let cp: ControlPlane;
  before(async () => {
    cp = await startControlPlane();
    const res = await apiRequest(cp, 'POST', PODS, {
      body: { metadata: { name: 'on-a' }, spec: { nodeName: 'node-a', containers: [{ name: 'c', image: 'nginx' }] } },
    });
    assert.equal(res.status, 201, res.text);
  });
  after(async () => {
    await cp?.stop();
  });

  it('reads the field label spec.host as spec.nodeName', async () => {
    await apiRequest(cp, 'POST', PODS, {
      body: {
        metadata: { name: 'elsewhere' },
        spec: { nodeName: 'node-b', containers: [{ name: 'c', image: 'nginx' }] },
      },
    });
    const res = await apiRequest(cp, 'GET', `${PODS}?fieldSelector=spec.host%3Dnode-a`);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(
      res.body.items.map((p: { metadata: { name: string } }) => p.metadata.name),
      ['on-a'],
    );
    const other = await apiRequest(cp, 'GET', `${PODS}?fieldSelector=spec.host!%3Dnode-a`);
    assert.deepEqual(
      other.body.items.map((p: { metadata: { name: string } }) => p.metadata.name),
      ['elsewhere'],
    );
    const events = await apiRequest(cp, 'GET', `${PODS}?watch=true&timeoutSeconds=1&fieldSelector=spec.host%3Dnode-b`);
    assert.equal(events.status, 200, events.text);
    assert.match(events.text, /"name":"elsewhere"/);
    assert.doesNotMatch(events.text, /"name":"on-a"/);
  });
});
