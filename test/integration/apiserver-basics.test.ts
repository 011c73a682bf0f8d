import { connect } from 'node:http2';
import { after, before, describe, it } from 'node:test';
import { type ControlPlane, startControlPlane } from '../../src/index.js';
import { apiRequest } from '../../src/testing/api-client.js';
import assert from '../../src/testing/assert.js';

/** An HTTP/2 session to the control plane as its admin. */
function adminSession(cp: ControlPlane) {
  const cluster = cp.kubeconfig.config.clusters[0]?.cluster;
  const user = cp.kubeconfig.config.users[0]?.user;
  const b64 = (s: string | undefined) => Buffer.from(s ?? '', 'base64');
  return connect(cp.url, {
    ca: b64(cluster?.['certificate-authority-data']),
    cert: b64(user?.['client-certificate-data']),
    key: b64(user?.['client-key-data']),
  });
}

describe('apiserver: serving, version, health, discovery, errors', () => {
  let cp: ControlPlane;
  before(async () => {
    cp = await startControlPlane();
  });
  after(async () => {
    await cp?.stop();
  });

  it('reports Kubernetes v1.33 on /version', async () => {
    const res = await apiRequest(cp, 'GET', '/version');
    assert.equal(res.status, 200);
    assert.equal(res.body.major, '1');
    assert.equal(res.body.minor, '33');
    assert.match(res.body.gitVersion, /^v1\.33\.\d+-wheelhouse/);
  });

  it('answers health checks plainly, verbosely and per check', async () => {
    assert.equal((await apiRequest(cp, 'GET', '/healthz')).text, 'ok');
    const verbose = await apiRequest(cp, 'GET', '/readyz?verbose');
    assert.equal(verbose.status, 200);
    assert.match(verbose.text, /^\[\+\]ping ok$/m);
    assert.match(verbose.text, /^\[\+\]etcd ok$/m);
    assert.match(verbose.text, /readyz check passed\n$/);
    // The start-up steps as upstream's post-start hooks, in its order, after the storage and cache checks.
    const names = verbose.text
      .split('\n')
      .filter((l) => l.startsWith('[+]'))
      .map((l) => l.slice(3).replace(/ ok$/, ''));
    assert.deepEqual(names, [
      'ping',
      'log',
      'etcd',
      'etcd-readiness',
      'informer-sync',
      'poststarthook/start-apiextensions-controllers',
      'poststarthook/crd-informer-synced',
      'poststarthook/start-system-namespaces-controller',
      'poststarthook/rbac/bootstrap-roles',
      'poststarthook/scheduling/bootstrap-system-priority-classes',
      'poststarthook/bootstrap-controller',
      'poststarthook/start-kubernetes-service-cidr-controller',
      'poststarthook/apiservice-status-local-available-controller',
      'poststarthook/kube-apiserver-autoregistration',
      'autoregister-completion',
      'shutdown',
    ]);
    assert.equal((await apiRequest(cp, 'GET', '/readyz/poststarthook/rbac/bootstrap-roles')).text, 'ok');
    assert.doesNotMatch((await apiRequest(cp, 'GET', '/livez?verbose')).text, /^\[\+\](informer-sync|shutdown) ok$/m);
    assert.equal((await apiRequest(cp, 'GET', '/livez/etcd')).text, 'ok');
    assert.equal((await apiRequest(cp, 'GET', '/livez/nonsense')).status, 404);
  });

  it('exposes Prometheus metrics with upstream names and labels', async () => {
    await apiRequest(cp, 'GET', '/api/v1/namespaces');
    const res = await apiRequest(cp, 'GET', '/metrics');
    assert.equal(res.status, 200);
    assert.match(
      res.text,
      /^apiserver_request_total\{.*verb="LIST".*resource="namespaces".*scope="cluster".*code="200"\} \d+$/m,
    );
    assert.match(res.text, /^apiserver_request_duration_seconds_bucket\{.*verb="LIST".*resource="namespaces"/m);
    assert.match(res.text, /^apiserver_storage_objects\{resource="namespaces"\} 4$/m);
    assert.match(res.text, /^# TYPE apiserver_longrunning_requests gauge$/m);
  });

  it('counts each request once under its own labels and code', async () => {
    const path = '/api/v1/namespaces/default/configmaps/metric-probe';
    for (let i = 0; i < 3; i++) assert.equal((await apiRequest(cp, 'GET', path)).status, 404);
    await apiRequest(cp, 'POST', '/api/v1/namespaces/default/configmaps', {
      body: { metadata: { name: 'metric-probe' } },
    });
    for (let i = 0; i < 2; i++) assert.equal((await apiRequest(cp, 'GET', path)).status, 200);
    await apiRequest(cp, 'POST', '/api/v1/namespaces/default/configmaps?dryRun=All', {
      body: { metadata: { name: 'metric-dry' } },
    });
    const text = (await apiRequest(cp, 'GET', '/metrics')).text;
    const series = (name: string, labels: string) =>
      Number(new RegExp(`^${name}\\{${labels}\\} (\\d+)$`, 'm').exec(text)?.[1]);
    const get =
      'verb="GET",group="",version="v1",resource="configmaps",subresource="",scope="resource",component="apiserver"';
    assert.equal(series('apiserver_request_total', `${get},code="404"`), 3);
    assert.equal(series('apiserver_request_total', `${get},code="200"`), 2);
    assert.equal(series('apiserver_request_duration_seconds_count', `${get},dry_run=""`), 5);
    const post =
      'verb="POST",group="",version="v1",resource="configmaps",subresource="",scope="namespace",component="apiserver"';
    assert.equal(series('apiserver_request_duration_seconds_count', `${post},dry_run=""`), 1);
    assert.equal(series('apiserver_request_duration_seconds_count', `${post},dry_run="All"`), 1);
  });

  it('lets anonymous users read health and version only', async () => {
    assert.equal((await apiRequest(cp, 'GET', '/healthz', { anonymous: true })).status, 200);
    const denied = await apiRequest(cp, 'GET', '/api/v1/namespaces/default/configmaps', { anonymous: true });
    assert.equal(denied.status, 403);
    assert.equal(denied.body.reason, 'Forbidden');
    assert.equal(
      denied.body.message,
      'configmaps is forbidden: User "system:anonymous" cannot list resource "configmaps" in API group "" in the namespace "default"',
    );
  });

  it('serves legacy and aggregated discovery', async () => {
    const api = await apiRequest(cp, 'GET', '/api');
    assert.equal(api.body.kind, 'APIVersions');
    assert.deepEqual(api.body.versions, ['v1']);
    const v1 = await apiRequest(cp, 'GET', '/api/v1');
    assert.equal(v1.body.kind, 'APIResourceList');
    const cm = v1.body.resources.find((r: { name: string }) => r.name === 'configmaps');
    assert.deepEqual(cm, {
      name: 'configmaps',
      singularName: 'configmap',
      namespaced: true,
      kind: 'ConfigMap',
      verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
      shortNames: ['cm'],
    });
    assert.ok(v1.body.resources.some((r: { name: string }) => r.name === 'namespaces/status'));
    const agg = await apiRequest(cp, 'GET', '/api', {
      headers: { accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json' },
    });
    assert.equal(agg.headers['content-type'], 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList');
    assert.equal(agg.body.kind, 'APIGroupDiscoveryList');
    const core = agg.body.items[0];
    assert.equal(core.metadata.name, '');
    const ns = core.versions[0].resources.find((r: { resource: string }) => r.resource === 'namespaces');
    assert.equal(ns.scope, 'Cluster');
    assert.deepEqual(
      ns.subresources.map((s: { subresource: string }) => s.subresource),
      ['finalize', 'status'],
    );
  });

  it('answers unknown resources of served API groups with a 404 Status, other unknown paths as Go does', async () => {
    for (const path of ['/api/v1/widgets', '/apis/apps/v1/widgets', '/apis/apps/v9/deployments', '/api/nope']) {
      const res = await apiRequest(cp, 'GET', path);
      assert.equal(res.status, 404, path);
      assert.equal(res.body.kind, 'Status');
      assert.equal(res.body.reason, 'NotFound');
      assert.equal(res.body.message, 'the server could not find the requested resource');
    }
    // Where upstream's handler chain ends (its not-found handler calls http.NotFound): plain text.
    for (const path of ['/nope', '/apis/example.com/v1/things', '/apis/example.com']) {
      const res = await apiRequest(cp, 'GET', path);
      assert.equal(res.status, 404, path);
      assert.equal(res.headers['content-type'], 'text/plain; charset=utf-8', path);
      assert.equal(res.text, '404 page not found\n', path);
    }
  });

  it('refuses malformed and oversized bodies without harm', async () => {
    const bad = await apiRequest(cp, 'POST', '/api/v1/namespaces/default/configmaps', { body: '{"metadata": {' });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.reason, 'BadRequest');
    const huge = await apiRequest(cp, 'POST', '/api/v1/namespaces/default/configmaps', {
      body: { metadata: { name: 'huge' }, data: { a: 'x'.repeat(3 * 1024 * 1024 + 10) } },
    });
    assert.equal(huge.status, 413);
    assert.equal(huge.body.reason, 'RequestEntityTooLarge');
    assert.equal((await apiRequest(cp, 'GET', '/version')).status, 200, 'the server is still fine');
  });

  it('refuses a body over 3 MiB that announced no length, as it streams in', async () => {
    const session = adminSession(cp);
    try {
      const stream = session.request({
        ':method': 'POST',
        ':path': '/api/v1/namespaces/default/configmaps',
        'content-type': 'application/json',
      });
      const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
        let status = 0;
        let text = '';
        stream.on('response', (h) => {
          status = Number(h[':status']);
        });
        stream.setEncoding('utf8');
        stream.on('data', (d: string) => {
          text += d;
        });
        stream.on('end', () => resolve({ status, text }));
        stream.on('error', reject);
      });
      stream.on('error', () => {});
      const chunk = 'x'.repeat(64 * 1024);
      stream.write('{"metadata":{"name":"streamed"},"data":{"a":"');
      for (let sent = 0; sent <= 3 * 1024 * 1024 && !stream.closed; sent += chunk.length) {
        if (!stream.write(chunk)) await new Promise((r) => stream.once('drain', r).once('close', r));
      }
      if (!stream.closed) stream.end('"}}');
      const { status, text } = await answer;
      assert.equal(status, 413);
      assert.equal(JSON.parse(text).reason, 'RequestEntityTooLarge');
    } finally {
      session.close();
    }
    assert.equal((await apiRequest(cp, 'GET', '/api/v1/namespaces/default/configmaps/streamed')).status, 404);
    assert.equal((await apiRequest(cp, 'GET', '/version')).status, 200, 'the server is still fine');
  });

  it('speaks HTTP/2 with upstream flow-control windows (256 KiB a stream, 250 streams of it a connection)', async () => {
    const session = adminSession(cp);
    try {
      await new Promise((resolve, reject) => {
        session.once('remoteSettings', resolve);
        session.once('error', reject);
      });
      assert.equal(session.alpnProtocol, 'h2');
      assert.equal(session.remoteSettings.initialWindowSize, 256 * 1024);
      // The connection window comes in a WINDOW_UPDATE after the settings; an answer on the session follows it.
      const body = await new Promise<string>((resolve, reject) => {
        const stream = session.request({ ':path': '/version' });
        let text = '';
        stream.setEncoding('utf8');
        stream.on('data', (d: string) => {
          text += d;
        });
        stream.on('end', () => resolve(text));
        stream.on('error', reject);
      });
      assert.equal(JSON.parse(body).minor, '33');
      assert.equal(session.state.remoteWindowSize, 250 * 256 * 1024);
    } finally {
      session.close();
    }
  });
});
