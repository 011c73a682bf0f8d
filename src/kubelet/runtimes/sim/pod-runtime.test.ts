/**
 * Golden timelines of simulated pods: a pod and its lifecycle go in, and the phase and container states the kubelet
 * would report at each step of a fake clock come out. No API involved.
 */
import { describe, it } from 'node:test';
import type { KubeObject } from '../../../client/types.js';
import assert from '../../../testing/assert.js';
import { FakeClock } from '../../../util/clock.js';
import { generatePodStatus, type PodCondition } from '../../status/pod-status.js';
import { TimerWheel } from '../../timer-wheel.js';
import { Lifecycles } from './lifecycle-config.js';
import { type PodHost, SimPod } from './pod-runtime.js';

interface StatusJson {
  name: string;
  state: Record<string, unknown>;
  ready: boolean;
  restartCount: number;
}

interface Harness {
  sim: SimPod;
  clock: FakeClock;
  events: string[];
  /** One line per second: `t phase container-states`. */
  timeline(seconds: number): string[];
  summary(): string;
}

/** images: what the node has (and gains by pulls); without it every image is present. */
function run(pod: KubeObject, opts: { images?: Set<string> } = {}): Harness {
  const images = opts.images;
  const clock = new FakeClock(Date.parse('2026-01-01T00:00:00Z'));
  const wheel = new TimerWheel(clock);
  const events: string[] = [];
  let next = 2;
  const host: PodHost = {
    clock,
    wheel,
    hostIP: '127.0.0.1',
    allocateIP: () => `10.244.1.${next++}`,
    releaseIP: () => {},
    event: (_pod, fieldPath, type, reason, message) => events.push(`${type} ${reason} ${fieldPath ?? ''}: ${message}`),
    changed: () => {},
    imagePresent: (image) => images?.has(image) ?? true,
    imagePulled: (image) => images?.add(image),
    imagePullOf: (p) => new Lifecycles().resolve(p).imagePull,
  };
  const sim = new SimPod(pod, new Lifecycles().resolve(pod), host);
  let previous: PodCondition[] = [];
  const start = clock.now();
  const summary = () => {
    const g = generatePodStatus(sim.pod, sim.runtimeStatus(), previous, clock.now());
    previous = g.conditions;
    const states = [
      ...((g.fields.initContainerStatuses ?? []) as StatusJson[]),
      ...((g.fields.containerStatuses ?? []) as StatusJson[]),
    ].map((cs) => {
      const [kind, detail] = Object.entries(cs.state)[0] ?? ['?', {}];
      const d = detail as Record<string, unknown>;
      const what = kind === 'waiting' ? d.reason : kind === 'terminated' ? `${d.reason}(${d.exitCode})` : 'running';
      return `${cs.name}=${what}${cs.ready ? '+ready' : ''}#${cs.restartCount}`;
    });
    const ready = g.conditions.find((c) => c.type === 'Ready')?.status;
    return `${(clock.now() - start) / 1000}s ${g.phase} ready=${ready} ${states.join(' ')}`;
  };
  sim.start();
  return {
    sim,
    clock,
    events,
    summary,
    timeline(seconds) {
      const lines = [summary()];
      for (let i = 0; i < seconds; i++) {
        clock.step(1000);
        lines.push(summary());
      }
      return lines;
    },
  };
}

const pod = (spec: Record<string, unknown>, annotations: Record<string, string> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', namespace: 'default', uid: 'uid-1', annotations },
  spec: { containers: [{ name: 'c', image: 'nginx:1.27', imagePullPolicy: 'IfNotPresent' }], ...spec },
});

