import { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  csrApprovingController,
  csrCleanerController,
  csrSigningController,
} from '../../src/controllers/certificates/index.js';
import type { ControllerManager } from '../../src/controllers/manager.js';
import { type ControlPlane, startControlPlane } from '../../src/index.js';
import { apiRequest } from '../../src/testing/api-client.js';
import assert from '../../src/testing/assert.js';
import { eventually, runControllers } from '../../src/testing/controllers.js';
import { csrObject, makeCertificateRequest } from '../../src/testing/csr.js';
import { FakeClock } from '../../src/util/clock.js';

const CSRS = '/apis/certificates.k8s.io/v1/certificatesigningrequests';
const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const KUBELET_USAGES = ['digital signature', 'key encipherment', 'client auth'];

async function createCsr(cp: ControlPlane, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  const res = await apiRequest(cp, 'POST', CSRS, { body, headers });
  assert.equal(res.status, 201, res.text);
  return res.body;
}

async function setConditions(cp: ControlPlane, name: string, conditions: unknown[]) {
  const current = await apiRequest(cp, 'GET', `${CSRS}/${name}`);
  const res = await apiRequest(cp, 'PUT', `${CSRS}/${name}/approval`, {
    body: { ...current.body, status: { ...current.body.status, conditions } },
  });
  assert.equal(res.status, 200, res.text);
  return res.body;
}

const approve = (cp: ControlPlane, name: string) =>
  setConditions(cp, name, [{ type: 'Approved', status: 'True', reason: 'Test', message: 'approved by the test' }]);

async function csr(cp: ControlPlane, name: string) {
  const res = await apiRequest(cp, 'GET', `${CSRS}/${name}`);
  return res.status === 404 ? undefined : res.body;
}

function issued(body: { status?: { certificate?: string } }): X509Certificate {
  assert.ok(body.status?.certificate, 'a certificate was issued');
  return new X509Certificate(Buffer.from(body.status.certificate, 'base64'));
}

