import { describe, it } from 'node:test';
import type { KubeObject } from '../../client/types.js';
import assert from '../../testing/assert.js';
import { admitPod } from './admission.js';
import { podRequests } from './resources.js';

const node: KubeObject = {
  metadata: { name: 'node-1', labels: { 'kubernetes.io/os': 'linux', disk: 'ssd', gen: '5' } },
  status: { allocatable: { cpu: '2', memory: '4Gi', pods: '3', 'ephemeral-storage': '10Gi' } },
};

const pod = (spec: Record<string, unknown> = {}, labels: Record<string, string> = {}): KubeObject => ({
  metadata: { name: 'p', namespace: 'default', labels },
  spec: { nodeName: 'node-1', containers: [{ name: 'c', image: 'x' }], ...spec },
});

const requesting = (requests: Record<string, string>) =>
  pod({ containers: [{ name: 'c', image: 'x', resources: { requests } }] });

describe('kubelet admission', () => {
  it('admits what fits', () => {
    assert.deepEqual(admitPod(requesting({ cpu: '1', memory: '1Gi' }), node, [requesting({ cpu: '500m' })]), {
      admit: true,
    });
  });

  it('refuses with upstream reasons and messages: pods first, then cpu, memory', () => {
    const three = [pod(), pod(), pod()];
    assert.deepEqual(admitPod(pod(), node, three), {
      admit: false,
      reason: 'OutOfpods',
      message: "Node didn't have enough resource: pods, requested: 1, used: 3, capacity: 3",
    });
    assert.deepEqual(admitPod(requesting({ cpu: '1500m' }), node, [requesting({ cpu: '1' })]), {
      admit: false,
      reason: 'OutOfcpu',
      message: "Node didn't have enough resource: cpu, requested: 1500, used: 1000, capacity: 2000",
    });
    assert.deepEqual(admitPod(requesting({ memory: '5Gi' }), node, []), {
      admit: false,
      reason: 'OutOfmemory',
      message: `Node didn't have enough resource: memory, requested: ${5 * 2 ** 30}, used: 0, capacity: ${4 * 2 ** 30}`,
    });
    assert.equal((admitPod(requesting({ 'example.com/gpu': '1' }), node, []) as { admit: boolean }).admit, true);
  });

  it('checks node selectors, node affinity, host ports and the OS label', () => {
    assert.equal(admitPod(pod({ nodeSelector: { disk: 'ssd' } }), node, []).admit, true);
    assert.deepEqual(admitPod(pod({ nodeSelector: { disk: 'hdd' } }), node, []), {
      admit: false,
      reason: 'NodeAffinity',
      message: "Predicate NodeAffinity failed: node(s) didn't match Pod's node affinity/selector",
    });
    const affinity = (operator: string, values: string[]) => ({
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{ matchExpressions: [{ key: 'gen', operator, values }] }],
          },
        },
      },
    });
    assert.equal(admitPod(pod(affinity('Gt', ['4'])), node, []).admit, true);
    assert.equal(admitPod(pod(affinity('Lt', ['4'])), node, []).admit, false);
    const withPort = pod({ containers: [{ name: 'c', image: 'x', ports: [{ containerPort: 80, hostPort: 8080 }] }] });
    assert.deepEqual(admitPod(withPort, node, [withPort]), {
      admit: false,
      reason: 'NodePorts',
      message: "Predicate NodePorts failed: node(s) didn't have free ports for the requested pod ports",
    });
    assert.equal(admitPod(pod({}, { 'kubernetes.io/os': 'windows' }), node, []).admit, false);
  });

  it('refuses pods that do not tolerate a NoExecute taint, and only those', () => {
    const tainted: KubeObject = {
      ...node,
      spec: {
        taints: [
          { key: 'dedicated', value: 'db', effect: 'NoSchedule' },
          { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' },
        ],
      },
    };
    assert.deepEqual(admitPod(pod(), tainted, []), {
      admit: false,
      reason: 'TaintToleration',
      message: 'Predicate TaintToleration failed: node(s) had untolerated taint',
    });
    const tolerating = pod({
      tolerations: [{ key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' }],
    });
    assert.deepEqual(admitPod(tolerating, tainted, []), { admit: true });
  });

  it('adds up requests as upstream: init containers at their peak, sidecars alongside, overhead on top', () => {
    const req = podRequests({
      metadata: {},
      spec: {
        overhead: { cpu: '100m' },
        initContainers: [
          { name: 'big-init', resources: { requests: { cpu: '3' } } },
          { name: 'sidecar', restartPolicy: 'Always', resources: { requests: { cpu: '200m' } } },
        ],
        containers: [{ name: 'a', resources: { requests: { cpu: '1', memory: '64Mi' } } }],
      },
    });
    assert.equal(req.get('cpu'), 3100n);
    assert.equal(req.get('memory'), 64n * 2n ** 20n);
  });
});
