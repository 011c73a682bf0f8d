import { describe, it } from 'node:test';
import assert from '../../../testing/assert.js';
import type { KubeObject } from '../object.js';
import { endpointslices } from './discovery-endpointslices.js';

const messages = (errs: { message: string }[] | undefined) => (errs ?? []).map((e) => e.message);

describe('discovery.k8s.io/v1 EndpointSlices', () => {
  it('defaults EndpointSlice ports, validates addresses and prints them', () => {
    const slice: KubeObject = {
      metadata: { name: 'web-abc', namespace: 'default', creationTimestamp: '2026-01-01T00:00:00Z' },
      addressType: 'IPv4',
      endpoints: [{ addresses: ['10.0.0.1', '10.0.0.2'] }, { addresses: ['10.0.0.3', 'fd00::1'] }],
      ports: [{ port: 80 }, { name: 'metrics', port: 9090 }],
    };
    endpointslices.def.strategy.default?.(slice);
    assert.deepEqual(slice.ports, [
      { port: 80, name: '', protocol: 'TCP' },
      { name: 'metrics', port: 9090, protocol: 'TCP' },
    ]);
    assert.deepEqual(messages(endpointslices.def.strategy.validate?.(slice)), [
      'endpoints[1].addresses[1]: Invalid value: "fd00::1": must be a valid IPv4 address',
    ]);
    assert.deepEqual(endpointslices.printer.cells(slice, Date.parse('2026-01-01T00:00:07Z')), [
      'web-abc',
      'IPv4',
      '80,9090',
      '10.0.0.1,10.0.0.2,10.0.0.3 + 1 more...',
      '7s',
    ]);
    const empty: KubeObject = { metadata: { name: 'e', namespace: 'default' }, addressType: 'Bogus', endpoints: [{}] };
    assert.deepEqual(messages(endpointslices.def.strategy.validate?.(empty)), [
      'addressType: Unsupported value: "Bogus": supported values: "FQDN", "IPv4", "IPv6"',
      'endpoints[0].addresses: Required value: must contain at least 1 address',
    ]);
    assert.deepEqual(endpointslices.printer.cells(empty, 0).slice(2, 4), ['<unset>', '<unset>']);
  });
});
