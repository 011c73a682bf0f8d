import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, describe, it } from 'node:test';
import { SqliteStore } from '../../src/storage/sqlite/store.js';
import assert from '../../src/testing/assert.js';

const writerScript = join(import.meta.dirname, '..', 'fixtures', 'sqlite-crash-writer.ts');

/** Runs the writer until it has acknowledged at least minAcks writes and then for a random while, then SIGKILLs it. */
async function runAndKill(path: string, round: number, minAcks: number): Promise<Map<string, number>> {
  const child = spawn(process.execPath, ['--import', 'tsx', writerScript, path, String(round)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const acked = new Map<string, number>();
  const exited = new Promise<NodeJS.Signals | null>((resolve) =>
    child.once('exit', (_code, signal) => resolve(signal)),
  );
  let killTimer: NodeJS.Timeout | undefined;
  const lines = createInterface({ input: child.stdout });
  const drained = new Promise<void>((resolve) => lines.once('close', () => resolve()));
  lines.on('line', (line) => {
    const [key, rev] = line.split(' ');
    if (!key || !rev) return;
    acked.set(key, Number(rev));
    if (acked.size === minAcks && !killTimer) {
      killTimer = setTimeout(() => child.kill('SIGKILL'), Math.floor(Math.random() * 300));
    }
  });
  const signal = await exited;
  assert.equal(signal, 'SIGKILL', 'the writer ran until it was killed');
  // Lines already written to the pipe before the kill are still delivered.
  await drained;
  return acked;
}

describe('sqlite store: crash safety', () => {
  const dir = mkdtempSync(join(tmpdir(), 'wheelhouse-crash-'));
  const path = join(dir, 'state.db');
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps every acknowledged write when the writing process is killed with SIGKILL, round after round', async () => {
    let lastRevision = 0;
    let total = 0;
    for (let round = 0; round < 5; round++) {
      const acked = await runAndKill(path, round, 200 + Math.floor(Math.random() * 800));
      assert.ok(acked.size >= 200, `round ${round}: the writer acknowledged writes before it was killed`);
      const store = new SqliteStore({ path });
      try {
        const current = await store.currentRevision();
        for (const [key, revision] of acked) {
          const kv = await store.get(key);
          assert.ok(kv, `round ${round}: acknowledged ${key}@${revision} is missing after the crash`);
          assert.equal(kv.modRevision, revision);
          assert.equal(kv.value.toString(), `value of ${key}`);
        }
        const revs = [...acked.values()];
        assert.ok(current >= Math.max(...revs));
        assert.ok(Math.min(...revs) > lastRevision, 'revisions keep rising across crashes');
        lastRevision = current;
        const listed = await store.list(`/registry/crash/r${round}/`);
        assert.ok(listed.items.length >= acked.size, 'writes committed but not yet reported may also be there');
        total += acked.size;
      } finally {
        await store.close();
      }
    }
    assert.ok(total >= 1000);
  });
});
