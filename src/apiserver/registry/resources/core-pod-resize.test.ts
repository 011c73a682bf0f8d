import { describe, it } from 'node:test';
import assert from '../../../testing/assert.js';
import type { KubeObject } from '../object.js';
import { podResizeStrategy, validatePodResize } from './core-pod-resize.js';

type Rec = Record<string, unknown>;

function pod(containers: Rec[], extra: { initContainers?: Rec[]; annotations?: Record<string, string> } = {}) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'p',
      namespace: 'default',
      resourceVersion: '1',
      ...(extra.annotations ? { annotations: extra.annotations } : {}),
    },
    spec: {
      nodeName: 'node-1',
      restartPolicy: 'Always',
      dnsPolicy: 'ClusterFirst',
      terminationGracePeriodSeconds: 30,
      containers,
      ...(extra.initContainers ? { initContainers: extra.initContainers } : {}),
    },
    status: { phase: 'Running', qosClass: 'Burstable' },
  } as unknown as KubeObject;
}

const container = (name: string, resources: Rec, more: Rec = {}) => ({
  name,
  image: 'nginx',
  imagePullPolicy: 'IfNotPresent',
  terminationMessagePath: '/dev/termination-log',
  terminationMessagePolicy: 'File',
  resources,
  ...more,
});

const messages = (next: KubeObject, old: KubeObject) => validatePodResize(next, old).map((e) => e.message);

describe('pods/resize validation', () => {
  const base = { requests: { cpu: '100m', memory: '64Mi' } };

  it('accepts a change of cpu and memory requests', () => {
    const old = pod([container('a', base)]);
    assert.deepEqual(messages(pod([container('a', { requests: { cpu: '200m', memory: '96Mi' } })]), old), []);
  });

  it('refuses removed requests, renamed or added containers, and other resources', () => {
    const old = pod([container('a', base)]);
    assert.deepEqual(messages(pod([container('a', { requests: { cpu: '100m' } })]), old), [
      'spec.containers[0].resources.requests: Forbidden: resource requests cannot be removed',
    ]);
    assert.deepEqual(messages(pod([container('b', base)]), old), [
      'spec.containers[0].name: Forbidden: containers may not be renamed or reordered on resize',
    ]);
    assert.deepEqual(messages(pod([container('a', base), container('b', base)]), old), [
      'spec.containers: Forbidden: containers may not be added or removed on resize',
    ]);
    const storage = { requests: { ...base.requests, 'ephemeral-storage': '1Gi' } };
    assert.deepEqual(messages(pod([container('a', storage)]), old), [
      'spec: Forbidden: only cpu and memory resources are mutable',
    ]);
  });

  it('adding a memory limit needs the RestartContainer policy', () => {
    const old = pod([container('a', base)]);
    const limited = { requests: base.requests, limits: { memory: '128Mi' } };
    assert.deepEqual(messages(pod([container('a', limited)]), old), [
      'spec.containers[0].resources.limits[memory]: Forbidden: memory limits cannot be added unless resizePolicy is RestartContainer',
    ]);
    const restarting = container('a', limited, {
      resizePolicy: [{ resourceName: 'memory', restartPolicy: 'RestartContainer' }],
    });
    const oldRestarting = pod([
      container('a', base, { resizePolicy: [{ resourceName: 'memory', restartPolicy: 'RestartContainer' }] }),
    ]);
    assert.deepEqual(messages(pod([restarting]), oldRestarting), []);
  });

  it('resizes sidecars but not plain init containers; static pods not at all', () => {
    const sidecar = (cpu: string) => container('s', { requests: { cpu } }, { restartPolicy: 'Always' });
    const init = (cpu: string) => container('i', { requests: { cpu } });
    const old = pod([container('a', base)], { initContainers: [sidecar('10m'), init('10m')] });
    assert.deepEqual(messages(pod([container('a', base)], { initContainers: [sidecar('20m'), init('10m')] }), old), []);
    assert.deepEqual(messages(pod([container('a', base)], { initContainers: [sidecar('10m'), init('20m')] }), old), [
      'spec: Forbidden: resources for non-sidecar init containers are immutable',
    ]);
    const mirror = { 'kubernetes.io/config.mirror': 'x' };
    const staticPod = pod([container('a', base)], { annotations: mirror });
    assert.deepEqual(
      messages(pod([container('a', { requests: { cpu: '1', memory: '64Mi' } })], { annotations: mirror }), staticPod),
      ['[]: Forbidden: static pods cannot be resized'],
    );
  });

  it('keeps metadata rules, and refuses pods with pod-level resources', () => {
    const old = pod([container('a', base)]);
    old.metadata.uid = 'u1';
    const next = pod([container('a', base)]);
    next.metadata.uid = 'u2';
    assert.deepEqual(messages(next, old), ['metadata.uid: Invalid value: "u2": field is immutable']);
    const podLevel = pod([container('a', base)]);
    (podLevel.spec as Rec).resources = { requests: { cpu: '1' } };
    assert.deepEqual(messages(podLevel, pod([container('a', base)])), [
      '[]: Forbidden: pods with pod-level resources cannot be resized',
    ]);
  });

  it('takes only resources and resizePolicy from the written pod', () => {
    const old = pod([container('a', base)]);
    const next = pod([container('a', { limits: { cpu: '1' } }, { image: 'busybox' })]);
    next.metadata.labels = { changed: 'yes' };
    (next.spec as Rec).activeDeadlineSeconds = 5;
    podResizeStrategy.prepareForUpdate(next, old);
    assert.equal(next.metadata.labels, undefined);
    assert.equal((next.spec as Rec).activeDeadlineSeconds, undefined);
    const [c] = (next.spec as { containers: Rec[] }).containers;
    assert.equal(c?.image, 'nginx');
    // Defaulting copies the new limit to the missing request, as decoding does upstream.
    assert.deepEqual(c?.resources, { limits: { cpu: '1' }, requests: { cpu: '1' } });
  });
});
