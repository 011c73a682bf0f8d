import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import assert from '../../testing/assert.js';
import { AuditLogFile, backupTimestamp } from './log-file.js';

describe('audit log file rotation', () => {
  const dir = mkdtempSync(join(tmpdir(), 'audit-log-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('names backups as lumberjack does (UTC, millisecond)', () => {
    assert.equal(backupTimestamp(new Date('2026-01-02T03:04:05.678Z')), '2026-01-02T03-04-05.678');
  });

  it('rotates past maxsize megabytes and keeps maxbackup backups', () => {
    let t = Date.parse('2026-12-01T10:00:00.000Z');
    const path = join(dir, 'audit.log');
    const log = new AuditLogFile({ path, maxSize: 1, maxBackups: 2, now: () => new Date(t) });
    const line = `${'x'.repeat(600 * 1024 - 1)}\n`;
    for (let i = 0; i < 5; i++) {
      log.write(line);
      t += 1000;
    }
    log.close();
    const files = readdirSync(dir).sort();
    assert.deepEqual(files, ['audit-2026-12-01T10-00-03.000.log', 'audit-2026-12-01T10-00-04.000.log', 'audit.log']);
    assert.equal(readFileSync(path, 'utf8'), line);
  });

  it('removes backups older than maxage days', () => {
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
    assert.deepEqual(readdirSync(sub).sort(), ['a-2026-12-04T10-00-00.000.log', 'a.log']);
  });
});
