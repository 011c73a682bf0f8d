import { after, before, describe, it } from 'node:test';
import { type ControlPlane, startControlPlane } from '../../src/index.js';
import { apiRequest } from '../../src/testing/api-client.js';
import assert from '../../src/testing/assert.js';
import { eventually } from '../../src/testing/controllers.js';
import { csrObject, makeCertificateRequest } from '../../src/testing/csr.js';

const CSRS = '/apis/certificates.k8s.io/v1/certificatesigningrequests';
const RBAC = '/apis/rbac.authorization.k8s.io/v1';

/** A ClusterRole with the rules and a binding of it to user. */
async function grant(cp: ControlPlane, user: string, name: string, rules: unknown[]): Promise<void> {
  const role = await apiRequest(cp, 'POST', `${RBAC}/clusterroles`, {
    body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name }, rules },
  });
  assert.equal(role.status, 201, role.text);
  const binding = await apiRequest(cp, 'POST', `${RBAC}/clusterrolebindings`, {
    body: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }],
    },
  });
  assert.equal(binding.status, 201, binding.text);
}

const as = (user: string) => ({ 'impersonate-user': user });

describe('certificates admission: CertificateApproval, CertificateSigning, CertificateSubjectRestriction', () => {
  let cp: ControlPlane;
  let csrPem: string;
  before(async () => {
    cp = await startControlPlane({ authorization: { modes: ['RBAC'] } });
    csrPem = (await makeCertificateRequest({ commonName: 'jane', organizations: ['dev'] })).csrPem;
    const csrRules = { apiGroups: ['certificates.k8s.io'], resources: ['certificatesigningrequests'], verbs: ['get'] };
    await grant(cp, 'approver', 'csr-approver', [
      csrRules,
      { apiGroups: ['certificates.k8s.io'], resources: ['certificatesigningrequests/approval'], verbs: ['update'] },
    ]);
    await grant(cp, 'signer', 'csr-signer', [
      csrRules,
      { apiGroups: ['certificates.k8s.io'], resources: ['certificatesigningrequests/status'], verbs: ['update'] },
    ]);
  });
  after(async () => {
    await cp?.stop();
  });

  async function create(name: string, pem = csrPem, signerName?: string) {
    const res = await apiRequest(cp, 'POST', CSRS, { body: csrObject(name, pem, signerName ? { signerName } : {}) });
    assert.equal(res.status, 201, res.text);
    return res.body;
  }

  it('CertificateApproval: approving needs approve on the signer, by name or by domain wildcard', async () => {
    const csr = await create('approve-me');
    const approval = {
      ...csr,
      status: { conditions: [{ type: 'Approved', status: 'True', reason: 'KubectlApprove', message: 'ok' }] },
    };
    const refused = await apiRequest(cp, 'PUT', `${CSRS}/approve-me/approval`, {
      body: approval,
      headers: as('approver'),
    });
    assert.equal(refused.status, 403, refused.text);
    assert.equal(refused.body.reason, 'Forbidden');
    assert.equal(
      refused.body.message,
      'certificatesigningrequests.certificates.k8s.io "approve-me" is forbidden: user not permitted to approve requests with signerName "kubernetes.io/kube-apiserver-client"',
    );
    await grant(cp, 'approver', 'csr-approver-signers', [
      {
        apiGroups: ['certificates.k8s.io'],
        resources: ['signers'],
        resourceNames: ['kubernetes.io/*'],
        verbs: ['approve'],
      },
    ]);
    // The authorizer's index follows the new binding from its watch.
    const res = await eventually(async () => {
      const r = await apiRequest(cp, 'PUT', `${CSRS}/approve-me/approval`, { body: approval, headers: as('approver') });
      assert.equal(r.status, 200, r.text);
      return r;
    });
    assert.equal(res.body.status.conditions[0].type, 'Approved');
  });

  it('CertificateSigning: writing status.certificate needs sign on the signer', async () => {
    const csr = await create('sign-me', csrPem, 'example.com/my-signer');
    const caPem = Buffer.from(cp.kubeconfig.config.clusters[0]?.cluster['certificate-authority-data'] ?? '', 'base64');
    const signed = { ...csr, status: { certificate: caPem.toString('base64') } };
    const refused = await apiRequest(cp, 'PUT', `${CSRS}/sign-me/status`, { body: signed, headers: as('signer') });
    assert.equal(refused.status, 403, refused.text);
    assert.equal(
      refused.body.message,
      'certificatesigningrequests.certificates.k8s.io "sign-me" is forbidden: user not permitted to sign requests with signerName "example.com/my-signer"',
    );
    // A status write that leaves certificate and conditions alone needs no sign permission.
    const labelsOnly = await apiRequest(cp, 'PUT', `${CSRS}/sign-me/status`, { body: csr, headers: as('signer') });
    assert.equal(labelsOnly.status, 200, labelsOnly.text);
    await grant(cp, 'signer', 'csr-signer-signers', [
      {
        apiGroups: ['certificates.k8s.io'],
        resources: ['signers'],
        resourceNames: ['example.com/my-signer'],
        verbs: ['sign'],
      },
    ]);
    const res = await eventually(async () => {
      const r = await apiRequest(cp, 'PUT', `${CSRS}/sign-me/status`, { body: signed, headers: as('signer') });
      assert.equal(r.status, 200, r.text);
      return r;
    });
    assert.equal(res.body.status.certificate, caPem.toString('base64'));
  });

  it('CertificateSubjectRestriction: no system:masters through the kube-apiserver-client signer', async () => {
    const masters = (await makeCertificateRequest({ commonName: 'eve', organizations: ['system:masters'] })).csrPem;
    const res = await apiRequest(cp, 'POST', CSRS, { body: csrObject('masters', masters) });
    assert.equal(res.status, 403, res.text);
    assert.equal(
      res.body.message,
      'certificatesigningrequests.certificates.k8s.io "masters" is forbidden: use of kubernetes.io/kube-apiserver-client signer with system:masters group is not allowed',
    );
    // Other signers are not restricted.
    await create('masters-elsewhere', masters, 'example.com/my-signer');
  });
});
