import { describe, it } from 'node:test';
import assert from '../../../testing/assert.js';
import type { KubeObject } from '../object.js';
import { defaultService } from './core-service-defaults.js';
import { dropTypeDependentFields, keepAllocatedValues } from './core-service-update.js';
import { validateService } from './core-service-validation.js';
import { servicePrinter } from './core-services.js';

function svc(spec: Record<string, unknown>, status?: Record<string, unknown>): KubeObject {
  const s: KubeObject = {
    metadata: { name: 'web', namespace: 'default', creationTimestamp: '2025-01-01T00:00:00Z' },
    spec,
    ...(status ? { status } : {}),
  };
  defaultService(s);
  return s;
}
const messages = (s: KubeObject) => validateService(s).map((e) => e.message);

describe('service defaulting', () => {
  it('fills type, affinity, protocols, target ports and traffic policies', () => {
    const s = svc({ ports: [{ port: 80 }, { port: 53, protocol: 'UDP', targetPort: 'dns' }] });
    assert.deepEqual(s.spec, {
      ports: [
        { port: 80, protocol: 'TCP', targetPort: 80 },
        { port: 53, protocol: 'UDP', targetPort: 'dns' },
      ],
      sessionAffinity: 'None',
      type: 'ClusterIP',
      internalTrafficPolicy: 'Cluster',
    });
    const lb = svc({ type: 'LoadBalancer', ports: [{ port: 443 }], sessionAffinity: 'ClientIP' });
    assert.equal((lb.spec as Record<string, unknown>).externalTrafficPolicy, 'Cluster');
    assert.equal((lb.spec as Record<string, unknown>).allocateLoadBalancerNodePorts, true);
    assert.deepEqual((lb.spec as Record<string, unknown>).sessionAffinityConfig, {
      clientIP: { timeoutSeconds: 10800 },
    });
  });
});

describe('service validation', () => {
  it('accepts a defaulted service', () => {
    assert.deepEqual(messages(svc({ selector: { app: 'web' }, ports: [{ port: 80 }] })), []);
  });

  it("uses upstream's messages", () => {
    assert.deepEqual(messages(svc({ ports: [] })), ['spec.ports: Required value']);
    assert.deepEqual(messages(svc({ ports: [{ port: 80 }, { port: 81 }] })), [
      'spec.ports[0].name: Required value',
      'spec.ports[1].name: Required value',
    ]);
    assert.deepEqual(messages(svc({ ports: [{ port: 80, nodePort: 30001 }] })), [
      "spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'",
    ]);
    assert.deepEqual(messages(svc({ type: 'Internal', ports: [{ port: 80 }] })), [
      'spec.type: Unsupported value: "Internal": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"',
    ]);
    assert.deepEqual(
      messages(
        svc({
          ports: [
            { name: 'a', port: 80 },
            { name: 'b', port: 80 },
          ],
        }),
      ),
      [
        'spec.ports[1]: Duplicate value: core.ServicePort{Name:"", Protocol:"TCP", AppProtocol:(*string)(nil), Port:80, TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, NodePort:0}',
      ],
    );
    assert.deepEqual(messages(svc({ ports: [{ port: 0 }] })), [
      'spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive',
      'spec.ports[0].targetPort: Invalid value: 0: must be between 1 and 65535, inclusive',
    ]);
    assert.deepEqual(
      messages(svc({ type: 'NodePort', clusterIP: 'None', clusterIPs: ['None'], ports: [{ port: 80 }] })),
      ['spec.clusterIPs[0]: Invalid value: "None": may not be set to \'None\' for NodePort services'],
    );
  });
});

describe('service updates', () => {
  it('keeps allocated values the client left out', () => {
    const old = svc({
      type: 'NodePort',
      clusterIP: '10.96.3.3',
      clusterIPs: ['10.96.3.3'],
      ports: [{ name: 'http', port: 80, nodePort: 30123 }],
    });
    const next = svc({ type: 'NodePort', ports: [{ name: 'http', port: 80 }] });
    keepAllocatedValues(next, old);
    assert.equal((next.spec as Record<string, unknown>).clusterIP, '10.96.3.3');
    assert.deepEqual((next.spec as { ports: Array<{ nodePort?: number }> }).ports[0]?.nodePort, 30123);
  });

  it('drops node ports the client kept when the type no longer needs them', () => {
    const old = svc({ type: 'NodePort', ports: [{ port: 80, nodePort: 30123 }] });
    const next = structuredClone(old);
    (next.spec as Record<string, unknown>).type = 'ClusterIP';
    dropTypeDependentFields(next, old);
    assert.deepEqual((next.spec as Record<string, unknown>).ports, [{ port: 80, protocol: 'TCP', targetPort: 80 }]);
    assert.equal((next.spec as Record<string, unknown>).externalTrafficPolicy, undefined);
  });
});

describe('service printer', () => {
  const now = Date.parse('2025-01-01T00:05:00Z');
  it('prints type, cluster IP, external IP, ports and selector', () => {
    const np = svc({
      type: 'NodePort',
      clusterIPs: ['10.96.0.20'],
      selector: { app: 'web', tier: 'fe' },
      ports: [
        { port: 80, nodePort: 30080 },
        { port: 53, protocol: 'UDP' },
      ],
    });
    assert.deepEqual(servicePrinter.cells(np, now), [
      'web',
      'NodePort',
      '10.96.0.20',
      '<none>',
      '80:30080/TCP,53/UDP',
      '5m',
      'app=web,tier=fe',
    ]);
    const lb = svc({ type: 'LoadBalancer', clusterIPs: ['10.96.0.21'], ports: [{ port: 443, nodePort: 31443 }] });
    assert.equal(servicePrinter.cells(lb, now)[3], '<pending>');
    lb.status = { loadBalancer: { ingress: [{ ip: '203.0.113.9' }] } };
    assert.equal(servicePrinter.cells(lb, now)[3], '203.0.113.9');
    const headless = svc({ clusterIPs: ['None'], ports: [] });
    assert.deepEqual(servicePrinter.cells(headless, now).slice(2, 5), ['None', '<none>', '<none>']);
    const ext = svc({ type: 'ExternalName', externalName: 'db.example.com' });
    assert.deepEqual(servicePrinter.cells(ext, now).slice(1, 7), [
      'ExternalName',
      '<none>',
      'db.example.com',
      '<none>',
      '5m',
      '<none>',
    ]);
    assert.deepEqual(
      servicePrinter.columns.map((c) => c.name),
      ['Name', 'Type', 'Cluster-IP', 'External-IP', 'Port(s)', 'Age', 'Selector'],
    );
  });
});
