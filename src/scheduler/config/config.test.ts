import { describe, it } from 'node:test';
import assert from '../../testing/assert.js';
import { defaultConfiguration, mergePluginSet } from './defaults.js';
import { parseConfiguration } from './load.js';

describe('KubeSchedulerConfiguration', () => {
  it('defaults to one default-scheduler profile with upstream plugins, weights and args', () => {
    const cfg = defaultConfiguration();
    assert.equal(cfg.profiles.length, 1);
    const p = cfg.profiles[0];
    assert.ok(p);
    assert.equal(p.schedulerName, 'default-scheduler');
    assert.deepEqual(
      p.plugins.multiPoint.enabled.map((x) => (x.weight ? `${x.name}:${x.weight}` : x.name)),
      [
        'SchedulingGates',
        'PrioritySort',
        'NodeUnschedulable',
        'NodeName',
        'TaintToleration:3',
        'NodeAffinity:2',
        'NodePorts',
        'NodeResourcesFit:1',
        'VolumeRestrictions',
        'NodeVolumeLimits',
        'VolumeBinding',
        'VolumeZone',
        'PodTopologySpread:2',
        'InterPodAffinity:2',
        'DefaultPreemption',
        'NodeResourcesBalancedAllocation:1',
        'ImageLocality:1',
        'DefaultBinder',
      ],
    );
    const args = Object.fromEntries(p.pluginConfig.map((pc) => [pc.name, pc.args]));
    assert.deepEqual(args.DefaultPreemption, { minCandidateNodesPercentage: 10, minCandidateNodesAbsolute: 100 });
    assert.deepEqual(args.InterPodAffinity, { hardPodAffinityWeight: 1 });
    assert.deepEqual(args.NodeResourcesFit, {
      scoringStrategy: {
        type: 'LeastAllocated',
        resources: [
          { name: 'cpu', weight: 1 },
          { name: 'memory', weight: 1 },
        ],
      },
    });
    assert.deepEqual(args.PodTopologySpread, { defaultingType: 'System' });
    assert.deepEqual(args.VolumeBinding, { bindTimeoutSeconds: 600 });
    assert.equal(cfg.podInitialBackoffSeconds, 1);
    assert.equal(cfg.podMaxBackoffSeconds, 10);
    assert.equal(cfg.percentageOfNodesToScore, 0);
    assert.deepEqual(cfg.leaderElection, {
      leaderElect: true,
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2_000,
      resourceLock: 'leases',
      resourceName: 'kube-scheduler',
      resourceNamespace: 'kube-system',
    });
    assert.equal(cfg.clientConnection.qps, 50);
    assert.equal(cfg.clientConnection.burst, 100);
  });

  it('reads profiles, plugin sets, weights and args from YAML', () => {
    const cfg = parseConfiguration(`
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
percentageOfNodesToScore: 70
podInitialBackoffSeconds: 2
podMaxBackoffSeconds: 20
leaderElection:
  leaderElect: false
  leaseDuration: 30s
  renewDeadline: 20s
  retryPeriod: 5s
profiles:
  - schedulerName: default-scheduler
  - schedulerName: bin-packing
    plugins:
      score:
        disabled:
          - name: NodeResourcesBalancedAllocation
        enabled:
          - name: NodeResourcesFit
            weight: 5
      multiPoint:
        disabled:
          - name: ImageLocality
    pluginConfig:
      - name: NodeResourcesFit
        args:
          apiVersion: kubescheduler.config.k8s.io/v1
          kind: NodeResourcesFitArgs
          scoringStrategy:
            type: MostAllocated
            resources:
              - name: cpu
              - name: memory
                weight: 2
`);
    assert.equal(cfg.percentageOfNodesToScore, 70);
    assert.equal(cfg.podInitialBackoffSeconds, 2);
    assert.equal(cfg.podMaxBackoffSeconds, 20);
    assert.equal(cfg.leaderElection.leaderElect, false);
    assert.equal(cfg.leaderElection.leaseDurationMs, 30_000);
    assert.deepEqual(
      cfg.profiles.map((p) => p.schedulerName),
      ['default-scheduler', 'bin-packing'],
    );
    const bin = cfg.profiles[1];
    assert.ok(bin);
    assert.deepEqual(bin.plugins.score.enabled, [{ name: 'NodeResourcesFit', weight: 5 }]);
    assert.deepEqual(bin.plugins.score.disabled, [{ name: 'NodeResourcesBalancedAllocation' }]);
    assert.ok(!bin.plugins.multiPoint.enabled.some((p) => p.name === 'ImageLocality'));
    const fit = bin.pluginConfig.find((pc) => pc.name === 'NodeResourcesFit');
    assert.deepEqual(fit?.args, {
      scoringStrategy: {
        type: 'MostAllocated',
        resources: [
          { name: 'cpu', weight: 1 },
          { name: 'memory', weight: 2 },
        ],
      },
    });
    // Defaults are added for the other plugins with args.
    assert.ok(bin.pluginConfig.some((pc) => pc.name === 'DefaultPreemption'));
  });

  it('refuses what upstream refuses', () => {
    const head = 'kind: KubeSchedulerConfiguration\n';
    assert.throws(
      () => parseConfiguration(`apiVersion: kubescheduler.config.k8s.io/v1beta3\n${head}`),
      /no kind "KubeSchedulerConfiguration" is registered for version "kubescheduler.config.k8s.io\/v1beta3"/,
    );
    const v1 = `apiVersion: kubescheduler.config.k8s.io/v1\n${head}`;
    assert.throws(() => parseConfiguration(`${v1}bogus: 1\n`), /unknown field "bogus"/);
    assert.throws(
      () => parseConfiguration(`${v1}percentageOfNodesToScore: 110\n`),
      /percentageOfNodesToScore: Invalid value: 110: not in valid range \[0-100\]/,
    );
    assert.throws(
      () => parseConfiguration(`${v1}podInitialBackoffSeconds: 5\npodMaxBackoffSeconds: 2\n`),
      /podMaxBackoffSeconds: Invalid value: 2/,
    );
    assert.throws(
      () => parseConfiguration(`${v1}profiles:\n  - schedulerName: a\n  - schedulerName: a\n`),
      /profiles\[1\]\.schedulerName: Duplicate value: "a"/,
    );
    assert.throws(
      () => parseConfiguration(`${v1}profiles:\n  - schedulerName: a\n  - plugins: {}\n`),
      /profiles\[1\]\.schedulerName: Required value/,
    );
    assert.throws(
      () =>
        parseConfiguration(
          `${v1}profiles:\n  - schedulerName: a\n  - schedulerName: b\n    plugins:\n      queueSort:\n        enabled: [{name: Custom}]\n        disabled: [{name: '*'}]\n`,
        ),
      /queueSort must be the same for all profiles/,
    );
  });

  it('merges plugin sets as upstream: disabled, replaced in place, appended', () => {
    const merged = mergePluginSet(
      { enabled: [{ name: 'A' }, { name: 'B', weight: 1 }, { name: 'C' }], disabled: [] },
      { enabled: [{ name: 'B', weight: 7 }, { name: 'D' }], disabled: [{ name: 'C' }] },
    );
    assert.deepEqual(merged.enabled, [{ name: 'A' }, { name: 'B', weight: 7 }, { name: 'D' }]);
    const all = mergePluginSet(
      { enabled: [{ name: 'A' }], disabled: [] },
      { enabled: [{ name: 'X' }], disabled: [{ name: '*' }] },
    );
    assert.deepEqual(all.enabled, [{ name: 'X' }]);
  });
});
