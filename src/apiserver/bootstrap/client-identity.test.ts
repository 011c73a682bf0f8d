import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { PeerCertificate } from 'node:tls';
import assert from '../../testing/assert.js';
import { parseClientIdentity } from './client-identity.js';

const dir = mkdtempSync(join(tmpdir(), 'wheelhouse-identity-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A self-signed certificate with the given subject, made by openssl so that the input does not come from our code. */
function certificateWithSubject(subject: string): X509Certificate {
  const file = join(dir, `${Math.random().toString(16).slice(2)}.pem`);
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'].concat([
      '-keyout',
      `${file}.key`,
      '-subj',
      subject,
      '-days',
      '1',
      '-out',
      file,
    ]),
    { stdio: 'ignore' },
  );
  return new X509Certificate(readFileSync(file));
}

test('CN is the user, every O is a group, from DER bytes or a parsed certificate', () => {
  const certificate = certificateWithSubject('/O=system:nodes/O=team a/CN=system:node:worker-1');
  const expected = { user: 'system:node:worker-1', groups: ['system:nodes', 'team a'] };
  assert.deepEqual(parseClientIdentity(certificate), expected);
  assert.deepEqual(parseClientIdentity(certificate.raw), expected);
  assert.deepEqual(parseClientIdentity(new Uint8Array(certificate.raw)), expected);
});

test("Node's PeerCertificate object: one value is a string, several are an array", () => {
  const single = { subject: { CN: 'kubernetes-admin', O: 'system:masters' } } as unknown as PeerCertificate;
  assert.deepEqual(parseClientIdentity(single), { user: 'kubernetes-admin', groups: ['system:masters'] });
  const several = { subject: { CN: ['first', 'last'], O: ['a', 'b'] } } as unknown as PeerCertificate;
  assert.deepEqual(parseClientIdentity(several), { user: 'last', groups: ['a', 'b'] }, 'the last CN, as Go reads it');
  const noGroups = { subject: { CN: 'bob' } } as unknown as PeerCertificate;
  assert.deepEqual(parseClientIdentity(noGroups), { user: 'bob', groups: [] });
});

test('no certificate, or one without a CN, identifies no one', () => {
  assert.equal(parseClientIdentity({} as PeerCertificate), undefined, 'what getPeerCertificate() gives without one');
  assert.equal(parseClientIdentity(certificateWithSubject('/O=system:masters')), undefined);
});
