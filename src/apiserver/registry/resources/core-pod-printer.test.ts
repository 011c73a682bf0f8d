import { describe, it } from 'node:test';
import assert from '../../../testing/assert.js';
import type { KubeObject } from '../object.js';
import { podPrinter, podSummary } from './core-pod-printer.js';

const NOW = Date.parse('2025-01-01T12:00:00Z');

function pod(
  spec: Record<string, unknown>,
  status: Record<string, unknown>,
  meta: Record<string, unknown> = {},
): KubeObject {
  return { metadata: { name: 'p', creationTimestamp: '2025-01-01T11:00:00Z', ...meta }, spec, status };
}

const running = (name: string, ready = true, restartCount = 0) => ({
  name,
  ready,
  restartCount,
  state: { running: { startedAt: '2025-01-01T11:00:00Z' } },
});

describe('pod printer', () => {
  it('prints the phase with ready and restart counts', () => {
    const p = pod(
      { containers: [{ name: 'a' }, { name: 'b' }] },
      { phase: 'Running', containerStatuses: [running('a'), running('b', false)] },
    );
    assert.deepEqual(podSummary(p, NOW), { ready: 1, total: 2, reason: 'Running', restarts: '0' });
  });

  it('prefers a waiting reason, and shows when the last restart was', () => {
    const p = pod(
      { containers: [{ name: 'a' }] },
      {
        phase: 'Running',
        containerStatuses: [
          {
            name: 'a',
            ready: false,
            restartCount: 4,
            state: { waiting: { reason: 'CrashLoopBackOff' } },
            lastState: { terminated: { exitCode: 1, finishedAt: '2025-01-01T11:58:00Z' } },
          },
        ],
      },
    );
    const s = podSummary(p, NOW);
    assert.equal(s.reason, 'CrashLoopBackOff');
    assert.equal(s.restarts, '4 (2m ago)');
  });

  it('shows terminated reasons, signals and exit codes', () => {
    const term = (t: Record<string, unknown>) =>
      podSummary(
        pod(
          { containers: [{ name: 'a' }] },
          { phase: 'Failed', containerStatuses: [{ name: 'a', state: { terminated: t } }] },
        ),
        NOW,
      ).reason;
    assert.equal(term({ exitCode: 0, reason: 'Completed' }), 'Completed');
    assert.equal(term({ exitCode: 137, signal: 9 }), 'Signal:9');
    assert.equal(term({ exitCode: 3 }), 'ExitCode:3');
  });

  it('shows init container progress and failures', () => {
    const spec = { initContainers: [{ name: 'i1' }, { name: 'i2' }], containers: [{ name: 'a' }] };
    const progress = pod(spec, {
      phase: 'Pending',
      initContainerStatuses: [
        { name: 'i1', state: { terminated: { exitCode: 0 } } },
        { name: 'i2', state: { running: {} } },
      ],
    });
    assert.equal(podSummary(progress, NOW).reason, 'Init:1/2');
    const crash = pod(spec, {
      phase: 'Pending',
      initContainerStatuses: [{ name: 'i1', state: { waiting: { reason: 'CrashLoopBackOff' } } }],
    });
    assert.equal(podSummary(crash, NOW).reason, 'Init:CrashLoopBackOff');
    const failed = pod(spec, {
      phase: 'Failed',
      initContainerStatuses: [{ name: 'i1', state: { terminated: { exitCode: 2 } } }],
    });
    assert.equal(podSummary(failed, NOW).reason, 'Init:ExitCode:2');
  });

  it('counts started sidecars as ready containers', () => {
    const p = pod(
      { initContainers: [{ name: 'side', restartPolicy: 'Always' }], containers: [{ name: 'a' }] },
      {
        phase: 'Running',
        conditions: [{ type: 'Initialized', status: 'True' }],
        initContainerStatuses: [{ name: 'side', started: true, ready: true, state: { running: {} } }],
        containerStatuses: [running('a')],
      },
    );
    assert.deepEqual(podSummary(p, NOW), { ready: 2, total: 2, reason: 'Running', restarts: '0' });
  });

  it('says Terminating for a pod being deleted, and keeps a terminal phase', () => {
    const marked = { deletionTimestamp: '2025-01-01T12:00:30Z' };
    assert.equal(podSummary(pod({ containers: [] }, { phase: 'Running' }, marked), NOW).reason, 'Terminating');
    assert.equal(podSummary(pod({ containers: [] }, { phase: 'Succeeded' }, marked), NOW).reason, 'Succeeded');
    assert.equal(
      podSummary(pod({ containers: [] }, { phase: 'Running', reason: 'NodeLost' }, marked), NOW).reason,
      'Unknown',
    );
  });

  it('shows SchedulingGated, and Running back for a completed sidecar-less pod with a running container', () => {
    const gated = pod(
      { containers: [{ name: 'a' }] },
      { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'SchedulingGated' }] },
    );
    assert.equal(podSummary(gated, NOW).reason, 'SchedulingGated');
    const mixed = pod(
      { containers: [{ name: 'a' }, { name: 'b' }] },
      {
        phase: 'Running',
        conditions: [{ type: 'Ready', status: 'False' }],
        containerStatuses: [running('a'), { name: 'b', state: { terminated: { exitCode: 0, reason: 'Completed' } } }],
      },
    );
    assert.equal(podSummary(mixed, NOW).reason, 'NotReady');
  });

  it('fills the wide columns', () => {
    const p = pod(
      { containers: [{ name: 'a' }], nodeName: 'n1', readinessGates: [{ conditionType: 'x/ok' }] },
      {
        phase: 'Running',
        podIPs: [{ ip: '10.244.0.5' }],
        conditions: [{ type: 'x/ok', status: 'True' }],
        containerStatuses: [running('a')],
      },
    );
    assert.deepEqual(podPrinter.cells(p, NOW), [
      'p',
      '1/1',
      'Running',
      '0',
      '60m',
      '10.244.0.5',
      'n1',
      '<none>',
      '1/1',
    ]);
    assert.deepEqual(
      podPrinter.columns.map((c) => [c.name, c.priority]),
      [
        ['Name', 0],
        ['Ready', 0],
        ['Status', 0],
        ['Restarts', 0],
        ['Age', 0],
        ['IP', 1],
        ['Node', 1],
        ['Nominated Node', 1],
        ['Readiness Gates', 1],
      ],
    );
  });
});
