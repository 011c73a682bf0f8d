import { describe, it } from 'node:test';
import { LabelSelector } from '../../api/labels.js';
import { ApiError, type KubeObject, type ResourceClient } from '../../client/types.js';
import assert from '../../testing/assert.js';
import {
  ClaimError,
  ControllerRefManager,
  controlledByOtherKind,
  getControllerOf,
  newControllerRef,
  ownerCanAdopt,
  recheckDeletionTimestamp,
} from './controller-ref.js';

const KIND = { apiVersion: 'apps/v1', kind: 'ReplicaSet' };

interface Call {
  namespace: string;
  name: string;
  type: string;
  patch: unknown;
}

/** Just enough of a ResourceClient: records patches, answers get from a map, fails patches of chosen names. */
function fakeClient(opts: { objects?: Record<string, KubeObject>; notFound?: string[]; calls?: Call[] } = {}) {
  const calls = opts.calls ?? [];
  const make = (namespace: string): ResourceClient =>
    ({
      namespace: (ns: string) => make(ns),
      async get(name: string) {
        const obj = opts.objects?.[`${namespace}/${name}`];
        if (!obj)
          throw new ApiError({ kind: 'Status', apiVersion: 'v1', code: 404, reason: 'NotFound', message: 'nf' });
        return obj;
      },
      async patch(name: string, type: string, patch: unknown) {
        calls.push({ namespace, name, type, patch });
        if (opts.notFound?.includes(name)) {
          throw new ApiError({ kind: 'Status', apiVersion: 'v1', code: 404, reason: 'NotFound', message: 'gone' });
        }
        return { metadata: { name } };
      },
    }) as unknown as ResourceClient;
  return { client: make(''), calls };
}

const owner: KubeObject = { metadata: { name: 'web', namespace: 'ns', uid: 'rs-1' } };
const ownedBy = (uid: string) => [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'x', uid, controller: true }];

function pod(name: string, labels: Record<string, string>, extra: Partial<KubeObject['metadata']> = {}): KubeObject {
  return { kind: 'Pod', metadata: { name, namespace: 'ns', uid: `uid-${name}`, labels, ...extra } };
}

function manager(o: { owner?: KubeObject; canAdopt?: () => Promise<void>; notFound?: string[] } = {}) {
  const { client, calls } = fakeClient({ ...(o.notFound ? { notFound: o.notFound } : {}) });
  const m = new ControllerRefManager({
    owner: o.owner ?? owner,
    ownerKind: KIND,
    selector: LabelSelector.fromSet({ app: 'web' }),
    children: client,
    canAdopt: o.canAdopt ?? (async () => {}),
  });
  return { m, calls };
}

describe('controllerRefs', () => {
  it('finds the controller among the owners and makes new ones', () => {
    const obj: KubeObject = {
      metadata: { ownerReferences: [{ apiVersion: 'v1', kind: 'A', name: 'a', uid: '1' }, ...ownedBy('2')] },
    };
    assert.equal(getControllerOf(obj)?.uid, '2');
    assert.equal(getControllerOf({ metadata: {} }), undefined);
    assert.deepEqual(newControllerRef(owner, KIND), {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      name: 'web',
      uid: 'rs-1',
      controller: true,
      blockOwnerDeletion: true,
    });
  });

  it("tells when a pod's update stays with a controller of another kind", () => {
    const by = (kind: string | undefined): KubeObject => ({
      metadata: kind ? { ownerReferences: [{ apiVersion: 'v1', kind, name: 'x', uid: 'u', controller: true }] } : {},
    });
    assert.equal(controlledByOtherKind(by('Job'), by('Job'), 'ReplicaSet'), true);
    assert.equal(controlledByOtherKind(by('Job'), by('StatefulSet'), 'ReplicaSet'), true);
    // The controller's own kind on either side, or no controller (an orphan it may adopt): it must look.
    assert.equal(controlledByOtherKind(by('Job'), by('ReplicaSet'), 'ReplicaSet'), false);
    assert.equal(controlledByOtherKind(by('ReplicaSet'), by('Job'), 'ReplicaSet'), false);
    assert.equal(controlledByOtherKind(by(undefined), by('Job'), 'ReplicaSet'), false);
    assert.equal(controlledByOtherKind(by('Job'), by(undefined), 'ReplicaSet'), false);
  });
});

