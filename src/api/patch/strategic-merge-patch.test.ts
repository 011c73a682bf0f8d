import { describe, it } from 'node:test';
import assert from '../../testing/assert.js';
import { deploymentSchema, podSchema } from './schema-fixture.js';
import { applyStrategicMergePatch } from './strategic-merge-patch.js';

type Obj = Record<string, unknown>;
const at = (value: unknown, ...path: (string | number)[]): unknown =>
  path.reduce<unknown>((v, k) => (v as Record<string | number, unknown>)[k], value);

function deployment() {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', labels: { app: 'web', tier: 'front' }, finalizers: ['a.io/x', 'b.io/y', 'c.io/z'] },
    spec: {
      replicas: 2,
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
      template: {
        spec: {
          containers: [
            {
              name: 'app',
              image: 'nginx:1.25',
              args: ['-g', 'daemon off;'],
              ports: [{ containerPort: 80, protocol: 'TCP' }],
              env: [{ name: 'A', value: '1' }],
            },
            { name: 'sidecar', image: 'envoy:1.30' },
          ],
          volumes: [{ name: 'conf', configMap: { name: 'web-conf' } }],
        },
      },
    },
  };
}

const apply = (patch: unknown, doc: unknown = deployment()) => applyStrategicMergePatch(doc, patch, deploymentSchema);
const containers = (out: unknown) => at(out, 'spec', 'template', 'spec', 'containers') as Obj[];