describe('certificatesigningrequest-signing-controller', () => {
  let cp: ControlPlane;
  let manager: ControllerManager;
  let caPem: string;
  before(async () => {
    cp = await startControlPlane();
    caPem = await readFile(join(cp.dataDir, 'pki', 'ca.crt'), 'utf8');
    const keyPem = await readFile(join(cp.dataDir, 'pki', 'ca.key'), 'utf8');
    const ca = { certPem: caPem, keyPem };
    manager = await runControllers(cp, [csrSigningController], {
      options: { clusterSigning: { kubeApiserverClient: ca, kubeletClient: ca, kubeletServing: ca } },
    });
  });
  after(async () => {
    await manager?.stop();
    await cp?.stop();
  });

  it('signs an approved kube-apiserver-client CSR with the cluster CA, for expirationSeconds', async () => {
    const { csrPem } = await makeCertificateRequest({ commonName: 'jane', organizations: ['dev', 'ops'] });
    await createCsr(
      cp,
      csrObject('jane', csrPem, { expirationSeconds: 3600, usages: ['digital signature', 'client auth'] }),
    );
    // Pending requests are not signed.
    await new Promise((r) => setTimeout(r, 50));
    assert.equal((await csr(cp, 'jane')).status.certificate, undefined);
    await approve(cp, 'jane');
    const body = await eventually(async () => {
      const b = await csr(cp, 'jane');
      issued(b);
      return b;
    });
    const cert = issued(body);
    assert.equal(cert.subject, 'O=dev\nO=ops\nCN=jane');
    assert.ok(cert.checkIssued(new X509Certificate(caPem)), 'issued by the cluster CA');
    assert.ok(cert.verify(new X509Certificate(caPem).publicKey));
    assert.equal(cert.ca, false);
    assert.deepEqual(cert.keyUsage, ['1.3.6.1.5.5.7.3.2']);
    // Short-lived: backdated five minutes, not shortened.
    const lifetime = Date.parse(cert.validTo) - Date.parse(cert.validFrom);
    assert.equal(lifetime, 3600_000 + 5 * 60_000);
  });

  it('marks a request that breaks the signer rules Failed, and does not sign it', async () => {
    const { csrPem } = await makeCertificateRequest({ commonName: 'web' });
    await createCsr(cp, csrObject('serving-usage', csrPem, { usages: ['server auth'] }));
    await approve(cp, 'serving-usage');
    const body = await eventually(async () => {
      const b = await csr(cp, 'serving-usage');
      assert.ok(b.status.conditions.some((c: { type: string }) => c.type === 'Failed'));
      return b;
    });
    const failed = body.status.conditions.find((c: { type: string }) => c.type === 'Failed');
    assert.equal(failed.reason, 'SignerValidationFailure');
    assert.equal(failed.message, 'invalid usage for client certificate: server auth');
    assert.equal(body.status.certificate, undefined);
  });

  it('checks kubelet serving requests: system:nodes, a SAN, the serving usages', async () => {
    const good = await makeCertificateRequest({
      commonName: 'system:node:n1',
      organizations: ['system:nodes'],
      dnsNames: ['n1.example'],
      ips: ['10.0.0.1'],
    });
    const serving = { signerName: 'kubernetes.io/kubelet-serving', usages: ['digital signature', 'server auth'] };
    await createCsr(cp, csrObject('serving-good', good.csrPem, serving));
    const noSan = await makeCertificateRequest({ commonName: 'system:node:n1', organizations: ['system:nodes'] });
    await createCsr(cp, csrObject('serving-nosan', noSan.csrPem, serving));
    await approve(cp, 'serving-good');
    await approve(cp, 'serving-nosan');
    const cert = await eventually(async () => issued(await csr(cp, 'serving-good')));
    assert.equal(cert.subjectAltName, 'DNS:n1.example, IP Address:10.0.0.1');
    assert.deepEqual(cert.keyUsage, ['1.3.6.1.5.5.7.3.1']);
    // The default duration: a year, backdated five minutes at both ends.
    assert.equal(Date.parse(cert.validTo) - Date.parse(cert.validFrom), 8760 * 3600_000);
    await eventually(async () => {
      const b = await csr(cp, 'serving-nosan');
      const failed = b.status.conditions?.find((c: { type: string }) => c.type === 'Failed');
      assert.equal(failed?.message, 'DNS or IP subjectAltName is required');
    });
  });

  it('leaves other signers alone', async () => {
    const { csrPem } = await makeCertificateRequest({ commonName: 'x' });
    await createCsr(cp, csrObject('other-signer', csrPem, { signerName: 'example.com/other' }));
    await approve(cp, 'other-signer');
    await new Promise((r) => setTimeout(r, 100));
    const b = await csr(cp, 'other-signer');
    assert.equal(b.status.certificate, undefined);
    assert.equal(b.status.conditions.length, 1);
  });
});

