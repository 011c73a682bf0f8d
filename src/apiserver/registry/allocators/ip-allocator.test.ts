import { describe, it } from 'node:test';
import assert from '../../../testing/assert.js';
import { ClusterIPAllocator } from './ip-allocator.js';
import { parseServiceCIDR } from './ip-range.js';

/** A random source that always starts scans at the bottom of a band. */
const first = () => 0;

describe('service CIDR', () => {
  it('keeps back the network and broadcast addresses', () => {
    const cidr = parseServiceCIDR('10.96.0.0/12');
    assert.equal(cidr.size, 2 ** 20 - 2);
    const small = new ClusterIPAllocator('10.0.0.0/30', first);
    assert.equal(small.allocateNext('a/b'), '10.0.0.1');
    assert.equal(small.allocateNext('a/c'), '10.0.0.2');
    assert.throws(() => small.allocateNext('a/d'), { message: 'range is full' });
  });
});

describe('ClusterIP allocator', () => {
  it('hands out addresses from above the static band first, never twice', () => {
    const ips = new ClusterIPAllocator('10.96.0.0/12', first);
    // min(max(16, 2^20/16), 256) = 256 addresses (10.96.0.1 - 10.96.1.0) are kept for requests by hand.
    assert.equal(ips.allocateNext('default/a'), '10.96.1.1');
    assert.equal(ips.allocateNext('default/b'), '10.96.1.2');
    const seen = new Set<string>();
    const random = new ClusterIPAllocator('10.96.0.0/24');
    for (let i = 0; i < 200; i++) seen.add(random.allocateNext(`ns/s${i}`));
    assert.equal(seen.size, 200);
  });

  it('refuses taken, out-of-range and network addresses with upstream messages', () => {
    const ips = new ClusterIPAllocator('10.96.0.0/12', first);
    ips.allocate('10.96.0.10', 'kube-system/kube-dns');
    assert.equal(ips.check('10.96.0.10')?.message, 'provided IP is already allocated');
    assert.equal(ips.check('192.168.1.1')?.message, 'the provided network does not match the current range');
    assert.equal(
      ips.check('10.96.0.0')?.message,
      'the provided IP (10.96.0.0) is not in the valid range. The range of valid IPs is 10.96.0.0/12',
    );
    ips.release('10.96.0.10');
    assert.equal(ips.check('10.96.0.10'), undefined);
  });

  it('knows the address of the kubernetes Service', () => {
    assert.equal(new ClusterIPAllocator('10.96.0.0/12').apiServerIP, '10.96.0.1');
    assert.equal(new ClusterIPAllocator('fd00:10:96::/108').apiServerIP, 'fd00:10:96::1');
  });
});
