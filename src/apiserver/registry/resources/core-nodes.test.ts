import { describe, it } from 'node:test';
import assert from '../../../testing/assert.js';
import type { KubeObject } from '../object.js';
import { defaultNode, nodePrinter, nodes, validateNode, validateNodeUpdate } from './core-nodes.js';

const node = (extra: Partial<KubeObject> = {}): KubeObject => ({
  metadata: { name: 'n1', creationTimestamp: '2025-01-01T00:00:00Z', ...extra.metadata },
  spec: extra.spec ?? {},
  status: extra.status ?? {},
});

describe('nodes', () => {
  it('default allocatable to capacity, keep quantities canonical, and keep podCIDR and podCIDRs in step', () => {
    const n = node({
      spec: { podCIDR: '10.244.1.0/24' },
      status: { capacity: { cpu: '4', memory: '8192Mi', pods: '110' } },
    });
    defaultNode(n);
    assert.deepEqual((n.status as Record<string, unknown>).allocatable, { cpu: '4', memory: '8Gi', pods: '110' });
    assert.deepEqual((n.spec as Record<string, unknown>).podCIDRs, ['10.244.1.0/24']);
  });

  it('validate taints, and keep pod CIDRs and provider IDs once set', () => {
    const bad = node({
      spec: {
        taints: [
          { key: 'k', effect: 'Sometimes' },
          { key: 'd', effect: 'NoSchedule' },
          { key: 'd', effect: 'NoSchedule' },
        ],
      },
    });
    assert.deepEqual(
      validateNode(bad).map((e) => e.message),
      [
        'metadata.taints[0].effect: Unsupported value: "Sometimes": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
        'metadata.taints[2]: Duplicate value: core.Taint{Key:"d", Value:"", Effect:"NoSchedule", TimeAdded:(*v1.Time)(nil)}: taints must be unique by key and effect pair',
      ],
    );
    const old = node({ spec: { podCIDRs: ['10.244.1.0/24'], providerID: 'kind://n1' } });
    const next = node({ spec: { podCIDRs: ['10.244.2.0/24'], providerID: 'kind://n2' } });
    assert.deepEqual(
      validateNodeUpdate(next, old).map((e) => e.message),
      [
        'spec.podCIDRs: Forbidden: node updates may not change podCIDR except from "" to valid',
        'spec.providerID: Forbidden: node updates may not change providerID except from "" to valid',
      ],
    );
  });

  it('print STATUS, ROLES, VERSION and the wide columns', () => {
    const now = Date.parse('2025-01-02T00:00:00Z');
    const n = node({
      metadata: { labels: { 'node-role.kubernetes.io/control-plane': '', 'kubernetes.io/role': 'edge' } },
      spec: { unschedulable: true },
      status: {
        conditions: [{ type: 'Ready', status: 'True' }],
        addresses: [
          { type: 'Hostname', address: 'n1' },
          { type: 'InternalIP', address: '172.18.0.2' },
        ],
        nodeInfo: {
          kubeletVersion: 'v1.33.0',
          osImage: 'Debian GNU/Linux 12 (bookworm)',
          kernelVersion: '6.1.0',
          containerRuntimeVersion: 'containerd://1.7.0',
        },
      },
    });
    assert.deepEqual(nodePrinter.cells(n, now), [
      'n1',
      'Ready,SchedulingDisabled',
      'control-plane,edge',
      '24h',
      'v1.33.0',
      '172.18.0.2',
      '<none>',
      'Debian GNU/Linux 12 (bookworm)',
      '6.1.0',
      'containerd://1.7.0',
    ]);
    assert.deepEqual(nodePrinter.cells(node(), now).slice(1, 3), ['Unknown', '<none>']);
    assert.deepEqual(
      nodePrinter.cells(node({ status: { conditions: [{ type: 'Ready', status: 'Unknown' }] } }), now)[1],
      'NotReady',
    );
  });

  it('select by spec.unschedulable and keep status on create', () => {
    const { def } = nodes();
    assert.equal(
      def.strategy.selectableFields?.['spec.unschedulable']?.(node({ spec: { unschedulable: true } })),
      'true',
    );
    const n = node({ status: { phase: 'Running' } });
    def.strategy.prepareForCreate?.(n);
    assert.deepEqual(n.status, { phase: 'Running' });
    assert.equal(def.namespaced, false);
  });
});
