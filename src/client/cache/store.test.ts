import { describe, it } from 'node:test';
import { LabelSelector } from '../../api/labels.js';
import assert from '../../testing/assert.js';
import type { KubeObject } from '../types.js';
import { Lister } from './listers.js';
import {
  DeletedFinalStateUnknown,
  Indexer,
  metaNamespaceIndexFunc,
  metaNamespaceKeyFunc,
  NAMESPACE_INDEX,
  splitMetaNamespaceKey,
} from './store.js';

const pod = (namespace: string, name: string, labels: Record<string, string> = {}, node = ''): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { namespace, name, labels },
  spec: { nodeName: node },
});
const node = (name: string, labels: Record<string, string> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name, labels },
});
const sorted = (objs: KubeObject[]) => objs.map((o) => metaNamespaceKeyFunc(o)).sort();
const byNode = (obj: KubeObject) => (obj.spec?.nodeName ? [obj.spec.nodeName as string] : []);

describe('keys', () => {
  it('is namespace/name, or the name alone for cluster-scoped objects and a tombstone key', () => {
    assert.equal(metaNamespaceKeyFunc(pod('ns', 'p')), 'ns/p');
    assert.equal(metaNamespaceKeyFunc(node('n1')), 'n1');
    assert.equal(metaNamespaceKeyFunc(new DeletedFinalStateUnknown('ns/gone', pod('ns', 'x'))), 'ns/gone');
    assert.throws(() => metaNamespaceKeyFunc({} as KubeObject), /object has no meta/);
  });

  it('splits back', () => {
    assert.deepEqual(splitMetaNamespaceKey('ns/p'), { namespace: 'ns', name: 'p' });
    assert.deepEqual(splitMetaNamespaceKey('n1'), { namespace: '', name: 'n1' });
    assert.throws(() => splitMetaNamespaceKey('a/b/c'), /unexpected key format: "a\/b\/c"/);
  });

  it('indexes by namespace, with "" for cluster-scoped objects', () => {
    assert.deepEqual(metaNamespaceIndexFunc(pod('ns', 'p')), ['ns']);
    assert.deepEqual(metaNamespaceIndexFunc(node('n1')), ['']);
  });
});

