import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import assert from '../testing/assert.js';
import { schedulerFlagsOf } from './scheduler.js';
import { UsageError } from './storage-flags.js';

describe('wheelhouse scheduler flags', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sched-flags-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("has kube-scheduler's defaults", async () => {
    const f = await schedulerFlagsOf({});
    assert.equal(f.securePort, 10259);
    assert.equal(f.bindAddress, '0.0.0.0');
    assert.equal(f.config.leaderElection.leaderElect, true);
    assert.equal(f.config.leaderElection.resourceName, 'kube-scheduler');
    assert.equal(f.config.clientConnection.qps, 50);
    assert.deepEqual(
      f.config.profiles.map((p) => p.schedulerName),
      ['default-scheduler'],
    );
  });

  it('applies the deprecated flags only without --config, the leader election flags always', async () => {
    const f = await schedulerFlagsOf({
      kubeconfig: '/k',
      'kube-api-qps': '7',
      'pod-initial-backoff-seconds': '3',
      'pod-max-backoff-seconds': '30',
      'leader-elect': 'false',
      'secure-port': '0',
    });
    assert.equal(f.kubeconfig, '/k');
    assert.equal(f.config.clientConnection.qps, 7);
    assert.equal(f.config.podInitialBackoffSeconds, 3);
    assert.equal(f.config.podMaxBackoffSeconds, 30);
    assert.equal(f.config.leaderElection.leaderElect, false);
    assert.equal(f.securePort, 0);

    const file = join(dir, 'config.yaml');
    writeFileSync(
      file,
      'apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nclientConnection:\n  kubeconfig: /from-config\nprofiles:\n  - schedulerName: custom\n',
    );
    const g = await schedulerFlagsOf({
      config: file,
      'kube-api-qps': '7',
      'leader-elect-lease-duration': '30s',
      kubeconfig: '/ignored',
    });
    assert.equal(g.config.clientConnection.qps, 50);
    assert.equal(g.config.leaderElection.leaseDurationMs, 30_000);
    assert.equal(g.kubeconfig, '/from-config');
    assert.deepEqual(
      g.config.profiles.map((p) => p.schedulerName),
      ['custom'],
    );
  });

  it('refuses bad values as upstream', async () => {
    await assert.rejects(schedulerFlagsOf({ 'leader-elect': 'maybe' }), UsageError);
    await assert.rejects(schedulerFlagsOf({ 'secure-port': '70000' }), /must be between 0 and 65535/);
    await assert.rejects(schedulerFlagsOf({ 'leader-elect-retry-period': '2 seconds' }), /invalid duration/);
  });
});
