import { describe, it } from 'node:test';
import { semanticEqual } from '../../../api/semantic-equal.js';
import assert from '../../../testing/assert.js';
import type { KubeObject } from '../object.js';
import { csidrivers } from './storage-csidrivers.js';
import { csinodes } from './storage-csinodes.js';
import { volumeattachments } from './storage-volumeattachments.js';

const messages = (errs: { message: string }[] | undefined) => (errs ?? []).map((e) => e.message);

describe('storage.k8s.io/v1 CSI strategies', () => {
  it("compares decoded values as Go's semantic equality does", () => {
    assert.ok(semanticEqual(undefined, []));
    assert.ok(semanticEqual({ a: null, b: [] }, {}));
    assert.ok(semanticEqual([{ name: 'd', topologyKeys: null }], [{ name: 'd' }]));
    assert.ok(!semanticEqual({ a: false }, {}));
    assert.ok(!semanticEqual(['a'], ['b']));
  });

  it('defaults a CSIDriver and bounds its token lifetimes and allocatable update period', () => {
    const strategy = csidrivers.def.strategy;
    const obj: KubeObject = {
      metadata: { name: 'd.example.com' },
      spec: {
        tokenRequests: [{ audience: 'a', expirationSeconds: 2 ** 32 + 1 }],
        nodeAllocatableUpdatePeriodSeconds: 5,
      },
    };
    strategy.default?.(obj);
    assert.deepEqual(messages(strategy.validate?.(obj)), [
      'spec.tokenRequests[0].expirationSeconds: Invalid value: 4294967297: may not specify a duration larger than 2^32 seconds',
      'spec.nodeAllocatableUpdatePeriodSeconds: Invalid value: 5: must be greater than or equal to 10 seconds',
    ]);
    strategy.prepareForCreate?.(obj);
    assert.equal((obj.spec as Record<string, unknown>).nodeAllocatableUpdatePeriodSeconds, undefined);
    const empty: KubeObject = { metadata: { name: 'e' }, spec: { tokenRequests: [] } };
    strategy.default?.(empty);
    assert.equal((empty.spec as Record<string, unknown>).tokenRequests, undefined, 'omitempty');
  });

  it('allows a CSINode nodeID up to 256 bytes once a stored one is longer than 192', () => {
    const strategy = csinodes.def.strategy;
    const node = (nodeID: string, name = 'csi.example.com'): KubeObject => ({
      metadata: { name: 'node-1', resourceVersion: '1' },
      spec: { drivers: [{ name, nodeID }] },
    });
    const long = 'x'.repeat(200);
    assert.deepEqual(messages(strategy.validate?.(node(long))), [
      `spec.drivers[0].nodeID: Invalid value: "${long}": must be 192 characters or less`,
    ]);
    assert.deepEqual(messages(strategy.validateUpdate?.(node('y'.repeat(250), 'other.example.com'), node(long))), []);
    assert.deepEqual(messages(strategy.validateUpdate?.(node('y'.repeat(250), 'other.example.com'), node('short'))), [
      `spec.drivers[0].nodeID: Invalid value: "${'y'.repeat(250)}": must be 192 characters or less`,
    ]);
    const bad: KubeObject = {
      metadata: { name: 'node-1' },
      spec: { drivers: [{ name: '', nodeID: '', topologyKeys: [''], allocatable: { count: -1 } }] },
    };
    assert.deepEqual(messages(strategy.validate?.(bad)), [
      'spec.drivers[0].name: Required value',
      `spec.drivers[0].name: Invalid value: "": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
      'spec.drivers[0].nodeID: Required value',
      'spec.drivers[0].allocatable.count: Invalid value: -1: must be greater than or equal to 0',
      'spec.drivers[0]: Required value',
      'spec.drivers[0]: Invalid value: "": name part must be non-empty',
      `spec.drivers[0]: Invalid value: "": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
    ]);
  });

  it('keeps a VolumeAttachment error code only where the stored error has one, and bounds the status', () => {
    const status = volumeattachments.def.status;
    assert.ok(status);
    const spec = { attacher: 'csi.example.com', nodeName: 'node-1', source: { persistentVolumeName: 'pv' } };
    const old: KubeObject = {
      metadata: { name: 'va', resourceVersion: '1' },
      spec,
      status: { attached: false, attachError: { message: 'x', errorCode: 8 } },
    };
    const next: KubeObject = {
      metadata: { name: 'va' },
      spec: { ...spec, nodeName: 'elsewhere' },
      status: { attachError: { message: 'y', errorCode: 9 }, detachError: { message: 'z', errorCode: 3 } },
    };
    status.prepareForUpdate(next, old);
    assert.deepEqual(next.spec, spec);
    assert.deepEqual(next.status, {
      attached: false,
      attachError: { message: 'y', errorCode: 9, time: null },
      detachError: { message: 'z', time: null },
    });
    const big: KubeObject = {
      ...structuredClone(old),
      status: {
        attached: true,
        attachmentMetadata: { k: 'v'.repeat(256 * 1024) },
        attachError: { message: 'm'.repeat(1025), errorCode: -1 },
      },
    };
    assert.deepEqual(messages(status.validateUpdate?.(big, old)), [
      'status.attachmentMetadata: Too long: may not be more than 262144 bytes',
      'status.attachError.message: Too long: may not be more than 262144 bytes',
      'status.attachError.errorCode: Invalid value: -1: must be between 0 and 2147483647, inclusive',
    ]);
  });

  it('validates an inline VolumeAttachment source as an inline PersistentVolume spec', () => {
    const obj: KubeObject = {
      metadata: { name: 'va' },
      spec: {
        attacher: 'csi.example.com',
        nodeName: 'node-1',
        source: { inlineVolumeSpec: { capacity: { storage: '1Gi' }, claimRef: { name: 'c' } } },
      },
    };
    const at = 'spec.source.inlineVolumeSpec';
    assert.deepEqual(messages(volumeattachments.def.strategy.validate?.(obj)), [
      `${at}.claimRef: Forbidden: may not be specified in the context of inline volumes`,
      `${at}.capacity: Forbidden: may not be specified in the context of inline volumes`,
      `${at}.csi: Required value: has to be specified in the context of inline volumes`,
      `${at}.accessModes: Required value`,
    ]);
  });
});