describe('applyStrategicMergePatch: what kubectl sends', () => {
  it('client-side apply: $setElementOrder/containers with a changed image', () => {
    const out = apply({
      metadata: { annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{}\n' } },
      spec: {
        template: {
          spec: {
            '$setElementOrder/containers': [{ name: 'app' }, { name: 'sidecar' }],
            containers: [{ image: 'nginx:1.26', name: 'app' }],
          },
        },
      },
    });
    const expected = deployment();
    expected.spec.template.spec.containers[0]!.image = 'nginx:1.26';
    assert.deepEqual(out, {
      ...expected,
      metadata: { ...expected.metadata, annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{}\n' } },
    });
  });

  it('client-side apply: a new container goes where $setElementOrder puts it', () => {
    const out = apply({
      spec: {
        template: {
          spec: {
            '$setElementOrder/containers': [{ name: 'app' }, { name: 'log' }, { name: 'sidecar' }],
            containers: [{ name: 'log', image: 'fluentd' }],
          },
        },
      },
    });
    assert.deepEqual(
      containers(out).map((c) => c.name),
      ['app', 'log', 'sidecar'],
    );
    assert.equal(containers(out)[0]?.image, 'nginx:1.25');
  });

  it('kubectl apply removing a container: $patch delete with $setElementOrder', () => {
    const out = apply({
      spec: {
        template: {
          spec: {
            '$setElementOrder/containers': [{ name: 'app' }],
            containers: [{ $patch: 'delete', name: 'sidecar' }],
          },
        },
      },
    });
    assert.deepEqual(
      containers(out).map((c) => c.name),
      ['app'],
    );
  });

  it('deletes a container by $patch: delete', () => {
    const out = apply({ spec: { template: { spec: { containers: [{ name: 'app', $patch: 'delete' }] } } } });
    assert.deepEqual(containers(out), [{ name: 'sidecar', image: 'envoy:1.30' }]);
  });

  it('adds and removes labels (null deletes)', () => {
    const out = apply({ metadata: { labels: { env: 'prod', tier: null, absent: null } } });
    assert.deepEqual(at(out, 'metadata', 'labels'), { app: 'web', env: 'prod' });
  });

  it('switches a Deployment from RollingUpdate to Recreate with $retainKeys', () => {
    const out = apply({ spec: { strategy: { $retainKeys: ['type'], rollingUpdate: null, type: 'Recreate' } } });
    assert.deepEqual(at(out, 'spec', 'strategy'), { type: 'Recreate' });
    // The keys not listed are cleared even when the patch does not null them.
    const out2 = apply({ spec: { strategy: { $retainKeys: ['type'], type: 'Recreate' } } });
    assert.deepEqual(at(out2, 'spec', 'strategy'), { type: 'Recreate' });
  });

  it('switches a volume source with $retainKeys inside a merged list element', () => {
    const out = apply({
      spec: { template: { spec: { volumes: [{ $retainKeys: ['emptyDir', 'name'], emptyDir: {}, name: 'conf' }] } } },
    });
    assert.deepEqual(at(out, 'spec', 'template', 'spec', 'volumes'), [{ name: 'conf', emptyDir: {} }]);
  });

  it('removes finalizers with $deleteFromPrimitiveList and merges new ones as a set', () => {
    const out = apply({ metadata: { '$deleteFromPrimitiveList/finalizers': ['b.io/y', 'absent'] } });
    assert.deepEqual(at(out, 'metadata', 'finalizers'), ['a.io/x', 'c.io/z']);
    const out2 = apply({
      metadata: {
        '$setElementOrder/finalizers': ['a.io/x', 'c.io/z', 'd.io/w'],
        '$deleteFromPrimitiveList/finalizers': ['b.io/y'],
        finalizers: ['d.io/w'],
      },
    });
    assert.deepEqual(at(out2, 'metadata', 'finalizers'), ['a.io/x', 'c.io/z', 'd.io/w']);
  });

  it('replaces a merge list with the list form of $patch: replace', () => {
    const out = apply({
      spec: { template: { spec: { containers: [{ name: 'only', image: 'busybox' }, { $patch: 'replace' }] } } },
    });
    assert.deepEqual(containers(out), [{ name: 'only', image: 'busybox' }]);
  });

  it('replaces or empties a map with $patch: replace / delete', () => {
    const replaced = apply({ metadata: { labels: { $patch: 'replace', only: 'this' } } });
    assert.deepEqual(at(replaced, 'metadata', 'labels'), { only: 'this' });
    const emptied = apply({ metadata: { labels: { $patch: 'delete' } } });
    assert.deepEqual(at(emptied, 'metadata', 'labels'), {});
    const absent = apply({ metadata: { annotations: { $patch: 'delete' } } });
    assert.equal(at(absent, 'metadata', 'annotations'), undefined);
  });

  it('merges env and ports by their keys (new elements first, as upstream), replaces lists without a strategy', () => {
    const out = apply({
      spec: {
        template: {
          spec: {
            containers: [
              {
                name: 'app',
                args: ['--new'],
                env: [
                  { name: 'B', value: '2' },
                  { name: 'A', value: null },
                ],
                ports: [{ containerPort: 443 }],
              },
            ],
          },
        },
      },
    });
    const app = containers(out)[0];
    assert.deepEqual(app?.args, ['--new']);
    assert.deepEqual(app?.env, [{ name: 'B', value: '2' }, { name: 'A' }]);
    assert.deepEqual(app?.ports, [{ containerPort: 443 }, { containerPort: 80, protocol: 'TCP' }]);
  });

  it('falls back to merge semantics below fields the schema does not know', () => {
    const doc = { ...deployment(), status: { conditions: [{ type: 'A' }], extra: { keep: 1, drop: 2 } } };
    const out = apply({ status: { conditions: [{ type: 'B' }], extra: { drop: null, add: 3 } } }, doc);
    assert.deepEqual(at(out, 'status'), { conditions: [{ type: 'B' }], extra: { keep: 1, add: 3 } });
    const noSchema = applyStrategicMergePatch({ a: [1, 2], m: { x: 1 } }, { a: [3], m: { y: 2 } }, undefined);
    assert.deepEqual(noSchema, { a: [3], m: { x: 1, y: 2 } });
  });

  it('treats a null patch as no change, and changes neither input', () => {
    const doc = deployment();
    assert.deepEqual(apply(null, doc), deployment());
    const patch = {
      metadata: { labels: { tier: null } },
      spec: {
        template: {
          spec: {
            containers: [
              { name: 'app', image: 'x' },
              { name: 'sidecar', $patch: 'delete' },
            ],
          },
        },
      },
    };
    const before = structuredClone(patch);
    const out = apply(patch, doc);
    assert.deepEqual(doc, deployment());
    assert.deepEqual(patch, before);
    (containers(out)[0] as Obj).image = 'changed';
    assert.equal(patch.spec.template.spec.containers[0]?.image, 'x');
  });

  it('works on a Pod schema too (ownerReferences merge by uid)', () => {
    const pod = { metadata: { ownerReferences: [{ uid: '1', kind: 'ReplicaSet', name: 'rs' }] } };
    const out = applyStrategicMergePatch(
      pod,
      { metadata: { ownerReferences: [{ uid: '2', name: 'other' }] } },
      podSchema,
    );
    assert.deepEqual(at(out, 'metadata', 'ownerReferences'), [
      { uid: '2', name: 'other' },
      { uid: '1', kind: 'ReplicaSet', name: 'rs' },
    ]);
  });
});
