import { describe, it } from 'node:test';
import assert from '../../testing/assert.js';
import { goStructEncoder } from './go-struct-json.js';

const encoder = goStructEncoder();

describe('GoStructEncoder: JSON as Go re-encodes it from the kind’s struct', () => {
  it('writes kind and apiVersion first, the zero ObjectMeta time and empty status, in the struct’s order', () => {
    const pod = encoder.encodeObject(
      {
        apiVersion: 'v1',
        kind: 'Pod',
        spec: { restartPolicy: 'Always', containers: [{ image: 'nginx', name: 'c', resources: {} }] },
        metadata: { name: 'p', labels: {}, generateName: '' },
      },
      'v1',
      'Pod',
    );
    assert.equal(
      JSON.stringify(pod),
      '{"kind":"Pod","apiVersion":"v1","metadata":{"name":"p","creationTimestamp":null},' +
        '"spec":{"containers":[{"name":"c","image":"nginx","resources":{}}],"restartPolicy":"Always"},"status":{}}',
    );
  });

  it('keeps pointer fields set to zero, writes null for absent fields without omitempty, drops unknown keys', () => {
    const request = encoder.encodeObject(
      { spec: { expirationSeconds: 0, unknown: 1 }, metadata: {} },
      'authentication.k8s.io/v1',
      'TokenRequest',
    );
    assert.deepEqual(request, {
      kind: 'TokenRequest',
      apiVersion: 'authentication.k8s.io/v1',
      metadata: { creationTimestamp: null },
      spec: { audiences: null, expirationSeconds: 0, boundObjectRef: null },
      status: { token: '', expirationTimestamp: null },
    });
  });

  it('writes times in UTC to the second and quantities in canonical form', () => {
    const cm = encoder.encodeObject(
      { metadata: { name: 'q', creationTimestamp: '2026-01-02T03:04:05.678+01:00' } },
      'v1',
      'ConfigMap',
    );
    assert.deepEqual(cm.metadata, { name: 'q', creationTimestamp: '2026-01-02T02:04:05Z' });
    const quota = encoder.encodeObject({ spec: { hard: { cpu: '1000m', pods: 10 } } }, 'v1', 'ResourceQuota');
    assert.deepEqual((quota.spec as { hard: unknown }).hard, { cpu: '1', pods: '10' });
  });

  it('encodes a kind by an explicit type name (DeleteOptions, whatever the apiVersion says)', () => {
    const opts = encoder.encodeObject(
      { propagationPolicy: 'Background', dryRun: [], gracePeriodSeconds: 0 },
      'meta.k8s.io/__internal',
      'DeleteOptions',
      'k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions',
    );
    assert.equal(
      JSON.stringify(opts),
      '{"kind":"DeleteOptions","apiVersion":"meta.k8s.io/__internal","gracePeriodSeconds":0,"propagationPolicy":"Background"}',
    );
  });

  it('leaves an object of an unknown kind as it is, with kind and apiVersion first', () => {
    assert.equal(
      JSON.stringify(encoder.encodeObject({ apiVersion: 'x/v1', spec: { b: 1 }, kind: 'Thing' }, 'x/v1', 'Thing')),
      '{"kind":"Thing","apiVersion":"x/v1","spec":{"b":1}}',
    );
  });
});

describe('GoStructEncoder.dropNulls: the nulls decoding into the Go struct and encoding again leave', () => {
  it('drops nulls of omitempty fields, keeps a zero Time as null, in place and in the order given', () => {
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', annotations: null, labels: { a: 'b' } },
      spec: {
        hostname: null,
        securityContext: null,
        containers: [{ name: 'c', image: 'busybox', args: null, resources: null }],
      },
      status: {
        reason: null,
        conditions: [
          { type: 'Ready', status: 'True', reason: null, message: null, lastProbeTime: null },
          { type: 'Initialized', status: 'True', reason: 'PodCompleted' },
        ],
        containerStatuses: [{ name: 'c', ready: null, restartCount: null, image: '', imageID: '' }],
      },
    };
    encoder.dropNulls(pod, 'v1', 'Pod');
    assert.equal(
      JSON.stringify(pod),
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'p', labels: { a: 'b' } },
        // ResourceRequirements is a struct, not a pointer: Go writes its zero value.
        spec: { containers: [{ name: 'c', image: 'busybox', resources: {} }] },
        status: {
          conditions: [
            { type: 'Ready', status: 'True', lastProbeTime: null },
            { type: 'Initialized', status: 'True', reason: 'PodCompleted' },
          ],
          // Neither ready nor restartCount has omitempty: their zero values are written.
          containerStatuses: [{ name: 'c', ready: false, restartCount: 0, image: '', imageID: '' }],
        },
      }),
    );
  });

  it('writes null back for a slice without omitempty, and leaves unknown keys alone', () => {
    const pod = { spec: { containers: null, extra: null } };
    encoder.dropNulls(pod, 'v1', 'Pod');
    assert.deepEqual(pod, { spec: { containers: null, extra: null } });
  });

  it('gives a null map value or list item its type’s zero value', () => {
    const pod = {
      metadata: { labels: { a: null } },
      spec: {
        nodeSelector: { x: null },
        containers: [{ name: 'c', args: ['a', null], resources: { limits: { cpu: null } }, ports: [null] }, null],
      },
    };
    encoder.dropNulls(pod, 'v1', 'Pod');
    assert.deepEqual(pod, {
      metadata: { labels: { a: '' } },
      spec: {
        nodeSelector: { x: '' },
        containers: [
          { name: 'c', args: ['a', ''], resources: { limits: { cpu: '0' } }, ports: [{ containerPort: 0 }] },
          { name: '', resources: {} },
        ],
      },
    });
  });

  it('after a patch, walks only where the patch has nulls inside a value it sets', () => {
    const patched = {
      metadata: { name: 'p', annotations: null },
      status: {
        phase: 'Running',
        conditions: [{ type: 'Ready', status: 'True', reason: null, lastProbeTime: null }],
      },
    };
    const patch = {
      metadata: { labels: null },
      status: { reason: null, conditions: [{ type: 'Ready', status: 'True', reason: null, lastProbeTime: null }] },
    };
    encoder.dropPatchedNulls(patched, 'v1', 'Pod', patch);
    assert.deepEqual(patched, {
      // Not below a value the patch set: left for the full walk of a stored object to have dealt with.
      metadata: { name: 'p', annotations: null },
      status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastProbeTime: null }] },
    });
  });

  it('walks templates and list kinds, and leaves kinds without a struct unchanged', () => {
    const job = { spec: { template: { metadata: { labels: null }, spec: { nodeName: null, containers: [] } } } };
    encoder.dropNulls(job, 'batch/v1', 'Job');
    assert.deepEqual(job, { spec: { template: { metadata: {}, spec: { containers: [] } } } });
    const thing = { spec: { a: null } };
    encoder.dropNulls(thing, 'example.com/v1', 'Thing');
    assert.deepEqual(thing, { spec: { a: null } });
  });
});