describe('ControllerRefManager', () => {
  it('keeps its matching pods, ignores others', async () => {
    const { m, calls } = manager();
    const mine = pod('mine', { app: 'web' }, { ownerReferences: ownedBy('rs-1') });
    const theirs = pod('theirs', { app: 'web' }, { ownerReferences: ownedBy('rs-2') });
    const stranger = pod('stranger', { app: 'db' });
    assert.deepEqual(await m.claim([mine, theirs, stranger]), [mine]);
    assert.deepEqual(calls, []);
  });

  it('adopts matching orphans with a controllerRef patch guarded by the pod uid', async () => {
    let checks = 0;
    const { m, calls } = manager({ canAdopt: async () => void checks++ });
    const a = pod('a', { app: 'web' });
    const b = pod('b', { app: 'web' });
    assert.deepEqual(await m.claim([a, b]), [a, b]);
    assert.equal(checks, 1);
    assert.deepEqual(calls[0], {
      namespace: 'ns',
      name: 'a',
      type: 'strategic',
      patch: { metadata: { ownerReferences: [newControllerRef(owner, KIND)], uid: 'uid-a' } },
    });
  });

  it('answers the claimed children in their order, those it adopted among those it had', async () => {
    const { m, calls } = manager();
    const mine = (n: string) => pod(n, { app: 'web' }, { ownerReferences: ownedBy('rs-1') });
    const children = [mine('m1'), pod('orphan', { app: 'web' }), mine('m2'), pod('stranger', { app: 'db' })];
    const claimed = await m.claim(children);
    assert.deepEqual(
      claimed.map((c) => c.metadata.name),
      ['m1', 'orphan', 'm2'],
    );
    assert.deepEqual(
      calls.map((c) => c.name),
      ['orphan'],
    );
  });

  it('releases its pods that stopped matching', async () => {
    const { m, calls } = manager();
    const moved = pod('moved', { app: 'debug' }, { ownerReferences: ownedBy('rs-1') });
    assert.deepEqual(await m.claim([moved]), []);
    assert.deepEqual(calls, [
      {
        namespace: 'ns',
        name: 'moved',
        type: 'strategic',
        patch: { metadata: { uid: 'uid-moved', ownerReferences: [{ $patch: 'delete', uid: 'rs-1' }] } },
      },
    ]);
  });

  it('neither adopts nor releases while the owner is being deleted, and never adopts a deleting pod', async () => {
    const deleting = { metadata: { ...owner.metadata, deletionTimestamp: '2025-01-01T00:00:00Z' } };
    const { m, calls } = manager({ owner: deleting });
    const orphan = pod('orphan', { app: 'web' });
    const moved = pod('moved', { app: 'debug' }, { ownerReferences: ownedBy('rs-1') });
    const mine = pod('mine', { app: 'web' }, { ownerReferences: ownedBy('rs-1') });
    assert.deepEqual(await m.claim([orphan, moved, mine]), [mine]);
    const other = manager();
    assert.deepEqual(
      await other.m.claim([pod('dying', { app: 'web' }, { deletionTimestamp: '2025-01-01T00:00:00Z' })]),
      [],
    );
    assert.deepEqual([...calls, ...other.calls], []);
  });

  it('ignores pods that disappeared, and reports failed adoptions', async () => {
    const gone = manager({ notFound: ['gone'] });
    assert.deepEqual(await gone.m.claim([pod('gone', { app: 'web' })]), []);

    const { client } = fakeClient({ objects: { 'ns/web': { metadata: { ...owner.metadata, uid: 'rs-new' } } } });
    const refused = manager({ canAdopt: ownerCanAdopt(client, owner, KIND) });
    const mine = pod('mine', { app: 'web' }, { ownerReferences: ownedBy('rs-1') });
    const err = await refused.m.claim([mine, pod('p', { app: 'web' })]).then(
      () => assert.fail('expected an error'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof ClaimError);
    assert.deepEqual(err.claimed, [mine]);
    assert.equal(
      err.message,
      "can't adopt Pod ns/p (uid-p): can't recheck DeletionTimestamp: original ReplicaSet ns/web is gone: got uid rs-new, wanted rs-1",
    );
    assert.deepEqual(refused.calls, []);
  });

  it('rechecks the deletion timestamp on a fresh copy', async () => {
    const check = recheckDeletionTimestamp(async () => ({
      metadata: { namespace: 'ns', name: 'web', deletionTimestamp: '2025-01-01T00:00:00Z' },
    }));
    await assert.rejects(check(), { message: 'ns/web has just been deleted at 2025-01-01T00:00:00Z' });
    await recheckDeletionTimestamp(async () => owner)();
  });
});
