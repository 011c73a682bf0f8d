import { describe, it } from 'node:test';
import assert from '../../../testing/assert.js';
import type { KubeObject } from '../object.js';
import { podTemplatePrinter } from './core-podtemplates.js';
import {
  defaultReplicationController,
  replicationControllerPrinter,
  replicationcontrollers,
  validateReplicationController,
} from './core-replicationcontrollers.js';

const template = (labels: Record<string, string>, spec: Record<string, unknown> = {}) => ({
  metadata: { labels },
  spec: { containers: [{ name: 'web', image: 'nginx' }], ...spec },
});

describe('replication controllers', () => {
  it("take selector, labels and replicas from upstream's defaults", () => {
    const rc: KubeObject = { metadata: { name: 'web' }, spec: { template: template({ app: 'web' }) } };
    defaultReplicationController(rc);
    const spec = rc.spec as Record<string, unknown>;
    assert.deepEqual(spec.selector, { app: 'web' });
    assert.deepEqual(rc.metadata.labels, { app: 'web' });
    assert.equal(spec.replicas, 1);
    assert.equal((spec.template as { spec: Record<string, unknown> }).spec.restartPolicy, 'Always');
    assert.deepEqual(validateReplicationController(rc), []);
  });

  it('refuse a template that does not match or does not restart', () => {
    const rc: KubeObject = {
      metadata: { name: 'web' },
      spec: { selector: { app: 'web' }, template: template({ app: 'other' }, { restartPolicy: 'Never' }) },
    };
    defaultReplicationController(rc);
    assert.deepEqual(
      validateReplicationController(rc).map((e) => e.message),
      [
        'spec.template.metadata.labels: Invalid value: map[string]string{"app":"other"}: `selector` does not match template `labels`',
        'spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"',
      ],
    );
  });

  it('print DESIRED CURRENT READY and the wide columns; select by status.replicas', () => {
    const rc: KubeObject = {
      metadata: { name: 'web', creationTimestamp: '2025-01-01T00:00:00Z' },
      spec: { replicas: 3, selector: { app: 'web' }, template: template({ app: 'web' }) },
      status: { replicas: 2, readyReplicas: 1 },
    };
    assert.deepEqual(replicationControllerPrinter.cells(rc, Date.parse('2025-01-01T00:00:10Z')), [
      'web',
      3,
      2,
      1,
      '10s',
      'web',
      'nginx',
      'app=web',
    ]);
    const { def } = replicationcontrollers();
    assert.equal(def.strategy.selectableFields?.['status.replicas']?.(rc), '2');
    assert.equal(def.scale, true);
  });

  it('print pod templates', () => {
    const pt: KubeObject = { metadata: { name: 't' }, template: template({ app: 'web', tier: 'fe' }) };
    assert.deepEqual(podTemplatePrinter.cells(pt, 0), ['t', 'web', 'nginx', 'app=web,tier=fe']);
  });
});
