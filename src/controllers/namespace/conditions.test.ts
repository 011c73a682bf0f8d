import { describe, it } from 'node:test';
import { GroupDiscoveryFailedError } from '../../client/discovery.js';
import assert from '../../testing/assert.js';
import {
  CONDITION_TYPES,
  emptyTotals,
  type NamespaceCondition,
  NamespaceConditionUpdater,
  updateConditions,
} from './conditions.js';

const T0 = Date.parse('2025-01-01T00:00:00Z');
const T1 = Date.parse('2025-01-01T00:01:00Z');

function byType(conditions: NamespaceCondition[] | undefined, type: string): NamespaceCondition | undefined {
  return conditions?.find((c) => c.type === type);
}

describe('namespace deletion conditions', () => {
  it('sets every condition to its ok variant when nothing is wrong', () => {
    const status: { conditions?: NamespaceCondition[] } = {};
    assert.equal(new NamespaceConditionUpdater(() => T0).update(status), true);
    assert.deepEqual(
      status.conditions?.map((c) => [c.type, c.status, c.reason, c.message]),
      [
        ['NamespaceDeletionDiscoveryFailure', 'False', 'ResourcesDiscovered', 'All resources successfully discovered'],
        [
          'NamespaceDeletionGroupVersionParsingFailure',
          'False',
          'ParsedGroupVersions',
          'All legacy kube types successfully parsed',
        ],
        [
          'NamespaceDeletionContentFailure',
          'False',
          'ContentDeleted',
          'All content successfully deleted, may be waiting on finalization',
        ],
        ['NamespaceContentRemaining', 'False', 'ContentRemoved', 'All content successfully removed'],
        [
          'NamespaceFinalizersRemaining',
          'False',
          'ContentHasNoFinalizers',
          'All content-preserving finalizers finished',
        ],
      ],
    );
    assert.equal(status.conditions?.[0]?.lastTransitionTime, '2025-01-01T00:00:00Z');
    // The same outcome again changes nothing.
    assert.equal(new NamespaceConditionUpdater(() => T1).update(status), false);
  });

  it('reports remaining resources and finalizers, sorted', () => {
    const totals = emptyTotals();
    totals.remainingByResource.set('pods', { gvr: { group: '', version: 'v1', resource: 'pods' }, count: 2 });
    totals.remainingByResource.set('deployments', {
      gvr: { group: 'apps', version: 'v1', resource: 'deployments' },
      count: 1,
    });
    totals.remainingByFinalizer.set('example.com/b', 1);
    totals.remainingByFinalizer.set('example.com/a', 2);
    const updater = new NamespaceConditionUpdater(() => T0);
    updater.processContentTotals(totals);
    const status: { conditions?: NamespaceCondition[] } = {};
    updater.update(status);
    const content = byType(status.conditions, 'NamespaceContentRemaining');
    assert.equal(content?.status, 'True');
    assert.equal(content?.reason, 'SomeResourcesRemain');
    assert.equal(
      content?.message,
      'Some resources are remaining: deployments.apps has 1 resource instances, pods. has 2 resource instances',
    );
    const finalizers = byType(status.conditions, 'NamespaceFinalizersRemaining');
    assert.equal(finalizers?.reason, 'SomeFinalizersRemain');
    assert.equal(
      finalizers?.message,
      'Some content in the namespace has finalizers remaining: example.com/a in 2 resource instances, ' +
        'example.com/b in 1 resource instances',
    );
  });

  it('reports discovery and content deletion failures', () => {
    const updater = new NamespaceConditionUpdater(() => T0);
    updater.processDiscoverResourcesErr(
      new GroupDiscoveryFailedError([], new Map([['metrics.k8s.io/v1beta1', new Error('the server is unavailable')]])),
    );
    updater.processDeleteContentErr(new Error('b failed'));
    updater.processDeleteContentErr(new Error('a failed'));
    const status: { conditions?: NamespaceCondition[] } = {};
    updater.update(status);
    const discovery = byType(status.conditions, 'NamespaceDeletionDiscoveryFailure');
    assert.equal(discovery?.status, 'True');
    assert.equal(discovery?.reason, 'DiscoveryFailed');
    assert.equal(
      discovery?.message,
      'Discovery failed for some groups, 1 failing: unable to retrieve the complete list of server APIs: ' +
        'metrics.k8s.io/v1beta1: the server is unavailable',
    );
    const content = byType(status.conditions, 'NamespaceDeletionContentFailure');
    assert.equal(content?.reason, 'ContentDeletionFailed');
    assert.equal(content?.message, 'Failed to delete all resource types, 2 remaining: a failed, b failed');
  });

  it('moves lastTransitionTime only when the status flips', () => {
    const status: { conditions?: NamespaceCondition[] } = {};
    updateConditions(status, [], T0);
    const failing: NamespaceCondition = {
      type: 'NamespaceDeletionContentFailure',
      status: 'True',
      reason: 'ContentDeletionFailed',
      message: 'one',
    };
    assert.equal(updateConditions(status, [failing], T1), true);
    const c = byType(status.conditions, 'NamespaceDeletionContentFailure');
    assert.equal(c?.lastTransitionTime, '2025-01-01T00:01:00Z');
    assert.equal(updateConditions(status, [{ ...failing, message: 'two' }], T1 + 60_000), true);
    assert.equal(c?.lastTransitionTime, '2025-01-01T00:01:00Z');
    assert.equal(c?.message, 'two');
    // The others were left as they were, and all five are there once.
    assert.equal(status.conditions?.length, CONDITION_TYPES.length);
    assert.equal(byType(status.conditions, 'NamespaceContentRemaining')?.lastTransitionTime, '2025-01-01T00:00:00Z');
  });
});
