import { describe, it } from 'node:test';
import assert from '../../testing/assert.js';
import type { Handle } from '../framework/types.js';
import {
  DEFAULT_MULTI_POINT,
  DEFAULT_PLUGINS,
  DEFAULT_SCORE_WEIGHTS,
  extensionPointsOf,
  IN_TREE_PLUGINS,
  NOT_EVALUATED_PLUGINS,
} from './registry.js';

const handle = {} as Handle;

describe('registry', () => {
  it('has upstream default weights', () => {
    assert.deepEqual(DEFAULT_SCORE_WEIGHTS, {
      TaintToleration: 3,
      NodeAffinity: 2,
      NodeResourcesFit: 1,
      PodTopologySpread: 2,
      InterPodAffinity: 2,
      NodeResourcesBalancedAllocation: 1,
      ImageLocality: 1,
    });
  });
  it('builds every registered plugin with default args, named as registered', () => {
    for (const [name, factory] of Object.entries(IN_TREE_PLUGINS)) {
      assert.equal(factory(undefined, handle).name, name);
    }
  });
  it('every default plugin is registered or not evaluated', () => {
    for (const { name } of DEFAULT_MULTI_POINT) {
      assert.ok(name in IN_TREE_PLUGINS !== NOT_EVALUATED_PLUGINS.includes(name), name);
    }
  });
  it('the expanded defaults agree with what the plugins implement', () => {
    for (const [name, factory] of Object.entries(IN_TREE_PLUGINS)) {
      const points = extensionPointsOf(factory(undefined, handle));
      for (const [ep, refs] of Object.entries(DEFAULT_PLUGINS)) {
        const listed = refs.some((r) => r.name === name);
        assert.equal(listed, points.includes(ep as never), `${name} at ${ep}`);
      }
    }
  });
  it('every filtering plugin registers cluster events', () => {
    for (const [name, factory] of Object.entries(IN_TREE_PLUGINS)) {
      const plugin = factory(undefined, handle) as unknown as Record<string, unknown>;
      if (typeof plugin.filter === 'function' || typeof plugin.preEnqueue === 'function') {
        assert.equal(typeof plugin.eventsToRegister, 'function', name);
      }
    }
  });
});
