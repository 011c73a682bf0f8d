import { describe, it } from 'node:test';
import { MemoryStore } from '../../storage/memory.js';
import assert from '../../testing/assert.js';
import { silentLogger } from '../../util/logger.js';
import { AdmissionChain } from '../admission/chain.js';
import type { AdmissionAttributes, AdmissionPlugin } from '../admission/types.js';
import { Cacher } from '../cacher/cacher.js';
import { decodeFromStorage } from './codec.js';
import { pods } from './resources/core-pods.js';
import { GenericStore } from './store.js';

/** A store of pods whose admission chain records what it sees and labels what it admits. */
function podStore(log: string[]) {
  const seen: AdmissionAttributes[] = [];
  const recorder: AdmissionPlugin = {
    name: 'Recorder',
    admit(attrs) {
      seen.push(structuredClone(attrs));
      log.push(`admit ${attrs.operation}${attrs.subresource ? `/${attrs.subresource}` : ''}`);
      if (attrs.object && attrs.subresource === '') {
        attrs.object.metadata.labels = { ...attrs.object.metadata.labels, admitted: 'yes' };
      }
    },
    validate(attrs) {
      log.push(`validate ${attrs.operation}${attrs.subresource ? `/${attrs.subresource}` : ''}`);
    },
  };
  const storage = new MemoryStore();
  const { def } = pods();
  const cacher = new Cacher(storage, `${def.storagePrefix}/`, decodeFromStorage, silentLogger);
  const store = new GenericStore(def, storage, cacher, { admission: new AdmissionChain([recorder]) });
  return { store, seen };
}

const user = { name: 'alice', groups: ['system:authenticated'] };
const pod = { metadata: { generateName: 'web-' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };

describe('GenericStore admission', () => {
  it('runs mutating admission after defaulting and before the name is generated, validating before storage', async () => {
    const log: string[] = [];
    const { store, seen } = podStore(log);
    const created = await store.create('default', pod, { user });
    assert.deepEqual(log, ['admit CREATE', 'validate CREATE']);
    assert.equal(created.metadata.labels?.admitted, 'yes');
    assert.match(created.metadata.name ?? '', /^web-[a-z0-9]{5}$/);
    const attrs = seen[0] as AdmissionAttributes;
    assert.equal(attrs.name, '');
    assert.equal(attrs.namespace, 'default');
    assert.deepEqual(attrs.userInfo, user);
    assert.deepEqual(attrs.kind, { group: '', version: 'v1', kind: 'Pod' });
    assert.deepEqual(attrs.resource, { group: '', version: 'v1', resource: 'pods' });
    assert.equal(attrs.object?.metadata.uid, undefined, 'system fields come after mutating admission');
    assert.equal((attrs.object!.spec as { restartPolicy?: string }).restartPolicy, 'Always', 'defaulted');
  });

  it('runs for updates of the resource and of its status, for deletes, and for dry runs', async () => {
    const log: string[] = [];
    const { store, seen } = podStore(log);
    const created = await store.create('default', { ...pod, metadata: { name: 'web' } }, { dryRun: true });
    assert.equal(created.metadata.resourceVersion, undefined);
    await store.create('default', { ...pod, metadata: { name: 'web' } });
    const current = await store.get('default', 'web');
    await store.update('default', 'web', { ...current, metadata: { ...current.metadata, labels: {} } }, { user });
    await store.update('default', 'web', { ...current, status: { phase: 'Running' } }, { subresource: 'status' });
    await store.delete('default', 'web', { user });
    assert.deepEqual(log, [
      'admit CREATE',
      'validate CREATE',
      'admit CREATE',
      'validate CREATE',
      'admit UPDATE',
      'validate UPDATE',
      'admit UPDATE/status',
      'validate UPDATE/status',
      'admit DELETE',
      'validate DELETE',
    ]);
    assert.equal(seen[0]?.dryRun, true);
    const update = seen[2] as AdmissionAttributes;
    assert.equal(update.oldObject?.metadata.name, 'web');
    assert.equal(update.name, 'web');
    const deletion = seen[4] as AdmissionAttributes;
    assert.equal(deletion.object, undefined);
    assert.equal(deletion.oldObject?.metadata.name, 'web');
  });

  it('is skipped for the apiserver own writes and for writes a subresource admitted already', async () => {
    const log: string[] = [];
    const { store } = podStore(log);
    await store.create('default', { ...pod, metadata: { name: 'a' } }, { skipAdmission: true });
    await store.guaranteedUpdate('default', 'a', (p) => p, { internal: true });
    await store.delete('default', 'a', { skipAdmission: true });
    assert.deepEqual(log, []);
  });
});
