import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import {
  isStorageError,
  MAX_VALUE_BYTES,
  type StorageError,
  type StorageErrorCode,
  type Store,
  type WatchEvent,
} from '../storage/types.js';
import assert from './assert.js';

/**
 * The storage contract's conformance suite. Every backend runs it: `runStorageConformance({ name, newStore })`.
 * Tests write under their own prefix, so one store (or one etcd cluster) can serve the whole suite.
 */
export interface ConformanceTarget {
  name: string;
  /** Opens a store; the suite closes it (and calls cleanup) when done. */
  newStore(): Promise<{ store: Store; cleanup?: () => Promise<void> }>;
  /** A reason to skip the whole suite (node:test's skip option). */
  skip?: string | false;
}

/** Records what a watch delivers and lets a test wait for it. */
export class WatchRecorder {
  readonly events: WatchEvent[] = [];
  error: StorageError | undefined;
  private waiters: Array<() => void> = [];

  readonly listener = {
    onEvent: (e: WatchEvent) => {
      this.events.push(e);
      this.wake();
    },
    onError: (err: StorageError) => {
      this.error = err;
      this.wake();
    },
  };

  /** Waits until at least n events (or an error) arrived. */
  async waitForEvents(n: number, timeoutMs = 10_000): Promise<WatchEvent[]> {
    await this.until(() => this.events.length >= n || this.error !== undefined, timeoutMs, `${n} events`);
    if (this.error && this.events.length < n) throw this.error;
    return this.events.slice(0, n);
  }

