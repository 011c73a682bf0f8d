import { describe, it } from 'node:test';
import assert from '../../../testing/assert.js';
import { attributesFor } from '../attributes.js';
import type { AdmissionAttributes } from '../types.js';
import type { LevelVersion } from './levels.js';
import { PodSecurityMetrics } from './metrics.js';

const PODS = { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true };
const DEPLOYMENTS = { group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment', namespaced: true };

function attrs(def: typeof PODS, operation: 'CREATE' | 'UPDATE' = 'CREATE'): AdmissionAttributes {
  return attributesFor(def, { operation, object: { metadata: { name: 'x' } }, namespace: 'ns', name: 'x' });
}

describe('PodSecurityMetrics', () => {
  it('counts runs of like evaluations and interleaved different ones under their own labels', async () => {
    const metrics = new PodSecurityMetrics();
    const privileged: LevelVersion = { level: 'privileged', version: { latest: true } };
    const baseline: LevelVersion = { level: 'baseline', version: { latest: false, minor: 30 } };
    for (let i = 0; i < 3; i++) metrics.evaluation('allow', privileged, 'enforce', attrs(PODS));
    metrics.evaluation('deny', baseline, 'audit', attrs(PODS));
    metrics.evaluation('allow', privileged, 'enforce', attrs(PODS));
    metrics.evaluation('allow', privileged, 'enforce', attrs(PODS, 'UPDATE'));
    metrics.evaluation('allow', privileged, 'enforce', attrs(DEPLOYMENTS));
    // Another object with the same level and version counts under the same labels.
    metrics.evaluation('allow', { ...privileged }, 'enforce', attrs(PODS));
    const text = await metrics.registry.metrics();
    const lines = text.split('\n').filter((l) => l.startsWith('pod_security_evaluations_total{'));
    assert.deepEqual(lines.sort(), [
      'pod_security_evaluations_total{decision="allow",policy_level="privileged",policy_version="latest",mode="enforce",request_operation="create",resource="controller",subresource=""} 1',
      'pod_security_evaluations_total{decision="allow",policy_level="privileged",policy_version="latest",mode="enforce",request_operation="create",resource="pod",subresource=""} 5',
      'pod_security_evaluations_total{decision="allow",policy_level="privileged",policy_version="latest",mode="enforce",request_operation="update",resource="pod",subresource=""} 1',
      'pod_security_evaluations_total{decision="deny",policy_level="baseline",policy_version="v1.30",mode="audit",request_operation="create",resource="pod",subresource=""} 1',
    ]);
    // Counted again from zero after a scrape, added to what the counter holds.
    metrics.evaluation('allow', privileged, 'enforce', attrs(PODS));
    const again = (await metrics.registry.metrics()).split('\n');
    assert.ok(again.includes(lines.sort()[1]?.replace(/ 5$/, ' 6') as string));
  });
});
