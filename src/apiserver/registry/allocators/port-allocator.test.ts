import { describe, it } from 'node:test';
import assert from '../../../testing/assert.js';
import { NodePortAllocator } from './port-allocator.js';

/** A random source that always starts scans at the bottom of a band. */
const first = () => 0;

describe('NodePort allocator', () => {
  it('hands out ports above the static band first', () => {
    const ports = new NodePortAllocator('30000-32767', first);
    // min(max(16, 2768/32), 128) = 86 ports are kept for requests by hand.
    assert.equal(ports.allocateNext('default/a'), 30086);
    assert.equal(ports.allocateNext('default/b'), 30087);
  });

  it('refuses taken and out-of-range ports with upstream messages', () => {
    const ports = new NodePortAllocator();
    ports.allocate(30080, 'default/web');
    assert.equal(ports.check(30080)?.message, 'provided port is already allocated');
    assert.equal(
      ports.check(8080)?.message,
      'provided port is not in the valid range. The range of valid ports is 30000-32767',
    );
    const tiny = new NodePortAllocator('30000-30001');
    tiny.allocateNext('a/a');
    tiny.allocateNext('a/b');
    assert.throws(() => tiny.allocateNext('a/c'), { message: 'range is full' });
  });
});
