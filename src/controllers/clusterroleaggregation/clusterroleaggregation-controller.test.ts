import { after, before, describe, it } from 'node:test';
import type { KubeObject } from '../../client/types.js';
import { type ControlPlane, startControlPlane } from '../../index.js';
import assert from '../../testing/assert.js';
import { eventually, runControllers } from '../../testing/controllers.js';
import type { ControllerManager } from '../manager.js';
import { aggregateRules } from './clusterroleaggregation-controller.js';
import { clusterRoleAggregationController } from './index.js';

const LABEL = 'example.com/aggregate-to-combined';

function clusterRole(name: string, rules: unknown[], extra: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name }, rules, ...extra };
}

describe('clusterrole-aggregation-controller', () => {
  let cp: ControlPlane;
  let manager: ControllerManager;

  before(async () => {
    cp = await startControlPlane({ storage: 'memory' });
    manager = await runControllers(cp, [clusterRoleAggregationController]);
  });
  after(async () => {
    await manager?.stop();
    await cp?.stop();
  });

  it('fills an aggregated role with the rules of the roles it selects, and follows their changes', async () => {
    const roles = cp.client.clusterRoles();
    const getPods = { apiGroups: [''], resources: ['pods'], verbs: ['get'] };
    const listServices = { apiGroups: [''], resources: ['services'], verbs: ['list'] };
    const watchDeployments = { apiGroups: ['apps'], resources: ['deployments'], verbs: ['watch'] };
    await roles.create({
      ...clusterRole('part-b', [listServices, getPods]),
      metadata: { name: 'part-b', labels: { [LABEL]: 'true' } },
    });
    await roles.create({
      ...clusterRole('part-a', [getPods]),
      metadata: { name: 'part-a', labels: { [LABEL]: 'true' } },
    });
    await roles.create(clusterRole('unlabelled', [watchDeployments]));
    await roles.create(
      clusterRole('combined', [], {
        aggregationRule: { clusterRoleSelectors: [{ matchLabels: { [LABEL]: 'true' } }] },
      }),
    );
    await eventually(async () => {
      const combined = await roles.get('combined');
      assert.deepEqual(combined.rules, [getPods, listServices]);
    });

    const b = await roles.get('part-b');
    await roles.update({ ...b, rules: [watchDeployments] });
    await eventually(async () => {
      assert.deepEqual((await roles.get('combined')).rules, [getPods, watchDeployments]);
    });

    await roles.delete('part-a');
    await eventually(async () => {
      assert.deepEqual((await roles.get('combined')).rules, [watchDeployments]);
    });
  });
});

describe('aggregateRules', () => {
  it('goes selector by selector, roles by name, skips itself and repeated rules', () => {
    const r = (name: string, labels: Record<string, string>, rules: unknown[], extra = {}): KubeObject => ({
      metadata: { name, labels },
      rules,
      ...extra,
    });
    const rule = (verb: string) => ({ apiGroups: [''], resources: ['pods'], verbs: [verb] });
    const self = r('self', { x: '1' }, [rule('self')], {
      aggregationRule: { clusterRoleSelectors: [{ matchLabels: { y: '1' } }, { matchLabels: { x: '1' } }] },
    });
    const roles = [
      self,
      r('b', { x: '1' }, [rule('b'), rule('a')]),
      r('a', { x: '1' }, [rule('a')]),
      r('c', { y: '1' }, [rule('c'), { ...rule('a'), resourceNames: [] }]),
    ];
    assert.deepEqual(
      aggregateRules(self, roles).map((x) => x.verbs?.[0]),
      ['c', 'a', 'b'],
    );
  });
});
