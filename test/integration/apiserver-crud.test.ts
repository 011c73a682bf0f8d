import { after, before, describe, it } from 'node:test';
import { type ControlPlane, startControlPlane } from '../../src/index.js';
import { apiRequest } from '../../src/testing/api-client.js';
import assert from '../../src/testing/assert.js';

const CMS = '/api/v1/namespaces/default/configmaps';
const cm = (name: string, data: Record<string, string> = {}, labels?: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, ...(labels ? { labels } : {}) },
  data,
});

describe('apiserver: the generic registry on ConfigMaps, Secrets and Namespaces', () => {
  let cp: ControlPlane;
  before(async () => {
    cp = await startControlPlane();
  });
  after(async () => {
    await cp?.stop();
  });

  it('creates with system fields, and refuses a duplicate with AlreadyExists', async () => {
    const res = await apiRequest(cp, 'POST', CMS, { body: cm('one', { a: '1' }) });
    assert.equal(res.status, 201);
    const meta = res.body.metadata;
    assert.equal(meta.namespace, 'default');
    assert.match(meta.uid, /^[0-9a-f-]{36}$/);
    assert.match(meta.creationTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.match(meta.resourceVersion, /^\d+$/);
    const dup = await apiRequest(cp, 'POST', CMS, { body: cm('one') });
    assert.equal(dup.status, 409);
    assert.equal(dup.body.reason, 'AlreadyExists');
    assert.equal(dup.body.message, 'configmaps "one" already exists');
    assert.deepEqual(dup.body.details, { name: 'one', kind: 'configmaps' });
  });

  it('answers a GET with the object as stored, its resourceVersion included, in JSON, YAML and metadata form', async () => {
    const created = await apiRequest(cp, 'POST', CMS, {
      body: cm('read-me', { 'k.dotted': 'v' }, { 'app.kubernetes.io/name': 'b' }),
    });
    assert.equal(created.status, 201);
    const got = await apiRequest(cp, 'GET', `${CMS}/read-me`);
    assert.equal(got.status, 200);
    assert.equal(got.headers['content-type'], 'application/json');
    assert.equal(Number(got.headers['content-length']), Buffer.byteLength(got.text));
    assert.deepEqual(got.body, created.body);
    assert.equal(
      got.text.indexOf('"resourceVersion"'),
      got.text.lastIndexOf('"resourceVersion"'),
      'one resourceVersion',
    );
    const yaml = await apiRequest(cp, 'GET', `${CMS}/read-me`, { headers: { accept: 'application/yaml' } });
    assert.equal(yaml.headers['content-type'], 'application/yaml');
    assert.match(yaml.text, new RegExp(`resourceVersion: "${created.body.metadata.resourceVersion}"`));
    const meta = await apiRequest(cp, 'GET', `${CMS}/read-me`, {
      headers: { accept: 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1' },
    });
    assert.equal(meta.body.kind, 'PartialObjectMetadata');
    assert.deepEqual(meta.body.metadata, created.body.metadata);
    assert.equal(meta.body.data, undefined);
    const missing = await apiRequest(cp, 'GET', `${CMS}/not-there`);
    assert.equal(missing.status, 404);
    assert.equal(missing.body.message, 'configmaps "not-there" not found');
  });

  it('answers a create, an update and a patch with the object as a GET then reads it', async () => {
    const sameAsGet = async (res: Awaited<ReturnType<typeof apiRequest>>, code: number) => {
      assert.equal(res.status, code);
      assert.equal(Number(res.headers['content-length']), Buffer.byteLength(res.text));
      assert.equal(res.text.indexOf('"resourceVersion"'), res.text.lastIndexOf('"resourceVersion"'));
      const got = await apiRequest(cp, 'GET', `${CMS}/${res.body.metadata.name}`);
      assert.deepEqual(res.body, got.body);
      return res.body;
    };
    const created = await sameAsGet(await apiRequest(cp, 'POST', CMS, { body: cm('written', { a: '1' }) }), 201);
    assert.equal(created.metadata.managedFields[0].manager !== undefined, true);
    const updated = await sameAsGet(
      await apiRequest(cp, 'PUT', `${CMS}/written`, { body: { ...created, data: { a: '2' } } }),
      200,
    );
    assert.notEqual(updated.metadata.resourceVersion, created.metadata.resourceVersion);
    const patched = await sameAsGet(
      await apiRequest(cp, 'PATCH', `${CMS}/written`, {
        body: { data: { b: '3' } },
        contentType: 'application/merge-patch+json',
      }),
      200,
    );
    assert.deepEqual(patched.data, { a: '2', b: '3' });
    const yaml = await apiRequest(cp, 'POST', CMS, {
      body: cm('written-yaml'),
      headers: { accept: 'application/yaml' },
    });
    assert.equal(yaml.status, 201);
    assert.match(yaml.text, /^apiVersion: v1\n/);
  });

  it('refuses a create that names a resourceVersion, as the storage layer does (500, no reason)', async () => {
    const named = cm('with-rv', { a: '1' }) as { metadata: Record<string, unknown> };
    named.metadata.resourceVersion = '123';
    const refused = await apiRequest(cp, 'POST', CMS, { body: named });
    assert.equal(refused.status, 500, refused.text);
    assert.deepEqual(refused.body, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'resourceVersion should not be set on objects to be created',
      code: 500,
    });
    // A dry run does not reach storage; "0" names no revision.
    assert.equal((await apiRequest(cp, 'POST', `${CMS}?dryRun=All`, { body: named })).status, 201);
    named.metadata.resourceVersion = '0';
    assert.equal((await apiRequest(cp, 'POST', CMS, { body: named })).status, 201);
  });

  it('generates names from generateName', async () => {
    const res = await apiRequest(cp, 'POST', CMS, { body: { metadata: { generateName: 'gen-' } } });
    assert.equal(res.status, 201);
    assert.match(res.body.metadata.name, /^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  });

  it("refuses values of the wrong type with Go's decoding error, before any validation", async () => {
    const refused = async (path: string, body: unknown, message: string) => {
      const res = await apiRequest(cp, 'POST', path, { body });
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.equal(res.body.reason, 'BadRequest');
      assert.equal(res.body.message, message);
    };
    await refused(
      CMS,
      { metadata: { name: 'typed' }, data: { port: 8080 } },
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ConfigMap.data of type string',
    );
    // This one used to fail inside the server (500).
    await refused(
      CMS,
      { metadata: { name: 'typed', labels: { a: true } } },
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal bool into Go struct field ObjectMeta.metadata.labels of type string',
    );
    await refused(
      '/api/v1/namespaces/default/secrets',
      { metadata: { name: 'typed' }, data: { pw: 'hunter2!' } },
      'Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 7',
    );
    await refused(
      '/apis/apps/v1/namespaces/default/deployments',
      { metadata: { name: 'typed' }, spec: { replicas: '2' } },
      'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32',
    );
    await refused(
      '/api/v1/namespaces/default/pods',
      {
        metadata: { name: 'typed' },
        spec: { containers: [{ name: 'c', image: 'i', ports: [{ containerPort: '80' }] }] },
      },
      'Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal string into Go struct field ContainerPort.spec.containers.ports.containerPort of type int32',
    );
    // Quantities and int-or-string fields take numbers and strings; null leaves a field unset.
    const pod = await apiRequest(cp, 'POST', '/api/v1/namespaces/default/pods', {
      body: {
        metadata: { name: 'typed', labels: null },
        spec: {
          containers: [
            {
              name: 'c',
              image: 'i',
              resources: { limits: { cpu: 1, memory: '1Gi' } },
              readinessProbe: { httpGet: { port: 8080 } },
              livenessProbe: { tcpSocket: { port: 'http' } },
              ports: [{ name: 'http', containerPort: 80 }],
            },
          ],
        },
      },
    });
    assert.equal(pod.status, 201, JSON.stringify(pod.body));
    assert.equal((await apiRequest(cp, 'GET', `${CMS}/typed`)).status, 404, 'nothing refused was stored');

    // A patch that brings a value of the wrong type is refused as upstream's decoder or converter refuses it.
    const DEPLOYS = '/apis/apps/v1/namespaces/default/deployments';
    const deploy = {
      metadata: { name: 'typed' },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'typed' } },
        template: { metadata: { labels: { app: 'typed' } }, spec: { containers: [{ name: 'c', image: 'i' }] } },
      },
    };
    assert.equal((await apiRequest(cp, 'POST', DEPLOYS, { body: deploy })).status, 201);
    const patch = async (contentType: string, body: unknown) =>
      apiRequest(cp, 'PATCH', `${DEPLOYS}/typed`, { body, contentType });
    const smp = await patch('application/strategic-merge-patch+json', { spec: { replicas: '4' } });
    assert.equal(smp.status, 422);
    assert.equal(
      smp.body.message,
      ' "" is invalid: patch: Invalid value: "map[spec:map[replicas:4]]": unrecognized type: int32',
    );
    const half = await patch('application/strategic-merge-patch+json', { spec: { replicas: 2.5 } });
    assert.match(half.body.message, /: cannot convert float64 to int32$/);
    const merge = await patch('application/merge-patch+json', { spec: { paused: 'yes' } });
    assert.equal(merge.status, 422);
    assert.match(
      merge.body.message,
      /^ "" is invalid: patch: Invalid value: "\{.*\}": json: cannot unmarshal string into Go struct field DeploymentSpec\.spec\.paused of type bool$/,
    );
    const stored = await apiRequest(cp, 'GET', `${DEPLOYS}/typed`);
    assert.deepEqual(
      [stored.body.spec.replicas, stored.body.spec.paused],
      [1, undefined],
      'nothing patched was stored',
    );
  });

  it('reads time fields as Go does (time.Parse with the type layout) and stores them as the type writes them', async () => {
    const EVENTS = '/api/v1/namespaces/default/events';
    const event = (name: string, times: Record<string, unknown>) => ({
      metadata: { name },
      involvedObject: { kind: 'Pod', name: 'p', namespace: 'default' },
      reason: 'Tested',
      ...times,
    });
    const bad = await apiRequest(cp, 'POST', EVENTS, { body: event('bad-time', { firstTimestamp: 'yesterday' }) });
    assert.equal(bad.status, 400);
    assert.equal(
      bad.body.message,
      'Event in version "v1" cannot be handled as a Event: parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"',
    );
    const badDay = await apiRequest(cp, 'POST', EVENTS, {
      body: event('bad-time', { lastTimestamp: '2023-02-29T10:00:00Z' }),
    });
    assert.equal(
      badDay.body.message,
      'Event in version "v1" cannot be handled as a Event: parsing time "2023-02-29T10:00:00Z": day out of range',
    );
    // A MicroTime takes exactly six fraction digits (what JavaScript's toISOString writes is refused).
    const LEASES = '/apis/coordination.k8s.io/v1/namespaces/default/leases';
    const lease = await apiRequest(cp, 'POST', LEASES, {
      body: { metadata: { name: 'ms' }, spec: { renewTime: '2024-05-06T07:08:09.123Z' } },
    });
    assert.equal(lease.status, 400);
    assert.equal(
      lease.body.message,
      'Lease in version "v1" cannot be handled as a Lease: parsing time "2024-05-06T07:08:09.123Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse ".123Z" as ".000000"',
    );
    // Accepted times are kept in UTC, Time to the second, MicroTime to the microsecond; Go's zero time is null.
    const made = await apiRequest(cp, 'POST', EVENTS, {
      body: event('times', {
        firstTimestamp: '2024-05-06T07:08:09.987+02:00',
        lastTimestamp: '0001-01-01T00:00:00Z',
        eventTime: '2024-05-06T07:08:09.123456-01:30',
        reportingComponent: 'tests',
        reportingInstance: 'here',
        action: 'Testing',
      }),
    });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const stored = (await apiRequest(cp, 'GET', `${EVENTS}/times`)).body;
    assert.deepEqual(
      [stored.firstTimestamp, stored.lastTimestamp, stored.eventTime],
      ['2024-05-06T05:08:09Z', null, '2024-05-06T08:38:09.123456Z'],
    );
    assert.equal(made.body.firstTimestamp, '2024-05-06T05:08:09Z', 'the answer shows what was stored');
    // Patches: the patched object is decoded (merge, JSON patch) or converted (strategic merge) the same way.
    const patch = (contentType: string, body: unknown) =>
      apiRequest(cp, 'PATCH', `${EVENTS}/times`, { body, contentType });
    const merged = await patch('application/merge-patch+json', { firstTimestamp: '2024-05-06T07:08:09-01:00' });
    assert.equal(merged.body.firstTimestamp, '2024-05-06T08:08:09Z');
    const strategic = await patch('application/strategic-merge-patch+json', { lastTimestamp: '2024-05-06T1:02:03Z' });
    assert.equal(strategic.body.lastTimestamp, '2024-05-06T01:02:03Z');
    const jsonPatched = await patch('application/json-patch+json', [
      { op: 'replace', path: '/firstTimestamp', value: '2024-05-06T07:08:09,5+00:00' },
    ]);
    assert.equal(jsonPatched.body.firstTimestamp, '2024-05-06T07:08:09Z');
    // Go's zero time in a patch is a zero time (stored as null), not a deletion of the field.
    const zeroed = await patch('application/merge-patch+json', { lastTimestamp: '0001-01-01T00:00:00Z' });
    assert.equal(zeroed.status, 200, zeroed.text);
    assert.ok(Object.hasOwn(zeroed.body, 'lastTimestamp') && zeroed.body.lastTimestamp === null, zeroed.text);
    const refused = await patch('application/merge-patch+json', { firstTimestamp: '2024-05-06' });
    assert.equal(refused.status, 422);
    assert.match(
      refused.body.message,
      /: parsing time "2024-05-06" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "T"$/,
    );
    assert.equal((await apiRequest(cp, 'GET', `${EVENTS}/times`)).body.firstTimestamp, '2024-05-06T07:08:09Z');
  });

  it('refuses a body of a media type no serializer reads with 415, and reads one without a type as JSON', async () => {
    for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
      const res = await apiRequest(cp, 'POST', CMS, { body: cm('typeless'), contentType });
      assert.equal(res.status, 415, contentType);
      assert.equal(res.body.reason, 'UnsupportedMediaType');
      assert.equal(
        res.body.message,
        'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf',
      );
    }
    const broken = await apiRequest(cp, 'POST', CMS, {
      body: '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"',
    });
    assert.equal(broken.status, 400);
    assert.equal(
      broken.body.message,
      `the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: unexpected end of JSON input ({"apiVersion":"v1","kind":"Con ...)`,
    );
    const notJson = await apiRequest(cp, 'POST', CMS, { body: 'name: x' });
    assert.equal(
      notJson.body.message,
      "the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: invalid character 'a' in literal null (expecting 'u') (6e616d653a2078)",
    );
    const untyped = await apiRequest(cp, 'POST', CMS, { body: cm('typeless'), contentType: '' });
    assert.equal(untyped.status, 201, JSON.stringify(untyped.body));
  });

  it('validates names with upstream messages', async () => {
    const res = await apiRequest(cp, 'POST', CMS, { body: cm('Bad_Name') });
    assert.equal(res.status, 422);
    assert.equal(res.body.reason, 'Invalid');
    assert.match(
      res.body.message,
      /^ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain/,
    );
    assert.equal(res.body.details.causes[0].field, 'metadata.name');
    const ns = await apiRequest(cp, 'POST', '/api/v1/namespaces', { body: { metadata: { name: 'a.b' } } });
    assert.equal(ns.status, 422, 'namespace names are DNS labels');
  });

  it('refuses content in a namespace that does not exist', async () => {
    const res = await apiRequest(cp, 'POST', '/api/v1/namespaces/nowhere/configmaps', { body: cm('x') });
    assert.equal(res.status, 404);
    assert.equal(res.body.message, 'namespaces "nowhere" not found');
  });

  it('updates with optimistic concurrency and bumps nothing on a no-op', async () => {
    const created = (await apiRequest(cp, 'POST', CMS, { body: cm('upd', { v: '1' }) })).body;
    const next = { ...created, data: { v: '2' } };
    const ok = await apiRequest(cp, 'PUT', `${CMS}/upd`, { body: next });
    assert.equal(ok.status, 200);
    assert.notEqual(ok.body.metadata.resourceVersion, created.metadata.resourceVersion);
    const stale = await apiRequest(cp, 'PUT', `${CMS}/upd`, { body: { ...created, data: { v: '3' } } });
    assert.equal(stale.status, 409);
    assert.equal(stale.body.reason, 'Conflict');
    assert.equal(
      stale.body.message,
      'Operation cannot be fulfilled on configmaps "upd": the object has been modified; please apply your changes to the latest version and try again',
    );
    const same = await apiRequest(cp, 'PUT', `${CMS}/upd`, { body: ok.body });
    assert.equal(same.body.metadata.resourceVersion, ok.body.metadata.resourceVersion, 'a no-op update writes nothing');
    const immutable = await apiRequest(cp, 'PUT', `${CMS}/upd`, {
      body: { ...ok.body, metadata: { ...ok.body.metadata, uid: '00000000-0000-0000-0000-000000000000' } },
    });
    assert.equal(immutable.status, 409, 'a uid in the body is a precondition');
    // A patch naming a resourceVersion is conditional on it too, in each patch format.
    const staleRV = created.metadata.resourceVersion;
    for (const [contentType, body] of [
      ['application/merge-patch+json', { metadata: { resourceVersion: staleRV }, data: { v: '4' } }],
      ['application/strategic-merge-patch+json', { metadata: { resourceVersion: staleRV }, data: { v: '4' } }],
      [
        'application/json-patch+json',
        [
          { op: 'replace', path: '/metadata/resourceVersion', value: staleRV },
          { op: 'replace', path: '/data/v', value: '4' },
        ],
      ],
    ] as const) {
      const patched = await apiRequest(cp, 'PATCH', `${CMS}/upd`, { body, contentType });
      assert.equal(patched.status, 409, contentType);
      assert.equal(patched.body.reason, 'Conflict');
    }
    const current = await apiRequest(cp, 'GET', `${CMS}/upd`);
    const fresh = await apiRequest(cp, 'PATCH', `${CMS}/upd`, {
      body: { metadata: { resourceVersion: current.body.metadata.resourceVersion }, data: { v: '5' } },
      contentType: 'application/merge-patch+json',
    });
    assert.equal(fresh.status, 200);
    assert.equal(fresh.body.data.v, '5');
  });

  it('patches with JSON patch, merge patch and strategic merge patch', async () => {
    await apiRequest(cp, 'POST', CMS, { body: cm('p', { a: '1' }, { app: 'x' }) });
    const merge = await apiRequest(cp, 'PATCH', `${CMS}/p`, {
      body: { data: { b: '2' }, metadata: { labels: { app: null, tier: 'fe' } } },
      contentType: 'application/merge-patch+json',
    });
    assert.equal(merge.status, 200);
    assert.deepEqual(merge.body.data, { a: '1', b: '2' });
    assert.deepEqual(merge.body.metadata.labels, { tier: 'fe' });
    const json = await apiRequest(cp, 'PATCH', `${CMS}/p`, {
      body: [
        { op: 'remove', path: '/data/a' },
        { op: 'add', path: '/metadata/labels/app.kubernetes.io~1name', value: 'web' },
      ],
      contentType: 'application/json-patch+json',
    });
    assert.equal(json.status, 200);
    assert.deepEqual(json.body.data, { b: '2' });
    assert.equal(json.body.metadata.labels['app.kubernetes.io/name'], 'web');
    const smp = await apiRequest(cp, 'PATCH', `${CMS}/p`, {
      body: { data: { c: '3' } },
      contentType: 'application/strategic-merge-patch+json',
    });
    assert.deepEqual(smp.body.data, { b: '2', c: '3' });
    const failedTest = await apiRequest(cp, 'PATCH', `${CMS}/p`, {
      body: [{ op: 'test', path: '/data/b', value: 'nope' }],
      contentType: 'application/json-patch+json',
    });
    assert.equal(failedTest.status, 422);
    // Upstream answers a patch that does not apply with NewGenericServerResponse(422): the library's text is not sent.
    assert.equal(failedTest.body.reason, 'Invalid');
    assert.equal(failedTest.body.message, 'the server rejected our request due to an error in our request');
    assert.deepEqual(failedTest.body.details, {});
    const apply = await apiRequest(cp, 'PATCH', `${CMS}/p`, {
      body: 'data: {}',
      contentType: 'application/apply-patch+yaml',
    });
    assert.equal(apply.status, 415);
    assert.equal(apply.body.reason, 'UnsupportedMediaType');
  });

  it('merges Secret stringData into base64 data', async () => {
    const res = await apiRequest(cp, 'POST', '/api/v1/namespaces/default/secrets', {
      body: {
        metadata: { name: 's' },
        stringData: { password: 'hunter2' },
        data: { user: Buffer.from('me').toString('base64') },
      },
    });
    assert.equal(res.status, 201);
    assert.equal(res.body.type, 'Opaque');
    assert.equal(res.body.stringData, undefined);
    assert.equal(Buffer.from(res.body.data.password, 'base64').toString(), 'hunter2');
    assert.equal(Buffer.from(res.body.data.user, 'base64').toString(), 'me');
  });

  it('runs dryRun=All without storing anything', async () => {
    const res = await apiRequest(cp, 'POST', `${CMS}?dryRun=All`, { body: cm('dry') });
    assert.equal(res.status, 201);
    assert.equal((await apiRequest(cp, 'GET', `${CMS}/dry`)).status, 404);
    const del = await apiRequest(cp, 'DELETE', `${CMS}/one?dryRun=All`);
    assert.equal(del.status, 200);
    assert.equal((await apiRequest(cp, 'GET', `${CMS}/one`)).status, 200);
  });

  it('lists with label and field selectors and pages with limit/continue at one revision', async () => {
    for (let i = 0; i < 7; i++) {
      await apiRequest(cp, 'POST', '/api/v1/namespaces/kube-public/configmaps', {
        body: cm(`page-${i}`, {}, { group: i % 2 === 0 ? 'even' : 'odd' }),
      });
    }
    const even = await apiRequest(cp, 'GET', '/api/v1/namespaces/kube-public/configmaps?labelSelector=group%3Deven');
    assert.deepEqual(
      even.body.items.map((i: { metadata: { name: string } }) => i.metadata.name),
      ['page-0', 'page-2', 'page-4', 'page-6'],
    );
    assert.equal(even.body.kind, 'ConfigMapList');
    const byName = await apiRequest(cp, 'GET', '/api/v1/configmaps?fieldSelector=metadata.name%3Dpage-3');
    assert.deepEqual(
      byName.body.items.map((i: { metadata: { namespace: string } }) => i.metadata.namespace),
      ['kube-public'],
    );
    const badField = await apiRequest(cp, 'GET', '/api/v1/configmaps?fieldSelector=spec.nope%3D1');
    assert.equal(badField.status, 400);
    assert.equal(badField.body.message, 'field label not supported: spec.nope');
    const badLabel = await apiRequest(cp, 'GET', '/api/v1/configmaps?labelSelector=a%20in%20(');
    assert.equal(badLabel.status, 400);

    const names: string[] = [];
    const remaining: (number | undefined)[] = [];
    let page = await apiRequest(cp, 'GET', '/api/v1/namespaces/kube-public/configmaps?limit=3');
    const rv = page.body.metadata.resourceVersion;
    await apiRequest(cp, 'POST', '/api/v1/namespaces/kube-public/configmaps', { body: cm('page-late') });
    for (;;) {
      names.push(...page.body.items.map((i: { metadata: { name: string } }) => i.metadata.name));
      remaining.push(page.body.metadata.remainingItemCount);
      assert.equal(page.body.metadata.resourceVersion, rv, 'every page is read at the first page revision');
      const token = page.body.metadata.continue;
      if (!token) break;
      page = await apiRequest(
        cp,
        'GET',
        `/api/v1/namespaces/kube-public/configmaps?limit=3&continue=${encodeURIComponent(token)}`,
      );
      assert.equal(page.status, 200);
    }
    assert.deepEqual(
      names,
      Array.from({ length: 7 }, (_, i) => `page-${i}`),
    );
    // What follows each page at its revision; the last page has nothing left and leaves the field out.
    assert.deepEqual(remaining, [4, 1, undefined]);
    // With a selector the server cannot tell how many of the rest would match, so it says nothing.
    const selected = await apiRequest(
      cp,
      'GET',
      '/api/v1/namespaces/kube-public/configmaps?limit=3&labelSelector=nothing%21%3Dthere',
    );
    assert.ok(selected.body.metadata.continue, 'a selected list is paginated too');
    assert.equal(selected.body.metadata.remainingItemCount, undefined);
    const table = await apiRequest(cp, 'GET', '/api/v1/namespaces/kube-public/configmaps?limit=3', {
      headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' },
    });
    assert.equal(table.body.metadata.remainingItemCount, 5, 'a Table carries it as the list does (page-late too)');
    const bogus = await apiRequest(cp, 'GET', '/api/v1/namespaces/kube-public/configmaps?limit=3&continue=garbage');
    assert.equal(bogus.status, 400);
    // A token of JSON null decodes as an empty token: refused the same way, not a 500.
    const nullToken = Buffer.from('null').toString('base64url');
    const empty = await apiRequest(
      cp,
      'GET',
      `/api/v1/namespaces/kube-public/configmaps?limit=3&continue=${nullToken}`,
    );
    assert.equal(empty.status, 400, empty.text);
    assert.match(empty.body.message, /^invalid continue token: continue key is not valid/);
  });

  it('never deletes more than the request names: status subresources, dot segments, DeleteOptions of the wrong type', async () => {
    const pods = '/api/v1/namespaces/default/pods';
    const created = await apiRequest(cp, 'POST', pods, {
      body: { metadata: { name: 'keep' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } },
    });
    assert.equal(created.status, 201, created.text);
    const statusWatch = await apiRequest(cp, 'GET', '/api/v1/watch/namespaces/default/pods/keep/status');
    assert.equal(statusWatch.status, 404, statusWatch.text);
    const statusDelete = await apiRequest(cp, 'DELETE', `${pods}/keep/status`);
    assert.equal(statusDelete.status, 405, statusDelete.text);
    assert.equal(statusDelete.body.reason, 'MethodNotAllowed');
    assert.equal((await apiRequest(cp, 'GET', `${pods}/keep`)).status, 200, 'the pod is still there');

    assert.equal(
      (await apiRequest(cp, 'POST', '/api/v1/namespaces', { body: { metadata: { name: 'dots' } } })).status,
      201,
    );
    for (const name of ['..', '%2e%2e', '.%2E', '.']) {
      const res = await apiRequest(cp, 'DELETE', `/api/v1/namespaces/dots/configmaps/${name}`, { rawPath: true });
      assert.equal(res.status, 400, `${name}: ${res.text}`);
      const dot = name.replace(/%2e/gi, '.');
      assert.equal(res.body.message, `Name parameter invalid: "${dot}": may not be '${dot}'`);
    }
    assert.equal((await apiRequest(cp, 'GET', '/api/v1/namespaces/dots')).body.status.phase, 'Active');

    assert.equal((await apiRequest(cp, 'POST', CMS, { body: cm('opts') })).status, 201);
    const stringDryRun = await apiRequest(cp, 'DELETE', `${CMS}/opts`, { body: { dryRun: 'All' } });
    assert.equal(stringDryRun.status, 400, stringDryRun.text);
    assert.equal(
      stringDryRun.body.message,
      'json: cannot unmarshal string into Go struct field DeleteOptions.dryRun of type []string',
    );
    const bogusDryRun = await apiRequest(cp, 'DELETE', `${CMS}/opts`, { body: { dryRun: ['Bogus'] } });
    assert.equal(bogusDryRun.status, 422, bogusDryRun.text);
    assert.equal(
      bogusDryRun.body.message,
      'DeleteOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"Bogus"}: supported values: "All"',
    );
    assert.equal((await apiRequest(cp, 'GET', `${CMS}/opts`)).status, 200, 'the configmap is still there');
    assert.equal((await apiRequest(cp, 'DELETE', `${CMS}/opts`, { body: { dryRun: ['All'] } })).status, 200);
    assert.equal((await apiRequest(cp, 'GET', `${CMS}/opts`)).status, 200, 'a dry run deletes nothing');
  });

  it('reads limit as an int64 and YAML bodies as sigs.k8s.io/yaml does', async () => {
    for (const [limit, why] of [
      ['1.5', 'strconv.ParseInt: parsing "1.5": invalid syntax'],
      ['abc', 'strconv.ParseInt: parsing "abc": invalid syntax'],
      ['99999999999999999999', 'strconv.ParseInt: parsing "99999999999999999999": value out of range'],
    ]) {
      const res = await apiRequest(cp, 'GET', `${CMS}?limit=${limit}`);
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.message, why);
    }
    const widest = await apiRequest(cp, 'GET', `${CMS}?limit=9223372036854775807`);
    assert.equal(widest.status, 200, widest.text);
    assert.equal(widest.body.metadata.continue, undefined);

    const yaml = [
      'apiVersion: v1',
      'kind: ConfigMap',
      'metadata: {name: yaml-body}',
      'data:',
      '  released: 2024-01-01',
      '  greeting: !!binary aGVsbG8=',
      '  first: &v one',
      '  second: *v',
    ].join('\n');
    const res = await apiRequest(cp, 'POST', CMS, { body: yaml, contentType: 'application/yaml' });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(res.body.data, { released: '2024-01-01', greeting: 'hello', first: 'one', second: 'one' });
  });

  it('returns a Table when kubectl asks for one', async () => {
    const res = await apiRequest(cp, 'GET', '/api/v1/namespaces?includeObject=Object', {
      headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json' },
    });
    assert.equal(res.body.kind, 'Table');
    assert.deepEqual(
      res.body.columnDefinitions.map((c: { name: string }) => c.name),
      ['Name', 'Status', 'Age'],
    );
    const names = res.body.rows.map((r: { cells: string[] }) => r.cells[0]);
    for (const n of ['default', 'kube-node-lease', 'kube-public', 'kube-system']) assert.ok(names.includes(n), n);
    assert.equal(res.body.rows[0].cells[1], 'Active');
    assert.equal(res.body.rows[0].object.kind, 'Namespace');
    const meta = await apiRequest(cp, 'GET', `${CMS}/one`, {
      headers: { accept: 'application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io' },
    });
    assert.equal(meta.body.kind, 'PartialObjectMetadata');
    assert.equal(meta.body.data, undefined);
  });

  it('keeps an object with finalizers until the last one is removed', async () => {
    await apiRequest(cp, 'POST', CMS, { body: { metadata: { name: 'fin', finalizers: ['example.com/hold'] } } });
    const del = await apiRequest(cp, 'DELETE', `${CMS}/fin`);
    assert.equal(del.status, 200);
    assert.ok(del.body.metadata.deletionTimestamp);
    const still = await apiRequest(cp, 'GET', `${CMS}/fin`);
    assert.equal(still.status, 200);
    const done = await apiRequest(cp, 'PATCH', `${CMS}/fin`, {
      body: { metadata: { finalizers: null } },
      contentType: 'application/merge-patch+json',
    });
    assert.equal(done.status, 200);
    assert.equal((await apiRequest(cp, 'GET', `${CMS}/fin`)).status, 404);
  });

  it('moves the generation of an object that tracks one when its deletion starts, once, as upstream', async () => {
    const deployments = '/apis/apps/v1/namespaces/default/deployments';
    const body = {
      metadata: { name: 'gen', finalizers: ['example.com/hold'] },
      spec: {
        selector: { matchLabels: { app: 'gen' } },
        template: { metadata: { labels: { app: 'gen' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
      },
    };
    assert.equal((await apiRequest(cp, 'POST', deployments, { body })).status, 201);
    const del = await apiRequest(cp, 'DELETE', `${deployments}/gen?propagationPolicy=Foreground`);
    assert.equal(del.status, 200, del.text);
    assert.equal(del.body.metadata.generation, 2);
    const again = await apiRequest(cp, 'DELETE', `${deployments}/gen`);
    assert.equal(again.body.metadata.generation, 2, 'a second delete does not move it again');
    // A ConfigMap tracks no generation: it has none to move.
    await apiRequest(cp, 'POST', CMS, { body: { metadata: { name: 'nogen', finalizers: ['example.com/hold'] } } });
    assert.equal((await apiRequest(cp, 'DELETE', `${CMS}/nogen`)).body.metadata.generation, undefined);
    for (const path of [`${deployments}/gen`, `${CMS}/nogen`]) {
      const patch = { body: { metadata: { finalizers: null } }, contentType: 'application/merge-patch+json' };
      assert.equal((await apiRequest(cp, 'PATCH', path, patch)).status, 200);
    }
  });

  it('keeps a deleted namespace Terminating until it is finalized, and refuses new content in it', async () => {
    await apiRequest(cp, 'POST', '/api/v1/namespaces', { body: { metadata: { name: 'doomed' } } });
    const created = await apiRequest(cp, 'GET', '/api/v1/namespaces/doomed');
    assert.deepEqual(created.body.spec, { finalizers: ['kubernetes'] });
    assert.equal(created.body.metadata.labels['kubernetes.io/metadata.name'], 'doomed');
    const del = await apiRequest(cp, 'DELETE', '/api/v1/namespaces/doomed');
    assert.equal(del.status, 200);
    assert.equal(del.body.status.phase, 'Terminating');
    assert.ok(del.body.metadata.deletionTimestamp);
    const refused = await apiRequest(cp, 'POST', '/api/v1/namespaces/doomed/configmaps', { body: cm('late') });
    assert.equal(refused.status, 403);
    assert.equal(
      refused.body.message,
      'configmaps "late" is forbidden: unable to create new content in namespace doomed because it is being terminated',
    );
    assert.deepEqual(refused.body.details.causes, [
      { reason: 'NamespaceTerminating', message: 'namespace doomed is being terminated', field: 'metadata.namespace' },
    ]);
    const body = { ...del.body, spec: { finalizers: [] } };
    const fin = await apiRequest(cp, 'PUT', '/api/v1/namespaces/doomed/finalize', { body });
    assert.equal(fin.status, 200);
    const v1 = (await apiRequest(cp, 'GET', '/api/v1')).body;
    assert.ok(
      v1.resources.some((r: { name: string }) => r.name === 'namespaces/finalize'),
      'discovery lists finalize',
    );
    assert.equal((await apiRequest(cp, 'GET', '/api/v1/namespaces/doomed')).status, 404);
  });

  it('deletes with preconditions and answers a Success status', async () => {
    const created = (await apiRequest(cp, 'POST', CMS, { body: cm('gone') })).body;
    const wrong = await apiRequest(cp, 'DELETE', `${CMS}/gone`, {
      body: { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: 'nope' } },
    });
    assert.equal(wrong.status, 409);
    const ok = await apiRequest(cp, 'DELETE', `${CMS}/gone`, {
      body: { preconditions: { uid: created.metadata.uid } },
    });
    assert.equal(ok.status, 200);
    assert.equal(ok.body.kind, 'Status');
    assert.equal(ok.body.status, 'Success');
    assert.deepEqual(ok.body.details, { name: 'gone', kind: 'configmaps', uid: created.metadata.uid });
    assert.equal((await apiRequest(cp, 'DELETE', `${CMS}/gone`)).status, 404);
  });
  it('a DELETE policy replaces the garbage-collection finalizers; a uid in a write must be the stored one', async () => {
    await apiRequest(cp, 'POST', CMS, {
      body: { ...cm('gc'), metadata: { name: 'gc', finalizers: ['example.com/hold'] } },
    });
    const finalizers = async (policy: string) =>
      (await apiRequest(cp, 'DELETE', `${CMS}/gc`, { body: { propagationPolicy: policy } })).body.metadata.finalizers;
    assert.deepEqual(await finalizers('Foreground'), ['example.com/hold', 'foregroundDeletion']);
    assert.deepEqual(await finalizers('Orphan'), ['example.com/hold', 'orphan']);
    assert.deepEqual(await finalizers('Background'), ['example.com/hold']);
    const orphanFalse = await apiRequest(cp, 'DELETE', `${CMS}/gc?orphanDependents=false`);
    assert.deepEqual(orphanFalse.body.metadata.finalizers, ['example.com/hold']);

    const current = (await apiRequest(cp, 'GET', `${CMS}/gc`)).body;
    const put = await apiRequest(cp, 'PUT', `${CMS}/gc`, {
      body: { ...current, metadata: { ...current.metadata, uid: 'not-the-uid' } },
    });
    assert.equal(put.status, 409);
    assert.equal(
      put.body.message,
      `Operation cannot be fulfilled on configmaps "gc": Precondition failed: UID in precondition: not-the-uid, UID in object meta: ${current.metadata.uid}`,
    );
    const patch = await apiRequest(cp, 'PATCH', `${CMS}/gc`, {
      body: { metadata: { uid: 'not-the-uid' } },
      contentType: 'application/merge-patch+json',
    });
    assert.equal(patch.status, 422);
    assert.match(patch.body.message, /metadata\.uid: Invalid value: "not-the-uid": field is immutable/);
    await apiRequest(cp, 'PATCH', `${CMS}/gc`, {
      body: { metadata: { finalizers: null } },
      contentType: 'application/merge-patch+json',
    });
    assert.equal((await apiRequest(cp, 'GET', `${CMS}/gc`)).status, 404);
  });
});
