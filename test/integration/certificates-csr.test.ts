import { after, before, describe, it } from 'node:test';
import { type ControlPlane, startControlPlane } from '../../src/index.js';
import { apiRequest } from '../../src/testing/api-client.js';
import assert from '../../src/testing/assert.js';
import { csrObject, makeCertificateRequest } from '../../src/testing/csr.js';

const CSRS = '/apis/certificates.k8s.io/v1/certificatesigningrequests';

function asUser(user: string, groups: string[] = []): Record<string, string> {
  // Node's https takes repeated headers as an array; one group is enough here.
  return { 'impersonate-user': user, ...(groups[0] ? { 'impersonate-group': groups[0] } : {}) };
}

describe('certificatesigningrequests', () => {
  let cp: ControlPlane;
  let janeCsr: string;
  before(async () => {
    // Users other than the admin write CSRs here; what RBAC lets them do is not what these tests are about.
    cp = await startControlPlane({ authorization: { modes: ['AlwaysAllow'] } });
    janeCsr = (await makeCertificateRequest({ commonName: 'jane', organizations: ['dev'] })).csrPem;
  });
  after(async () => {
    await cp?.stop();
  });

  it('is served with approval and status subresources, short name csr, and a spec.signerName field selector', async () => {
    const res = await apiRequest(cp, 'GET', '/apis/certificates.k8s.io/v1');
    assert.equal(res.status, 200);
    const names = res.body.resources.map((r: { name: string }) => r.name);
    assert.deepEqual(names.filter((n: string) => n.startsWith('certificatesigningrequests')).sort(), [
      'certificatesigningrequests',
      'certificatesigningrequests/approval',
      'certificatesigningrequests/status',
    ]);
    const main = res.body.resources.find((r: { name: string }) => r.name === 'certificatesigningrequests');
    assert.deepEqual(main.shortNames, ['csr']);
  });

  it('fills the requester from the user and ignores what the client claims; status starts empty', async () => {
    const body = csrObject('fill', janeCsr);
    (body.spec as Record<string, unknown>).username = 'someone-else';
    (body.spec as Record<string, unknown>).groups = ['system:masters'];
    body.status = { conditions: [{ type: 'Approved', status: 'True' }] };
    const res = await apiRequest(cp, 'POST', CSRS, { body, headers: asUser('alice', ['team-a']) });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.spec.username, 'alice');
    assert.deepEqual(res.body.spec.groups, ['team-a', 'system:authenticated']);
    assert.deepEqual(res.body.status, {});
    // The spec cannot change afterwards: an update keeps the stored spec.
    const changed = { ...res.body, spec: { ...res.body.spec, username: 'mallory', usages: ['server auth'] } };
    const put = await apiRequest(cp, 'PUT', `${CSRS}/fill`, { body: changed });
    assert.equal(put.status, 200, put.text);
    assert.equal(put.body.spec.username, 'alice');
    assert.deepEqual(put.body.spec.usages, ['client auth']);
  });

  it('refuses bad requests with upstream field errors', async () => {
    const bad = csrObject('bad', '-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n', {
      signerName: 'example',
      usages: ['client auth', 'flying', 'client auth'],
      expirationSeconds: 599,
    });
    const res = await apiRequest(cp, 'POST', CSRS, { body: bad });
    assert.equal(res.status, 422, res.text);
    assert.equal(res.body.reason, 'Invalid');
    const message: string = res.body.message;
    assert.match(message, /^CertificateSigningRequest\.certificates\.k8s\.io "bad" is invalid: \[/);
    assert.match(
      message,
      /spec\.request: Invalid value: \[\]byte\{0x2d, 0x2d, .*\}: PEM block type must be CERTIFICATE REQUEST/,
    );
    assert.match(message, /spec\.usages\[1\]: Unsupported value: "flying": supported values: "any", "cert sign",/);
    assert.match(message, /spec\.usages\[2\]: Duplicate value: "client auth"/);
    assert.match(
      message,
      /spec\.signerName: Invalid value: "example": must be a fully qualified domain and path of the form 'example.com\/signer-name'/,
    );
    assert.match(
      message,
      /spec\.expirationSeconds: Invalid value: 599: may not specify a duration less than 600 seconds \(10 minutes\)/,
    );
  });

  it('requires signerName and usages, and refuses the legacy signer through v1', async () => {
    const body = csrObject('missing', janeCsr, { usages: [] });
    delete (body.spec as Record<string, unknown>).signerName;
    const res = await apiRequest(cp, 'POST', CSRS, { body });
    assert.equal(res.status, 422, res.text);
    assert.match(res.body.message, /spec\.usages: Required value/);
    assert.match(res.body.message, /spec\.signerName: Required value/);
    const legacy = await apiRequest(cp, 'POST', CSRS, {
      body: csrObject('legacy', janeCsr, { signerName: 'kubernetes.io/legacy-unknown' }),
    });
    assert.equal(legacy.status, 422);
    assert.match(
      legacy.body.message,
      /spec\.signerName: Invalid value: "kubernetes.io\/legacy-unknown": the legacy signerName is not allowed via this API version/,
    );
  });

  it('refuses a request whose signature does not verify', async () => {
    const other = await makeCertificateRequest({ commonName: 'x' });
    // Swap the signature of one request onto another: the bytes stay DER, the signature no longer matches.
    const der = (pem: string) => Buffer.from(pem.replace(/-----[^-]+-----|\s/g, ''), 'base64');
    const a = der(janeCsr);
    const b = der(other.csrPem);
    const sigLen = 72;
    const forged = Buffer.concat([a.subarray(0, a.length - sigLen), b.subarray(b.length - sigLen)]);
    const pem = `-----BEGIN CERTIFICATE REQUEST-----\n${forged.toString('base64')}\n-----END CERTIFICATE REQUEST-----\n`;
    const res = await apiRequest(cp, 'POST', CSRS, { body: csrObject('forged', pem) });
    assert.equal(res.status, 422, res.text);
    assert.match(
      res.body.message,
      /spec\.request: Invalid value: \[\]byte\{.*\}: (x509: ECDSA verification failure|x509: malformed certificate request)/,
    );
  });

  it('answers a body whose request is not base64 with BadRequest', async () => {
    const body = csrObject('b64', janeCsr);
    (body.spec as Record<string, unknown>).request = 'not base64!';
    const res = await apiRequest(cp, 'POST', CSRS, { body });
    assert.equal(res.status, 400, res.text);
    assert.match(
      res.body.message,
      /cannot be handled as a CertificateSigningRequest: illegal base64 data at input byte 3/,
    );
  });

  it('approves through /approval only, keeps Approved and Denied exclusive, and never drops a condition', async () => {
    const created = await apiRequest(cp, 'POST', CSRS, {
      body: csrObject('flow', janeCsr, { expirationSeconds: 3600 }),
    });
    assert.equal(created.status, 201, created.text);
    const approved = {
      ...created.body,
      status: { conditions: [{ type: 'Approved', status: 'True', reason: 'KubectlApprove', message: 'ok' }] },
    };
    // Through /status an approval is refused.
    const viaStatus = await apiRequest(cp, 'PUT', `${CSRS}/flow/status`, { body: approved });
    assert.equal(viaStatus.status, 422, viaStatus.text);
    assert.match(
      viaStatus.body.message,
      /status\.conditions: Forbidden: updates may not add a condition of type "Approved"/,
    );
    // Through the main resource it is ignored.
    const viaMain = await apiRequest(cp, 'PUT', `${CSRS}/flow`, { body: approved });
    assert.equal(viaMain.status, 200);
    assert.deepEqual(viaMain.body.status, {});
    const res = await apiRequest(cp, 'PUT', `${CSRS}/flow/approval`, { body: approved });
    assert.equal(res.status, 200, res.text);
    const [condition] = res.body.status.conditions;
    assert.equal(condition.type, 'Approved');
    assert.ok(condition.lastUpdateTime && condition.lastTransitionTime, 'timestamps filled');
    const both = {
      ...res.body,
      status: { conditions: [...res.body.status.conditions, { type: 'Denied', status: 'True' }] },
    };
    const exclusive = await apiRequest(cp, 'PUT', `${CSRS}/flow/approval`, { body: both });
    assert.equal(exclusive.status, 422);
    assert.match(
      exclusive.body.message,
      /status\.conditions\[1\]\.type: Invalid value: "Denied": Approved and Denied conditions are mutually exclusive/,
    );
    const dropped = await apiRequest(cp, 'PUT', `${CSRS}/flow/approval`, {
      body: { ...res.body, status: { conditions: [] } },
    });
    assert.equal(dropped.status, 422);
    assert.match(
      dropped.body.message,
      /status\.conditions: Forbidden: updates may not remove a condition of type "Approved"/,
    );
    const falseApproval = await apiRequest(cp, 'PATCH', `${CSRS}/flow/approval`, {
      contentType: 'application/merge-patch+json',
      body: { status: { conditions: [{ type: 'Approved', status: 'False' }] } },
    });
    assert.equal(falseApproval.status, 422);
    assert.match(
      falseApproval.body.message,
      /status\.conditions\[0\]\.status: Unsupported value: "False": supported values: "True"/,
    );
  });

  it('takes a certificate through /status only, once, and only PEM certificates', async () => {
    const created = await apiRequest(cp, 'POST', CSRS, { body: csrObject('cert', janeCsr) });
    assert.equal(created.status, 201);
    const caPem = Buffer.from(cp.kubeconfig.config.clusters[0]?.cluster['certificate-authority-data'] ?? '', 'base64');
    const withCert = { ...created.body, status: { certificate: caPem.toString('base64') } };
    const junk = { ...created.body, status: { certificate: Buffer.from('hello').toString('base64') } };
    const bad = await apiRequest(cp, 'PUT', `${CSRS}/cert/status`, { body: junk });
    assert.equal(bad.status, 422);
    assert.match(
      bad.body.message,
      /status\.certificate: Invalid value: "<certificate data>": must contain at least one CERTIFICATE PEM block/,
    );
    const viaApproval = await apiRequest(cp, 'PUT', `${CSRS}/cert/approval`, { body: withCert });
    assert.equal(viaApproval.status, 200);
    assert.equal(viaApproval.body.status.certificate, undefined);
    const ok = await apiRequest(cp, 'PUT', `${CSRS}/cert/status`, { body: withCert });
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.body.status.certificate, caPem.toString('base64'));
    const again = { ...ok.body, status: { certificate: Buffer.concat([caPem, caPem]).toString('base64') } };
    const modified = await apiRequest(cp, 'PUT', `${CSRS}/cert/status`, { body: again });
    assert.equal(modified.status, 422);
    assert.match(
      modified.body.message,
      /status\.certificate: Forbidden: updates may not modify existing certificate content/,
    );
  });

  it('prints the columns kubectl get csr shows', async () => {
    const res = await apiRequest(cp, 'GET', `${CSRS}/flow`, {
      headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' },
    });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(
      res.body.columnDefinitions.map((c: { name: string }) => c.name),
      ['Name', 'Age', 'SignerName', 'Requestor', 'RequestedDuration', 'Condition'],
    );
    const [cells] = res.body.rows.map((r: { cells: unknown[] }) => r.cells);
    assert.equal(cells[0], 'flow');
    assert.equal(cells[2], 'kubernetes.io/kube-apiserver-client');
    assert.equal(cells[3], 'kubernetes-admin');
    assert.equal(cells[4], '60m');
    assert.equal(cells[5], 'Approved');
    const selected = await apiRequest(cp, 'GET', `${CSRS}?fieldSelector=spec.signerName%3Dexample.com%2Fnone`);
    assert.equal(selected.status, 200);
    assert.deepEqual(selected.body.items, []);
  });
});