  async waitForError(timeoutMs = 10_000): Promise<StorageError> {
    await this.until(() => this.error !== undefined, timeoutMs, 'a watch error');
    return this.error as StorageError;
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  private async until(cond: () => boolean, timeoutMs: number, what: string): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!cond()) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for ${what} (have ${this.events.length} events)`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, Math.min(left, 200));
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }
}

export async function expectStorageError(p: Promise<unknown>, code: StorageErrorCode): Promise<StorageError> {
  try {
    await p;
  } catch (err) {
    assert.ok(isStorageError(err), `expected a StorageError ${code}, got ${String(err)}`);
    assert.equal(err.code, code, `expected ${code}, got ${err.code}: ${err.message}`);
    return err;
  }
  assert.fail(`expected StorageError ${code}, but the call succeeded`);
}

const text = (b: Buffer | undefined) => b?.toString('utf8');

/** A compact picture of events for deepEqual. */
export function describeEvents(events: WatchEvent[]): string[] {
  return events.map((e) => {
    if (e.type === 'create') return `create ${e.key}=${text(e.value)}`;
    if (e.type === 'update') return `update ${e.key}=${text(e.value)} (was ${text(e.prevValue)})`;
    return `delete ${e.key} (was ${text(e.prevValue)})`;
  });
}

export function runStorageConformance(target: ConformanceTarget): void {
  describe(`storage conformance: ${target.name}`, { skip: target.skip ?? false }, () => {
    let store: Store;
    let cleanup: (() => Promise<void>) | undefined;
    let n = 0;
    const run = randomBytes(4).toString('hex');
    const prefix = () => `/registry/conformance-${run}/t${++n}/`;

    before(async () => {
      ({ store, cleanup } = await target.newStore());
    });
    after(async () => {
      await store?.close();
      await cleanup?.();
    });

    it('gives every write a revision above all before it, and reads it back', async () => {
      const p = prefix();
      const start = await store.currentRevision();
      const r1 = await store.create(`${p}a`, 'one');
      const r2 = await store.update(`${p}a`, 'two', r1.revision);
      const r3 = await store.create(`${p}b`, 'x');
      const r4 = await store.delete(`${p}b`, r3.revision);
      const revs = [start, r1.revision, r2.revision, r3.revision, r4.revision];
      for (let i = 1; i < revs.length; i++) assert.ok((revs[i] as number) > (revs[i - 1] as number), `${revs}`);
      assert.ok((await store.currentRevision()) >= r4.revision);
      const a = await store.get(`${p}a`);
      assert.equal(text(a?.value), 'two');
      assert.equal(a?.modRevision, r2.revision);
      assert.equal(a?.createRevision, r1.revision, 'an update keeps the create revision');
      assert.equal(await store.get(`${p}b`), null);
      assert.equal(await store.get(`${p}never`), null);
    });

    it('refuses to create a key that exists, and creates it again after a delete', async () => {
      const p = prefix();
      const r1 = await store.create(`${p}k`, 'v1');
      const err = await expectStorageError(store.create(`${p}k`, 'v2'), 'KeyExists');
      assert.equal(text(err.current?.value), 'v1');
      assert.equal(text((await store.get(`${p}k`))?.value), 'v1');
      await store.delete(`${p}k`, r1.revision);
      const r3 = await store.create(`${p}k`, 'v3');
      const kv = await store.get(`${p}k`);
      assert.equal(text(kv?.value), 'v3');
      assert.equal(kv?.createRevision, r3.revision);
    });

    it('refuses updates and deletes with a stale revision, returning the current value', async () => {
      const p = prefix();
      const r1 = await store.create(`${p}k`, 'v1');
      const r2 = await store.update(`${p}k`, 'v2', r1.revision);
      const upd = await expectStorageError(store.update(`${p}k`, 'stale', r1.revision), 'Conflict');
      assert.equal(text(upd.current?.value), 'v2');
      assert.equal(upd.current?.modRevision, r2.revision);
      const del = await expectStorageError(store.delete(`${p}k`, r1.revision), 'Conflict');
      assert.equal(del.current?.modRevision, r2.revision);
      assert.equal(text((await store.get(`${p}k`))?.value), 'v2', 'a refused write changes nothing');
      await expectStorageError(store.update(`${p}missing`, 'x', 1), 'NotFound');
      await expectStorageError(store.delete(`${p}missing`, 1), 'NotFound');
      const gone = await store.delete(`${p}k`, r2.revision);
      assert.equal(text(gone.prevValue), 'v2');
      await expectStorageError(store.update(`${p}k`, 'after', r2.revision), 'NotFound');
    });

    it('reads a key and a list as they were at a past revision', async () => {
      const p = prefix();
      const a1 = await store.create(`${p}a`, 'a1');
      const b1 = await store.create(`${p}b`, 'b1');
      const then = b1.revision;
      await store.update(`${p}a`, 'a2', a1.revision);
      await store.delete(`${p}b`, b1.revision);
      await store.create(`${p}c`, 'c1');
      assert.equal(text((await store.get(`${p}a`, { revision: then }))?.value), 'a1');
      assert.equal(text((await store.get(`${p}b`, { revision: then }))?.value), 'b1');
      assert.equal(await store.get(`${p}c`, { revision: then }), null);
      assert.equal(await store.get(`${p}a`, { revision: a1.revision - 1 }), null);
      const past = await store.list(p, { revision: then });
      assert.equal(past.revision, then);
      assert.deepEqual(
        past.items.map((i) => `${i.key.slice(p.length)}=${text(i.value)}@${i.modRevision}`),
        [`a=a1@${a1.revision}`, `b=b1@${b1.revision}`],
      );
      const now = await store.list(p);
      assert.deepEqual(
        now.items.map((i) => `${i.key.slice(p.length)}=${text(i.value)}`),
        ['a=a2', 'c=c1'],
      );
      assert.ok(now.revision >= then);
      assert.equal(await store.count(p), 2);
    });

    it('paginates with limit and startKey at one fixed revision while writes go on', async () => {
      const p = prefix();
      const names = Array.from({ length: 25 }, (_, i) => `k${String(i).padStart(2, '0')}`);
      for (const name of names) await store.create(`${p}${name}`, name);
      const first = await store.list(p, { limit: 10 });
      assert.equal(first.items.length, 10);
      assert.equal(first.more, true);
      const at = first.revision;
      const seen = [...first.items];
      // Writes after the first page must not show in later pages read at the same revision.
      await store.create(`${p}k05x`, 'late');
      const k20 = await store.get(`${p}k20`);
      await store.delete(`${p}k20`, k20?.modRevision ?? 0);
      let more: boolean = first.more;
      while (more) {
        const last = seen[seen.length - 1]?.key as string;
        const page = await store.list(p, { limit: 10, revision: at, startKey: `${last}\u0000` });
        assert.equal(page.revision, at);
        assert.ok(page.items.length <= 10);
        seen.push(...page.items);
        more = page.more;
      }
      assert.deepEqual(
        seen.map((i) => i.key.slice(p.length)),
        names,
      );
      const whole = await store.list(p, { revision: at });
      assert.equal(whole.more, false);
      assert.equal(whole.items.length, 25);
    });

    it('counts the keys left after a page when asked, at the page revision', async () => {
      const p = prefix();
      for (let i = 0; i < 12; i++) await store.create(`${p}k${String(i).padStart(2, '0')}`, 'v');
      const first = await store.list(p, { limit: 5, countRemaining: true });
      assert.equal(first.remaining, 7);
      assert.equal((await store.list(p, { limit: 5 })).remaining, undefined, 'only when asked');
      // A key deleted and one added after the first page do not change what the page's revision holds.
      const k09 = await store.get(`${p}k09`);
      await store.delete(`${p}k09`, k09?.modRevision ?? 0);
      await store.create(`${p}k99`, 'late');
      const last = first.items[first.items.length - 1]?.key as string;
      const second = await store.list(p, {
        limit: 5,
        revision: first.revision,
        startKey: `${last}\u0000`,
        countRemaining: true,
      });
      assert.deepEqual(
        second.items.map((i) => i.key.slice(p.length)),
        ['k05', 'k06', 'k07', 'k08', 'k09'],
      );
      assert.equal(second.remaining, 2);
      // The last page is not cut short: nothing is left to count.
      const rest = await store.list(p, { limit: 5, startKey: `${p}k10`, countRemaining: true });
      assert.equal(rest.more, false);
      assert.equal(rest.remaining, undefined);
      assert.equal((await store.list(p, { limit: 5, countRemaining: true })).remaining, 7, 'now: 12 keys');
    });

    it('replays exactly the missed events in order to a watch from a past revision, then live ones', async () => {
      const p = prefix();
      const base = await store.create(`${p}zero`, 'z');
      const a = await store.create(`${p}a`, 'a1');
      const a2 = await store.update(`${p}a`, 'a2', a.revision);
      await store.delete(`${p}a`, a2.revision);
      await store.create(`${p}b`, 'b1');
      const rec = new WatchRecorder();
      const w = store.watch(p, base.revision, rec.listener);
      try {
        const replay = await rec.waitForEvents(4);
        assert.deepEqual(describeEvents(replay), [
          `create ${p}a=a1`,
          `update ${p}a=a2 (was a1)`,
          `delete ${p}a (was a2)`,
          `create ${p}b=b1`,
        ]);
        const b = await store.get(`${p}b`);
        await store.update(`${p}b`, 'b2', b?.modRevision ?? 0);
        const all = await rec.waitForEvents(5);
        assert.deepEqual(describeEvents(all.slice(4)), [`update ${p}b=b2 (was b1)`]);
        for (let i = 1; i < all.length; i++) {
          assert.ok((all[i] as WatchEvent).revision > (all[i - 1] as WatchEvent).revision);
        }
        assert.ok((all[0] as WatchEvent).revision > base.revision);
        await new Promise((r) => setTimeout(r, 50));
        assert.equal(rec.events.length, 5, 'no event is repeated');
      } finally {
        w.close();
      }
    });

    it('delivers to a watch only the keys under its prefix', async () => {
      const p = prefix();
      const start = await store.currentRevision();
      const rec = new WatchRecorder();
      const w = store.watch(`${p}x/`, start, rec.listener);
      try {
        await store.create(`${p}xy`, 'sibling');
        await store.create(`${p}x`, 'parent');
        await store.create(`${p}y/1`, 'other');
        await store.create(`${p}x/1`, 'mine');
        const got = await rec.waitForEvents(1);
        assert.deepEqual(describeEvents(got), [`create ${p}x/1=mine`]);
        await new Promise((r) => setTimeout(r, 100));
        assert.equal(rec.events.length, 1);
      } finally {
        w.close();
      }
    });

    it('sends previous values with live updates and deletes, and stops after close', async () => {
      const p = prefix();
      const start = await store.currentRevision();
      const rec = new WatchRecorder();
      const w = store.watch(p, start, rec.listener);
      const c = await store.create(`${p}k`, 'v1');
      const u = await store.update(`${p}k`, 'v2', c.revision);
      const d = await store.delete(`${p}k`, u.revision);
      const got = await rec.waitForEvents(3);
      assert.deepEqual(describeEvents(got), [`create ${p}k=v1`, `update ${p}k=v2 (was v1)`, `delete ${p}k (was v2)`]);
      assert.deepEqual(
        got.map((e) => e.revision),
        [c.revision, u.revision, d.revision],
      );
      w.close();
      await store.create(`${p}after-close`, 'x');
      await new Promise((r) => setTimeout(r, 100));
      assert.equal(rec.events.length, 3);
    });

    it('refuses reads and watches below the compacted revision', async () => {
      const p = prefix();
      const r1 = await store.create(`${p}k`, 'v1');
      const r2 = await store.update(`${p}k`, 'v2', r1.revision);
      const gone = await store.create(`${p}gone`, 'g');
      await store.delete(`${p}gone`, gone.revision);
      const r3 = await store.update(`${p}k`, 'v3', r2.revision);
      await store.compact(r3.revision);
      await expectStorageError(store.get(`${p}k`, { revision: r1.revision }), 'Compacted');
      await expectStorageError(store.list(p, { revision: r2.revision }), 'Compacted');
      const rec = new WatchRecorder();
      const w = store.watch(p, r1.revision, rec.listener);
      const err = await rec.waitForError();
      w.close();
      assert.equal(err.code, 'Compacted');
      assert.equal(rec.events.length, 0);
      const kv = await store.get(`${p}k`, { revision: r3.revision });
      assert.equal(text(kv?.value), 'v3');
      assert.equal(text((await store.get(`${p}k`))?.value), 'v3');
      assert.deepEqual(
        (await store.list(p)).items.map((i) => i.key),
        [`${p}k`],
      );
      await expectStorageError(store.compact(r2.revision), 'Compacted');
      // A watch from the compaction point still sees everything after it.
      const live = new WatchRecorder();
      const w2 = store.watch(p, r3.revision, live.listener);
      await store.update(`${p}k`, 'v4', r3.revision);
      assert.deepEqual(describeEvents(await live.waitForEvents(1)), [`update ${p}k=v4 (was v3)`]);
      w2.close();
    });

    it('refuses reads at a revision that does not exist yet', async () => {
      const now = await store.currentRevision();
      await expectStorageError(store.get(`${prefix()}k`, { revision: now + 1000 }), 'FutureRevision');
    });

    it('lets exactly one of many concurrent writers on one key win each round', async () => {
      const key = `${prefix()}contended`;
      let { revision } = await store.create(key, 'start');
      const writers = 16;
      for (let round = 0; round < 10; round++) {
        const results = await Promise.allSettled(
          Array.from({ length: writers }, (_, w) => store.update(key, `round${round}-writer${w}`, revision)),
        );
        const wins = results.filter((r) => r.status === 'fulfilled');
        assert.equal(wins.length, 1, `round ${round}: exactly one writer wins`);
        const winner = results.indexOf(wins[0] as PromiseSettledResult<{ revision: number }>);
        const newRevision = (wins[0] as PromiseFulfilledResult<{ revision: number }>).value.revision;
        for (const r of results) {
          if (r.status === 'fulfilled') continue;
          assert.ok(isStorageError(r.reason, 'Conflict'), String(r.reason));
          assert.equal(r.reason.current?.modRevision, newRevision);
          assert.equal(text(r.reason.current?.value), `round${round}-writer${winner}`);
        }
        revision = newRevision;
      }
      assert.equal(text((await store.get(key))?.value)?.startsWith('round9-'), true);
    });

    it(`accepts values of ${MAX_VALUE_BYTES} bytes and refuses larger ones with TooLarge`, async () => {
      const p = prefix();
      const big = Buffer.alloc(MAX_VALUE_BYTES, 7);
      big[0] = 1;
      big[big.length - 1] = 9;
      const r = await store.create(`${p}big`, big);
      const back = await store.get(`${p}big`);
      assert.equal(back?.value.length, MAX_VALUE_BYTES);
      assert.ok(back?.value.equals(big));
      await expectStorageError(store.create(`${p}bigger`, Buffer.alloc(MAX_VALUE_BYTES + 1)), 'TooLarge');
      await expectStorageError(store.update(`${p}big`, 'x'.repeat(MAX_VALUE_BYTES + 1), r.revision), 'TooLarge');
      assert.equal(await store.get(`${p}bigger`), null);
      assert.equal((await store.get(`${p}big`))?.modRevision, r.revision);
    });

    it('stores bytes and strings without looking inside them', async () => {
      const p = prefix();
      const bytes = Buffer.from([0, 255, 10, 13, 0x80, 0xfe]);
      await store.create(`${p}bin`, bytes);
      await store.create(`${p}str`, 'naïve ✓');
      await store.create(`${p}empty`, '');
      assert.ok((await store.get(`${p}bin`))?.value.equals(bytes));
      assert.equal(text((await store.get(`${p}str`))?.value), 'naïve ✓');
      assert.equal((await store.get(`${p}empty`))?.value.length, 0);
    });

    it('ends open watches and refuses calls once closed', async () => {
      const { store: own, cleanup: ownCleanup } = await target.newStore();
      try {
        const rec = new WatchRecorder();
        own.watch('/registry/', await own.currentRevision(), rec.listener);
        await own.close();
        assert.equal((await rec.waitForError()).code, 'Closed');
        await expectStorageError(own.get('/registry/x'), 'Closed');
        await expectStorageError(own.create('/registry/x', 'v'), 'Closed');
      } finally {
        await own.close();
        await ownCleanup?.();
      }
    });
  });
}
