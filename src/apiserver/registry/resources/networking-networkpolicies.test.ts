import { describe, it } from 'node:test';
import assert from '../../../testing/assert.js';
import type { KubeObject } from '../object.js';
import { networkpolicies } from './networking-networkpolicies.js';

const strategy = networkpolicies.def.strategy;

function policy(spec: Record<string, unknown>): KubeObject {
  return { metadata: { name: 'deny', namespace: 'default' }, spec };
}

describe('networking.k8s.io/v1 NetworkPolicies', () => {
  it('defaults policyTypes and port protocols', () => {
    const ingressOnly = policy({ podSelector: {}, ingress: [{ ports: [{ port: 80 }] }] });
    strategy.default?.(ingressOnly);
    assert.deepEqual((ingressOnly.spec as Record<string, unknown>).policyTypes, ['Ingress']);
    assert.deepEqual((ingressOnly.spec as { ingress: unknown }).ingress, [{ ports: [{ port: 80, protocol: 'TCP' }] }]);
    const withEgress = policy({ podSelector: {}, egress: [{}] });
    strategy.default?.(withEgress);
    assert.deepEqual((withEgress.spec as Record<string, unknown>).policyTypes, ['Ingress', 'Egress']);
  });

  it('validates ports, peers and IP blocks with upstream text', () => {
    const obj = policy({
      podSelector: {},
      ingress: [
        {
          ports: [{ protocol: 'ICMP', port: 80, endPort: 70 }],
          from: [{}, { ipBlock: { cidr: '10.0.0.0/8', except: ['192.168.0.0/16'] }, podSelector: {} }],
        },
      ],
      policyTypes: ['Ingress', 'Sideways'],
    });
    assert.deepEqual(
      (strategy.validate?.(obj) ?? []).map((e) => e.message),
      [
        'spec.ingress[0].ports[0].protocol: Unsupported value: "ICMP": supported values: "TCP", "UDP", "SCTP"',
        'spec.ingress[0].ports[0].endPort: Invalid value: 80: must be greater than or equal to `port`',
        'spec.ingress[0].from[0]: Required value: must specify a peer',
        'spec.ingress[0].from[1].ipBlock.except[0]: Invalid value: "192.168.0.0/16": must be a strict subset of `cidr`',
        'spec.ingress[0].from[1]: Forbidden: may not specify both ipBlock and another peer',
        'spec.policyTypes[1]: Unsupported value: "Sideways": supported values: "Ingress", "Egress"',
      ],
    );
  });

  it('prints the pod selector', () => {
    const obj = policy({ podSelector: { matchLabels: { app: 'db' } } });
    obj.metadata.creationTimestamp = '2026-01-01T00:00:00Z';
    const now = Date.parse('2026-01-01T00:00:04Z');
    assert.deepEqual(networkpolicies.printer.cells(obj, now), ['deny', 'app=db', '4s']);
    assert.deepEqual(networkpolicies.printer.cells(policy({ podSelector: {} }), now)[1], '<none>');
  });
});
