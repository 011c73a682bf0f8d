/**
 * Kubelet client certificates through the CSR API, as a kubeadm cluster issues them (Node,RBAC; the csrapproving and
 * csrsigning controllers of kube-controller-manager as their own ServiceAccount): a CertificateSigningRequest for
 * kubernetes.io/kube-apiserver-client-kubelet with CN system:node:<name>, O system:nodes and the kubelet client usages
 * is approved — automatically for a bootstrap identity allowed certificatesigningrequests/nodeclient and for a node
 * renewing its own certificate (selfnodeclient), or by a person allowed to approve for the signer — then signed by
 * the cluster CA; the certificate authenticates as system:node:<name> in system:nodes, which the Node authorizer
 * governs. Requests whose subject or usages break the signer's rules are never auto-approved, and when a person
 * approves them the signer marks them Failed with upstream's reason and message.
 */
import { X509Certificate } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { type ControlPlane, startControlPlane } from '../../src/index.js';
import { apiRequest } from '../../src/testing/api-client.js';
import assert from '../../src/testing/assert.js';
import { eventually } from '../../src/testing/controllers.js';
import { csrObject, makeCertificateRequest } from '../../src/testing/csr.js';
import { certificateExtra, type Identity, requestAs } from '../../src/testing/identity-request.js';
import { loadX509 } from '../../src/util/certificates.js';

const CSRS = '/apis/certificates.k8s.io/v1/certificatesigningrequests';
const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const KUBELET_SIGNER = 'kubernetes.io/kube-apiserver-client-kubelet';
/** Upstream's kubelet client usages: with key encipherment for an RSA key, without it for ECDSA. */
const RSA_USAGES = ['digital signature', 'key encipherment', 'client auth'];
const ECDSA_USAGES = ['digital signature', 'client auth'];
/** A bootstrap token's identity, as kubeadm's join token authenticates (here a static token stands for it). */
const BOOTSTRAP_TOKEN = 'abcdef.0123456789abcdef';
const BOOTSTRAP_USER = 'system:bootstrap:abcdef';
const BOOTSTRAP_GROUP = 'system:bootstrappers:kubeadm:default-node-token';

interface Csr {
  metadata: { name: string };
  spec: { username: string; groups: string[] };
  status: {
    certificate?: string;
    conditions?: { type: string; status: string; reason?: string; message?: string }[];
  };
}

