import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpsServer, request } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Policy } from '../../src/apiserver/audit/policy.js';
import {
  DEFAULT_SERVICE_ACCOUNT_ISSUER,
  serviceAccountClaims,
} from '../../src/apiserver/authn/serviceaccount/claims.js';
import { ServiceAccountTokenIssuer } from '../../src/apiserver/authn/serviceaccount/issuer.js';
import {
  readPublicKeys,
  readSigningKey,
  SA_KEY_FILE,
  SA_PUB_FILE,
} from '../../src/apiserver/authn/serviceaccount/keys.js';
import { ensurePki } from '../../src/apiserver/bootstrap/pki.js';
import type { KubeObject } from '../../src/apiserver/registry/object.js';
import { type ControlPlane, startControlPlane } from '../../src/index.js';
import { apiRequest, kubectl } from '../../src/testing/api-client.js';
import assert from '../../src/testing/assert.js';
import { eventually } from '../../src/testing/controllers.js';
import { adminOk, mintIdentity, requestAs } from '../../src/testing/identity-request.js';
import { jsonPatch, startWebhookServer, type WebhookServer } from '../../src/testing/webhook-server.js';

interface Event {
  level: string;
  auditID: string;
  stage: string;
  verb: string;
  requestURI: string;
  user: { username?: string; groups?: string[] };
  impersonatedUser?: { username?: string };
  objectRef?: Record<string, string>;
  responseStatus?: { code: number; reason?: string; message?: string; status?: string };
  requestObject?: Record<string, unknown>;
  responseObject?: Record<string, unknown>;
  annotations?: Record<string, string>;
  requestReceivedTimestamp: string;
  stageTimestamp: string;
  sourceIPs?: string[];
}

const POLICY: Policy = {
  apiVersion: 'audit.k8s.io/v1',
  kind: 'Policy',
  omitStages: [],
  rules: [
    { level: 'None', nonResourceURLs: ['/healthz*', '/readyz', '/livez'] },
    { level: 'RequestResponse', nonResourceURLs: ['/version', '/openapi/*', '/api', '/apis', '/apis/*'] },
    { level: 'None', users: ['system:apiserver', 'system:kube-controller-manager', 'system:kube-scheduler'] },
    { level: 'RequestResponse', resources: [{ group: '', resources: ['configmaps'] }], omitManagedFields: true },
    { level: 'Request', resources: [{ group: '', resources: ['secrets'] }], omitStages: ['RequestReceived'] },
    { level: 'None', resources: [{ group: '', resources: ['pods/log'] }] },
    { level: 'Request', resources: [{ group: '', resources: ['pods'] }] },
    { level: 'Metadata' },
  ],
};

