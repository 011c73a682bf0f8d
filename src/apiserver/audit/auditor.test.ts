import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import assert from '../../testing/assert.js';
import { Auditor } from './auditor.js';
import type { AuditEvent } from './event.js';

const event = (id: string): AuditEvent => ({
  kind: 'Event',
  apiVersion: 'audit.k8s.io/v1',
  level: 'Metadata',
  auditID: id,
  stage: 'ResponseComplete',
  requestURI: '/version',
  verb: 'get',
  user: { username: 'u' },
  requestReceivedTimestamp: '2026-12-03T12:00:00.000001Z',
  stageTimestamp: '2026-12-03T12:00:00.000002Z',
});

describe('audit backend', () => {
  const dir = mkdtempSync(join(tmpdir(), 'auditor-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('no policy or no log: no auditor', () => {
    assert.equal(Auditor.from(undefined), undefined);
    assert.equal(Auditor.from({ logPath: join(dir, 'x.log') }), undefined);
    assert.equal(Auditor.from({ policy: { rules: [] } }), undefined);
  });

  it('blocking mode writes each event at once; batch mode on flush', () => {
    const blockingPath = join(dir, 'blocking.log');
    const blocking = Auditor.from({ policy: { rules: [{ level: 'Metadata' }] }, logPath: blockingPath }) as Auditor;
    blocking.process(event('a'));
    assert.equal(JSON.parse(readFileSync(blockingPath, 'utf8')).auditID, 'a');
    blocking.close();

    const batchPath = join(dir, 'batch.log');
    const batch = Auditor.from({
      policy: { rules: [{ level: 'Metadata' }] },
      logPath: batchPath,
      mode: 'batch',
    }) as Auditor;
    batch.process(event('b1'));
    batch.process(event('b2'));
    assert.equal(existsSync(batchPath) ? readFileSync(batchPath, 'utf8') : '', '');
    batch.close();
    assert.deepEqual(
      readFileSync(batchPath, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).auditID),
      ['b1', 'b2'],
    );
  });
});