describe('certificatesigningrequest-approving-controller', () => {
  let cp: ControlPlane;
  let manager: ControllerManager;
  const bind = async (name: string, roleName: string, user: string) => {
    const res = await apiRequest(cp, 'POST', `${RBAC}/clusterrolebindings`, {
      body: {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: roleName },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }],
      },
    });
    assert.equal(res.status, 201, res.text);
  };
  before(async () => {
    cp = await startControlPlane({ authorization: { modes: ['RBAC'] } });
    // The node may create and read CSRs (upstream: system:node-bootstrapper or the node's own role).
    await bind('n1-bootstrapper', 'system:node-bootstrapper', 'system:node:n1');
    manager = await runControllers(cp, [csrApprovingController]);
  });
  after(async () => {
    await manager?.stop();
    await cp?.stop();
  });

  it('approves a node renewing its own client certificate once the SubjectAccessReview allows selfnodeclient', async () => {
    const { csrPem } = await makeCertificateRequest({ commonName: 'system:node:n1', organizations: ['system:nodes'] });
    const body = csrObject('node-n1', csrPem, {
      signerName: 'kubernetes.io/kube-apiserver-client-kubelet',
      usages: KUBELET_USAGES,
    });
    const created = await createCsr(cp, body, {
      'impersonate-user': 'system:node:n1',
      'impersonate-group': 'system:nodes',
    });
    assert.equal(created.spec.username, 'system:node:n1');
    // Not permitted yet: it stays pending.
    await new Promise((r) => setTimeout(r, 100));
    assert.equal((await csr(cp, 'node-n1')).status.conditions, undefined);
    await bind(
      'n1-selfnodeclient',
      'system:certificates.k8s.io:certificatesigningrequests:selfnodeclient',
      'system:node:n1',
    );
    const approved = await eventually(async () => {
      const b = await csr(cp, 'node-n1');
      assert.ok(b.status.conditions?.length, 'approved');
      return b;
    });
    assert.deepEqual(
      approved.status.conditions.map((c: { type: string; status: string; reason: string; message: string }) => [
        c.type,
        c.status,
        c.reason,
        c.message,
      ]),
      [
        [
          'Approved',
          'True',
          'AutoApproved',
          'Auto approving self kubelet client certificate after SubjectAccessReview.',
        ],
      ],
    );
  });

  it('does not approve requests that are not kubelet client requests', async () => {
    const { csrPem } = await makeCertificateRequest({ commonName: 'system:node:n1', organizations: ['system:nodes'] });
    await createCsr(cp, csrObject('not-kubelet', csrPem, { usages: KUBELET_USAGES }));
    await new Promise((r) => setTimeout(r, 100));
    assert.equal((await csr(cp, 'not-kubelet')).status.conditions, undefined);
  });
});

describe('certificatesigningrequest-cleaner-controller', () => {
  let cp: ControlPlane;
  let manager: ControllerManager;
  const clock = new FakeClock(Date.now());
  before(async () => {
    cp = await startControlPlane();
  });
  after(async () => {
    await manager?.stop();
    await cp?.stop();
  });

  it('removes denied, failed and issued CSRs after an hour, pending ones after a day, and keeps the rest', async () => {
    const { csrPem } = await makeCertificateRequest({ commonName: 'jane' });
    for (const name of ['pending', 'denied', 'failed', 'approved-only', 'issued']) {
      await createCsr(cp, csrObject(name, csrPem));
    }
    await setConditions(cp, 'denied', [{ type: 'Denied', status: 'True', reason: 'Test' }]);
    await approve(cp, 'approved-only');
    await approve(cp, 'issued');
    const caPem = await readFile(join(cp.dataDir, 'pki', 'ca.crt'));
    for (const [name, status] of [
      ['issued', { certificate: caPem.toString('base64') }],
      ['failed', { conditions: [{ type: 'Failed', status: 'True', reason: 'Test' }] }],
    ] as const) {
      const current = (await apiRequest(cp, 'GET', `${CSRS}/${name}`)).body;
      const res = await apiRequest(cp, 'PUT', `${CSRS}/${name}/status`, {
        body: { ...current, status: { ...current.status, ...status } },
      });
      assert.equal(res.status, 200, res.text);
    }
    manager = await runControllers(cp, [csrCleanerController], { clock });
    const names = async () =>
      ((await apiRequest(cp, 'GET', CSRS)).body.items as { metadata: { name: string } }[])
        .map((i) => i.metadata.name)
        .sort();
    // The first sweep at start-up: everything is young.
    await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(await names(), ['approved-only', 'denied', 'failed', 'issued', 'pending']);
    // The cleaner sweeps hourly on its clock; a minute more on each look covers a sweep that was still running.
    clock.step(61 * 60_000);
    await eventually(async () => {
      clock.step(60_000);
      assert.deepEqual(await names(), ['approved-only', 'pending']);
    });
    clock.step(23 * 3600_000);
    await eventually(async () => {
      clock.step(60_000);
      assert.deepEqual(await names(), ['approved-only']);
    });
  });
});