describe('apiserver: audit log', () => {
  let cp: ControlPlane;
  let dir: string;
  let logPath: string;
  const events = (): Event[] =>
    readFileSync(logPath, 'utf8')
      .split('\n')
      .filter((l) => l.length > 0)
      .map((l) => JSON.parse(l) as Event);
  const byId = (id: string) => events().filter((e) => e.auditID === id);

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'audit-'));
    logPath = join(dir, 'audit', 'audit.log');
    cp = await startControlPlane({ authorization: { modes: ['RBAC'] }, audit: { policy: POLICY, logPath } });
  });
  after(async () => {
    await cp?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes RequestReceived and ResponseComplete at Metadata level, with the Audit-Id header as auditID', async () => {
    const res = await apiRequest(cp, 'GET', '/api/v1/namespaces/default/serviceaccounts?limit=5', {
      headers: { 'user-agent': 'audit-test/1.0' },
    });
    assert.equal(res.status, 200);
    const id = String(res.headers['audit-id']);
    const evs = byId(id);
    assert.deepEqual(
      evs.map((e) => e.stage),
      ['RequestReceived', 'ResponseComplete'],
    );
    const done = evs[1] as Event;
    assert.equal(done.level, 'Metadata');
    assert.equal(done.verb, 'list');
    assert.equal(done.requestURI, '/api/v1/namespaces/default/serviceaccounts?limit=5');
    assert.deepEqual(done.objectRef, { resource: 'serviceaccounts', namespace: 'default', apiVersion: 'v1' });
    assert.deepEqual(done.responseStatus, { metadata: {}, code: 200 });
    assert.equal(done.user.username, 'kubernetes-admin');
    assert.ok(done.user.groups?.includes('system:authenticated'));
    assert.equal((done as unknown as { userAgent: string }).userAgent, 'audit-test/1.0');
    assert.ok(done.sourceIPs?.includes('127.0.0.1'));
    assert.equal(done.requestObject, undefined);
    assert.equal(done.responseObject, undefined);
    assert.equal(done.annotations?.['authorization.k8s.io/decision'], 'allow');
    // system:masters is allowed with no reason; upstream records the empty reason all the same.
    assert.equal(done.annotations?.['authorization.k8s.io/reason'], '');
    assert.match(done.stageTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    assert.ok(done.requestReceivedTimestamp <= done.stageTimestamp);
    // RequestReceived is stamped with the time the request was received, as upstream's processAuditEvent does.
    const received = evs[0] as Event;
    assert.equal(received.stageTimestamp, received.requestReceivedTimestamp);
    assert.equal(received.requestReceivedTimestamp, done.requestReceivedTimestamp);
  });

  it('a User-Agent longer than 1024 bytes is cut there and marked ...TRUNCATED', async () => {
    const agent = `${'a'.repeat(1000)}${'b'.repeat(100)}`;
    const res = await apiRequest(cp, 'GET', '/api/v1/namespaces/default/serviceaccounts', {
      headers: { 'user-agent': agent },
    });
    assert.equal(res.status, 200);
    for (const ev of byId(String(res.headers['audit-id']))) {
      assert.equal((ev as { userAgent?: string }).userAgent, `${agent.slice(0, 1024)}...TRUNCATED`);
    }
  });

  it('at Metadata level a create names its object in objectRef, from the request body', async () => {
    const res = await apiRequest(cp, 'POST', '/api/v1/namespaces/default/serviceaccounts', {
      body: { metadata: { name: 'audited-sa' } },
    });
    assert.equal(res.status, 201, res.text);
    const evs = byId(String(res.headers['audit-id']));
    const [received, done] = evs as [Event, Event];
    assert.equal(done.level, 'Metadata');
    assert.deepEqual(received.objectRef, { resource: 'serviceaccounts', namespace: 'default', apiVersion: 'v1' });
    assert.deepEqual(done.objectRef, {
      resource: 'serviceaccounts',
      namespace: 'default',
      name: 'audited-sa',
      apiVersion: 'v1',
    });
    assert.equal(done.requestObject, undefined);
  });

  it('Request level carries the request object, not the response; rule omitStages drops RequestReceived', async () => {
    const body = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's1' }, stringData: { k: 'v' } };
    const res = await apiRequest(cp, 'POST', '/api/v1/namespaces/default/secrets', { body });
    assert.equal(res.status, 201);
    const evs = byId(String(res.headers['audit-id']));
    assert.deepEqual(
      evs.map((e) => e.stage),
      ['ResponseComplete'],
    );
    const ev = evs[0] as Event;
    assert.equal(ev.level, 'Request');
    assert.equal(ev.verb, 'create');
    // The path names no object; the request's object completes the reference, as upstream's LogRequestObject does.
    assert.deepEqual(ev.objectRef, { resource: 'secrets', namespace: 'default', name: 's1', apiVersion: 'v1' });
    // The decoded object, encoded again as Go encodes a v1 Secret: stringData merged into data (the conversion to the
    // internal type), the type defaulted, the zero creationTimestamp, kind before apiVersion.
    assert.equal(
      JSON.stringify(ev.requestObject),
      '{"kind":"Secret","apiVersion":"v1","metadata":{"name":"s1","creationTimestamp":null},"data":{"k":"dg=="},"type":"Opaque"}',
    );
    assert.equal(ev.responseObject, undefined);
    assert.deepEqual(ev.responseStatus, { metadata: {}, code: 201 });
  });

  it('the request object is the decoded object with its defaults, encoded as Go encodes the kind', async () => {
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'defaulted', labels: {} },
      spec: { containers: [{ name: 'c', image: 'nginx' }] },
    };
    const res = await apiRequest(cp, 'POST', '/api/v1/namespaces/default/pods', { body: pod });
    assert.equal(res.status, 201, res.text);
    const ev = byId(String(res.headers['audit-id'])).find((e) => e.stage === 'ResponseComplete') as Event;
    assert.equal(ev.level, 'Request');
    assert.equal(
      JSON.stringify(ev.requestObject),
      '{"kind":"Pod","apiVersion":"v1","metadata":{"name":"defaulted","creationTimestamp":null},"spec":{"containers":' +
        '[{"name":"c","image":"nginx","resources":{},"terminationMessagePath":"/dev/termination-log",' +
        '"terminationMessagePolicy":"File","imagePullPolicy":"Always"}],"restartPolicy":"Always",' +
        '"terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst","securityContext":{},' +
        '"schedulerName":"default-scheduler","enableServiceLinks":true},"status":{}}',
    );
  });

  it('a DELETE with a body logs its DeleteOptions as Go encodes the unversioned type; one without logs none', async () => {
    const secret = (name: string) => ({ metadata: { name }, stringData: { k: 'v' } });
    for (const name of ['del-1', 'del-2', 'del-3']) {
      assert.equal(
        (await apiRequest(cp, 'POST', '/api/v1/namespaces/default/secrets', { body: secret(name) })).status,
        201,
      );
    }
    const withBody = await apiRequest(cp, 'DELETE', '/api/v1/namespaces/default/secrets/del-1', {
      body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background', dryRun: [] },
    });
    assert.equal(withBody.status, 200, withBody.text);
    const ev = byId(String(withBody.headers['audit-id']))[0] as Event;
    assert.equal(
      JSON.stringify(ev.requestObject),
      '{"kind":"DeleteOptions","apiVersion":"meta.k8s.io/__internal","propagationPolicy":"Background"}',
    );
    const without = await apiRequest(cp, 'DELETE', '/api/v1/namespaces/default/secrets/del-2');
    assert.equal(without.status, 200, without.text);
    assert.equal((byId(String(without.headers['audit-id']))[0] as Event).requestObject, undefined);
    const collection = await apiRequest(
      cp,
      'DELETE',
      '/api/v1/namespaces/default/secrets?fieldSelector=metadata.name%3Ddel-3',
      {
        body: { gracePeriodSeconds: 0 },
      },
    );
    assert.equal(collection.status, 200, collection.text);
    const cev = byId(String(collection.headers['audit-id']))[0] as Event;
    assert.equal(cev.verb, 'deletecollection');
    assert.equal(
      JSON.stringify(cev.requestObject),
      '{"kind":"DeleteOptions","apiVersion":"meta.k8s.io/__internal","gracePeriodSeconds":0}',
    );
  });

  it('RequestResponse level carries both objects, managedFields omitted', async () => {
    const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c1' }, data: { a: 'b' } };
    const res = await apiRequest(cp, 'POST', '/api/v1/namespaces/default/configmaps', { body });
    assert.equal(res.status, 201);
    const ev = byId(String(res.headers['audit-id'])).find((e) => e.stage === 'ResponseComplete') as Event;
    assert.equal(ev.level, 'RequestResponse');
    assert.deepEqual(ev.requestObject, { ...body, metadata: { name: 'c1', creationTimestamp: null } });
    const out = ev.responseObject as { metadata: Record<string, unknown>; data: unknown };
    assert.equal(out.metadata.name, 'c1');
    assert.deepEqual(out.data, { a: 'b' });
    assert.equal('managedFields' in out.metadata, false);
    assert.ok('managedFields' in (res.body as { metadata: object }).metadata);
  });

  it('the real kubectl over HTTP/2 with a protobuf body: both objects and the created name are recorded', async () => {
    const before = events().length;
    const created = await kubectl(cp, ['create', 'configmap', 'from-kubectl', '--from-literal=a=b']);
    assert.equal(created.code, 0, created.stderr);
    const ev = events()
      .slice(before)
      .find((e) => e.stage === 'ResponseComplete' && e.verb === 'create' && e.objectRef?.resource === 'configmaps');
    assert.ok(ev, 'the create is audited');
    assert.equal(ev.objectRef?.name, 'from-kubectl');
    assert.deepEqual((ev.requestObject as { data: unknown }).data, { a: 'b' });
    const out = ev.responseObject as { metadata: Record<string, unknown>; data: unknown };
    assert.equal(out.metadata.name, 'from-kubectl');
    assert.deepEqual(out.data, { a: 'b' });
  });

  it('non-resource endpoints that write raw bytes log no response object; discovery logs its API object', async () => {
    const responseObjectOf = async (path: string) => {
      const res = await apiRequest(cp, 'GET', path);
      assert.equal(res.status, 200, `${path}: ${res.text.slice(0, 200)}`);
      const ev = byId(String(res.headers['audit-id'])).find((e) => e.stage === 'ResponseComplete') as Event;
      assert.equal(ev.level, 'RequestResponse', path);
      assert.deepEqual(ev.responseStatus, { metadata: {}, code: 200 }, path);
      return ev.responseObject;
    };
    for (const path of ['/version', '/openapi/v2', '/openapi/v3', '/openapi/v3/api/v1']) {
      assert.equal(await responseObjectOf(path), undefined, path);
    }
    assert.equal((await responseObjectOf('/api'))?.kind, 'APIVersions');
    assert.equal((await responseObjectOf('/apis'))?.kind, 'APIGroupList');
    assert.equal((await responseObjectOf('/apis/apps/v1'))?.kind, 'APIResourceList');
  });

  it('a DELETE answered with a Success Status records its status and details, at Metadata level too', async () => {
    const cases = [
      {
        path: '/api/v1/namespaces/default/configmaps',
        name: 'deleted-cm',
        kind: 'configmaps',
        level: 'RequestResponse',
      },
      {
        path: '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles',
        name: 'deleted-role',
        kind: 'roles',
        group: 'rbac.authorization.k8s.io',
        level: 'Metadata',
      },
    ];
    for (const c of cases) {
      const created = await adminOk(cp, 'POST', c.path, { metadata: { name: c.name } });
      const res = await apiRequest(cp, 'DELETE', `${c.path}/${c.name}`);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.kind, 'Status');
      const ev = byId(String(res.headers['audit-id'])).find((e) => e.stage === 'ResponseComplete') as Event;
      assert.equal(ev.level, c.level);
      const group = c.group ? `"group":"${c.group}",` : '';
      assert.equal(
        JSON.stringify(ev.responseStatus),
        `{"metadata":{},"status":"Success","details":{"name":"${c.name}",${group}"kind":"${c.kind}","uid":"${created.body.metadata.uid}"},"code":200}`,
      );
    }
  });

  it('a failed request records the Status reason and message', async () => {
    const res = await apiRequest(cp, 'GET', '/api/v1/namespaces/default/configmaps/missing');
    assert.equal(res.status, 404);
    const ev = byId(String(res.headers['audit-id'])).find((e) => e.stage === 'ResponseComplete') as Event;
    assert.equal(ev.responseStatus?.code, 404);
    assert.equal(ev.responseStatus?.reason, 'NotFound');
    assert.equal(ev.responseStatus?.status, 'Failure');
    assert.equal(ev.responseStatus?.message, 'configmaps "missing" not found');
    // At RequestResponse level (configmaps here) the Status answered is the response object.
    assert.deepEqual(ev.responseObject, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'configmaps "missing" not found',
      reason: 'NotFound',
      details: { name: 'missing', kind: 'configmaps' },
      code: 404,
    });
  });

  it('level None writes nothing (subresource rule pods/log, nonResourceURLs with *)', async () => {
    const health = await apiRequest(cp, 'GET', '/healthz/ping');
    assert.equal(health.status, 200);
    const log = await apiRequest(cp, 'GET', '/api/v1/namespaces/default/pods/nope/log');
    assert.equal(log.status, 404);
    assert.equal(byId(String(health.headers['audit-id'])).length, 0);
    assert.equal(byId(String(log.headers['audit-id'])).length, 0);
  });

  it('a forged token is audited: one ResponseStarted event with code 401', async () => {
    const res = await apiRequest(cp, 'GET', '/api/v1/namespaces', {
      anonymous: true,
      headers: { authorization: 'Bearer forged.token.value' },
    });
    assert.equal(res.status, 401);
    const evs = byId(String(res.headers['audit-id']));
    assert.equal(evs.length, 1);
    const ev = evs[0] as Event;
    assert.equal(ev.stage, 'ResponseStarted');
    assert.equal(ev.level, 'Metadata');
    assert.deepEqual(ev.user, {});
    assert.deepEqual(ev.responseStatus, {
      metadata: {},
      message: 'Authentication failed, attempted: bearer',
      code: 401,
    });
  });

  it('a client certificate from another CA is audited: ResponseStarted, 401, attempted x509', async () => {
    const other = await ensurePki(join(dir, 'other-pki'), {});
    const ca = Buffer.from(cp.kubeconfig.config.clusters[0]?.cluster['certificate-authority-data'] ?? '', 'base64');
    const { status, id } = await new Promise<{ status: number; id: string }>((resolve, reject) => {
      const req = request(
        new URL('/api/v1/namespaces', cp.url),
        { ca, cert: other.admin.certPem, key: other.admin.keyPem },
        (r) => {
          r.resume();
          r.on('end', () => resolve({ status: r.statusCode ?? 0, id: String(r.headers['audit-id']) }));
        },
      );
      req.on('error', reject);
      req.end();
    });
    assert.equal(status, 401);
    const evs = byId(id);
    assert.deepEqual(
      evs.map((e) => [e.stage, e.responseStatus?.code, e.responseStatus?.message]),
      [['ResponseStarted', 401, 'Authentication failed, attempted: x509']],
    );
  });

  it('a forbidden request and impersonation without permission are audited with the forbid decision', async () => {
    const anon = await apiRequest(cp, 'GET', '/api/v1/namespaces/default/pods', { anonymous: true });
    assert.equal(anon.status, 403);
    const ev = byId(String(anon.headers['audit-id'])).find((e) => e.stage === 'ResponseComplete') as Event;
    assert.equal(ev.user.username, 'system:anonymous');
    assert.equal(ev.responseStatus?.code, 403);
    assert.equal(ev.responseStatus?.reason, 'Forbidden');
    assert.equal(ev.annotations?.['authorization.k8s.io/decision'], 'forbid');
    assert.equal(ev.annotations?.['authorization.k8s.io/reason'], '');

    // The anonymous user may not impersonate anyone.
    const imp = await apiRequest(cp, 'GET', '/api/v1/namespaces', {
      anonymous: true,
      headers: { 'impersonate-user': 'kubernetes-admin' },
    });
    assert.equal(imp.status, 403);
    const iev = byId(String(imp.headers['audit-id'])).find((e) => e.stage === 'ResponseComplete') as Event;
    assert.equal(iev.responseStatus?.code, 403);
    assert.match(String(iev.responseStatus?.message), /cannot impersonate resource "users"/);
  });

  it('an allowed impersonation records the requester as user and the impersonated user', async () => {
    const res = await apiRequest(cp, 'GET', '/api/v1/namespaces/default/configmaps', {
      headers: { 'impersonate-user': 'jane' },
    });
    assert.equal(res.status, 403);
    const ev = byId(String(res.headers['audit-id'])).find((e) => e.stage === 'ResponseComplete') as Event;
    assert.equal(ev.user.username, 'kubernetes-admin');
    assert.equal(ev.impersonatedUser?.username, 'jane');
    // The line's fields in audit/v1 Event's order, as Go writes the struct.
    const line = readFileSync(logPath, 'utf8')
      .split('\n')
      .find((l) => l.includes(`"auditID":"${ev.auditID}"`) && l.includes('"stage":"ResponseComplete"'));
    assert.deepEqual(Object.keys(JSON.parse(line ?? '{}')), [
      'kind',
      'apiVersion',
      'level',
      'auditID',
      'stage',
      'requestURI',
      'verb',
      'user',
      'impersonatedUser',
      'sourceIPs',
      'objectRef',
      'responseStatus',
      'responseObject',
      'requestReceivedTimestamp',
      'stageTimestamp',
      'annotations',
    ]);
  });

  it('a watch has a ResponseStarted stage, and is complete when it ends', async () => {
    const res = await apiRequest(cp, 'GET', '/api/v1/namespaces/default/configmaps?watch=1&timeoutSeconds=1');
    assert.equal(res.status, 200);
    const id = String(res.headers['audit-id']);
    await eventually(() => {
      assert.deepEqual(
        byId(id).map((e) => e.stage),
        ['RequestReceived', 'ResponseStarted', 'ResponseComplete'],
      );
    });
    const complete = byId(id).find((e) => e.stage === 'ResponseComplete') as Event;
    const lasted = Date.parse(complete.stageTimestamp) - Date.parse(complete.requestReceivedTimestamp);
    assert.ok(lasted >= 900, `ResponseComplete came ${lasted} ms after the request, before the 1 s watch ended`);
  });

  it('exec is long-running: a refused one starts with its error, an upgraded one is 101 until it closes', async () => {
    const stagesOf = (id: string) => byId(id).map((e) => [e.stage, e.responseStatus?.code]);
    const missing = await apiRequest(cp, 'POST', '/api/v1/namespaces/default/pods/nope/exec?command=ls&stdout=1');
    assert.equal(missing.status, 404);
    const missingId = String(missing.headers['audit-id']);
    assert.deepEqual(stagesOf(missingId), [
      ['RequestReceived', undefined],
      ['ResponseStarted', 404],
      ['ResponseComplete', 404],
    ]);
    assert.equal(byId(missingId)[1]?.responseStatus?.reason, 'NotFound');

    // A kubelet that switches protocols, then hangs up.
    const pki = await ensurePki(join(dir, 'kubelet-pki'), {});
    const kubelet = createHttpsServer({ cert: pki.apiserver.certPem, key: pki.apiserver.keyPem });
    kubelet.on('upgrade', (_req, socket: Socket) => {
      socket.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n');
      setTimeout(() => socket.end(), 50);
    });
    await new Promise<void>((resolve) => kubelet.listen(0, '127.0.0.1', resolve));
    try {
      const port = (kubelet.address() as AddressInfo).port;
      await adminOk(cp, 'POST', '/api/v1/nodes', {
        metadata: { name: 'audit-node' },
        status: {
          addresses: [{ type: 'InternalIP', address: '127.0.0.1' }],
          daemonEndpoints: { kubeletEndpoint: { Port: port } },
        },
      });
      await adminOk(cp, 'POST', '/api/v1/namespaces/default/pods', {
        metadata: { name: 'execd' },
        spec: { nodeName: 'audit-node', containers: [{ name: 'c', image: 'busybox' }] },
      });
      const ca = Buffer.from(cp.kubeconfig.config.clusters[0]?.cluster['certificate-authority-data'] ?? '', 'base64');
      const user = cp.kubeconfig.config.users[0]?.user;
      await new Promise<void>((resolve, reject) => {
        const req = request(new URL('/api/v1/namespaces/default/pods/execd/exec?command=ls&stdout=1', cp.url), {
          method: 'POST',
          ca,
          cert: Buffer.from(user?.['client-certificate-data'] ?? '', 'base64'),
          key: Buffer.from(user?.['client-key-data'] ?? '', 'base64'),
          headers: {
            connection: 'Upgrade',
            upgrade: 'websocket',
            'sec-websocket-version': '13',
            'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
            'sec-websocket-protocol': 'v5.channel.k8s.io',
          },
        });
        req.on('upgrade', (res, socket) => {
          assert.equal(res.statusCode, 101);
          socket.on('close', () => resolve());
          socket.resume();
        });
        req.on('response', (res) => reject(new Error(`no upgrade: ${res.statusCode}`)));
        req.on('error', reject);
        req.end();
      });
      await eventually(() => {
        // The kubelet's 101 carries no Audit-Id of the apiserver's.
        const evs = events().filter((e) => e.requestURI.startsWith('/api/v1/namespaces/default/pods/execd/exec'));
        assert.deepEqual(
          evs.map((e) => [e.stage, e.responseStatus?.code]),
          [
            ['RequestReceived', undefined],
            ['ResponseStarted', 101],
            ['ResponseComplete', 101],
          ],
        );
      });
    } finally {
      await new Promise((resolve) => kubelet.close(resolve));
    }
  });

  it('admission annotations reach the event: a PodSecurity audit-mode violation', async () => {
    const ns = {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'audited', labels: { 'pod-security.kubernetes.io/audit': 'restricted' } },
    };
    assert.equal((await apiRequest(cp, 'POST', '/api/v1/namespaces', { body: ns })).status, 201);
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p' },
      spec: { containers: [{ name: 'c', image: 'nginx', securityContext: { privileged: true } }] },
    };
    const res = await apiRequest(cp, 'POST', '/api/v1/namespaces/audited/pods', { body: pod });
    assert.equal(res.status, 201);
    const ev = byId(String(res.headers['audit-id'])).find((e) => e.stage === 'ResponseComplete') as Event;
    assert.equal(
      ev.annotations?.['pod-security.kubernetes.io/audit-violations']?.startsWith(
        'would violate PodSecurity "restricted:latest": ',
      ),
      true,
    );
    assert.match(
      String(ev.annotations?.['pod-security.kubernetes.io/audit-violations']),
      /privileged \(container "c" must not set securityContext.privileged=true\)/,
    );
  });

  /** The one event a refused credential gives: ResponseStarted, 401, the methods attempted, no user. */
  function assertRefusedCredentialEvent(id: string) {
    const evs = byId(id);
    assert.equal(evs.length, 1, JSON.stringify(evs));
    const ev = evs[0] as Event;
    assert.equal(ev.stage, 'ResponseStarted');
    // The policy's level for the request (configmaps: RequestResponse), though no object is recorded.
    assert.equal(ev.level, 'RequestResponse');
    assert.equal(ev.requestObject, undefined);
    assert.equal(ev.responseObject, undefined);
    assert.equal(ev.verb, 'list');
    assert.equal(ev.requestURI, '/api/v1/namespaces/default/configmaps');
    assert.deepEqual(ev.objectRef, { resource: 'configmaps', namespace: 'default', apiVersion: 'v1' });
    assert.deepEqual(ev.user, {});
    assert.deepEqual(ev.responseStatus, {
      metadata: {},
      message: 'Authentication failed, attempted: bearer',
      code: 401,
    });
    assert.equal(ev.annotations, undefined);
  }

  async function serviceAccount(name: string): Promise<KubeObject> {
    const res = await apiRequest(cp, 'POST', '/api/v1/namespaces/default/serviceaccounts', {
      body: { metadata: { name } },
    });
    assert.equal(res.status, 201, res.text);
    return res.body;
  }

  it('a ServiceAccount token for another audience is refused with 401 and audited as a failed authentication', async () => {
    await serviceAccount('vault-client');
    const tr = await apiRequest(cp, 'POST', '/api/v1/namespaces/default/serviceaccounts/vault-client/token', {
      body: { spec: { audiences: ['vault'], expirationSeconds: 600 } },
    });
    assert.equal(tr.status, 201, tr.text);
    const res = await apiRequest(cp, 'GET', '/api/v1/namespaces/default/configmaps', {
      anonymous: true,
      headers: { authorization: `Bearer ${tr.body.status.token}` },
    });
    assert.equal(res.status, 401, res.text);
    assert.equal(res.body.reason, 'Unauthorized');
    assertRefusedCredentialEvent(String(res.headers['audit-id']));
  });

  it('an expired ServiceAccount token is refused with 401 and audited as a failed authentication', async () => {
    const sa = await serviceAccount('expired-client');
    // Signed with the control plane's own key, for the API audience, ten minutes long and over an hour ago.
    const pki = join(cp.dataDir, 'pki');
    const issuer = new ServiceAccountTokenIssuer(
      DEFAULT_SERVICE_ACCOUNT_ISSUER,
      readSigningKey(join(pki, SA_KEY_FILE)),
      readPublicKeys(join(pki, SA_PUB_FILE)),
    );
    const claims = serviceAccountClaims(sa, {}, 600, [DEFAULT_SERVICE_ACCOUNT_ISSUER], Date.now() - 2 * 3600_000);
    const expired = await issuer.sign(claims);
    // The same key and claims an hour into their life authenticate: only the expiry is wrong with the first token.
    const fresh = await issuer.sign(serviceAccountClaims(sa, {}, 600, [DEFAULT_SERVICE_ACCOUNT_ISSUER], Date.now()));
    const ok = await apiRequest(cp, 'POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {
      anonymous: true,
      headers: { authorization: `Bearer ${fresh}` },
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
    });
    assert.equal(ok.status, 201, ok.text);
    assert.equal(ok.body.status.userInfo.username, 'system:serviceaccount:default:expired-client');

    const res = await apiRequest(cp, 'GET', '/api/v1/namespaces/default/configmaps', {
      anonymous: true,
      headers: { authorization: `Bearer ${expired}` },
    });
    assert.equal(res.status, 401, res.text);
    assert.equal(res.body.reason, 'Unauthorized');
    assertRefusedCredentialEvent(String(res.headers['audit-id']));
  });

  it('RBAC decisions are annotated with upstream reasons: the binding that allowed, an empty reason for a forbid', async () => {
    await adminOk(cp, 'POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', {
      metadata: { name: 'audit-sa-reader' },
      rules: [{ apiGroups: [''], resources: ['serviceaccounts'], verbs: ['list'] }],
    });
    await adminOk(cp, 'POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
      metadata: { name: 'audit-sa-readers' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'audit-sa-reader' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'audit-jane' }],
    });
    const sa = 'rbac-audited';
    await serviceAccount(sa);
    await adminOk(cp, 'POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings', {
      metadata: { name: 'sa-reads' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'audit-sa-reader' },
      subjects: [{ kind: 'ServiceAccount', name: sa, namespace: 'default' }],
    });
    const jane = await mintIdentity(cp, 'audit-jane', ['qa']);
    const completed = (id: string) =>
      byId(id).find((e) => e.stage === 'ResponseComplete') as Event & { annotations: Record<string, string> };

    const allowed = await eventually(async () => {
      const res = await requestAs(cp, jane, 'GET', '/api/v1/namespaces/default/serviceaccounts');
      assert.equal(res.status, 200, res.text);
      return res;
    });
    const ev = completed(String(allowed.headers['audit-id']));
    assert.equal(ev.user.username, 'audit-jane');
    assert.deepEqual(ev.annotations, {
      'authorization.k8s.io/decision': 'allow',
      'authorization.k8s.io/reason':
        'RBAC: allowed by ClusterRoleBinding "audit-sa-readers" of ClusterRole "audit-sa-reader" to User "audit-jane"',
    });

    const forbidden = await requestAs(cp, jane, 'GET', '/api/v1/namespaces/default/secrets');
    assert.equal(forbidden.status, 403, forbidden.text);
    const fev = completed(String(forbidden.headers['audit-id']));
    assert.equal(fev.responseStatus?.reason, 'Forbidden');
    assert.deepEqual(fev.annotations, {
      'authorization.k8s.io/decision': 'forbid',
      'authorization.k8s.io/reason': '',
    });

    // A RoleBinding names itself name/namespace, and a ServiceAccount subject name/namespace.
    const tr = await apiRequest(cp, 'POST', `/api/v1/namespaces/default/serviceaccounts/${sa}/token`, {
      body: { spec: {} },
    });
    assert.equal(tr.status, 201, tr.text);
    const bySa = await eventually(async () => {
      const res = await apiRequest(cp, 'GET', '/api/v1/namespaces/default/serviceaccounts', {
        anonymous: true,
        headers: { authorization: `Bearer ${tr.body.status.token}` },
      });
      assert.equal(res.status, 200, res.text);
      return res;
    });
    const sev = completed(String(bySa.headers['audit-id']));
    assert.equal(sev.user.username, `system:serviceaccount:default:${sa}`);
    assert.equal(
      sev.annotations['authorization.k8s.io/reason'],
      `RBAC: allowed by RoleBinding "sa-reads/default" of ClusterRole "audit-sa-reader" to ServiceAccount "${sa}/default"`,
    );
  });

  describe('a mutating webhook’s patch', () => {
    let hook: WebhookServer;
    const ns = 'audit-webhooks';
    const patch = [{ op: 'add', path: '/metadata/labels', value: { 'patched-by': 'audit-hook' } }];
    before(async () => {
      hook = await startWebhookServer();
      hook.on('/label', () => ({ allowed: true, ...jsonPatch(patch) }));
      await adminOk(cp, 'POST', '/api/v1/namespaces', { metadata: { name: ns } });
      await adminOk(cp, 'POST', '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations', {
        metadata: { name: 'audit-patch' },
        webhooks: [
          {
            name: 'label.audit.example.com',
            clientConfig: { url: `${hook.url}/label`, caBundle: hook.caBundle },
            rules: [
              {
                operations: ['CREATE'],
                apiGroups: [''],
                apiVersions: ['v1'],
                resources: ['secrets', 'serviceaccounts'],
              },
            ],
            namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } },
            sideEffects: 'None',
            admissionReviewVersions: ['v1'],
          },
        ],
      });
      await eventually(async () => {
        const list = await apiRequest(cp, 'GET', '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations');
        assert.equal(list.body.items.length, 1);
      });
    });
    after(async () => {
      await hook?.close();
    });

    it('is recorded on an event of level Request, with the mutation, as upstream words both', async () => {
      const res = await eventually(async () => {
        const r = await apiRequest(cp, 'POST', `/api/v1/namespaces/${ns}/secrets`, {
          body: { metadata: { name: `s-${Date.now()}` }, stringData: { k: 'v' } },
        });
        assert.equal(r.status, 201, r.text);
        assert.deepEqual(r.body.metadata.labels, { 'patched-by': 'audit-hook' });
        return r;
      });
      const ev = byId(String(res.headers['audit-id'])).find((e) => e.stage === 'ResponseComplete') as Event;
      assert.equal(ev.level, 'Request');
      // The request object is logged as decoded, before admission: the webhook's label is not in it.
      const logged = ev.requestObject as { metadata: Record<string, unknown> };
      assert.equal(logged.metadata.name, res.body.metadata.name);
      assert.equal('labels' in logged.metadata, false);
      assert.equal(
        ev.annotations?.['mutation.webhook.admission.k8s.io/round_0_index_0'],
        '{"configuration":"audit-patch","webhook":"label.audit.example.com","mutated":true}',
      );
      assert.equal(
        ev.annotations?.['patch.webhook.admission.k8s.io/round_0_index_0'],
        '{"configuration":"audit-patch","webhook":"label.audit.example.com","patch":[{"op":"add","path":"/metadata/labels","value":{"patched-by":"audit-hook"}}],"patchType":"JSONPatch"}',
      );
    });

    it('is left out of an event of level Metadata, where the mutation is still recorded', async () => {
      const res = await apiRequest(cp, 'POST', `/api/v1/namespaces/${ns}/serviceaccounts`, {
        body: { metadata: { name: 'patched-sa' } },
      });
      assert.equal(res.status, 201, res.text);
      assert.deepEqual(res.body.metadata.labels, { 'patched-by': 'audit-hook' });
      const ev = byId(String(res.headers['audit-id'])).find((e) => e.stage === 'ResponseComplete') as Event;
      assert.equal(ev.level, 'Metadata');
      assert.equal(
        ev.annotations?.['mutation.webhook.admission.k8s.io/round_0_index_0'],
        '{"configuration":"audit-patch","webhook":"label.audit.example.com","mutated":true}',
      );
      assert.deepEqual(
        Object.keys(ev.annotations ?? {}).filter((k) => k.startsWith('patch.webhook.admission.k8s.io/')),
        [],
      );
    });
  });
});
