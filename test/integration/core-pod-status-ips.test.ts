import { after, before, describe, it } from 'node:test';
import { type ControlPlane, startControlPlane } from '../../src/index.js';
import { apiRequest } from '../../src/testing/api-client.js';
import assert from '../../src/testing/assert.js';

/**
 * A pod's status IPs as upstream has them: podIP and podIPs are one internal list, which the v1 conversion keeps in
 * step; hostIP and hostIPs are two fields that validation requires to agree.
 */
const PODS = '/api/v1/namespaces/default/pods';
type Rec = Record<string, unknown>;

describe("a pod's status IPs", () => {
  let cp: ControlPlane;
  let created: Rec;
  before(async () => {
    cp = await startControlPlane();
    const res = await apiRequest(cp, 'POST', PODS, {
      body: { metadata: { name: 'ips' }, spec: { nodeName: 'node-a', containers: [{ name: 'c', image: 'nginx' }] } },
    });
    assert.equal(res.status, 201, res.text);
    created = res.body;
  });
  after(async () => {
    await cp?.stop();
  });

  const putStatus = (status: Rec) =>
    apiRequest(cp, 'PUT', `${PODS}/ips/status`, { body: { ...created, metadata: { name: 'ips' }, status } });

  it('reads podIP as the whole list when it disagrees with podIPs[0], the older field winning', async () => {
    const res = await putStatus({
      phase: 'Running',
      podIP: '10.0.0.1',
      podIPs: [{ ip: '10.0.0.2' }, { ip: 'fd00::2' }],
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.status.podIP, '10.0.0.1');
    assert.deepEqual(res.body.status.podIPs, [{ ip: '10.0.0.1' }]);
  });

  it('writes podIP as podIPs[0] when only the list is given', async () => {
    const res = await putStatus({ phase: 'Running', podIPs: [{ ip: '10.0.0.3' }, { ip: 'fd00::3' }] });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.status.podIP, '10.0.0.3');
    assert.deepEqual(res.body.status.podIPs, [{ ip: '10.0.0.3' }, { ip: 'fd00::3' }]);
  });

  it('keeps hostIP alone as it is, and refuses hostIPs whose first is not hostIP', async () => {
    const alone = await putStatus({ phase: 'Running', hostIP: '192.168.0.1' });
    assert.equal(alone.status, 200, alone.text);
    assert.equal(alone.body.status.hostIP, '192.168.0.1');
    assert.ok(!('hostIPs' in alone.body.status), alone.text);
    const mismatch = await putStatus({ phase: 'Running', hostIP: '192.168.0.1', hostIPs: [{ ip: '192.168.0.2' }] });
    assert.equal(mismatch.status, 422, mismatch.text);
    assert.equal(
      mismatch.body.message,
      'Pod "ips" is invalid: status.hostIPs[0].ip: Invalid value: "192.168.0.2": must be equal to `hostIP`',
    );
    const missing = await putStatus({ phase: 'Running', hostIPs: [{ ip: '192.168.0.2' }] });
    assert.equal(missing.status, 422, missing.text);
    const both = await putStatus({ phase: 'Running', hostIP: '192.168.0.2', hostIPs: [{ ip: '192.168.0.2' }] });
    assert.equal(both.status, 200, both.text);
    assert.deepEqual(both.body.status.hostIPs, [{ ip: '192.168.0.2' }]);
  });

  it('refuses IP lists with two of a family or a duplicate', async () => {
    const pod = await putStatus({ phase: 'Running', podIPs: [{ ip: '10.0.0.4' }, { ip: '10.0.0.4' }] });
    assert.equal(pod.status, 422, pod.text);
    assert.equal(
      pod.body.message,
      'Pod "ips" is invalid: [status.podIPs: Invalid value: []core.PodIP{core.PodIP{IP:"10.0.0.4"}, core.PodIP{IP:"10.0.0.4"}}: may specify no more than one IP for each IP family, status.podIPs[1]: Duplicate value: core.PodIP{IP:"10.0.0.4"}]',
    );
    const host = await putStatus({
      phase: 'Running',
      hostIP: '192.168.0.3',
      hostIPs: [{ ip: '192.168.0.3' }, { ip: '192.168.0.3' }],
    });
    assert.equal(host.status, 422, host.text);
    assert.equal(
      host.body.message,
      'Pod "ips" is invalid: [status.hostIPs[1]: Duplicate value: core.HostIP{IP:"192.168.0.3"}, status.hostIPs: Invalid value: []core.HostIP{core.HostIP{IP:"192.168.0.3"}, core.HostIP{IP:"192.168.0.3"}}: may specify no more than one IP for each IP family]',
    );
  });
});
