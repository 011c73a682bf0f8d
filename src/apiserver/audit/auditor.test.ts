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

  it('writes each event as Go writes audit/v1 Event: its field order, sorted maps, HTML-safe escapes', () => {
    const path = join(dir, 'ordered.log');
    const auditor = Auditor.from({ policy: { rules: [{ level: 'Metadata' }] }, logPath: path }) as Auditor;
    const scrambled = {
      annotations: { 'z.example/b': 'x<y', 'a.example/a': '1' },
      stageTimestamp: '2026-12-03T12:00:00.000002Z',
      responseStatus: { metadata: {}, code: 200 },
      objectRef: {
        apiVersion: 'v1',
        resourceVersion: '7',
        uid: 'u-1',
        name: 'c',
        namespace: 'ns',
        resource: 'configmaps',
      },
      requestReceivedTimestamp: '2026-12-03T12:00:00.000001Z',
      userAgent: 'ua',
      sourceIPs: ['127.0.0.1'],
      impersonatedUser: { groups: ['g'], username: 'jane' },
      user: { extra: { z: ['1'], a: ['2'] }, groups: ['system:masters'], username: 'admin' },
      verb: 'update',
      requestURI: '/api/v1/namespaces/ns/configmaps/c?a=1&b=2',
      stage: 'ResponseComplete',
      auditID: 'id',
      level: 'Metadata',
      apiVersion: 'audit.k8s.io/v1',
      kind: 'Event',
    } as AuditEvent;
    auditor.process(scrambled);
    auditor.close();
    assert.equal(
      readFileSync(path, 'utf8'),
      '{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"id","stage":"ResponseComplete",' +
        '"requestURI":"/api/v1/namespaces/ns/configmaps/c?a=1\\u0026b=2","verb":"update",' +
        '"user":{"username":"admin","groups":["system:masters"],"extra":{"a":["2"],"z":["1"]}},' +
        '"impersonatedUser":{"username":"jane","groups":["g"]},"sourceIPs":["127.0.0.1"],"userAgent":"ua",' +
        '"objectRef":{"resource":"configmaps","namespace":"ns","name":"c","uid":"u-1","apiVersion":"v1","resourceVersion":"7"},' +
        '"responseStatus":{"metadata":{},"code":200},"requestReceivedTimestamp":"2026-12-03T12:00:00.000001Z",' +
        '"stageTimestamp":"2026-12-03T12:00:00.000002Z","annotations":{"a.example/a":"1","z.example/b":"x\\u003cy"}}\n',
    );
  });
});
