import 'reflect-metadata';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import * as x509 from '@peculiar/x509';
import assert from '../../testing/assert.js';
import { ensurePki, issueClientCertificate, parseClientIdentity } from './pki.js';

const SERVER_AUTH = '1.3.6.1.5.5.7.3.1';
const CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';
const DAY = 24 * 60 * 60 * 1000;

const dirs: string[] = [];
async function tempPki(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'wheelhouse-pki-'));
  dirs.push(dir);
  return join(dir, 'pki');
}
after(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

function extension<T extends x509.Extension>(pem: string, type: new (raw: BufferSource) => T): T {
  const found = new x509.X509Certificate(pem).getExtension(type);
  assert.ok(found, `certificate has a ${type.name}`);
  return found;
}

test('first start creates the CA, the serving, the admin and the component certificates', async (t) => {
  const dir = await tempPki();
  const started = performance.now();
  const pki = await ensurePki(dir, { hostname: 'workstation', extraSans: ['192.0.2.7', 'api.example.test'] });
  t.diagnostic(`fresh generation took ${(performance.now() - started).toFixed(1)} ms`);
  assert.deepEqual(pki.generated, ['ca', 'apiserver', 'admin', 'controller-manager', 'scheduler']);
  assert.equal(new X509Certificate(pki.controllerManager.certPem).subject, 'CN=system:kube-controller-manager');
  assert.equal(new X509Certificate(pki.scheduler.certPem).subject, 'CN=system:kube-scheduler');

  const ca = new X509Certificate(pki.ca.certPem);
  assert.equal(ca.subject, 'CN=wheelhouse-ca');
  assert.equal(ca.ca, true);
  assert.ok(ca.checkIssued(ca) && ca.verify(ca.publicKey), 'self-signed');
  assert.ok(Date.parse(ca.validTo) - Date.now() > 9 * 365 * DAY, 'a CA lives ten years');
  assert.equal(ca.publicKey.asymmetricKeyDetails?.namedCurve, 'prime256v1');
  const caUsages = extension(pki.ca.certPem, x509.KeyUsagesExtension);
  assert.ok(caUsages.usages & x509.KeyUsageFlags.keyCertSign);
  assert.ok(extension(pki.ca.certPem, x509.BasicConstraintsExtension).critical);

  const serving = new X509Certificate(pki.apiserver.certPem);
  assert.equal(serving.subject, 'CN=kube-apiserver');
  assert.equal(serving.ca, false);
  assert.ok(serving.verify(ca.publicKey));
  assert.deepEqual(serving.keyUsage, [SERVER_AUTH]);
  for (const name of [
    'DNS:localhost',
    'DNS:workstation',
    'DNS:kubernetes',
    'DNS:kubernetes.default',
    'DNS:kubernetes.default.svc',
    'DNS:kubernetes.default.svc.cluster.local',
    'DNS:api.example.test',
    'IP Address:127.0.0.1',
    'IP Address:10.96.0.1',
    'IP Address:192.0.2.7',
  ]) {
    assert.ok(serving.subjectAltName?.split(', ').includes(name), `serving certificate names ${name}`);
  }
  assert.ok(Date.parse(serving.validTo) - Date.now() < 366 * DAY, 'a leaf lives one year');
  const usages = extension(pki.apiserver.certPem, x509.KeyUsagesExtension).usages;
  assert.ok(usages & x509.KeyUsageFlags.digitalSignature);
  assert.equal(usages & x509.KeyUsageFlags.keyCertSign, 0);

  const admin = new X509Certificate(pki.admin.certPem);
  assert.ok(admin.verify(ca.publicKey));
  assert.deepEqual(admin.keyUsage, [CLIENT_AUTH]);
  assert.deepEqual(parseClientIdentity(admin), { user: 'kubernetes-admin', groups: ['system:masters'] });
});

test('files are PEM, named as kubeadm names them, keys readable by the owner only', async () => {
  const dir = await tempPki();
  const pki = await ensurePki(dir, { hostname: 'h' });
  for (const name of ['ca', 'apiserver', 'admin'] as const) {
    assert.equal(await readFile(join(dir, `${name}.crt`), 'utf8'), pki[name].certPem);
    assert.equal(await readFile(join(dir, `${name}.key`), 'utf8'), pki[name].keyPem);
    assert.match(pki[name].keyPem, /^-----BEGIN PRIVATE KEY-----\n/);
    assert.match(pki[name].certPem, /^-----BEGIN CERTIFICATE-----\n/);
    assert.equal((await stat(join(dir, `${name}.key`))).mode & 0o777, 0o600);
  }
  assert.equal((await stat(dir)).mode & 0o077, 0, 'the pki directory is private');
});

test('later starts load what is on disk', async () => {
  const dir = await tempPki();
  const first = await ensurePki(dir, { hostname: 'h' });
  const second = await ensurePki(dir, { hostname: 'h' });
  assert.deepEqual(second.generated, []);
  assert.equal(second.ca.certPem, first.ca.certPem);
  assert.equal(second.ca.keyPem, first.ca.keyPem);
  assert.equal(second.apiserver.certPem, first.apiserver.certPem);
  assert.equal(second.admin.certPem, first.admin.certPem);
});

test('the serving certificate is issued again only when a requested name is missing', async () => {
  const dir = await tempPki();
  const first = await ensurePki(dir, { hostname: 'h', extraSans: ['10.1.2.3'] });
  const fewer = await ensurePki(dir, { hostname: 'h' });
  assert.deepEqual(fewer.generated, [], 'names already covered: nothing new');
  const more = await ensurePki(dir, { hostname: 'h', extraSans: ['10.1.2.3', 'lb.example.test'] });
  assert.deepEqual(more.generated, ['apiserver']);
  assert.equal(more.ca.certPem, first.ca.certPem);
  assert.equal(more.admin.certPem, first.admin.certPem);
  assert.notEqual(more.apiserver.certPem, first.apiserver.certPem);
  assert.ok(new X509Certificate(more.apiserver.certPem).checkHost('lb.example.test'));
  const otherRange = await ensurePki(dir, { hostname: 'h', serviceClusterIpRange: '10.200.0.0/16' });
  assert.deepEqual(otherRange.generated, ['apiserver']);
  assert.ok(new X509Certificate(otherRange.apiserver.certPem).checkIP('10.200.0.1'));
});

test('a leaf that is missing, foreign, or about to expire is issued again; the CA is kept', async () => {
  const dir = await tempPki();
  const first = await ensurePki(dir, { hostname: 'h' });
  await unlink(join(dir, 'admin.key'));
  assert.deepEqual((await ensurePki(dir, { hostname: 'h' })).generated, ['admin']);

  const stranger = await ensurePki(await tempPki(), { hostname: 'h' });
  await writeFile(join(dir, 'apiserver.crt'), stranger.apiserver.certPem);
  await writeFile(join(dir, 'apiserver.key'), stranger.apiserver.keyPem);
  assert.deepEqual((await ensurePki(dir, { hostname: 'h' })).generated, ['apiserver'], 'signed by another CA');

  await writeFile(join(dir, 'admin.crt'), 'garbage');
  assert.deepEqual((await ensurePki(dir, { hostname: 'h' })).generated, ['admin'], 'unreadable');

  const late = { now: () => Date.now() + 340 * DAY };
  const renewed = await ensurePki(dir, { hostname: 'h', clock: late });
  assert.deepEqual(renewed.generated, ['apiserver', 'admin', 'controller-manager', 'scheduler']);
  assert.equal(renewed.ca.certPem, first.ca.certPem);
  assert.ok(Date.parse(new X509Certificate(renewed.admin.certPem).validTo) > late.now() + 300 * DAY);
});

test('a CA certificate without its key is an error; without ca.crt everything starts over', async () => {
  const dir = await tempPki();
  const first = await ensurePki(dir, { hostname: 'h' });
  await unlink(join(dir, 'ca.key'));
  await assert.rejects(ensurePki(dir, { hostname: 'h' }), /ca\.key/);
  await unlink(join(dir, 'ca.crt'));
  const fresh = await ensurePki(dir, { hostname: 'h' });
  assert.deepEqual(fresh.generated, ['ca', 'apiserver', 'admin', 'controller-manager', 'scheduler']);
  assert.notEqual(fresh.ca.certPem, first.ca.certPem);
});

test('an expired CA is an error, never silently replaced', async () => {
  const dir = await tempPki();
  await ensurePki(dir, { hostname: 'h' });
  await assert.rejects(ensurePki(dir, { hostname: 'h', clock: { now: () => Date.now() + 3651 * DAY } }), /expired/);
});

test('component identities are client certificates signed by the cluster CA', async () => {
  const pki = await ensurePki(await tempPki(), { hostname: 'h' });
  const ca = new X509Certificate(pki.ca.certPem);
  const cases = [
    { commonName: 'system:kube-controller-manager', organizations: [] },
    { commonName: 'system:kube-scheduler', organizations: [] },
    { commonName: 'system:node:worker-1', organizations: ['system:nodes'] },
    { commonName: 'jane', organizations: ['dev', 'ops'] },
  ];
  for (const { commonName, organizations } of cases) {
    const issued = await issueClientCertificate(pki.ca, { commonName, organizations, validityDays: 30 });
    const certificate = new X509Certificate(issued.certPem);
    assert.ok(certificate.checkIssued(ca) && certificate.verify(ca.publicKey));
    assert.deepEqual(certificate.keyUsage, [CLIENT_AUTH]);
    assert.deepEqual(parseClientIdentity(certificate), { user: commonName, groups: organizations });
    const lifetime = Date.parse(certificate.validTo) - Date.now();
    assert.ok(lifetime > 29 * DAY && lifetime < 31 * DAY);
  }
});
