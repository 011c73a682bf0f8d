import { describe, it } from 'node:test';
import { semanticEqual } from '../../../api/semantic-equal.js';
import assert from '../../../testing/assert.js';
import { canonicalJson, computeHash, equalIgnoreHash, safeEncodeString } from './hash.js';

const template = {
  metadata: { labels: { app: 'web' } },
  spec: { containers: [{ name: 'web', image: 'nginx:1.25', ports: [{ containerPort: 80 }] }], restartPolicy: 'Always' },
};

describe('pod-template-hash', () => {
  it('renders digits in upstream’s safe alphabet', () => {
    assert.equal(safeEncodeString('0123456789'), '456789bcdf');
  });

  it('is stable: the same template hashes the same, whatever its key order', () => {
    const reordered = {
      spec: {
        restartPolicy: 'Always',
        containers: [{ ports: [{ containerPort: 80 }], image: 'nginx:1.25', name: 'web' }],
      },
      metadata: { labels: { app: 'web' } },
    };
    assert.equal(canonicalJson(template), canonicalJson(reordered));
    const hash = computeHash(template);
    assert.equal(computeHash(reordered), hash);
    assert.match(hash, /^[bcdfghjklmnpqrstvwxz2456789]{1,10}$/);
  });

  it('changes with the template and with the collision count', () => {
    const other = structuredClone(template);
    other.spec.containers[0]!.image = 'nginx:1.26';
    const base = computeHash(template);
    assert.notEqual(computeHash(other), base);
    assert.notEqual(computeHash(template, 1), base);
    assert.notEqual(computeHash(template, 1), computeHash(template, 2));
    assert.equal(computeHash(template, 1), computeHash(template, 1));
  });

  it('compares templates ignoring the hash label, absent vs empty fields alike', () => {
    const rsTemplate = structuredClone(template) as typeof template & { metadata: { creationTimestamp?: null } };
    rsTemplate.metadata.labels = { app: 'web', 'pod-template-hash': 'abc' } as typeof template.metadata.labels;
    rsTemplate.metadata.creationTimestamp = null;
    assert.ok(equalIgnoreHash(template, rsTemplate), 'equal but for the hash label');
    assert.ok(semanticEqual({ a: [], b: {} }, {}), 'empty is absent');
    const changed = structuredClone(template);
    changed.metadata.labels = { app: 'api' };
    assert.ok(!equalIgnoreHash(template, changed), 'labels differ');
  });

  it('takes a template with the serviceAccount alias for one stored before the alias was written', () => {
    const named = structuredClone(template) as typeof template & { spec: Record<string, unknown> };
    named.spec.serviceAccountName = 'builder';
    const aliased = structuredClone(named);
    aliased.spec.serviceAccount = 'builder';
    assert.ok(equalIgnoreHash(aliased, named), 'no new ReplicaSet for a template that only gained the alias');
    const other = structuredClone(aliased);
    other.spec.serviceAccountName = 'deployer';
    other.spec.serviceAccount = 'deployer';
    assert.ok(!equalIgnoreHash(other, named), 'another account is another template');
  });
});
