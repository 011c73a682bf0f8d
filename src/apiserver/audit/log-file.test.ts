import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { gunzipSync } from 'node:zlib';
import assert from '../../testing/assert.js';
import { AuditLogFile, backupTimestamp } from './log-file.js';

describe('audit log file rotation', () => {
  const dir = mkdtempSync(join(tmpdir(), 'audit-log-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('names backups as lumberjack does (UTC, millisecond)', () => {
    assert.equal(backupTimestamp(new Date('2026-01-02T03:04:05.678Z')), '2026-01-02T03-04-05.678');
  });

  it('rotates past maxsize megabytes and keeps maxbackup backups', async () => {
    let t = Date.parse('2026-12-01T10:00:00.000Z');
    const path = join(dir, 'audit.log');
    const log = new AuditLogFile({ path, maxSize: 1, maxBackups: 2, now: () => new Date(t) });
    const line = `${'x'.repeat(600 * 1024 - 1)}\n`;
    for (let i = 0; i < 5; i++) {
      log.write(line);
      t += 1000;
    }
    log.close();
    await log.settled();
    const files = readdirSync(dir).sort();
    assert.deepEqual(files, ['audit-2026-12-01T10-00-03.000.log', 'audit-2026-12-01T10-00-04.000.log', 'audit.log']);
    assert.equal(readFileSync(path, 'utf8'), line);
  });

  it('removes backups older than maxage days', async () => {
    const sub = join(dir, 'age');
    let t = Date.parse('2026-12-01T10:00:00.000Z');
    const path = join(sub, 'a.log');
    const log = new AuditLogFile({ path, maxSize: 1, maxAge: 1, now: () => new Date(t) });
    const line = `${'y'.repeat(700 * 1024 - 1)}\n`;
    log.write(line);
    log.write(line); // rotates: a-2026-12-01T10-00-00.000.log
    t += 3 * 24 * 60 * 60 * 1000;
    log.write(line); // rotates again; the first backup is 3 days old
    log.close();
    await log.settled();
    assert.deepEqual(readdirSync(sub).sort(), ['a-2026-12-04T10-00-00.000.log', 'a.log']);
  });

  it('rotates at 100 MB when maxsize is 0, as lumberjack does; a file found that full rotates at once', async () => {
    const sub = join(dir, 'default');
    mkdirSync(sub);
    const path = join(sub, 'audit.log');
    const t = Date.parse('2026-12-01T10:00:00.000Z');
    // Sparse files: the sizes without the bytes.
    writeFileSync(path, '');
    truncateSync(path, 100 * 1024 * 1024 - 30);
    const log = new AuditLogFile({ path, now: () => new Date(t) });
    assert.equal(log.write(`${'a'.repeat(19)}\n`), true); // 100 MB - 10: not yet
    assert.deepEqual(readdirSync(sub), ['audit.log']);
    log.write(`${'b'.repeat(19)}\n`); // past 100 MB: rotated
    assert.deepEqual(readdirSync(sub).sort(), ['audit-2026-12-01T10-00-00.000.log', 'audit.log']);
    assert.equal(readFileSync(path, 'utf8'), `${'b'.repeat(19)}\n`);
    log.close();

    // Opened again, a file that the next write would fill to the limit exactly is rotated first.
    rmSync(sub, { recursive: true });
    mkdirSync(sub);
    writeFileSync(path, '');
    truncateSync(path, 100 * 1024 * 1024 - 20);
    const again = new AuditLogFile({ path, now: () => new Date(t + 1000) });
    again.write(`${'c'.repeat(19)}\n`);
    assert.deepEqual(readdirSync(sub).sort(), ['audit-2026-12-01T10-00-01.000.log', 'audit.log']);
    again.close();
    await again.settled();
  });

  it('refuses a line longer than the limit, as lumberjack refuses the write', () => {
    const path = join(dir, 'long.log');
    const log = new AuditLogFile({ path, maxSize: 1 });
    assert.equal(log.write(`${'z'.repeat(1024 * 1024)}\n`), false);
    assert.equal(statSync(path).size, 0);
    log.close();
  });

  it('gzips rotated files with compress, a backup and its .gz counting once toward maxbackup', async () => {
    const sub = join(dir, 'gz');
    let t = Date.parse('2026-12-01T10:00:00.000Z');
    const path = join(sub, 'audit.log');
    const log = new AuditLogFile({ path, maxSize: 1, maxBackups: 2, compress: true, now: () => new Date(t) });
    const lines = ['1', '2', '3', '4'].map((c) => `${c.repeat(600 * 1024 - 1)}\n`);
    for (const line of lines) {
      log.write(line);
      t += 1000;
      await log.settled();
    }
    log.close();
    await log.settled();
    assert.deepEqual(readdirSync(sub).sort(), [
      'audit-2026-12-01T10-00-02.000.log.gz',
      'audit-2026-12-01T10-00-03.000.log.gz',
      'audit.log',
    ]);
    assert.equal(gunzipSync(readFileSync(join(sub, 'audit-2026-12-01T10-00-03.000.log.gz'))).toString(), lines[2]);
    assert.equal((statSync(join(sub, 'audit-2026-12-01T10-00-03.000.log.gz')).mode & 0o777).toString(8), '600');
  });
});
