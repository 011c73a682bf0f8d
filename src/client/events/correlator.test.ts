import { describe, it } from 'node:test';
import assert from '../../testing/assert.js';
import { FakeClock } from '../../util/clock.js';
import { DEFAULT_SPAM_BURST, EventCorrelator } from './correlator.js';
import { type CoreEvent, generateEventName, makeEvent } from './event.js';
import { LruCache } from './spam-filter.js';
import { sprintf } from './sprintf.js';

const START = Date.parse('2025-03-01T10:00:00Z');
const ref = { kind: 'Pod', apiVersion: 'v1', name: 'web-1', namespace: 'shop', uid: 'u1' };
const event = (clock: FakeClock, reason: string, message: string, type = 'Normal'): CoreEvent =>
  makeEvent(ref, { component: 'kubelet', host: 'node-a' }, undefined, type, reason, message, clock.now());

describe('EventCorrelator', () => {
  it('counts identical events and patches only count, lastTimestamp and message', () => {
    const clock = new FakeClock(START);
    const c = new EventCorrelator(clock);
    const first = c.correlate(event(clock, 'Pulled', 'done'));
    assert.equal(first.skip, false);
    assert.equal(first.patch, undefined);
    c.updateState({ ...(first.event as CoreEvent), metadata: { ...first.event?.metadata, resourceVersion: '7' } });
    clock.step(3_000);
    const second = c.correlate(event(clock, 'Pulled', 'done'));
    assert.equal(second.event?.count, 2);
    assert.equal(second.event?.metadata.name, first.event?.metadata.name);
    assert.equal(second.event?.metadata.resourceVersion, '7');
    assert.deepEqual(second.patch, { count: 2, lastTimestamp: '2025-03-01T10:00:03Z', message: 'done' });
    // A different reason is a different event.
    assert.equal(c.correlate(event(clock, 'Pulling', 'done')).patch, undefined);
  });

  it('drops events past the burst of a source+object until the bucket refills', () => {
    const clock = new FakeClock(START);
    const c = new EventCorrelator(clock);
    let written = 0;
    for (let i = 0; i < DEFAULT_SPAM_BURST + 5; i++) if (!c.correlate(event(clock, `R${i}`, 'm')).skip) written++;
    assert.equal(written, DEFAULT_SPAM_BURST);
    clock.step(299_000);
    assert.equal(c.correlate(event(clock, 'X', 'm')).skip, true);
    clock.step(1_000);
    assert.equal(c.correlate(event(clock, 'Y', 'm')).skip, false);
  });

  it('takes options (burst, maxEvents)', () => {
    const clock = new FakeClock(START);
    const c = new EventCorrelator(clock, { burstSize: 2, maxEvents: 3 });
    const results = ['a', 'b', 'c'].map((m) => c.correlate(event(clock, 'R', m)));
    assert.deepEqual(
      results.map((r) => r.skip),
      [false, false, true],
    );
    const c2 = new EventCorrelator(clock, { maxEvents: 3 });
    const msgs = ['a', 'b', 'c'].map((m) => c2.correlate(event(clock, 'R', m)).event?.message);
    assert.deepEqual(msgs, ['a', 'b', '(combined from similar events): c']);
  });
});

describe('event helpers', () => {
  it('names events <name>.<hex nanoseconds>, or a UUID when that is not a valid name', () => {
    assert.equal(generateEventName('web-1', 0x182a3b4c5d6e7f80n), 'web-1.182a3b4c5d6e7f80');
    assert.match(generateEventName('Not_Valid', 1n), /^[0-9a-f]{8}-[0-9a-f]{4}-/);
  });

  it('LruCache forgets the least recently used entry', () => {
    const lru = new LruCache<number>(2);
    lru.add('a', 1);
    lru.add('b', 2);
    lru.get('a');
    lru.add('c', 3);
    assert.equal(lru.get('b'), undefined);
    assert.equal(lru.get('a'), 1);
    assert.equal(lru.length, 2);
  });

  it('sprintf formats as Go does for the verbs events use', () => {
    assert.equal(sprintf('Scaled up replica set %s to %d', 'web-6d4f', 3), 'Scaled up replica set web-6d4f to 3');
    assert.equal(sprintf('%v from %q (100%%)', ['a', 'b'], 'x'), '[a b] from "x" (100%)');
    assert.equal(sprintf('%s and %s', 'one'), 'one and %!s(MISSING)');
    assert.equal(sprintf('done', 1), 'done%!(EXTRA number=1)');
  });
});
