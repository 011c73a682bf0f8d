/**
 * The real kubectl against the storage.k8s.io group: api-resources lists the resources a default v1.33
 * kube-apiserver serves there, with upstream's scope and kinds; get prints the CSI resources' server-side columns;
 * explain reads their fields from the OpenAPI documents.
 */
import { after, before, describe, it } from 'node:test';
import { type ControlPlane, startControlPlane } from '../../src/index.js';
import { apiRequest, kubectl } from '../../src/testing/api-client.js';
import assert from '../../src/testing/assert.js';

/** The rows of kubectl's column output, split at the header's column starts. */
function rows(text: string): string[][] {
  const [header = '', ...lines] = text.trimEnd().split('\n');
  const starts = [...header.matchAll(/\S+(?: \S+)*/g)].map((m) => m.index ?? 0);
  return [header, ...lines].map((line) =>
    starts.map((start, i) => line.slice(start, starts[i + 1] ?? line.length).trim()),
  );
}

describe('kubectl and the storage.k8s.io resources', () => {
  let cp: ControlPlane;
  before(async () => {
    cp = await startControlPlane();
    for (const [path, body] of [
      [
        '/apis/storage.k8s.io/v1/csinodes',
        { metadata: { name: 'node-1' }, spec: { drivers: [{ name: 'd', nodeID: 'n' }] } },
      ],
      ['/apis/storage.k8s.io/v1/csidrivers', { metadata: { name: 'csi.example.com' }, spec: {} }],
      [
        '/apis/storage.k8s.io/v1/namespaces/default/csistoragecapacities',
        { metadata: { name: 'cap' }, storageClassName: 'fast' },
      ],
    ] as const) {
      const res = await apiRequest(cp, 'POST', path, { body });
      assert.equal(res.status, 201, res.text);
    }
  });
  after(async () => {
    await cp?.stop();
  });

  it('lists the group as upstream v1.33 serves it', async () => {
    const res = await kubectl(cp, ['api-resources', '--api-group=storage.k8s.io']);
    assert.equal(res.code, 0, res.stderr);
    assert.deepEqual(rows(res.stdout), [
      ['NAME', 'SHORTNAMES', 'APIVERSION', 'NAMESPACED', 'KIND'],
      ['csidrivers', '', 'storage.k8s.io/v1', 'false', 'CSIDriver'],
      ['csinodes', '', 'storage.k8s.io/v1', 'false', 'CSINode'],
      ['csistoragecapacities', '', 'storage.k8s.io/v1', 'true', 'CSIStorageCapacity'],
      ['storageclasses', 'sc', 'storage.k8s.io/v1', 'false', 'StorageClass'],
      ['volumeattachments', '', 'storage.k8s.io/v1', 'false', 'VolumeAttachment'],
    ]);
  });

  it('gets the CSI resources with their server-side columns', async () => {
    const nodes = await kubectl(cp, ['get', 'csinodes']);
    assert.equal(nodes.code, 0, nodes.stderr);
    const [header, row] = rows(nodes.stdout);
    assert.deepEqual(header, ['NAME', 'DRIVERS', 'AGE']);
    assert.deepEqual(row?.slice(0, 2), ['node-1', '1']);
    const drivers = await kubectl(cp, ['get', 'csidriver', 'csi.example.com']);
    assert.equal(drivers.code, 0, drivers.stderr);
    assert.deepEqual(
      rows(drivers.stdout).map((r) => r.slice(0, 7)),
      [
        ['NAME', 'ATTACHREQUIRED', 'PODINFOONMOUNT', 'STORAGECAPACITY', 'TOKENREQUESTS', 'REQUIRESREPUBLISH', 'MODES'],
        ['csi.example.com', 'true', 'false', 'false', '<unset>', 'false', 'Persistent'],
      ],
    );
    const capacities = await kubectl(cp, ['get', 'csistoragecapacities', '-A']);
    assert.equal(capacities.code, 0, capacities.stderr);
    assert.match(capacities.stdout, /^NAMESPACE\s+NAME\s+CREATED AT\n/);
    assert.match(capacities.stdout, /^default\s+cap\s+\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/m);
    const none = await kubectl(cp, ['get', 'volumeattachments']);
    assert.equal(none.code, 0, none.stderr);
    assert.equal(none.stderr, 'No resources found\n');
  });

  it('explains CSIDriver fields', async () => {
    const res = await kubectl(cp, ['explain', 'csidriver.spec.attachRequired']);
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stdout, /^GROUP:\s+storage\.k8s\.io$/m);
    assert.match(res.stdout, /^KIND:\s+CSIDriver$/m);
    assert.match(res.stdout, /^FIELD: attachRequired <boolean>$/m);
    const spec = await kubectl(cp, ['explain', 'csidriver.spec']);
    assert.equal(spec.code, 0, spec.stderr);
    assert.match(spec.stdout, /^FIELD: spec <CSIDriverSpec>$/m);
    assert.match(spec.stdout, /^ {2}tokenRequests\t<\[\]TokenRequest>$/m);
    assert.match(spec.stdout, /^ {2}volumeLifecycleModes\t<\[\]string>$/m);
  });
});
