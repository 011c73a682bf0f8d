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
