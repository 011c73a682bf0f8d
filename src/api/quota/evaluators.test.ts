import { describe, it } from 'node:test';
import assert from '../../testing/assert.js';
import { podEvaluator, podMatchesScope, podUsage, pvcUsage, serviceUsage } from './evaluators.js';
import type { QuotaObject } from './object.js';
import { formatResourceList } from './resource-list.js';

const NOW = Date.parse('2025-01-01T00:00:00Z');

function pod(spec: Record<string, unknown>, status: Record<string, unknown> = {}, meta = {}): QuotaObject {
  return { metadata: { name: 'p', namespace: 'ns', ...meta }, spec, status };
}
const container = (name: string, requests: Record<string, string>, limits: Record<string, string> = {}) => ({
  name,
  image: 'x',
  resources: { requests, limits },
});

describe('pod usage', () => {
  it('sums containers, adds sidecars, takes the larger init container, and adds overhead', () => {
    const p = pod({
      initContainers: [
        { ...container('sidecar', { cpu: '100m', memory: '64Mi' }, { memory: '64Mi' }), restartPolicy: 'Always' },
        container('migrate', { cpu: '2', memory: '128Mi' }),
      ],
      containers: [
        container('a', { cpu: '250m', memory: '256Mi' }, { cpu: '500m', memory: '512Mi' }),
        container('b', { cpu: '250m', memory: '256Mi', 'example.com/gpu': '1', 'hugepages-2Mi': '4Mi' }),
      ],
      overhead: { cpu: '10m', memory: '1Mi' },
    });
    assert.deepEqual(formatResourceList(podUsage(p, NOW)), {
      'count/pods': '1',
      cpu: '2110m',
      'hugepages-2Mi': '4Mi',
      'limits.cpu': '510m',
      'limits.memory': '577Mi',
      memory: '577Mi',
      pods: '1',
      'requests.cpu': '2110m',
      'requests.example.com/gpu': '1',
      'requests.hugepages-2Mi': '4Mi',
      'requests.memory': '577Mi',
    });
  });

  it('charges only the object count for terminal pods and pods past their grace period', () => {
    const spec = { containers: [container('a', { cpu: '1' })] };
    assert.deepEqual(formatResourceList(podUsage(pod(spec, { phase: 'Failed' }), NOW)), { 'count/pods': '1' });
    const terminating = (seconds: number) =>
      pod(
        spec,
        {},
        { deletionTimestamp: new Date(NOW - seconds * 1000).toISOString(), deletionGracePeriodSeconds: 30 },
      );
    assert.equal(formatResourceList(podUsage(terminating(10), NOW)).pods, '1');
    assert.equal(formatResourceList(podUsage(terminating(31), NOW)).pods, undefined);
  });

  it('matches scopes', () => {
    const bestEffort = pod({ containers: [container('a', {})] });
    const burstable = pod({ containers: [container('a', { cpu: '1' })], activeDeadlineSeconds: 10 });
    const scope = (scopeName: string, operator = 'Exists', values?: string[]) => ({
      scopeName,
      operator,
      ...(values ? { values } : {}),
    });
    assert.equal(podMatchesScope(scope('BestEffort'), bestEffort), true);
    assert.equal(podMatchesScope(scope('NotBestEffort'), burstable), true);
    assert.equal(podMatchesScope(scope('Terminating'), burstable), true);
    assert.equal(podMatchesScope(scope('NotTerminating'), bestEffort), true);
    const high = pod({ containers: [], priorityClassName: 'high' });
    assert.equal(podMatchesScope(scope('PriorityClass', 'In', ['high', 'mid']), high), true);
    assert.equal(podMatchesScope(scope('PriorityClass', 'NotIn', ['high']), high), false);
    assert.equal(podMatchesScope(scope('PriorityClass', 'DoesNotExist'), bestEffort), true);
    assert.equal(podMatchesScope(scope('PriorityClass'), high), true);
  });

  it('knows which quota names it measures', () => {
    assert.deepEqual(
      podEvaluator.matchingResources([
        'pods',
        'requests.cpu',
        'services',
        'requests.example.com/gpu',
        'hugepages-1Gi',
        'requests.storage',
      ]),
      ['pods', 'requests.cpu', 'requests.example.com/gpu', 'hugepages-1Gi'],
    );
  });
});

describe('service and claim usage', () => {
  it('counts node ports and load balancers', () => {
    const svc = (spec: Record<string, unknown>): QuotaObject => ({ metadata: { name: 's' }, spec });
    const ports = [{ port: 80 }, { port: 443, nodePort: 30443 }];
    assert.deepEqual(formatResourceList(serviceUsage(svc({ type: 'ClusterIP', ports }))), {
      'count/services': '1',
      services: '1',
      'services.loadbalancers': '0',
      'services.nodeports': '0',
    });
    assert.equal(formatResourceList(serviceUsage(svc({ type: 'NodePort', ports })))['services.nodeports'], '2');
    const lb = formatResourceList(
      serviceUsage(svc({ type: 'LoadBalancer', ports, allocateLoadBalancerNodePorts: false })),
    );
    assert.equal(lb['services.nodeports'], '1');
    assert.equal(lb['services.loadbalancers'], '1');
  });

  it('charges storage per class', () => {
    const pvc: QuotaObject = {
      metadata: { name: 'c' },
      spec: { storageClassName: 'fast', resources: { requests: { storage: '1Gi' } } },
      status: { allocatedResources: { storage: '2Gi' } },
    };
    assert.deepEqual(formatResourceList(pvcUsage(pvc)), {
      'count/persistentvolumeclaims': '1',
      'fast.storageclass.storage.k8s.io/persistentvolumeclaims': '1',
      'fast.storageclass.storage.k8s.io/requests.storage': '2Gi',
      persistentvolumeclaims: '1',
      'requests.storage': '2Gi',
    });
  });
});
