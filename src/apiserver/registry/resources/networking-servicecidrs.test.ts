import { describe, it } from 'node:test';
import assert from '../../../testing/assert.js';
import type { KubeObject } from '../object.js';
import { ipaddresses, kubernetesServiceCIDR, servicecidrs } from './networking-servicecidrs.js';

const messages = (errs: { message: string }[] | undefined) => (errs ?? []).map((e) => e.message);

describe('networking.k8s.io/v1 ServiceCIDRs and IPAddresses', () => {
  it('builds the default kubernetes ServiceCIDR from --service-cluster-ip-range', () => {
    assert.deepEqual(kubernetesServiceCIDR('10.96.0.0/12'), {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'ServiceCIDR',
      metadata: { name: 'kubernetes' },
      spec: { cidrs: ['10.96.0.0/12'] },
    });
    assert.deepEqual(
      (kubernetesServiceCIDR('10.96.0.10/12,fd00:0:0:0:0:0:0:1/108').spec as { cidrs: string[] }).cidrs,
      ['10.96.0.0/12', 'fd00::/108'],
    );
    assert.deepEqual((kubernetesServiceCIDR('2001:db8:0:0:1:0:0:1/64').spec as { cidrs: string[] }).cidrs, [
      '2001:db8::/64',
    ]);
    assert.throws(() => kubernetesServiceCIDR('10.96.0.0'), /invalid CIDR address: 10.96.0.0/);
    assert.deepEqual(servicecidrs.def.strategy.validate?.(kubernetesServiceCIDR('10.96.0.0/12,fd00::/108')), []);
  });

  it('validates CIDRs with upstream text and keeps them immutable', () => {
    const obj: KubeObject = {
      metadata: { name: 'x', resourceVersion: '1' },
      spec: { cidrs: ['10.0.0.0/8', '192.168.0.0/16'] },
    };
    assert.deepEqual(messages(servicecidrs.def.strategy.validate?.(obj)), [
      'spec.cidrs: Invalid value: networking.ServiceCIDRSpec{CIDRs:[]string{"10.0.0.0/8", "192.168.0.0/16"}}: may specify no more than one IP for each IP family, i.e 192.168.0.0/24 and 2001:db8::/64',
    ]);
    assert.deepEqual(messages(servicecidrs.def.strategy.validate?.({ metadata: { name: 'x' }, spec: {} })), [
      'spec.cidrs: Required value: at least one CIDR required',
    ]);
    const next: KubeObject = { metadata: { name: 'x', resourceVersion: '1' }, spec: { cidrs: ['10.0.0.0/16'] } };
    const old: KubeObject = { metadata: { name: 'x', resourceVersion: '1' }, spec: { cidrs: ['10.0.0.0/8'] } };
    assert.deepEqual(messages(servicecidrs.def.strategy.validateUpdate?.(next, old)), [
      'spec.cidrs: Invalid value: []string{"10.0.0.0/16"}: field is immutable',
    ]);
  });

  it('names IPAddresses by canonical IPs and requires a parent', () => {
    const s = ipaddresses.def.strategy;
    assert.deepEqual(messages(s.validate?.({ metadata: { name: '10.0.0.1' }, spec: {} })), [
      'spec.parentRef: Required value',
    ]);
    const nonCanonical: KubeObject = {
      metadata: { name: '2001:db8:0::1' },
      spec: { parentRef: { resource: 'services', namespace: 'default', name: 'web' } },
    };
    assert.deepEqual(messages(s.validate?.(nonCanonical)), [
      'metadata.name: Invalid value: "2001:db8:0::1": must be in canonical form ("2001:db8::1")',
    ]);
    const ok: KubeObject = {
      metadata: { name: '10.0.0.1' },
      spec: { parentRef: { resource: 'services', namespace: 'default', name: 'web' } },
    };
    assert.deepEqual(ipaddresses.printer.cells(ok, 0), ['10.0.0.1', 'services/default/web']);
  });
});
