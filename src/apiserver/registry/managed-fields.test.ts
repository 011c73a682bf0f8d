import { describe, test } from 'node:test';
import { schemaForKind } from '../../api/schema.js';
import assert from '../../testing/assert.js';
import {
  leafPaths,
  type ManagedFieldsEntry,
  managedChanges,
  managedFullLeaves,
  updateManagedFields,
} from './managed-fields.js';

const schema = schemaForKind({ group: '', version: 'v1', kind: 'Pod' });
const opts = (manager: string, subresource?: string) => ({
  manager,
  apiVersion: 'v1',
  time: '2026-12-02T00:00:00Z',
  schema,
  ...(subresource ? { subresource } : {}),
});

describe('updateManagedFields', () => {
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', labels: { app: 'a' } },
    spec: { containers: [{ name: 'c', image: 'i' }] },
  };
  const created = updateManagedFields([], undefined, pod, opts('kube-controller-manager'));

  test("a status update adds the kubelet's entry and leaves the creator's entry as it was", () => {
    const next = { ...pod, status: { phase: 'Running' } };
    const entries = updateManagedFields(created, pod, next, opts('kubelet', 'status'));
    assert.equal(entries.length, 2, 'two managers');
    assert.equal(entries[0], created[0], "the creator's entry is kept, not rebuilt");
    assert.deepEqual(entries[1]?.fieldsV1, { 'f:status': { 'f:phase': {} } }, "the kubelet's fields");
  });

  test("a change that takes fields from another manager rebuilds that manager's set without them", () => {
    const next = { ...pod, metadata: { ...pod.metadata, labels: { app: 'b' } } };
    const entries: ManagedFieldsEntry[] = updateManagedFields(created, pod, next, opts('kubectl'));
    const creator = entries.find((e) => e.manager === 'kube-controller-manager');
    const fields = JSON.stringify(creator?.fieldsV1);
    assert.ok(!fields.includes('f:app'), `the label moved to kubectl: ${fields}`);
    assert.ok(fields.includes('f:containers'), `the creator keeps the containers: ${fields}`);
    const kubectl = entries.find((e) => e.manager === 'kubectl');
    assert.deepEqual(kubectl?.fieldsV1, { 'f:metadata': { 'f:labels': { 'f:app': {} } } }, "kubectl's fields");
  });

  const full = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'p',
      namespace: 'default',
      labels: { 'app.kubernetes.io/name': 'web', app: 'a' },
      annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{}' },
    },
    spec: {
      containers: [
        {
          name: 'c',
          image: 'i',
          ports: [{ containerPort: 80, protocol: 'TCP' }],
          volumeMounts: [{ name: 'token', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' }],
        },
      ],
      securityContext: {},
      tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists' }],
      volumes: [{ name: 'token', projected: { sources: [{ serviceAccountToken: { path: 'token' } }] } }],
    },
  };

  test('keys holding "/" (labels, annotations, a mount path as list key) stay one field each', () => {
    const [entry] = updateManagedFields([], undefined, full, opts('kubectl'));
    const meta = entry?.fieldsV1['f:metadata'] as Record<string, unknown>;
    assert.deepEqual(meta, {
      'f:annotations': { '.': {}, 'f:kubectl.kubernetes.io/last-applied-configuration': {} },
      'f:labels': { '.': {}, 'f:app': {}, 'f:app.kubernetes.io/name': {} },
    });
    const spec = entry?.fieldsV1['f:spec'] as Record<string, Record<string, Record<string, unknown>>>;
    const container = spec['f:containers']?.['k:{"name":"c"}'] as Record<string, unknown>;
    assert.deepEqual(container['f:volumeMounts'], {
      'k:{"mountPath":"/var/run/secrets/kubernetes.io/serviceaccount"}': { '.': {}, 'f:mountPath': {}, 'f:name': {} },
    });
  });

  test('an empty struct is a field of its own; atomic lists are one field; children come in FieldsV1 order', () => {
    const [entry] = updateManagedFields([], undefined, full, opts('kubectl'));
    const spec = entry?.fieldsV1['f:spec'] as Record<string, unknown>;
    assert.deepEqual(spec['f:securityContext'], {});
    assert.deepEqual(spec['f:tolerations'], {});
    assert.deepEqual(Object.keys(spec), ['f:containers', 'f:securityContext', 'f:tolerations', 'f:volumes']);
    const container = (spec['f:containers'] as Record<string, Record<string, unknown>>)['k:{"name":"c"}'];
    assert.deepEqual(Object.keys(container ?? {}), ['.', 'f:image', 'f:name', 'f:ports', 'f:volumeMounts']);
  });

  test("a create's fields are those a later writer's update would compute from the same object", () => {
    const [direct] = updateManagedFields([], undefined, full, opts('kubectl'));
    // With an entry of another manager present, the path-based computation runs instead of the create's.
    const other: ManagedFieldsEntry = { ...(created[0] as ManagedFieldsEntry), manager: 'other', fieldsV1: {} };
    const viaPaths = updateManagedFields([other], undefined, full, opts('kubectl')).find(
      (e) => e.manager === 'kubectl',
    );
    assert.deepEqual(viaPaths?.fieldsV1, direct?.fieldsV1);
    assert.equal(JSON.stringify(viaPaths?.fieldsV1), JSON.stringify(direct?.fieldsV1), 'in the same order');
  });

  test('an update that takes a label with "/" from the creator leaves the creator its other labels', () => {
    const [entry] = updateManagedFields([], undefined, full, opts('creator'));
    const next = {
      ...full,
      metadata: { ...full.metadata, labels: { ...full.metadata.labels, 'app.kubernetes.io/name': 'api' } },
    };
    const entries = updateManagedFields(entry ? [entry] : [], full, next, opts('kubectl'));
    const creator = entries.find((e) => e.manager === 'creator');
    assert.deepEqual((creator?.fieldsV1['f:metadata'] as Record<string, unknown> | undefined)?.['f:labels'], {
      '.': {},
      'f:app': {},
    });
    const kubectl = entries.find((e) => e.manager === 'kubectl');
    assert.deepEqual(kubectl?.fieldsV1, { 'f:metadata': { 'f:labels': { 'f:app.kubernetes.io/name': {} } } });
  });
});

