import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { Auditor } from '../apiserver/audit/auditor.js';
import { parseRequestInfo } from '../apiserver/request-info.js';
import assert from '../testing/assert.js';
import { auditFlagArgs, auditOptionsOf } from './audit-flags.js';

describe('audit flags', () => {
  const dir = mkdtempSync(join(tmpdir(), 'audit-flags-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('read a YAML policy file and write to the log path', () => {
    const policyFile = join(dir, 'policy.yaml');
    writeFileSync(
      policyFile,
      [
        'apiVersion: audit.k8s.io/v1',
        'kind: Policy',
        'rules:',
        '- level: Request',
        '  resources:',
        '  - group: ""',
        '    resources: ["secrets"]',
        '- level: Metadata',
      ].join('\n'),
    );
    const logPath = join(dir, 'audit.log');
    const { audit } = auditOptionsOf({
      'audit-policy-file': policyFile,
      'audit-log-path': logPath,
      'audit-log-maxsize': '10',
      'audit-log-format': 'legacy',
    });
    assert.deepEqual(audit, { policyFile, logPath, format: 'legacy', mode: 'blocking', maxSize: 10 });
    const auditor = Auditor.from(audit) as Auditor;
    const info = parseRequestInfo('GET', '/api/v1/namespaces/a/secrets', new URLSearchParams());
    assert.equal(auditor.evaluator.evaluate({ user: undefined, info }).level, 'Request');
    auditor.process({
      kind: 'Event',
      apiVersion: 'audit.k8s.io/v1',
      level: 'Metadata',
      auditID: 'id-1',
      stage: 'ResponseComplete',
      requestURI: '/version',
      verb: 'get',
      user: { username: 'alice', groups: ['g'] },
      sourceIPs: ['127.0.0.1'],
      responseStatus: { metadata: {}, code: 200 },
      requestReceivedTimestamp: '2026-12-03T12:00:00.000010Z',
      stageTimestamp: '2026-12-03T12:00:00.000002Z',
    });
    auditor.close();
    assert.equal(
      readFileSync(logPath, 'utf8'),

      '2026-12-03T12:00:00.00001Z AUDIT: id="id-1" stage="ResponseComplete" ip="127.0.0.1" method="get" user="alice" groups="\\"g\\"" as="<self>" asgroups="<lookup>" user-agent="" namespace="<none>" uri="/version" response="200"\n',
    );
  });

  it('nothing is audited without both a policy and a log path', () => {
    assert.deepEqual(auditOptionsOf({ 'audit-log-path': '-' }), {});
  });

  it('refuses bad values with upstream messages', () => {
    assert.throws(() => auditOptionsOf({ 'audit-log-format': 'xml' }), {
      message: 'invalid audit log format xml, allowed formats are "legacy,json"',
    });
    assert.throws(() => auditOptionsOf({ 'audit-log-mode': 'fast' }), {
      message: 'invalid audit log mode fast, allowed modes are "batch,blocking,blocking-strict"',
    });
    assert.throws(() => auditOptionsOf({ 'audit-log-maxage': '-1' }), {
      message: "--audit-log-maxage -1 can't be a negative number",
    });
  });

  it('--audit-log-compress, bare or with a bool as pflag reads it', () => {
    const base = { 'audit-policy-file': 'p.yaml', 'audit-log-path': 'a.log' };
    assert.deepEqual(auditFlagArgs(['--audit-log-compress', '--audit-log-maxsize', '5']), [
      '--audit-log-compress=true',
      '--audit-log-maxsize',
      '5',
    ]);
    assert.equal(auditOptionsOf({ ...base, 'audit-log-compress': 'true' }).audit?.compress, true);
    assert.equal(auditOptionsOf({ ...base, 'audit-log-compress': 'false' }).audit?.compress, undefined);
    assert.equal(auditOptionsOf(base).audit?.compress, undefined);
    assert.throws(() => auditOptionsOf({ ...base, 'audit-log-compress': 'yes' }), {
      message:
        'invalid argument "yes" for "--audit-log-compress" flag: strconv.ParseBool: parsing "yes": invalid syntax',
    });
  });
});