describe('simulated pod timelines', () => {
  it('run: Pending while created, then Running and Ready', () => {
    assert.deepEqual(run(pod({})).timeline(2), [
      '0s Pending ready=False c=ContainerCreating#0',
      '1s Running ready=True c=running+ready#0',
      '2s Running ready=True c=running+ready#0',
    ]);
  });

  it('complete under restartPolicy Never: Succeeded with exit 0', () => {
    assert.deepEqual(run(pod({ restartPolicy: 'Never' })).timeline(3), [
      '0s Pending ready=False c=ContainerCreating#0',
      '1s Running ready=True c=running+ready#0',
      '2s Succeeded ready=False c=Completed(0)#0',
      '3s Succeeded ready=False c=Completed(0)#0',
    ]);
  });

  it('fail under OnFailure restarts with back-off; under Never the pod fails', () => {
    const h = run(pod({ restartPolicy: 'OnFailure' }, { 'sim.wheelhouse.dev/lifecycle': 'fail' }));
    assert.deepEqual(h.timeline(6), [
      '0s Pending ready=False c=ContainerCreating#0',
      '1s Running ready=True c=running+ready#0',
      '2s Running ready=False c=Error(1)#0',
      '3s Running ready=True c=running+ready#1',
      '4s Running ready=False c=Error(1)#1',
      '5s Running ready=False c=CrashLoopBackOff#1',
      '6s Running ready=False c=CrashLoopBackOff#1',
    ]);
    assert.deepEqual(
      run(pod({ restartPolicy: 'Never' }, { 'sim.wheelhouse.dev/lifecycle': 'fail' }))
        .timeline(2)
        .at(-1),
      '2s Failed ready=False c=Error(1)#0',
    );
  });

  it('crashloop: back-off doubles from 10 s', () => {
    const h = run(pod({}, { 'sim.wheelhouse.dev/lifecycle': 'crashloop' }));
    const lines = h.timeline(60);
    const restarts = lines.filter((l, i) => i > 0 && / c=running/.test(l) && !/ c=running/.test(lines[i - 1] ?? ''));
    // Started at 1 s; restarted at 3 s, when the exit is noticed; then 10 s and 20 s after each exit.
    assert.deepEqual(
      restarts.map((l) => l.split(' ')[0]),
      ['1s', '3s', '14s', '35s'],
    );
    const waiting = h.sim.runtimeStatus().containers[0]?.state;
    assert.equal(
      waiting?.kind === 'waiting' && waiting.message,
      'back-off 40s restarting failed container=c pod=p_default(uid-1)',
    );
    assert.ok(
      h.events.some(
        (e) =>
          e === 'Warning BackOff spec.containers{c}: Back-off restarting failed container c in pod p_default(uid-1)',
      ),
    );
  });

  it('never-ready: running, never Ready', () => {
    assert.deepEqual(
      run(pod({}, { 'sim.wheelhouse.dev/lifecycle': 'never-ready' }))
        .timeline(2)
        .at(-1),
      '2s Running ready=False c=running#0',
    );
  });

  it('never-ready: its readiness probe fails every period from the initial delay, with an Unhealthy event', () => {
    const never = { 'sim.wheelhouse.dev/lifecycle': 'never-ready' };
    const unhealthy = (h: Harness) => h.events.filter((e) => e.includes(' Unhealthy '));
    const http = run(
      pod(
        { containers: [{ name: 'c', image: 'x', readinessProbe: { httpGet: { port: 80 }, initialDelaySeconds: 5 } }] },
        never,
      ),
    );
    http.clock.step(5000);
    assert.deepEqual(unhealthy(http), [], 'nothing before the initial delay (the container started at 1 s)');
    http.clock.step(1000);
    assert.deepEqual(unhealthy(http), [
      'Warning Unhealthy spec.containers{c}: Readiness probe failed: HTTP probe failed with statuscode: 503',
    ]);
    http.clock.step(20_000);
    assert.equal(unhealthy(http).length, 3, 'then every 10 s, upstream default period');
    assert.match(http.summary(), /Running ready=False/);
    // Deleted: the probe stops with the container.
    http.sim.update({
      ...http.sim.pod,
      metadata: { ...http.sim.pod.metadata, deletionTimestamp: 'x', deletionGracePeriodSeconds: 30 },
    });
    http.clock.step(60_000);
    assert.equal(unhealthy(http).length, 3);

    const tcp = run(
      pod(
        {
          containers: [
            {
              name: 'c',
              image: 'x',
              ports: [{ name: 'web', containerPort: 8080 }],
              readinessProbe: { tcpSocket: { port: 'web' }, periodSeconds: 2 },
            },
          ],
        },
        never,
      ),
    );
    tcp.clock.step(5000);
    assert.deepEqual(unhealthy(tcp), [
      'Warning Unhealthy spec.containers{c}: Readiness probe failed: dial tcp 10.244.1.2:8080: connect: connection refused',
      'Warning Unhealthy spec.containers{c}: Readiness probe failed: dial tcp 10.244.1.2:8080: connect: connection refused',
      'Warning Unhealthy spec.containers{c}: Readiness probe failed: dial tcp 10.244.1.2:8080: connect: connection refused',
    ]);
    const grpc = run(pod({ containers: [{ name: 'c', image: 'x', readinessProbe: { grpc: { port: 9 } } }] }, never));
    grpc.clock.step(2000);
    assert.deepEqual(unhealthy(grpc), [
      'Warning Unhealthy spec.containers{c}: Readiness probe failed: service unhealthy (responded with "NOT_SERVING")',
    ]);
    const exec = run(
      pod({ containers: [{ name: 'c', image: 'x', readinessProbe: { exec: { command: ['f'] } } }] }, never),
    );
    exec.clock.step(2000);
    assert.deepEqual(unhealthy(exec), ['Warning Unhealthy spec.containers{c}: Readiness probe failed: ']);
    // No probe, nothing to fail: not ready, and no events about it.
    const bare = run(pod({}, never));
    bare.clock.step(30_000);
    assert.deepEqual(unhealthy(bare), []);
  });

  it('a readiness probe delays readiness by its initial delay', () => {
    const spec = { containers: [{ name: 'c', image: 'x', readinessProbe: { initialDelaySeconds: 2 } }] };
    assert.deepEqual(run(pod(spec)).timeline(3).slice(1), [
      '1s Running ready=False c=running#0',
      '2s Running ready=False c=running#0',
      '3s Running ready=True c=running+ready#0',
    ]);
  });

  it('init containers run one after another before the containers', () => {
    const spec = {
      initContainers: [
        { name: 'a', image: 'x' },
        { name: 'b', image: 'x' },
      ],
    };
    assert.deepEqual(run(pod(spec)).timeline(4), [
      '0s Pending ready=False a=PodInitializing#0 b=PodInitializing#0 c=PodInitializing#0',
      '1s Pending ready=False a=running#0 b=PodInitializing#0 c=PodInitializing#0',
      '2s Pending ready=False a=Completed(0)+ready#0 b=running#0 c=PodInitializing#0',
      '3s Running ready=True a=Completed(0)+ready#0 b=Completed(0)+ready#0 c=running+ready#0',
      '4s Running ready=True a=Completed(0)+ready#0 b=Completed(0)+ready#0 c=running+ready#0',
    ]);
  });

  it('graceful deletion: Killing at once, stopped at the end of the grace period (137) or earlier on request', () => {
    const h = run(pod({}));
    h.clock.step(2000);
    h.sim.update({
      ...h.sim.pod,
      metadata: { ...h.sim.pod.metadata, deletionTimestamp: 'x', deletionGracePeriodSeconds: 5 },
    });
    assert.ok(h.events.includes('Normal Killing spec.containers{c}: Stopping container c'));
    h.clock.step(4000);
    assert.match(h.summary(), / Running /);
    h.clock.step(1000);
    assert.equal(h.summary(), '7s Failed ready=False c=Error(137)#0');
    assert.equal(h.sim.terminal, true);

    const quick = run(pod({}, { 'sim.wheelhouse.dev/stop-seconds': '1' }));
    quick.clock.step(2000);
    quick.sim.update({
      ...quick.sim.pod,
      metadata: { ...quick.sim.pod.metadata, deletionTimestamp: 'x', deletionGracePeriodSeconds: 30 },
    });
    quick.clock.step(1000);
    assert.equal(quick.summary(), '3s Succeeded ready=False c=Completed(0)#0');
  });

  it('fails a pod that outlives its activeDeadlineSeconds', () => {
    const h = run(pod({ activeDeadlineSeconds: 3 }));
    assert.deepEqual(h.timeline(3).slice(2), [
      '2s Running ready=True c=running+ready#0',
      '3s Failed ready=False c=Error(137)#0',
    ]);
    const status = h.sim.runtimeStatus();
    assert.equal(status.reason, 'DeadlineExceeded');
    assert.equal(status.message, 'Pod was active on the node longer than the specified deadline');
    assert.ok(
      h.events.includes('Warning DeadlineExceeded : Pod was active on the node longer than the specified deadline'),
    );
  });

  it('an image reference that does not parse: InvalidImageName, tried again every 10 s', () => {
    const h = run(pod({ containers: [{ name: 'c', image: 'NGINX' }] }));
    assert.deepEqual(h.timeline(1), [
      '0s Pending ready=False c=ContainerCreating#0',
      '1s Pending ready=False c=InvalidImageName#0',
    ]);
    const message =
      'Failed to apply default image tag "NGINX": couldn\'t parse image name "NGINX": invalid reference format: repository name (library/NGINX) must be lowercase';
    assert.deepEqual(h.events, [
      `Warning InspectFailed spec.containers{c}: ${message}`,
      'Warning Failed spec.containers{c}: Error: InvalidImageName',
    ]);
    const status = h.sim.runtimeStatus().containers[0];
    assert.deepEqual(status?.state, { kind: 'waiting', reason: 'InvalidImageName', message });
    h.clock.step(10_000);
    assert.equal(h.events.length, 4);
  });

  it('a pull that fails: ErrImagePull, then ImagePullBackOff until its back-off (10 s, doubling) is over', () => {
    const h = run(
      pod(
        { containers: [{ name: 'c', image: 'nginx:nope', imagePullPolicy: 'IfNotPresent' }] },
        { 'sim.wheelhouse.dev/image-pull': 'fail' },
      ),
      { images: new Set() },
    );
    const states = h.timeline(33).filter((_, i) => [1, 2, 11, 12, 31, 32].includes(i));
    assert.deepEqual(states, [
      '1s Pending ready=False c=ErrImagePull#0',
      '2s Pending ready=False c=ImagePullBackOff#0',
      '11s Pending ready=False c=ErrImagePull#0',
      '12s Pending ready=False c=ImagePullBackOff#0',
      '31s Pending ready=False c=ErrImagePull#0',
      '32s Pending ready=False c=ImagePullBackOff#0',
    ]);
    const error =
      'rpc error: code = NotFound desc = failed to pull and unpack image "docker.io/library/nginx:nope": failed to resolve reference "docker.io/library/nginx:nope": docker.io/library/nginx:nope: not found';
    assert.deepEqual(h.events.slice(0, 5), [
      'Normal Pulling spec.containers{c}: Pulling image "nginx:nope"',
      `Warning Failed spec.containers{c}: Failed to pull image "nginx:nope": ${error}`,
      'Warning Failed spec.containers{c}: Error: ErrImagePull',
      'Normal BackOff spec.containers{c}: Back-off pulling image "nginx:nope"',
      'Warning Failed spec.containers{c}: Error: ImagePullBackOff',
    ]);
    assert.equal(h.events.filter((e) => e.includes('Pulling image')).length, 3);
    assert.deepEqual(h.sim.runtimeStatus().containers[0]?.state, {
      kind: 'waiting',
      reason: 'ImagePullBackOff',
      message: `Back-off pulling image "nginx:nope": ErrImagePull: ${error}`,
    });
  });

  it('pulls again once the pod no longer says pulls fail, when the back-off is over', () => {
    const h = run(
      pod({ containers: [{ name: 'c', image: 'nginx:nope' }] }, { 'sim.wheelhouse.dev/image-pull': 'fail' }),
      { images: new Set() },
    );
    h.clock.step(2000);
    assert.match(h.summary(), /c=ImagePullBackOff#0$/);
    // kubectl annotate pod p sim.wheelhouse.dev/image-pull-
    h.sim.update({ ...h.sim.pod, metadata: { ...h.sim.pod.metadata, annotations: {} } });
    h.clock.step(9000);
    assert.match(h.summary(), /Running ready=True c=running\+ready#0$/);
  });

  it('a container waiting for an image the spec no longer names is tried at once with the new one', () => {
    const h = run(pod({ containers: [{ name: 'c', image: 'NGINX' }] }), { images: new Set(['nginx:1.27']) });
    h.clock.step(1000);
    assert.match(h.summary(), /c=InvalidImageName#0$/);
    // kubectl set image pod/p c=nginx:1.27
    h.sim.update({ ...h.sim.pod, spec: { ...h.sim.pod.spec, containers: [{ name: 'c', image: 'nginx:1.27' }] } });
    assert.match(h.summary(), /Running ready=True c=running\+ready#0$/);
    assert.equal(h.sim.runtimeStatus().containers[0]?.image, 'docker.io/library/nginx:1.27');
    h.clock.step(30_000);
    assert.equal(h.events.filter((e) => e.includes('InvalidImageName')).length, 1, 'no retry of the old image');
  });

  it('pull policy Never: ErrImageNeverPull until the image is on the node; init containers wait in order', () => {
    const images = new Set<string>();
    const spec = {
      initContainers: [{ name: 'init', image: 'local/tool:v1', imagePullPolicy: 'Never' }],
      containers: [{ name: 'c', image: 'nginx:1.27', imagePullPolicy: 'IfNotPresent' }],
    };
    const h = run(pod(spec), { images });
    assert.deepEqual(h.timeline(1), [
      '0s Pending ready=False init=PodInitializing#0 c=PodInitializing#0',
      '1s Pending ready=False init=ErrImageNeverPull#0 c=PodInitializing#0',
    ]);
    assert.deepEqual(h.events, [
      'Warning ErrImageNeverPull spec.initContainers{init}: Container image "local/tool:v1" is not present with pull policy of Never',
      'Warning Failed spec.initContainers{init}: Error: ErrImageNeverPull',
    ]);
    // Loaded onto the node by hand (as `kind load` would): the next sync starts it.
    images.add('local/tool:v1');
    h.clock.step(10_000);
    assert.match(h.summary(), /init=running#0 c=PodInitializing#0$/);
  });

  it('records the events of a container start as upstream words them', () => {
    const h = run(pod({}));
    h.clock.step(1000);
    assert.deepEqual(h.events, [
      'Normal Pulled spec.containers{c}: Container image "nginx:1.27" already present on machine',
      'Normal Created spec.containers{c}: Created container: c',
      'Normal Started spec.containers{c}: Started container c',
    ]);
  });
});