describe('managed fields: the paired walk of a write', () => {
  /** What a write changed and removed, from a pair of leaf maps. */
  const diff = ({ before, after }: { before: Map<string, string>; after: Map<string, string> }) => ({
    changed: [...after]
      .filter(([p, v]) => before.get(p) !== v)
      .map(([p]) => p)
      .sort(),
    removed: [...before.keys()].filter((p) => !after.has(p)).sort(),
  });
  const base = () => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'p',
      namespace: 'default',
      uid: 'u1',
      labels: { app: 'a', 'example.com/tier': 'web' },
      annotations: { note: 'x' },
      finalizers: ['batch.kubernetes.io/job-tracking'],
      ownerReferences: [{ apiVersion: 'batch/v1', kind: 'Job', name: 'j', uid: 'j1', controller: true }],
    },
    spec: {
      containers: [
        {
          name: 'c',
          image: 'i',
          ports: [{ containerPort: 80, protocol: 'TCP' }],
          resources: { requests: { cpu: '1' } },
          securityContext: {},
          volumeMounts: [{ name: 'v', mountPath: '/data' }],
        },
      ],
      volumes: [{ name: 'v', emptyDir: {} }],
      tolerations: [{ key: 'k', operator: 'Exists' }],
      nodeSelector: { disk: 'ssd' },
      restartPolicy: 'Never',
    },
    status: {
      phase: 'Pending',
      conditions: [{ type: 'PodScheduled', status: 'True' }],
      containerStatuses: [{ name: 'c', ready: false, state: { waiting: { reason: 'ContainerCreating' } } }],
    },
  });
  // Changes of every shape: values, keys added and removed, list elements, structs emptied and filled, types changed.
  // biome-ignore lint/suspicious/noExplicitAny: the mutations reach into plain JSON
  const mutations: ((o: Record<string, any>) => void)[] = [
    (o) => {
      o.metadata.labels.app = 'b';
    },
    (o) => {
      delete o.metadata.labels['example.com/tier'];
    },
    (o) => {
      o.metadata.labels['new/key'] = 'v';
    },
    (o) => {
      o.metadata.finalizers = [];
    },
    (o) => {
      delete o.metadata.finalizers;
    },
    (o) => {
      o.metadata.ownerReferences[0].controller = false;
    },
    (o) => {
      delete o.metadata.annotations;
    },
    (o) => {
      o.spec.containers[0].image = 'j';
    },
    (o) => {
      o.spec.containers.push({ name: 'd', image: 'i' });
    },
    (o) => {
      o.spec.containers[0].securityContext = { runAsUser: 1 };
    },
    (o) => {
      o.spec.containers[0].resources = {};
    },
    (o) => {
      o.spec.volumes[0] = { name: 'v', configMap: { name: 'cm' } };
    },
    (o) => {
      o.spec.tolerations = [];
    },
    (o) => {
      o.spec.nodeName = 'node-1';
    },
    (o) => {
      o.spec.nodeSelector = 'not-an-object';
    },
    (o) => {
      o.status.phase = 'Running';
    },
    (o) => {
      o.status.conditions.push({ type: 'Ready', status: 'True' });
    },
    (o) => {
      o.status.conditions[0].status = 'False';
    },
    (o) => {
      o.status.containerStatuses[0].state = { running: { startedAt: '2026-12-04T00:00:00Z' } };
    },
    // Keyed lists reordered, shrunk, given a second element with the same key, or an element that is no object.
    (o) => {
      o.status.conditions.reverse();
    },
    (o) => {
      o.status.conditions.shift();
    },
    (o) => {
      o.status.conditions.push({ ...o.status.conditions[0], reason: 'Again' });
    },
    (o) => {
      o.status.containerStatuses.push('not-an-object');
    },
    (o) => {
      o.spec.containers[0].ports.push({ containerPort: 81, protocol: 'TCP' });
    },
    (o) => {
      delete o.status;
    },
    (o) => {
      o.status = {};
    },
  ];
  /** Applies a random mutation; one that no longer fits the object (its parent is gone) does nothing. */
  const mutate = (o: object) => {
    try {
      (mutations[random(mutations.length)] as (o: object) => void)(o);
    } catch {
      // e.g. status was deleted by an earlier mutation
    }
  };
  let seed = 42;
  const random = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };

  test('finds exactly what walking both objects whole finds, for random writes, main resource and status', () => {
    for (let round = 0; round < 400; round++) {
      const old = base();
      for (let i = random(3); i > 0; i--) mutate(old);
      const next = structuredClone(old);
      for (let i = 1 + random(3); i > 0; i--) mutate(next);
      for (const subresource of [undefined, 'status']) {
        const { changed, removed } = managedChanges(old as never, next as never, schema, subresource);
        assert.deepEqual(
          { changed: leafPaths(changed).sort(), removed: leafPaths(removed).sort() },
          diff(managedFullLeaves(old as never, next as never, schema, subresource)),
          `round ${round}, ${subresource ?? 'main'}: ${JSON.stringify(old)} → ${JSON.stringify(next)}`,
        );
      }
    }
  });

  test("a create's tree, built in FieldsV1 order as the walk goes, is the sorted paths' tree, for random objects", () => {
    // With another manager's (empty) entry present, the fields come from a tree sorted at the end instead.
    const other: ManagedFieldsEntry = { ...opts('other'), operation: 'Update', fieldsType: 'FieldsV1', fieldsV1: {} };
    for (let round = 0; round < 200; round++) {
      const obj = base();
      for (let i = 1 + random(4); i > 0; i--) mutate(obj);
      // Keyed and set lists out of order, and fields out of order.
      const spec = (obj as { spec?: Record<string, unknown> }).spec;
      for (const list of Object.values(spec ?? {})) if (Array.isArray(list)) list.reverse();
      const shuffled = Object.fromEntries(Object.entries(obj).reverse());
      for (const subresource of [undefined, 'status']) {
        const [direct] = updateManagedFields([], undefined, shuffled as never, opts('writer', subresource));
        const viaPaths = updateManagedFields([other], undefined, shuffled as never, opts('writer', subresource)).find(
          (e) => e.manager === 'writer',
        );
        assert.equal(
          JSON.stringify(direct?.fieldsV1),
          JSON.stringify(viaPaths?.fieldsV1),
          `round ${round}, ${subresource ?? 'main'}: ${JSON.stringify(shuffled)}`,
        );
      }
    }
  });

  test('gives every manager the same fields as the reference algorithm, over chains of random writes', () => {
    const SEP = '\u0000';
    const flatten = (fields: unknown, prefix = '', out: string[] = []): string[] => {
      for (const [k, v] of Object.entries((fields ?? {}) as Record<string, unknown>)) {
        const n = out.length;
        flatten(v, `${prefix}${SEP}${k}`, out);
        if (out.length === n) out.push(`${prefix}${SEP}${k}`);
      }
      return out;
    };
    const build = (paths: string[]) => {
      const root: Record<string, Record<string, unknown>> = {};
      for (const p of [...paths].sort()) {
        let node: Record<string, unknown> = root;
        for (const part of p.split(SEP).slice(1)) {
          node[part] ??= {};
          node = node[part] as Record<string, unknown>;
        }
      }
      return root;
    };
    // The algorithm before 2026-12-04's shortcuts: list every entry's fields, filter, rebuild.
    const reference = (entries: ManagedFieldsEntry[], old: object, next: object, manager: string, sub?: string) => {
      const { changed, removed } = diff(managedFullLeaves(old as never, next as never, schema, sub));
      if (changed.length === 0 && removed.length === 0) return entries;
      const gone = new Set([...changed, ...removed]);
      const same = (e: ManagedFieldsEntry) => e.manager === manager && (e.subresource ?? '') === (sub ?? '');
      const out: ManagedFieldsEntry[] = [];
      let mine = new Set<string>();
      for (const e of entries) {
        const all = flatten(e.fieldsV1);
        const kept = all.filter((p) => !gone.has(p));
        if (same(e)) mine = new Set(kept);
        else if (kept.length === all.length) out.push(e);
        else if (kept.length > 0) out.push({ ...e, fieldsV1: build(kept) });
      }
      for (const p of changed) mine.add(p);
      if (mine.size > 0)
        out.push({ ...opts(manager, sub), operation: 'Update', fieldsType: 'FieldsV1', fieldsV1: build([...mine]) });
      return out;
    };
    const view = (entries: ManagedFieldsEntry[]) =>
      entries.map((e) => ({ manager: e.manager, subresource: e.subresource, fields: flatten(e.fieldsV1).sort() }));
    for (let chain = 0; chain < 60; chain++) {
      let obj: object = base();
      let entries = updateManagedFields([], undefined, obj as never, opts('creator'));
      let expected = entries;
      for (let step = 0; step < 8; step++) {
        const next = structuredClone(obj);
        for (let i = 1 + random(2); i > 0; i--) mutate(next);
        const manager = ['creator', 'kubelet', 'controller'][random(3)] as string;
        const sub = random(2) === 0 ? 'status' : undefined;
        entries = updateManagedFields(entries, obj as never, next as never, opts(manager, sub));
        expected = reference(expected, obj, next, manager, sub);
        assert.deepEqual(view(entries), view(expected), `chain ${chain}, step ${step}: ${manager} ${sub ?? 'main'}`);
        obj = next;
      }
    }
  });

  test('skips what did not change', () => {
    const old = base();
    const next = structuredClone(old);
    next.status.phase = 'Running';
    const { changed, removed } = managedChanges(old as never, next as never, schema, 'status');
    assert.deepEqual(changed, { 'f:status': { 'f:phase': {} } });
    assert.deepEqual(removed, {});
  });
});
