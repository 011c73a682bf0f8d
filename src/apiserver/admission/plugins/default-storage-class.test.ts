import { describe, it } from 'node:test';
import assert from '../../../testing/assert.js';
import type { KubeObject } from '../../registry/object.js';
import { attributesFor } from '../attributes.js';
import type { AdmissionAttributes } from '../types.js';
import { defaultStorageClassPlugin } from './default-storage-class.js';

const PVCS = {
  group: '',
  version: 'v1',
  resource: 'persistentvolumeclaims',
  kind: 'PersistentVolumeClaim',
  namespaced: true,
};

function claim(spec: Record<string, unknown>, annotations?: Record<string, string>): AdmissionAttributes {
  return attributesFor(PVCS, {
    operation: 'CREATE',
    object: { metadata: { name: 'data', ...(annotations ? { annotations } : {}) }, spec },
    subresource: '',
    namespace: 'default',
    name: 'data',
  });
}

function sc(name: string, isDefault: string | undefined, created: string): KubeObject {
  return {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: {
      name,
      creationTimestamp: created,
      ...(isDefault !== undefined ? { annotations: { 'storageclass.kubernetes.io/is-default-class': isDefault } } : {}),
    },
    provisioner: 'example.com/p',
  };
}

const source = (items: KubeObject[]) => ({ list: async () => items });
const classOf = (a: AdmissionAttributes) =>
  (a.object?.spec as { storageClassName?: string } | undefined)?.storageClassName;

describe('DefaultStorageClass', () => {
  it('sets the default class on a claim that names none', async () => {
    const plugin = defaultStorageClassPlugin(
      source([sc('slow', undefined, '2025-01-01T00:00:00Z'), sc('standard', 'true', '2025-01-01T00:00:00Z')]),
    );
    const a = claim({ accessModes: ['ReadWriteOnce'] });
    await plugin.admit?.(a);
    assert.equal(classOf(a), 'standard');
  });

  it('leaves a claim that names a class, even "", or uses the beta annotation', async () => {
    const plugin = defaultStorageClassPlugin(source([sc('standard', 'true', '2025-01-01T00:00:00Z')]));
    const named = claim({ storageClassName: 'fast' });
    await plugin.admit?.(named);
    assert.equal(classOf(named), 'fast');
    const empty = claim({ storageClassName: '' });
    await plugin.admit?.(empty);
    assert.equal(classOf(empty), '');
    const beta = claim({}, { 'volume.beta.kubernetes.io/storage-class': 'old' });
    await plugin.admit?.(beta);
    assert.equal(classOf(beta), undefined);
  });

  it('picks the newest default class when several are marked default', async () => {
    const plugin = defaultStorageClassPlugin(
      source([
        sc('older', 'true', '2025-01-01T00:00:00Z'),
        sc('newer', 'true', '2025-06-01T00:00:00Z'),
        sc('not-default', 'false', '2026-01-01T00:00:00Z'),
      ]),
    );
    const a = claim({});
    await plugin.admit?.(a);
    assert.equal(classOf(a), 'newer');
  });

  it('does nothing without a default class', async () => {
    const a = claim({});
    await defaultStorageClassPlugin(source([sc('slow', 'false', '2025-01-01T00:00:00Z')])).admit?.(a);
    assert.equal(classOf(a), undefined);
  });
});
