import { spawnSync } from 'node:child_process';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import assert from '../testing/assert.js';
import { createLogger } from './logger.js';

const loggerUrl = new URL('./logger.ts', import.meta.url).href;

describe('the default logger', () => {
  test('writes the lines of one turn of the event loop to stderr together, in order, at its end', async () => {
    const writes: string[] = [];
    const original = process.stderr.write;
    process.stderr.write = ((chunk: string) => {
      writes.push(chunk);
      return true;
    }) as typeof process.stderr.write;
    try {
      const log = createLogger({ component: 'test' });
      log.info('one', { n: 1 });
      log.error('two');
      assert.equal(writes.length, 0, 'nothing written before the turn ends');
      await new Promise((r) => setImmediate(r));
      log.info('three');
      await new Promise((r) => setImmediate(r));
    } finally {
      process.stderr.write = original;
    }
    assert.equal(writes.length, 2);
    const lines = writes
      .join('')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.deepEqual(
      lines.map((l) => [l.level, l.component, l.msg]),
      [
        ['info', 'test', 'one'],
        ['error', 'test', 'two'],
        ['info', 'test', 'three'],
      ],
    );
    assert.equal(lines[0].n, 1);
  });

  test('writes what is left when the process exits, also by process.exit', () => {
    const script = `
      const { createLogger } = await import(${JSON.stringify(loggerUrl)});
      const log = createLogger({ component: 'exiting' });
      log.info('before exit');
      process.exit(3);
    `;
    const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: fileURLToPath(new URL('../..', import.meta.url)),
      encoding: 'utf8',
    });
    assert.equal(r.status, 3, r.stderr);
    assert.equal(JSON.parse(r.stderr.trim()).msg, 'before exit');
  });
});