describe('kubelet client certificates through CertificateSigningRequests', () => {
  let cp: ControlPlane;
  let caPem: string;
  const get = async (name: string): Promise<Csr> => {
    const res = await apiRequest(cp, 'GET', `${CSRS}/${name}`);
    assert.equal(res.status, 200, res.text);
    return res.body;
  };
  const conditions = (csr: Csr) => (csr.status.conditions ?? []).map((c) => [c.type, c.status, c.reason, c.message]);
  /** The CSR once its certificate is issued, and that certificate. */
  const issued = (name: string) =>
    eventually(async () => {
      const csr = await get(name);
      assert.ok(csr.status.certificate, `${name} is issued: ${JSON.stringify(csr.status)}`);
      return { csr, cert: Buffer.from(csr.status.certificate, 'base64').toString('utf8') };
    });
  const bind = async (name: string, clusterRole: string, subject: { kind: 'User' | 'Group'; name: string }) => {
    const res = await apiRequest(cp, 'POST', `${RBAC}/clusterrolebindings`, {
      body: {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: clusterRole },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', ...subject }],
      },
    });
    assert.equal(res.status, 201, res.text);
  };
  const kubeletRequest = (name: string, csrPem: string, usages = RSA_USAGES) =>
    csrObject(name, csrPem, { signerName: KUBELET_SIGNER, usages });
  /** Creates a CSR as the bootstrap token's user. */
  const createAsBootstrapper = async (body: Record<string, unknown>) => {
    const res = await apiRequest(cp, 'POST', CSRS, {
      body,
      anonymous: true,
      headers: { authorization: `Bearer ${BOOTSTRAP_TOKEN}` },
    });
    assert.equal(res.status, 201, res.text);
    return res.body as Csr;
  };
  const asUser = (user: string) => ({ 'impersonate-user': user });
  const approveAs = async (user: string, name: string) => {
    const csr = await get(name);
    return apiRequest(cp, 'PUT', `${CSRS}/${name}/approval`, {
      headers: asUser(user),
      body: {
        ...csr,
        status: {
          conditions: [{ type: 'Approved', status: 'True', reason: 'KubectlApprove', message: 'approved by ops' }],
        },
      },
    });
  };
  const whoami = async (id: Identity) => {
    const res = await requestAs(cp, id, 'POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'SelfSubjectReview',
    });
    assert.equal(res.status, 201, res.text);
    return res.body.status.userInfo;
  };

  before(async () => {
    cp = await startControlPlane({
      authorization: { modes: ['Node', 'RBAC'] },
      authentication: {
        staticTokens: [
          { token: BOOTSTRAP_TOKEN, user: BOOTSTRAP_USER, groups: ['system:bootstrappers', BOOTSTRAP_GROUP] },
        ],
      },
      controllers: {
        controllers: ['certificatesigningrequest-approving-controller', 'certificatesigningrequest-signing-controller'],
        leaderElect: false,
      },
    });
    caPem = Buffer.from(
      cp.kubeconfig.config.clusters[0]?.cluster['certificate-authority-data'] ?? '',
      'base64',
    ).toString('utf8');
    // kubeadm's bindings: bootstrappers may ask for node client certificates and have them approved; nodes may
    // renew their own.
    const bootstrappers = { kind: 'Group', name: BOOTSTRAP_GROUP } as const;
    await bind('kubeadm:kubelet-bootstrap', 'system:node-bootstrapper', bootstrappers);
    await bind(
      'kubeadm:node-autoapprove-bootstrap',
      'system:certificates.k8s.io:certificatesigningrequests:nodeclient',
      bootstrappers,
    );
    await bind(
      'kubeadm:node-autoapprove-certificate-rotation',
      'system:certificates.k8s.io:certificatesigningrequests:selfnodeclient',
      { kind: 'Group', name: 'system:nodes' },
    );
    // ops may write CSRs and their approval; only approver-jane may approve for the kubelet signer.
    const role = await apiRequest(cp, 'POST', `${RBAC}/clusterroles`, {
      body: {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { name: 'csr-operator' },
        rules: [
          {
            apiGroups: ['certificates.k8s.io'],
            resources: ['certificatesigningrequests'],
            verbs: ['create', 'get', 'list', 'watch'],
          },
          { apiGroups: ['certificates.k8s.io'], resources: ['certificatesigningrequests/approval'], verbs: ['update'] },
        ],
      },
    });
    assert.equal(role.status, 201, role.text);
    await bind('csr-operator-jane', 'csr-operator', { kind: 'User', name: 'approver-jane' });
    await bind('csr-operator-bob', 'csr-operator', { kind: 'User', name: 'bob' });
    await bind('jane-kubelet-approver', 'system:certificates.k8s.io:kube-apiserver-client-kubelet-approver', {
      kind: 'User',
      name: 'approver-jane',
    });
  });
  after(async () => {
    await cp?.stop();
  });

  let node1: Identity;

  it('a bootstrap identity’s request is auto-approved (nodeclient) and signed; the certificate is system:node:node-1 in system:nodes', async () => {
    const { csrPem, keyPem } = await makeCertificateRequest({
      commonName: 'system:node:node-1',
      organizations: ['system:nodes'],
      keyAlgorithm: 'RSA',
    });
    const created = await createAsBootstrapper(kubeletRequest('node-csr-node-1', csrPem));
    assert.equal(created.spec.username, BOOTSTRAP_USER);
    assert.deepEqual(created.spec.groups, ['system:bootstrappers', BOOTSTRAP_GROUP, 'system:authenticated']);
    const { csr, cert } = await issued('node-csr-node-1');
    assert.deepEqual(conditions(csr), [
      ['Approved', 'True', 'AutoApproved', 'Auto approving kubelet client certificate after SubjectAccessReview.'],
    ]);
    const x = new X509Certificate(cert);
    assert.equal(x.subject, 'O=system:nodes\nCN=system:node:node-1');
    assert.ok(x.checkIssued(new X509Certificate(caPem)), 'issued by the cluster CA');
    assert.ok(x.verify(new X509Certificate(caPem).publicKey));
    assert.equal(x.ca, false);
    assert.deepEqual(x.keyUsage, ['1.3.6.1.5.5.7.3.2']);
    const x509 = await loadX509();
    const keyUsage = new x509.X509Certificate(cert).getExtension(x509.KeyUsagesExtension);
    assert.equal(
      keyUsage?.usages,
      x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment,
      'digital signature and key encipherment, as the CSR asked',
    );
    node1 = { cert, key: keyPem };
    assert.deepEqual(await whoami(node1), {
      username: 'system:node:node-1',
      groups: ['system:nodes', 'system:authenticated'],
      extra: certificateExtra(cert),
    });
  });

  it('the Node authorizer governs the new identity: its own Node, not another', async () => {
    const register = await requestAs(cp, node1, 'POST', '/api/v1/nodes', {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'node-1' },
    });
    assert.equal(register.status, 201, register.text);
    assert.equal((await requestAs(cp, node1, 'GET', '/api/v1/nodes/node-1')).status, 200);
    const created = await apiRequest(cp, 'POST', '/api/v1/nodes', {
      body: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-2' } },
    });
    assert.equal(created.status, 201, created.text);
    const other = await requestAs(cp, node1, 'GET', '/api/v1/nodes/node-2');
    assert.equal(other.status, 403, other.text);
    assert.equal(
      other.body.message,
      'nodes "node-2" is forbidden: User "system:node:node-1" cannot get resource "nodes" in API group "" at the cluster scope: node \'node-1\' cannot read \'node-2\', only its own Node object',
    );
    const secrets = await requestAs(cp, node1, 'GET', '/api/v1/namespaces/default/secrets');
    assert.equal(secrets.status, 403, secrets.text);
  });

  it('the node renews its certificate with its certificate: auto-approved as selfnodeclient, ECDSA without key encipherment', async () => {
    const { csrPem, keyPem } = await makeCertificateRequest({
      commonName: 'system:node:node-1',
      organizations: ['system:nodes'],
    });
    const res = await requestAs(cp, node1, 'POST', CSRS, kubeletRequest('node-1-renewal', csrPem, ECDSA_USAGES));
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.spec.username, 'system:node:node-1');
    // The requester's credential ID (its current certificate's fingerprint) is recorded with its identity.
    assert.deepEqual(res.body.spec.extra, certificateExtra(node1.cert));
    const { csr, cert } = await issued('node-1-renewal');
    assert.deepEqual(conditions(csr), [
      ['Approved', 'True', 'AutoApproved', 'Auto approving self kubelet client certificate after SubjectAccessReview.'],
    ]);
    assert.deepEqual(await whoami({ cert, key: keyPem }), {
      username: 'system:node:node-1',
      groups: ['system:nodes', 'system:authenticated'],
      extra: certificateExtra(cert),
    });
  });

  it('a person with approve on the signer approves what no auto-approval covers; one without is refused', async () => {
    const { csrPem, keyPem } = await makeCertificateRequest({
      commonName: 'system:node:node-3',
      organizations: ['system:nodes'],
      keyAlgorithm: 'RSA',
    });
    const created = await apiRequest(cp, 'POST', CSRS, {
      body: kubeletRequest('node-3-by-jane', csrPem),
      headers: asUser('approver-jane'),
    });
    assert.equal(created.status, 201, created.text);
    // jane is neither allowed nodeclient nor the node itself: the approver leaves it pending.
    const refused = await approveAs('bob', 'node-3-by-jane');
    assert.equal(refused.status, 403, refused.text);
    assert.equal(
      refused.body.message,
      'certificatesigningrequests.certificates.k8s.io "node-3-by-jane" is forbidden: user not permitted to approve requests with signerName "kubernetes.io/kube-apiserver-client-kubelet"',
    );
    assert.deepEqual(conditions(await get('node-3-by-jane')), []);
    const approved = await approveAs('approver-jane', 'node-3-by-jane');
    assert.equal(approved.status, 200, approved.text);
    const { csr, cert } = await issued('node-3-by-jane');
    assert.deepEqual(conditions(csr), [['Approved', 'True', 'KubectlApprove', 'approved by ops']]);
    assert.deepEqual(await whoami({ cert, key: keyPem }), {
      username: 'system:node:node-3',
      groups: ['system:nodes', 'system:authenticated'],
      extra: certificateExtra(cert),
    });
  });

  it('refuses subjects and usages the kubelet signer does not allow: never auto-approved, Failed when approved', async () => {
    const cases: {
      name: string;
      subject: { commonName: string; organizations: string[]; dnsNames?: string[] };
      usages?: string[];
      message: string;
    }[] = [
      {
        name: 'bad-cn',
        subject: { commonName: 'node-4', organizations: ['system:nodes'] },
        message: 'subject common name does not begin with system:node:',
      },
      {
        name: 'bad-o',
        subject: { commonName: 'system:node:node-5', organizations: ['system:masters'] },
        message: 'subject organization is not system:nodes',
      },
      {
        name: 'extra-o',
        subject: { commonName: 'system:node:node-6', organizations: ['system:nodes', 'system:masters'] },
        message: 'subject organization is not system:nodes',
      },
      {
        name: 'dns-san',
        subject: { commonName: 'system:node:node-7', organizations: ['system:nodes'], dnsNames: ['node-7.example'] },
        message: 'DNS subjectAltNames are not allowed',
      },
      {
        name: 'usages',
        subject: { commonName: 'system:node:node-8', organizations: ['system:nodes'] },
        usages: ['client auth'],
        message: 'usages did not match [client auth digital signature key encipherment]',
      },
    ];
    for (const c of cases) {
      const { csrPem } = await makeCertificateRequest(c.subject);
      // Created by the bootstrapper, whom the approver would approve for a good request (the subject restriction
      // of kube-apiserver-client does not apply to this signer: creating it is allowed).
      await createAsBootstrapper(kubeletRequest(c.name, csrPem, c.usages ?? ECDSA_USAGES));
    }
    // A good request made after them is approved and issued: by then the approver has seen the bad ones too.
    const good = await makeCertificateRequest({ commonName: 'system:node:node-9', organizations: ['system:nodes'] });
    await createAsBootstrapper(kubeletRequest('node-9-good', good.csrPem, ECDSA_USAGES));
    await issued('node-9-good');
    for (const c of cases) {
      assert.deepEqual(conditions(await get(c.name)), [], `${c.name} is not auto-approved`);
      const approved = await approveAs('approver-jane', c.name);
      assert.equal(approved.status, 200, approved.text);
    }
    for (const c of cases) {
      const csr = await eventually(async () => {
        const b = await get(c.name);
        assert.ok(
          b.status.conditions?.some((x) => x.type === 'Failed'),
          `${c.name}: ${JSON.stringify(b.status)}`,
        );
        return b;
      });
      const failed = csr.status.conditions?.find((x) => x.type === 'Failed');
      assert.equal(failed?.status, 'True');
      assert.equal(failed?.reason, 'SignerValidationFailure', c.name);
      assert.equal(failed?.message, c.message, c.name);
      assert.equal(csr.status.certificate, undefined, `${c.name} is not signed`);
    }
  });
});
