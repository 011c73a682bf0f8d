import { describe, it } from 'node:test';
import assert from '../../../testing/assert.js';
import type { KubeObject } from '../object.js';
import { defaultPod } from './core-pod-defaults.js';
import { computePodQOS } from './core-pod-qos.js';
import { pods, preparePodForDelete } from './core-pods.js';

const withResources = (...resources: Array<Record<string, unknown>>): KubeObject => {
  const p: KubeObject = {
    metadata: { name: 'p' },
    spec: { containers: resources.map((r, i) => ({ name: `c${i}`, image: 'x', resources: r })) },
  };
  defaultPod(p);
  return p;
};

describe('pod defaulting', () => {
  it("fills upstream's defaults", () => {
    const p: KubeObject = {
      metadata: { name: 'p' },
      spec: {
        hostNetwork: true,
        volumes: [{ name: 'v' }, { name: 's', secret: { secretName: 's' } }],
        containers: [
          { name: 'a', image: 'nginx', ports: [{ containerPort: 8080 }] },
          { name: 'b', image: 'nginx:1.25', livenessProbe: { httpGet: { port: 80 } } },
        ],
      },
    };
    defaultPod(p);
    const spec = p.spec as Record<string, unknown>;
    assert.equal(spec.restartPolicy, 'Always');
    assert.equal(spec.dnsPolicy, 'ClusterFirst');
    assert.equal(spec.schedulerName, 'default-scheduler');
    assert.equal(spec.terminationGracePeriodSeconds, 30);
    assert.deepEqual(spec.securityContext, {});
    assert.equal(spec.enableServiceLinks, true);
    const [a, b] = spec.containers as Array<Record<string, unknown>>;
    assert.equal(a?.imagePullPolicy, 'Always');
    assert.equal(b?.imagePullPolicy, 'IfNotPresent');
    assert.equal(a?.terminationMessagePath, '/dev/termination-log');
    assert.equal(a?.terminationMessagePolicy, 'File');
    assert.deepEqual(a?.ports, [{ containerPort: 8080, hostPort: 8080, protocol: 'TCP' }]);
    assert.deepEqual(b?.livenessProbe, {
      httpGet: { port: 80, path: '/', scheme: 'HTTP' },
      timeoutSeconds: 1,
      periodSeconds: 10,
      successThreshold: 1,
      failureThreshold: 3,
    });
    const [v, s] = spec.volumes as Array<Record<string, unknown>>;
    assert.deepEqual(v, { name: 'v', emptyDir: {} });
    assert.deepEqual(s, { name: 's', secret: { secretName: 's', defaultMode: 420 } });
  });

  it('copies limits into missing requests and keeps quantities canonical', () => {
    const p = withResources({ limits: { cpu: '1000m', memory: '1024Mi' }, requests: { cpu: '0.25' } });
    const [c] = (p.spec as { containers: Array<{ resources: unknown }> }).containers;
    assert.deepEqual(c?.resources, { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '250m', memory: '1Gi' } });
  });

  it('refuses a quantity that does not parse as the decoder does', () => {
    assert.throws(() => withResources({ limits: { cpu: 'lots' } }), {
      message:
        'Pod in version "v1" cannot be handled as a Pod: quantities must match the regular expression \'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$\'',
    });
  });
});

describe('pod QoS class', () => {
  it('is BestEffort without cpu or memory', () => {
    assert.equal(
      computePodQOS(withResources({}, { requests: { 'example.com/gpu': '1' }, limits: { 'example.com/gpu': '1' } })),
      'BestEffort',
    );
  });
  it('is Guaranteed when every container limits cpu and memory and requests match', () => {
    assert.equal(
      computePodQOS(
        withResources({ limits: { cpu: '1', memory: '1Gi' } }, { limits: { cpu: '500m', memory: '128Mi' } }),
      ),
      'Guaranteed',
    );
  });
  it('is Burstable otherwise', () => {
    assert.equal(computePodQOS(withResources({ limits: { cpu: '1', memory: '1Gi' } }, {})), 'Burstable');
    assert.equal(
      computePodQOS(withResources({ limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '500m' } })),
      'Burstable',
    );
  });
});

describe('pod create and delete', () => {
  it('starts Pending with its QoS class, and gated pods carry the SchedulingGated condition', () => {
    const { def } = pods();
    const p = withResources({ limits: { cpu: '1', memory: '1Gi' } });
    (p.spec as Record<string, unknown>).schedulingGates = [{ name: 'example.com/gate' }];
    p.status = { phase: 'Running' };
    def.strategy.prepareForCreate?.(p);
    assert.deepEqual(p.status, {
      phase: 'Pending',
      qosClass: 'Guaranteed',
      conditions: [
        {
          type: 'PodScheduled',
          status: 'False',
          lastProbeTime: null,
          lastTransitionTime: null,
          reason: 'SchedulingGated',
          message: 'Scheduling is blocked due to non-empty scheduling gates',
        },
      ],
    });
  });

  it('marks unscheduled and finished pods to go at once, and gives bound pods their grace period', () => {
    const now = Date.parse('2025-01-01T00:00:00Z');
    const unbound = withResources({});
    assert.equal(preparePodForDelete(unbound, {}, now), 'now');
    assert.equal(unbound.metadata.deletionTimestamp, '2025-01-01T00:00:00Z');
    assert.equal(unbound.metadata.deletionGracePeriodSeconds, 0);
    // Marked with no grace left, it is deleted as it is.
    assert.equal(preparePodForDelete(unbound, {}, now), false);
    const bound = withResources({});
    (bound.spec as Record<string, unknown>).nodeName = 'n1';
    assert.equal(preparePodForDelete(bound, {}, now), true);
    assert.equal(bound.metadata.deletionTimestamp, '2025-01-01T00:00:30Z');
    assert.equal(bound.metadata.deletionGracePeriodSeconds, 30);
    // A later delete may only shorten the grace period; 0 deletes at once.
    assert.equal(preparePodForDelete(bound, { gracePeriodSeconds: 60 }, now), true);
    assert.equal(bound.metadata.deletionGracePeriodSeconds, 30);
    assert.equal(preparePodForDelete(bound, { gracePeriodSeconds: 5 }, now), true);
    assert.equal(bound.metadata.deletionTimestamp, '2025-01-01T00:00:05Z');
    assert.equal(preparePodForDelete(bound, { gracePeriodSeconds: 0 }, now), 'now');
    assert.equal(bound.metadata.deletionTimestamp, '2025-01-01T00:00:00Z');
    assert.equal(bound.metadata.deletionGracePeriodSeconds, 0);
    const done = withResources({});
    (done.spec as Record<string, unknown>).nodeName = 'n1';
    done.status = { phase: 'Succeeded' };
    assert.equal(preparePodForDelete(done, {}, now), 'now');
  });

  it('offers upstream field selectors', () => {
    const { def } = pods();
    const fields = def.strategy.selectableFields ?? {};
    assert.deepEqual(Object.keys(fields).sort(), [
      'spec.hostNetwork',
      'spec.nodeName',
      'spec.restartPolicy',
      'spec.schedulerName',
      'spec.serviceAccountName',
      'status.nominatedNodeName',
      'status.phase',
      'status.podIP',
      'status.podIPs',
    ]);
    const p: KubeObject = { metadata: {}, spec: {}, status: { podIPs: [{ ip: '10.0.0.9' }] } };
    assert.equal(fields['status.podIP']?.(p), '10.0.0.9');
    assert.equal(fields['spec.hostNetwork']?.(p), 'false');
  });
});
