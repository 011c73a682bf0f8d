import { describe, it } from 'node:test';
import assert from '../../../testing/assert.js';
import type { KubeObject } from '../object.js';
import { defaultEndpoints, formatEndpoints, validateEndpoints } from './core-endpoints.js';

const ep = (subsets: unknown[]): KubeObject => ({ metadata: { name: 'web' }, subsets });

describe('endpoints', () => {
  it('list at most three addresses with their ports', () => {
    assert.equal(formatEndpoints(ep([])), '<none>');
    const addresses = ['10.0.0.1', '10.0.0.2', '10.0.0.3', '10.0.0.4'].map((ip) => ({ ip }));
    assert.equal(
      formatEndpoints(ep([{ addresses, ports: [{ port: 80 }] }])),
      '10.0.0.1:80,10.0.0.2:80,10.0.0.3:80 + 1 more...',
    );
    assert.equal(formatEndpoints(ep([{ addresses: [{ ip: 'fd00::1' }], ports: [{ port: 443 }] }])), '[fd00::1]:443');
    assert.equal(formatEndpoints(ep([{ addresses: [{ ip: '10.0.0.9' }] }])), '10.0.0.9');
  });

  it('default port protocols and validate subsets', () => {
    const e = ep([
      { addresses: [{ ip: '127.0.0.1' }], ports: [{ port: 80 }, { port: 81 }] },
      { ports: [{ port: 80 }] },
    ]);
    defaultEndpoints(e);
    assert.equal((e.subsets as Array<{ ports: Array<{ protocol: string }> }>)[0]?.ports[0]?.protocol, 'TCP');
    assert.deepEqual(
      validateEndpoints(e).map((x) => x.message),
      [
        'subsets[0].addresses[0].ip: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)',
        'subsets[0].ports[0].name: Required value',
        'subsets[0].ports[1].name: Required value',
        'subsets[1]: Required value: must specify `addresses` or `notReadyAddresses`',
      ],
    );
  });
});
