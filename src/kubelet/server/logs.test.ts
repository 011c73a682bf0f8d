import { describe, it } from 'node:test';
import type { KubeObject } from '../../client/types.js';
import assert from '../../testing/assert.js';
import { FakeContainerLog } from './fake-runtime.js';
import { checkContainerLogStatus, formatLogTimestamp, type LogQuery, parseLogQuery, streamLog } from './logs.js';

const T0 = Date.UTC(2025, 0, 2, 3, 4, 5, 678);

function logWith(lines: [number, string][]): FakeContainerLog {
  const log = new FakeContainerLog(() => T0);
  for (const [offsetS, text] of lines) log.write(text, { time: T0 + offsetS * 1000 });
  return log;
}

function read(log: FakeContainerLog | undefined, query: Partial<LogQuery>, now = T0 + 100_000) {
  let out = '';
  let ended = false;
  const stop = streamLog(
    log,
    { follow: false, previous: false, timestamps: false, ...query },
    now,
    (c) => {
      out += c;
    },
    () => {
      ended = true;
    },
  );
  return {
    get out() {
      return out;
    },
    get ended() {
      return ended;
    },
    stop,
  };
}

describe('container log options', () => {
  const log = logWith([
    [0, 'one'],
    [10, 'two'],
    [20, 'three'],
  ]);

  it('writes every line, or the last tailLines', () => {
    assert.equal(read(log, {}).out, 'one\ntwo\nthree\n');
    assert.equal(read(log, { tailLines: 1 }).out, 'three\n');
    assert.equal(read(log, { tailLines: 0 }).out, '');
    assert.equal(read(log, { tailLines: 10 }).out, 'one\ntwo\nthree\n');
  });

  it('keeps lines since a time', () => {
    assert.equal(read(log, { sinceSeconds: 85 }, T0 + 100_000).out, 'three\n');
    assert.equal(read(log, { sinceTime: T0 + 10_000 }).out, 'two\nthree\n');
  });

  it('stops after limitBytes', () => {
    const r = read(log, { limitBytes: 6 });
    assert.equal(r.out, 'one\ntw');
    assert.equal(r.ended, true);
  });

  it('prefixes RFC 3339 timestamps with nine fraction digits', () => {
    assert.equal(formatLogTimestamp(T0), '2025-01-02T03:04:05.678000000Z');
    assert.equal(read(log, { timestamps: true, tailLines: 1 }).out, '2025-01-02T03:04:25.678000000Z three\n');
  });

  it('follows until the run ends', () => {
    const live = logWith([[0, 'first']]);
    const r = read(live, { follow: true });
    assert.equal(r.out, 'first\n');
    assert.equal(r.ended, false);
    live.write('second');
    assert.equal(r.out, 'first\nsecond\n');
    live.end();
    assert.equal(r.ended, true);
    assert.equal(live.followerCount, 0);
  });

  it('stops following when the client goes away', () => {
    const live = logWith([]);
    const r = read(live, { follow: true });
    r.stop();
    assert.equal(live.followerCount, 0);
  });

  it('ends at once without a log', () => {
    const r = read(undefined, { follow: true });
    assert.equal(r.out, '');
    assert.equal(r.ended, true);
  });

  it('parses and validates the query', () => {
    assert.deepEqual(parseLogQuery(new URLSearchParams('follow=true&tailLines=5&timestamps=1')), {
      follow: true,
      previous: false,
      timestamps: true,
      tailLines: 5,
    });
    assert.deepEqual(parseLogQuery(new URLSearchParams('tail=all')), {
      follow: false,
      previous: false,
      timestamps: false,
    });
    assert.match(String(parseLogQuery(new URLSearchParams('tailLines=-1'))), /must be greater than or equal to 0/);
    assert.match(String(parseLogQuery(new URLSearchParams('limitBytes=0'))), /must be greater than 0/);
    assert.match(
      String(parseLogQuery(new URLSearchParams('sinceSeconds=5&sinceTime=2025-01-01T00:00:00Z'))),
      /at most one/,
    );
  });
});

describe('which run a log request reads', () => {
  const pod = (status: object): KubeObject => ({ metadata: { name: 'p' }, status: { containerStatuses: [status] } });

  it('reads a running or terminated container', () => {
    assert.equal(checkContainerLogStatus(pod({ name: 'c', state: { running: {} } }), 'c', false), undefined);
    assert.equal(checkContainerLogStatus(pod({ name: 'c', state: { terminated: {} } }), 'c', false), undefined);
  });

  it('refuses a container still waiting, with the kubelet words', () => {
    assert.equal(
      checkContainerLogStatus(pod({ name: 'c', state: { waiting: { reason: 'ContainerCreating' } } }), 'c', false),
      'container "c" in pod "p" is waiting to start: ContainerCreating',
    );
    assert.equal(
      checkContainerLogStatus(pod({ name: 'c', state: { waiting: { reason: 'ImagePullBackOff' } } }), 'c', false),
      'container "c" in pod "p" is waiting to start: trying and failing to pull image',
    );
    assert.equal(
      checkContainerLogStatus({ metadata: { name: 'p' }, status: {} }, 'c', false),
      'container "c" in pod "p" is not available',
    );
  });

  it('reads the previous run only when there was one', () => {
    assert.equal(
      checkContainerLogStatus(pod({ name: 'c', state: { running: {} } }), 'c', true),
      'previous terminated container "c" in pod "p" not found',
    );
    const restarted = pod({
      name: 'c',
      state: { waiting: { reason: 'CrashLoopBackOff' } },
      lastState: { terminated: {} },
    });
    assert.equal(checkContainerLogStatus(restarted, 'c', true), undefined);
    assert.equal(
      checkContainerLogStatus(restarted, 'c', false),
      undefined,
      'a crash-looping container shows its last run',
    );
  });
});
