import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { KubeObject } from '../client/types.js';
import type { Lifecycles } from '../kubelet/runtimes/sim/lifecycle-config.js';
import assert from '../testing/assert.js';
import { kubeletCommand, simKubeletOptionsOf } from './kubelet.js';
import { UsageError } from './storage-flags.js';

describe('wheelhouse kubelet --sim flags', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kubelet-flags-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('has upstream-like defaults', async () => {
    const o = await simKubeletOptionsOf({});
    assert.equal(o.nodes, 3);
    assert.equal(o.namePrefix, 'node-');
    assert.equal(o.kubeletPort, 10250);
    assert.equal(o.lifecycles, undefined);
    assert.equal(o.eventQps, 50);
    assert.equal(o.eventBurst, 100);
  });

  it('takes the cluster DNS, leaving out addresses that do not parse as the kubelet does', async () => {
    assert.equal((await simKubeletOptionsOf({})).podDNS, undefined, "the kubelet server's default: kubeadm's");
    assert.deepEqual((await simKubeletOptionsOf({ 'cluster-dns': '10.0.0.10, nope,fd00::a' })).podDNS, {
      clusterDNS: ['10.0.0.10', 'fd00::a'],
      clusterDomain: 'cluster.local',
    });
    assert.deepEqual((await simKubeletOptionsOf({ 'cluster-domain': 'corp.internal' })).podDNS, {
      clusterDNS: ['10.96.0.10'],
      clusterDomain: 'corp.internal',
    });
  });

  it('takes the event limits, refusing negative ones with upstream message', async () => {
    const o = await simKubeletOptionsOf({ 'event-qps': '5', 'event-burst': '0' });
    assert.equal(o.eventQps, 5);
    assert.equal(o.eventBurst, 0);
    await assert.rejects(
      simKubeletOptionsOf({ 'event-qps': '-1' }),
      /^Error: invalid configuration: eventRecordQPS \(--event-qps\) -1 must not be a negative number$/,
    );
    await assert.rejects(
      simKubeletOptionsOf({ 'event-burst': '-3' }),
      /invalid configuration: eventBurst \(--event-burst\) -3 must not be a negative number/,
    );
    await assert.rejects(simKubeletOptionsOf({ 'event-qps': 'lots' }), UsageError);
  });

  it('reads the lifecycle and node config files and the timing flags', async () => {
    const lifecycle = join(dir, 'lifecycle.yaml');
    writeFileSync(lifecycle, 'rules:\n  - selector: app=flaky\n    lifecycle: crashloop\n');
    const nodes = join(dir, 'nodes.yaml');
    writeFileSync(nodes, 'zones: [east, west]\ngroups:\n  - count: 2\n    capacity: { cpu: "64" }\n');
    const o = await simKubeletOptionsOf({
      nodes: '10',
      'node-name-prefix': 'sim-',
      'lifecycle-config': lifecycle,
      'node-config': nodes,
      'node-status-update-frequency': '4s',
      'node-lease-duration-seconds': '20',
    });
    assert.equal(o.nodes, 10);
    assert.equal(o.namePrefix, 'sim-');
    assert.equal(o.nodeStatusUpdateFrequencyMs, 4000);
    assert.equal(o.leaseDurationSeconds, 20);
    assert.deepEqual(o.nodeConfig?.zones, ['east', 'west']);
    const pod: KubeObject = { metadata: { labels: { app: 'flaky' } }, spec: {} };
    assert.equal((o.lifecycles as Lifecycles).resolve(pod).lifecycle, 'crashloop');
  });

  it('refuses bad flags and files', async () => {
    await assert.rejects(simKubeletOptionsOf({ nodes: 'many' }), UsageError);
    await assert.rejects(simKubeletOptionsOf({ 'node-status-update-frequency': '10' }), /time: invalid duration/);
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, 'rules: [{ lifecycle: explode }]');
    await assert.rejects(simKubeletOptionsOf({ 'lifecycle-config': bad }), /--lifecycle-config .*must be one of/);
    await assert.rejects(
      kubeletCommand(['--nodes', '2'], () => {}),
      /pass --sim/,
    );
  });
});
