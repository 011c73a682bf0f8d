/**
 * The CSI resources of storage.k8s.io/v1 through the HTTP API: CSIDrivers, CSINodes, CSIStorageCapacities and
 * VolumeAttachments with upstream's defaults, validation messages, immutable fields, the status subresource of
 * VolumeAttachments, and their Table columns.
 */
import { after, before, describe, it } from 'node:test';
import { type ControlPlane, startControlPlane } from '../../src/index.js';
import { apiRequest } from '../../src/testing/api-client.js';
import assert from '../../src/testing/assert.js';

const TABLE = { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' };
const MERGE = 'application/merge-patch+json';
const STORAGE = '/apis/storage.k8s.io/v1';
const SUBDOMAIN =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

const columnNames = (table: { columnDefinitions: { name: string }[] }) => table.columnDefinitions.map((c) => c.name);

describe('storage.k8s.io/v1 CSI resources through the HTTP API', () => {
  let cp: ControlPlane;
  before(async () => {
    cp = await startControlPlane();
  });
  after(async () => {
    await cp?.stop();
  });

  it('lists the resources in plain and aggregated discovery as upstream v1.33 does', async () => {
    const plain = await apiRequest(cp, 'GET', STORAGE);
    assert.deepEqual(
      plain.body.resources.map((r: { name: string; namespaced: boolean; kind: string; verbs: string[] }) => [
        r.name,
        r.namespaced,
        r.kind,
        r.verbs.join(','),
      ]),
      [
        ['csidrivers', false, 'CSIDriver', 'create,delete,deletecollection,get,list,patch,update,watch'],
        ['csinodes', false, 'CSINode', 'create,delete,deletecollection,get,list,patch,update,watch'],
        [
          'csistoragecapacities',
          true,
          'CSIStorageCapacity',
          'create,delete,deletecollection,get,list,patch,update,watch',
        ],
        ['storageclasses', false, 'StorageClass', 'create,delete,deletecollection,get,list,patch,update,watch'],
        ['volumeattachments', false, 'VolumeAttachment', 'create,delete,deletecollection,get,list,patch,update,watch'],
        ['volumeattachments/status', false, 'VolumeAttachment', 'get,patch,update'],
      ],
    );
    const aggregated = await apiRequest(cp, 'GET', '/apis', {
      headers: { accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' },
    });
    const group = aggregated.body.items.find(
      (g: { metadata: { name: string } }) => g.metadata.name === 'storage.k8s.io',
    );
    assert.deepEqual(
      group.versions[0].resources.map(
        (r: {
          resource: string;
          scope: string;
          singularResource: string;
          subresources?: { subresource: string }[];
        }) => [r.resource, r.scope, r.singularResource, (r.subresources ?? []).map((sub) => sub.subresource)],
      ),
      [
        ['csidrivers', 'Cluster', 'csidriver', []],
        ['csinodes', 'Cluster', 'csinode', []],
        ['csistoragecapacities', 'Namespaced', 'csistoragecapacity', []],
        ['storageclasses', 'Cluster', 'storageclass', []],
        ['volumeattachments', 'Cluster', 'volumeattachment', ['status']],
      ],
    );
  });

  it('defaults a CSIDriver spec, bumps generation on spec changes, keeps attachRequired and prints its columns', async () => {
    const created = await apiRequest(cp, 'POST', `${STORAGE}/csidrivers`, {
      body: { metadata: { name: 'csi.example.com' }, spec: { tokenRequests: [{ audience: 'vault' }] } },
    });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(created.body.spec, {
      attachRequired: true,
      podInfoOnMount: false,
      storageCapacity: false,
      fsGroupPolicy: 'ReadWriteOnceWithFSType',
      volumeLifecycleModes: ['Persistent'],
      requiresRepublish: false,
      seLinuxMount: false,
      tokenRequests: [{ audience: 'vault' }],
    });
    assert.equal(created.body.metadata.generation, undefined, 'a new CSIDriver has no generation');
    const gated = await apiRequest(cp, 'POST', `${STORAGE}/csidrivers`, {
      body: { metadata: { name: 'gated.example.com' }, spec: { nodeAllocatableUpdatePeriodSeconds: 60 } },
    });
    assert.equal(gated.status, 201, gated.text);
    assert.equal(gated.body.spec.nodeAllocatableUpdatePeriodSeconds, undefined, 'dropped: its feature gate is off');

    const path = `${STORAGE}/csidrivers/csi.example.com`;
    const patched = await apiRequest(cp, 'PATCH', path, {
      body: { spec: { podInfoOnMount: true } },
      contentType: MERGE,
    });
    assert.equal(patched.status, 200, patched.text);
    assert.equal(patched.body.metadata.generation, 1);
    const labelled = await apiRequest(cp, 'PATCH', path, {
      body: { metadata: { labels: { a: 'b' } } },
      contentType: MERGE,
    });
    assert.equal(labelled.body.metadata.generation, 1, 'metadata changes do not count');
    const fixed = await apiRequest(cp, 'PATCH', path, {
      body: { spec: { attachRequired: false, volumeLifecycleModes: ['Ephemeral'] } },
      contentType: MERGE,
    });
    assert.equal(fixed.status, 422);
    assert.equal(
      fixed.body.message,
      'CSIDriver.storage.k8s.io "csi.example.com" is invalid: [spec.attachedRequired: Invalid value: false: field is immutable, spec.volumeLifecycleModes: Invalid value: []storage.VolumeLifecycleMode{"Ephemeral"}: field is immutable]',
    );

    const table = await apiRequest(cp, 'GET', `${STORAGE}/csidrivers`, { headers: TABLE });
    assert.deepEqual(columnNames(table.body), [
      'Name',
      'AttachRequired',
      'PodInfoOnMount',
      'StorageCapacity',
      'TokenRequests',
      'RequiresRepublish',
      'Modes',
      'Age',
    ]);
    const row = table.body.rows.find((r: { cells: unknown[] }) => r.cells[0] === 'csi.example.com');
    assert.deepEqual(row.cells.slice(0, 7), ['csi.example.com', true, true, false, 'vault', false, 'Persistent']);
    const other = table.body.rows.find((r: { cells: unknown[] }) => r.cells[0] === 'gated.example.com');
    assert.equal(other.cells[4], '<unset>');

    const deleted = await apiRequest(cp, 'DELETE', `${STORAGE}/csidrivers/gated.example.com`);
    assert.equal(deleted.status, 200);
    assert.equal(deleted.body.kind, 'CSIDriver', 'DELETE answers with the deleted object');
  });

  it('refuses an invalid CSIDriver with upstream text', async () => {
    const res = await apiRequest(cp, 'POST', `${STORAGE}/csidrivers`, {
      body: {
        metadata: { name: 'Bad_Name' },
        spec: {
          fsGroupPolicy: 'Sometimes',
          tokenRequests: [{ audience: 'a', expirationSeconds: 60 }, { audience: 'a' }],
          volumeLifecycleModes: ['Forever'],
        },
      },
    });
    assert.equal(res.status, 422);
    assert.equal(
      res.body.message,
      `CSIDriver.storage.k8s.io "Bad_Name" is invalid: [metadata.name: Invalid value: "Bad_Name": ${SUBDOMAIN}, spec.fsGroupPolicy: Unsupported value: "Sometimes": supported values: "File", "None", "ReadWriteOnceWithFSType", spec.tokenRequests[0].expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes, spec.tokenRequests[1].audience: Duplicate value: "a", spec.volumeLifecycleModes: Unsupported value: "Forever": supported values: "Persistent", "Ephemeral"]`,
    );
  });

  it('validates CSINode drivers, keeps a listed driver as it was, and prints the number of drivers', async () => {
    const driver = { name: 'csi.example.com', nodeID: 'node-1', topologyKeys: ['topology.example.com/zone'] };
    const dup = await apiRequest(cp, 'POST', `${STORAGE}/csinodes`, {
      body: {
        metadata: { name: 'node-1' },
        spec: { drivers: [driver, { ...driver, nodeID: 'x'.repeat(193), topologyKeys: ['a', 'a', 'not/valid/key'] }] },
      },
    });
    assert.equal(dup.status, 422);
    assert.equal(
      dup.body.message,
      'CSINode.storage.k8s.io "node-1" is invalid: [spec.drivers[1].nodeID: Invalid value: "' +
        'x'.repeat(193) +
        "\": must be 192 characters or less, spec.drivers[1].name: Duplicate value: \"csi.example.com\", spec.drivers[1]: Duplicate value: \"a\", spec.drivers[1]: Invalid value: \"not/valid/key\": a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')]",
    );
    const created = await apiRequest(cp, 'POST', `${STORAGE}/csinodes`, {
      body: { metadata: { name: 'node-1' }, spec: { drivers: [{ name: 'csi.example.com', nodeID: 'node-1' }] } },
    });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(created.body.spec.drivers, [{ name: 'csi.example.com', nodeID: 'node-1', topologyKeys: null }]);
    const empty = await apiRequest(cp, 'POST', `${STORAGE}/csinodes`, { body: { metadata: { name: 'node-2' } } });
    assert.equal(empty.status, 201, empty.text);
    assert.deepEqual(empty.body.spec, { drivers: null }, 'a nil list is written as null, as Go writes it');

    // A strategic merge patch adds a driver to the list by name; the listed one may not change.
    const added = await apiRequest(cp, 'PATCH', `${STORAGE}/csinodes/node-1`, {
      body: { spec: { drivers: [{ name: 'other.example.com', nodeID: 'n1' }] } },
      contentType: 'application/strategic-merge-patch+json',
    });
    assert.equal(added.status, 200, added.text);
    assert.deepEqual(added.body.spec.drivers.map((d: { name: string }) => d.name).sort(), [
      'csi.example.com',
      'other.example.com',
    ]);
    const changed = await apiRequest(cp, 'PATCH', `${STORAGE}/csinodes/node-1`, {
      body: { spec: { drivers: [{ name: 'csi.example.com', nodeID: 'node-1', allocatable: { count: 5 } }] } },
      contentType: 'application/strategic-merge-patch+json',
    });
    assert.equal(changed.status, 422);
    assert.equal(
      changed.body.message,
      'CSINode.storage.k8s.io "node-1" is invalid: spec.drivers: Invalid value: storage.CSINodeDriver{Name:"csi.example.com", NodeID:"node-1", TopologyKeys:[]string(nil), Allocatable:(*storage.VolumeNodeResources)(0xc000000000)}: field is immutable',
    );

    const table = await apiRequest(cp, 'GET', `${STORAGE}/csinodes`, { headers: TABLE });
    assert.deepEqual(columnNames(table.body), ['Name', 'Drivers', 'Age']);
    assert.deepEqual(
      table.body.rows.map((r: { cells: unknown[] }) => r.cells.slice(0, 2)),
      [
        ['node-1', 2],
        ['node-2', 0],
      ],
    );
  });

  it('stores CSIStorageCapacities in their namespace with canonical quantities and fixed inputs', async () => {
    const base = `${STORAGE}/namespaces/default/csistoragecapacities`;
    const created = await apiRequest(cp, 'POST', base, {
      body: {
        metadata: { name: 'fast-zone-a' },
        storageClassName: 'fast',
        nodeTopology: { matchLabels: { 'topology.example.com/zone': 'a' } },
        capacity: '1024Mi',
      },
    });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.body.capacity, '1Gi');
    assert.equal(created.body.metadata.namespace, 'default');
    const moved = await apiRequest(cp, 'PATCH', `${base}/fast-zone-a`, {
      body: { storageClassName: 'slow', capacity: '2Gi' },
      contentType: MERGE,
    });
    assert.equal(moved.status, 422);
    assert.equal(
      moved.body.message,
      'CSIStorageCapacity.storage.k8s.io "fast-zone-a" is invalid: storageClassName: Invalid value: "slow": field is immutable',
    );
    const negative = await apiRequest(cp, 'POST', base, {
      body: { metadata: { name: 'broken' }, storageClassName: 'Fast', capacity: '-1Gi' },
    });
    assert.equal(negative.status, 422);
    assert.equal(
      negative.body.message,
      `CSIStorageCapacity.storage.k8s.io "broken" is invalid: [storageClassName: Invalid value: "Fast": ${SUBDOMAIN}, capacity: Invalid value: "-1Gi": must be greater than or equal to 0]`,
    );
    const table = await apiRequest(cp, 'GET', base, { headers: TABLE });
    assert.deepEqual(columnNames(table.body), ['Name', 'Created At'], "upstream's default table");
    const deleted = await apiRequest(cp, 'DELETE', `${base}/fast-zone-a`);
    assert.equal(deleted.body.kind, 'Status', 'DELETE answers with a Status');
  });

  it('keeps VolumeAttachment status to /status and its spec fixed, and prints its columns', async () => {
    const base = `${STORAGE}/volumeattachments`;
    const created = await apiRequest(cp, 'POST', base, {
      body: {
        metadata: { name: 'va-1' },
        spec: { attacher: 'csi.example.com', nodeName: 'node-1', source: { persistentVolumeName: 'pv-1' } },
        status: { attached: true },
      },
    });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(created.body.status, { attached: false }, 'status is reset on create');

    const put = await apiRequest(cp, 'PUT', `${base}/va-1`, {
      body: { ...created.body, status: { attached: true } },
    });
    assert.equal(put.status, 200, put.text);
    assert.equal(put.body.status.attached, false, 'the main resource does not write status');

    const status = await apiRequest(cp, 'PATCH', `${base}/va-1/status`, {
      body: {
        spec: { nodeName: 'node-9' },
        status: { attached: true, attachmentMetadata: { lun: '3' }, detachError: { message: 'busy', errorCode: 9 } },
      },
      contentType: MERGE,
    });
    assert.equal(status.status, 200, status.text);
    assert.deepEqual(status.body.status, {
      attached: true,
      attachmentMetadata: { lun: '3' },
      detachError: { message: 'busy', time: null },
    });
    assert.equal(status.body.spec.nodeName, 'node-1', '/status does not write the spec');

    const moved = await apiRequest(cp, 'PATCH', `${base}/va-1`, {
      body: { spec: { nodeName: 'node-2' } },
      contentType: MERGE,
    });
    assert.equal(moved.status, 422);
    assert.equal(
      moved.body.message,
      'VolumeAttachment.storage.k8s.io "va-1" is invalid: spec: Invalid value: storage.VolumeAttachmentSpec{Attacher:"csi.example.com", Source:storage.VolumeAttachmentSource{PersistentVolumeName:(*string)(0xc000000000), InlineVolumeSpec:(*core.PersistentVolumeSpec)(nil)}, NodeName:"node-2"}: field is immutable',
    );

    const invalid = await apiRequest(cp, 'POST', base, {
      body: { metadata: { name: 'va-2' }, spec: { attacher: 'Not_A_Driver', nodeName: '' } },
    });
    assert.equal(invalid.status, 422);
    assert.equal(
      invalid.body.message,
      `VolumeAttachment.storage.k8s.io "va-2" is invalid: [spec.source: Required value: must specify exactly one of inlineVolumeSpec and persistentVolumeName, spec.nodeName: Invalid value: "": ${SUBDOMAIN}, spec.attacher: Invalid value: "Not_A_Driver": ${SUBDOMAIN}]`,
    );

    const table = await apiRequest(cp, 'GET', base, { headers: TABLE });
    assert.deepEqual(columnNames(table.body), ['Name', 'Attacher', 'PV', 'Node', 'Attached', 'Age']);
    assert.deepEqual(table.body.rows[0].cells.slice(0, 5), ['va-1', 'csi.example.com', 'pv-1', 'node-1', true]);
    const deleted = await apiRequest(cp, 'DELETE', `${base}/va-1`);
    assert.equal(deleted.body.kind, 'VolumeAttachment');
  });
});
