import { after, before, describe, it } from 'node:test';
import { LabelSelector } from '../../api/labels.js';
import { Indexer } from '../../client/cache/store.js';
import type { KubeObject } from '../../client/types.js';
import { type ControlPlane, startControlPlane } from '../../index.js';
import assert from '../../testing/assert.js';
import {
  CONTROLLER_REVISION_HASH_LABEL,
  ControllerHistory,
  type ControllerRevision,
  controllerRevisionName,
  equalRevision,
  findEqualRevisions,
  fnv1_32,
  hashControllerRevision,
  newControllerRevision,
  nextRevision,
  revisionsBeyondLimit,
  safeEncodeString,
  sameTemplateData,
  sortControllerRevisions,
  templateOfRevision,
  templatePatch,
} from './index.js';

const SET_KIND = { apiVersion: 'apps/v1', kind: 'StatefulSet' };
const parent: KubeObject = { metadata: { name: 'web', namespace: 'hist', uid: 'uid-web' } };
const patchOf = (image: string) => ({
  spec: { template: { spec: { containers: [{ name: 'c', image }] }, $patch: 'replace' } },
});

function rev(name: string, revision: number, created = '2025-01-01T00:00:00Z'): ControllerRevision {
  return { metadata: { name, creationTimestamp: created }, revision, data: patchOf(name) };
}

describe('history: hashing and naming', () => {
  it('is FNV-1 (32 bit), as Go’s fnv.New32', () => {
    assert.equal(fnv1_32(new Uint8Array()), 0x811c9dc5);
    assert.equal(fnv1_32(new TextEncoder().encode('a')), 0x050c5d7e);
  });

  it('renders in the safe alphabet and mixes the collision count in as decimal text', () => {
    assert.equal(safeEncodeString('0123456789'), '456789bcdf');
    const r = { data: patchOf('nginx:1') };
    const plain = hashControllerRevision(r);
    assert.match(plain, /^[bcdfghjklmnpqrstvwxz2456789]+$/);
    assert.notEqual(hashControllerRevision(r, 0), plain, 'a count of 0 still changes the hash');
    assert.notEqual(hashControllerRevision(r, 1), hashControllerRevision(r, 0), 'each count gives another hash');
    assert.equal(hashControllerRevision({ data: JSON.parse(JSON.stringify(r.data)) }, 1), hashControllerRevision(r, 1));
  });

  it('hashes data by content, whatever the key order', () => {
    const a = { data: { spec: { template: { a: 1, b: [1, { y: 2, x: 1 }] } } } };
    const b = { data: { spec: { template: { b: [1, { x: 1, y: 2 }], a: 1 } } } };
    assert.equal(hashControllerRevision(a), hashControllerRevision(b));
  });

  it('names <parent>-<hash> and cuts long parent names at 223 characters', () => {
    assert.equal(controllerRevisionName('web', 'abc'), 'web-abc');
    assert.equal(controllerRevisionName('x'.repeat(300), 'abc'), `${'x'.repeat(223)}-abc`);
  });

  it('makes a revision owned by its parent, labelled with the template labels and the hash', () => {
    const r = newControllerRevision(parent, SET_KIND, { app: 'web' }, patchOf('nginx:1'), 3, 0);
    const hash = hashControllerRevision(r, 0);
    assert.equal(r.metadata.name, `web-${hash}`);
    assert.deepEqual(r.metadata.labels, { app: 'web', [CONTROLLER_REVISION_HASH_LABEL]: hash });
    assert.equal(r.revision, 3);
    assert.equal(r.metadata.ownerReferences?.[0]?.uid, 'uid-web');
    assert.equal(r.metadata.ownerReferences?.[0]?.controller, true);
  });
});

describe('history: revisions as values', () => {
  it('sorts by revision, then creation time, then name', () => {
    const sorted = sortControllerRevisions([
      rev('c', 2),
      rev('b', 1, '2025-01-02T00:00:00Z'),
      rev('a', 1, '2025-01-02T00:00:00Z'),
      rev('z', 1, '2025-01-01T00:00:00Z'),
    ]);
    assert.deepEqual(
      sorted.map((r) => r.metadata.name),
      ['z', 'a', 'b', 'c'],
    );
  });

  it('compares data and finds equal revisions', () => {
    const a = rev('a', 1);
    const b = { ...rev('b', 2), data: patchOf('a') };
    assert.ok(equalRevision(a, b), 'equal data makes equal revisions');
    assert.ok(!equalRevision(a, rev('c', 1)), 'other data differs');
    assert.ok(equalRevision(undefined, undefined), 'two absent revisions are equal');
    assert.ok(!equalRevision(a, undefined), 'absent differs from present');
    assert.deepEqual(
      findEqualRevisions([rev('x', 1), b, a], a).map((r) => r.metadata.name),
      ['b', 'a'],
    );
  });

  it('numbers the next revision one past the highest', () => {
    assert.equal(nextRevision([]), 1);
    assert.equal(nextRevision([rev('a', 4), rev('b', 2)]), 5);
  });

  it('lets go the oldest unused revisions beyond the limit, never a live one', () => {
    const all = [rev('r1', 1), rev('r2', 2), rev('r3', 3), rev('r4', 4), rev('r5', 5)];
    assert.deepEqual(
      revisionsBeyondLimit(all, 2, new Set(['r1', 'r5'])).map((r) => r.metadata.name),
      ['r2'],
    );
    assert.deepEqual(
      revisionsBeyondLimit(all, 0, new Set(['r5'])).map((r) => r.metadata.name),
      ['r1', 'r2', 'r3', 'r4'],
    );
    assert.deepEqual(revisionsBeyondLimit(all, 10, new Set()), []);
  });

  it('records the template as a replacing patch and reads it back', () => {
    const template = { metadata: { labels: { app: 'x' } }, spec: { containers: [{ name: 'c', image: 'i' }] } };
    const data = templatePatch({ metadata: {}, spec: { template } });
    assert.deepEqual(data, {
      spec: {
        template: {
          metadata: { labels: { app: 'x' }, creationTimestamp: null },
          spec: template.spec,
          $patch: 'replace',
        },
      },
    });
    assert.deepEqual(templateOfRevision({ metadata: {}, data }), template);
  });
});