describe('Indexer', () => {
  it('adds, updates, gets, lists and deletes by key', () => {
    const store = new Indexer();
    store.add(pod('a', 'p1'));
    store.add(pod('b', 'p1'));
    store.update({ ...pod('a', 'p1'), spec: { nodeName: 'n2' } });
    assert.equal(store.getByKey('a/p1')?.spec.nodeName, 'n2');
    assert.equal(store.get(pod('b', 'p1'))?.metadata.namespace, 'b');
    assert.deepEqual(store.listKeys().sort(), ['a/p1', 'b/p1']);
    assert.equal(store.list().length, 2);
    store.delete(pod('a', 'p1'));
    store.delete(new DeletedFinalStateUnknown('b/p1', pod('b', 'p1')));
    store.delete(pod('a', 'never-there'));
    assert.deepEqual(store.listKeys(), []);
  });

  it('has the namespace index built in and keeps it current', () => {
    const store = new Indexer();
    store.add(pod('a', 'p1'));
    store.add(pod('a', 'p2'));
    store.add(pod('b', 'p3'));
    store.add(node('n1'));
    assert.deepEqual(sorted(store.byIndex(NAMESPACE_INDEX, 'a')), ['a/p1', 'a/p2']);
    assert.deepEqual(sorted(store.byIndex(NAMESPACE_INDEX, '')), ['n1']);
    assert.deepEqual(store.indexKeys(NAMESPACE_INDEX, 'b'), ['b/p3']);
    assert.deepEqual(sorted(store.index(NAMESPACE_INDEX, pod('a', 'other'))), ['a/p1', 'a/p2']);
    store.delete(pod('b', 'p3'));
    assert.deepEqual(store.listIndexFuncValues(NAMESPACE_INDEX).sort(), ['', 'a']);
    assert.deepEqual(store.byIndex(NAMESPACE_INDEX, 'b'), []);
  });

  it('keeps a custom index current on updates, and indexes existing objects when added later', () => {
    const store = new Indexer();
    store.add(pod('a', 'p1', {}, 'n1'));
    store.add(pod('a', 'p2', {}, 'n1'));
    store.add(pod('a', 'p3'));
    store.addIndexers({ byNode });
    assert.deepEqual(sorted(store.byIndex('byNode', 'n1')), ['a/p1', 'a/p2']);
    store.update(pod('a', 'p2', {}, 'n2'));
    store.update(pod('a', 'p3', {}, 'n2'));
    assert.deepEqual(sorted(store.byIndex('byNode', 'n1')), ['a/p1']);
    assert.deepEqual(sorted(store.byIndex('byNode', 'n2')), ['a/p2', 'a/p3']);
    assert.deepEqual(Object.keys(store.getIndexers()).sort(), ['byNode', 'namespace']);
  });

  it('indexes an object under several values', () => {
    const store = new Indexer({ indexers: { byLabelValue: (o) => Object.values(o.metadata.labels ?? {}) } });
    store.add(pod('a', 'p1', { x: 'red', y: 'blue' }));
    store.add(pod('a', 'p2', { x: 'blue' }));
    assert.deepEqual(sorted(store.byIndex('byLabelValue', 'blue')), ['a/p1', 'a/p2']);
    assert.deepEqual(sorted(store.index('byLabelValue', pod('z', 'q', { a: 'red', b: 'blue' }))), ['a/p1', 'a/p2']);
  });

  it('rejects an index name taken by another function, and an unknown index', () => {
    const store = new Indexer();
    store.addIndexers({ [NAMESPACE_INDEX]: metaNamespaceIndexFunc });
    assert.throws(() => store.addIndexers({ [NAMESPACE_INDEX]: byNode }), /indexer conflict: namespace/);
    assert.throws(() => store.byIndex('nope', 'x'), /Index with name nope does not exist/);
  });

  it('replace swaps the whole content and rebuilds the indices', () => {
    const store = new Indexer({ indexers: { byNode } });
    store.add(pod('a', 'old', {}, 'n1'));
    store.replace([pod('b', 'new', {}, 'n2')], '10');
    assert.deepEqual(store.listKeys(), ['b/new']);
    assert.deepEqual(store.byIndex('byNode', 'n1'), []);
    assert.deepEqual(sorted(store.byIndex(NAMESPACE_INDEX, 'b')), ['b/new']);
  });
});

describe('Lister', () => {
  const store = new Indexer();
  store.add(pod('a', 'web-1', { app: 'web', tier: 'front' }));
  store.add(pod('a', 'web-2', { app: 'web' }));
  store.add(pod('a', 'db', { app: 'db' }));
  store.add(pod('b', 'web-3', { app: 'web' }));
  store.add(node('n1', { zone: 'z1' }));
  const lister = new Lister(store);

  it('lists everything, or what a selector matches, in all namespaces', () => {
    assert.equal(lister.list().length, 5);
    assert.deepEqual(sorted(lister.list('app=web')), ['a/web-1', 'a/web-2', 'b/web-3']);
    assert.deepEqual(sorted(lister.list(LabelSelector.fromSet({ app: 'web', tier: 'front' }))), ['a/web-1']);
    assert.deepEqual(sorted(lister.list('app in (db),!tier')), ['a/db']);
    assert.deepEqual(lister.list(LabelSelector.nothing()), []);
    assert.equal(lister.list(LabelSelector.everything()).length, 5);
  });

  it('lists and gets within a namespace', () => {
    assert.deepEqual(sorted(lister.namespaced('a').list()), ['a/db', 'a/web-1', 'a/web-2']);
    assert.deepEqual(sorted(lister.namespaced('a').list('app=web')), ['a/web-1', 'a/web-2']);
    assert.deepEqual(sorted(lister.namespaced('b').list('app!=web')), []);
    assert.equal(lister.namespaced('').list('app=web').length, 3, "'' is all namespaces");
    assert.equal(lister.namespaced('b').get('web-3')?.metadata.name, 'web-3');
    assert.equal(lister.namespaced('b').get('db'), undefined);
  });

  it('gets a cluster-scoped object by name', () => {
    assert.equal(lister.get('n1')?.kind, 'Node');
    assert.equal(lister.get('n2'), undefined);
  });

  it('throws on a selector that does not parse', () => {
    assert.throws(() => lister.list('=web'), /found '=', expected/);
  });
});
