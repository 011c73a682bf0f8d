import { describe, it } from 'node:test';
import assert from '../../testing/assert.js';
import { sortByKubeAwareVersion } from './version-priority.js';

describe('Kubernetes version ordering', () => {
  it('puts GA before beta before alpha, higher numbers first, other names last in name order', () => {
    assert.deepEqual(sortByKubeAwareVersion(['v1alpha1', 'foo', 'v1', 'v2beta1', 'v1beta2', 'v2', 'bar', 'v10']), [
      'v10',
      'v2',
      'v1',
      'v2beta1',
      'v1beta2',
      'v1alpha1',
      'bar',
      'foo',
    ]);
  });
});