describe('history: through the API', () => {
  let cp: ControlPlane;
  const ns = 'hist';
  const indexer = new Indexer();
  let history: ControllerHistory;
  const selector = LabelSelector.fromSet({ app: 'web' });

  const refresh = async () => {
    const list = await cp.client.controllerRevisions(ns).list();
    indexer.replace(list.items, list.metadata?.resourceVersion ?? '');
  };

  before(async () => {
    cp = await startControlPlane({ storage: 'memory' });
    await cp.client.namespaces().create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    history = new ControllerHistory(cp.client.controllerRevisions(), indexer);
  });
  after(async () => {
    await cp?.stop();
  });

  it('creates a revision, answers the existing one for equal data, and bumps the count on a clash', async () => {
    const r = newControllerRevision(parent, SET_KIND, { app: 'web' }, patchOf('nginx:1'), 1, 0);
    const first = await history.create(parent, r, 0);
    assert.equal(first.collisionCount, 0);
    assert.equal(first.revision.metadata.name, r.metadata.name);
    assert.deepEqual(first.revision.data, r.data, 'the server keeps the data as given');

    const again = await history.create(parent, r, 0);
    assert.equal(again.collisionCount, 0, 'equal data is no collision');
    assert.equal(again.revision.metadata.uid, first.revision.metadata.uid);

    // Another revision squats the name the next revision would take.
    const next = newControllerRevision(parent, SET_KIND, { app: 'web' }, patchOf('nginx:2'), 2, 0);
    await cp.client.controllerRevisions(ns).create({
      apiVersion: 'apps/v1',
      kind: 'ControllerRevision',
      metadata: { name: next.metadata.name, labels: { app: 'other' } },
      data: { something: 'else' },
      revision: 1,
    });
    const bumped = await history.create(parent, next, 0);
    assert.equal(bumped.collisionCount, 1, 'the clash bumped the collision count');
    assert.equal(bumped.revision.metadata.name, `web-${hashControllerRevision(next, 1)}`);
  });

  it('lists the revisions the parent controls and orphans, updates and deletes them', async () => {
    await cp.client.controllerRevisions(ns).create({
      apiVersion: 'apps/v1',
      kind: 'ControllerRevision',
      metadata: { name: 'orphan', labels: { app: 'web' } },
      data: patchOf('old'),
      revision: 7,
    });
    await cp.client.controllerRevisions(ns).create({
      apiVersion: 'apps/v1',
      kind: 'ControllerRevision',
      metadata: {
        name: 'foreign',
        labels: { app: 'web' },
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'x', uid: 'other', controller: true }],
      },
      data: patchOf('x'),
      revision: 1,
    });
    await refresh();
    const listed = sortControllerRevisions(history.list(parent, selector));
    assert.deepEqual(
      listed.map((r) => r.revision),
      [1, 2, 7],
      'own revisions and the orphan, not the foreign one nor the unmatched one',
    );
    const orphan = listed.find((r) => r.metadata.name === 'orphan') as ControllerRevision;

    const adopted = await history.adopt(parent, SET_KIND, orphan);
    assert.equal(adopted.metadata.ownerReferences?.[0]?.uid, 'uid-web');
    await assert.rejects(history.adopt(parent, SET_KIND, adopted), /attempt to adopt revision owned by/);

    const renumbered = await history.update(adopted, 9);
    assert.equal(renumbered.revision, 9);
    // A stale copy conflicts; the retry reads the cache and succeeds.
    await refresh();
    const stale = { ...adopted, revision: 9 };
    const again = await history.update(stale, 10);
    assert.equal(again.revision, 10);

    const released = await history.release(parent, again);
    assert.equal(released?.metadata.ownerReferences, undefined, 'the owner reference is gone');
    await history.delete(again);
    await refresh();
    assert.ok(!history.list(parent, selector).some((r) => r.metadata.name === 'orphan'), 'deleted');
  });
});

describe('history: revisions recorded before the serviceAccount alias', () => {
  it('match the same template with the alias, and only that template', () => {
    const data = (spec: Record<string, unknown>) => ({
      spec: { template: { $patch: 'replace', metadata: { creationTimestamp: null }, spec } },
    });
    const revision = (name: string, d: unknown): ControllerRevision => ({ metadata: { name }, data: d, revision: 1 });
    const old = revision('old', data({ serviceAccountName: 'agent', containers: [{ name: 'a', image: 'x' }] }));
    const now = revision(
      'now',
      data({ serviceAccountName: 'agent', serviceAccount: 'agent', containers: [{ name: 'a', image: 'x' }] }),
    );
    assert.ok(equalRevision(old, now));
    assert.ok(sameTemplateData(now.data, old.data));
    const changed = revision('changed', data({ serviceAccountName: 'agent', containers: [{ name: 'a', image: 'y' }] }));
    assert.ok(!equalRevision(changed, now));
  });
});
