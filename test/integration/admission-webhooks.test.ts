import { createServer } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { type ControlPlane, startControlPlane } from '../../src/index.js';
import { apiRequest } from '../../src/testing/api-client.js';
import assert from '../../src/testing/assert.js';
import { eventually } from '../../src/testing/controllers.js';
import { jsonPatch, startWebhookServer, type WebhookServer } from '../../src/testing/webhook-server.js';

const GROUP_PATH = '/apis/admissionregistration.k8s.io/v1';
const VWC = `${GROUP_PATH}/validatingwebhookconfigurations`;
const MWC = `${GROUP_PATH}/mutatingwebhookconfigurations`;
const CONFIGMAPS = (ns: string) => `/api/v1/namespaces/${ns}/configmaps`;

function configMap(name: string, labels: Record<string, string> = {}) {
  return { metadata: { name, labels }, data: { k: 'v' } };
}

/** A port nothing listens on: bound, then closed. */
async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

describe('admission webhooks: Mutating/ValidatingWebhookConfigurations called over HTTPS', () => {
  let cp: ControlPlane;
  let hook: WebhookServer;
  let seq = 0;
  before(async () => {
    [cp, hook] = await Promise.all([startControlPlane(), startWebhookServer({ dnsNames: ['hooks.webhooks.svc'] })]);
  });
  after(async () => {
    await Promise.all([cp?.stop(), hook?.close()]);
  });

  /** A namespace of the test's own, so webhooks of one test never see another's requests. */
  async function namespace(labels: Record<string, string> = {}): Promise<string> {
    const name = `wh-${++seq}`;
    const res = await apiRequest(cp, 'POST', '/api/v1/namespaces', { body: { metadata: { name, labels } } });
    assert.equal(res.status, 201, res.text);
    return name;
  }

  /** One webhook on configmaps in the namespace, at a path of the test server. */
  function webhook(name: string, path: string, ns: string, extra: Record<string, unknown> = {}) {
    return {
      name,
      clientConfig: { url: `${hook.url}${path}`, caBundle: hook.caBundle },
      rules: [{ operations: ['*'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
      namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } },
      sideEffects: 'None',
      admissionReviewVersions: ['v1'],
      ...extra,
    };
  }

  /** Creates a configuration and waits until the apiserver's watch cache (what admission reads) has it. */
  async function configure(collection: string, name: string, webhooks: unknown[]): Promise<void> {
    const kind = collection === MWC ? 'MutatingWebhookConfiguration' : 'ValidatingWebhookConfiguration';
    const res = await apiRequest(cp, 'POST', collection, {
      body: { apiVersion: 'admissionregistration.k8s.io/v1', kind, metadata: { name }, webhooks },
    });
    assert.equal(res.status, 201, res.text);
    await eventually(async () => {
      const list = await apiRequest(cp, 'GET', `${collection}?resourceVersion=0`);
      assert.ok(list.body.items.some((i: { metadata: { name: string } }) => i.metadata.name === name));
    });
  }

  it('a validating webhook denies with its message, code and reason', async () => {
    const ns = await namespace();
    hook.on('/deny', (review) =>
      review.request.object.metadata.labels?.bad === 'yes'
        ? { allowed: false, status: { code: 403, reason: 'Forbidden', message: 'bad configmaps are not welcome' } }
        : { allowed: true },
    );
    await configure(VWC, `deny-${ns}`, [webhook('deny.example.com', '/deny', ns)]);
    const denied = await apiRequest(cp, 'POST', CONFIGMAPS(ns), { body: configMap('c1', { bad: 'yes' }) });
    assert.equal(denied.status, 403, denied.text);
    assert.equal(denied.body.reason, 'Forbidden');
    assert.equal(
      denied.body.message,
      'admission webhook "deny.example.com" denied the request: bad configmaps are not welcome',
    );
    const allowed = await apiRequest(cp, 'POST', CONFIGMAPS(ns), { body: configMap('c2') });
    assert.equal(allowed.status, 201, allowed.text);
    // What the webhook was sent: AdmissionReview v1 with the request's identity and options.
    const sent = hook.received.filter((r) => r.path === '/deny').at(-1)?.review;
    assert.equal(sent.apiVersion, 'admission.k8s.io/v1');
    assert.equal(sent.kind, 'AdmissionReview');
    assert.deepEqual(sent.request.kind, { group: '', version: 'v1', kind: 'ConfigMap' });
    assert.deepEqual(sent.request.resource, { group: '', version: 'v1', resource: 'configmaps' });
    assert.deepEqual(sent.request.requestKind, { group: '', version: 'v1', kind: 'ConfigMap' });
    assert.equal(sent.request.operation, 'CREATE');
    assert.equal(sent.request.name, 'c2');
    assert.equal(sent.request.namespace, ns);
    assert.equal(sent.request.userInfo.username, 'kubernetes-admin');
    assert.ok(sent.request.userInfo.groups.includes('system:masters'));
    assert.equal(sent.request.dryRun, false);
    assert.equal(sent.request.oldObject, null);
    assert.equal(sent.request.options.kind, 'CreateOptions');
    assert.match(sent.request.uid, /^[0-9a-f-]{36}$/);
  });

  it('/metrics counts webhook calls and rejections with upstream names and labels', async () => {
    const res = await apiRequest(cp, 'GET', '/metrics');
    assert.equal(res.status, 200);
    assert.match(
      res.text,
      /apiserver_admission_webhook_rejection_count\{name="deny.example.com",type="validating",operation="CREATE",error_type="no_error",rejection_code="403"\} 1/,
    );
    assert.match(
      res.text,
      /apiserver_admission_webhook_request_total\{name="deny.example.com",type="validating",operation="CREATE",code="200",rejected="false"\} 1/,
    );
    assert.match(
      res.text,
      /apiserver_admission_webhook_admission_duration_seconds_bucket\{le="25",name="deny.example.com"/,
    );
  });

  it('a denial without a code is a 400 and without a message says so', async () => {
    const ns = await namespace();
    hook.on('/deny-bare', () => ({ allowed: false }));
    await configure(VWC, `bare-${ns}`, [webhook('bare.example.com', '/deny-bare', ns)]);
    const res = await apiRequest(cp, 'POST', CONFIGMAPS(ns), { body: configMap('c') });
    assert.equal(res.status, 400, res.text);
    assert.equal(res.body.message, 'admission webhook "bare.example.com" denied the request without explanation');
    assert.equal(res.body.reason, undefined);
  });

  it('a mutating webhook patches the object (JSONPatch), and the validating phase sees the result', async () => {
    const ns = await namespace();
    hook.on('/mutate', () => ({
      allowed: true,
      ...jsonPatch([
        { op: 'add', path: '/metadata/labels/patched', value: 'true' },
        { op: 'replace', path: '/data/k', value: 'from-webhook' },
      ]),
    }));
    hook.on('/check-patched', (review) =>
      review.request.object.metadata.labels?.patched === 'true'
        ? { allowed: true }
        : { allowed: false, status: { message: 'not patched' } },
    );
    await configure(MWC, `mutate-${ns}`, [webhook('mutate.example.com', '/mutate', ns)]);
    await configure(VWC, `check-${ns}`, [webhook('check.example.com', '/check-patched', ns)]);
    const res = await apiRequest(cp, 'POST', CONFIGMAPS(ns), { body: configMap('m', { app: 'x' }) });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(res.body.metadata.labels, { app: 'x', patched: 'true' });
    assert.equal(res.body.data.k, 'from-webhook');
    const stored = await apiRequest(cp, 'GET', `${CONFIGMAPS(ns)}/m`);
    assert.equal(stored.body.data.k, 'from-webhook');
  });

  it('a v1beta1 mutating webhook’s patch without patchType is applied as JSONPatch', async () => {
    const ns = await namespace();
    hook.on('/mutate-beta', () => ({
      allowed: true,
      patch: jsonPatch([{ op: 'add', path: '/metadata/labels/beta', value: 'patched' }]).patch,
    }));
    await configure(MWC, `beta-${ns}`, [
      webhook('beta.example.com', '/mutate-beta', ns, { admissionReviewVersions: ['v1beta1'] }),
    ]);
    const res = await apiRequest(cp, 'POST', CONFIGMAPS(ns), { body: configMap('b', { app: 'x' }) });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(res.body.metadata.labels, { app: 'x', beta: 'patched' });
  });

  it('a patch that does not decode is an internal error, even under failurePolicy Ignore', async () => {
    const ns = await namespace();
    const raw = (text: string) => ({
      allowed: true,
      patchType: 'JSONPatch',
      patch: Buffer.from(text).toString('base64'),
    });
    hook.on('/not-json', () => raw('not json'));
    hook.on('/not-a-list', () => raw('{"op":"add"}'));
    await configure(MWC, `undecodable-${ns}`, [
      webhook('notjson.example.com', '/not-json', ns, { failurePolicy: 'Ignore' }),
    ]);
    const res = await apiRequest(cp, 'POST', CONFIGMAPS(ns), { body: configMap('u') });
    assert.equal(res.status, 500, res.text);
    assert.equal(res.body.reason, 'InternalError');
    assert.equal(res.body.message, "Internal error occurred: invalid character 'o' in literal null (expecting 'u')");
    assert.deepEqual(res.body.details.causes, [{ message: "invalid character 'o' in literal null (expecting 'u')" }]);
    await apiRequest(cp, 'DELETE', `${MWC}/undecodable-${ns}`);
    await configure(MWC, `notlist-${ns}`, [
      webhook('notlist.example.com', '/not-a-list', ns, { failurePolicy: 'Ignore' }),
    ]);
    await eventually(async () => {
      const notList = await apiRequest(cp, 'POST', CONFIGMAPS(ns), { body: configMap('v') });
      assert.equal(notList.status, 500, notList.text);
      assert.equal(
        notList.body.message,
        'Internal error occurred: json: cannot unmarshal object into Go value of type jsonpatch.Patch',
      );
    });
  });

  it('a patch whose test op fails is an internal error with json-patch’s message', async () => {
    const ns = await namespace();
    hook.on('/test-op', () => ({
      allowed: true,
      ...jsonPatch([{ op: 'test', path: '/metadata/name', value: 'other' }]),
    }));
    await configure(MWC, `testop-${ns}`, [webhook('testop.example.com', '/test-op', ns, { failurePolicy: 'Ignore' })]);
    const res = await apiRequest(cp, 'POST', CONFIGMAPS(ns), { body: configMap('t') });
    assert.equal(res.status, 500, res.text);
    assert.equal(res.body.message, 'Internal error occurred: testing value /metadata/name failed: test failed');
  });

  it('failurePolicy Fail refuses a request when the webhook cannot be reached; Ignore lets it through', async () => {
    const ns = await namespace();
    const port = await closedPort();
    const unreachable = (name: string, failurePolicy: string) => ({
      ...webhook(name, '/', ns),
      clientConfig: { url: `https://127.0.0.1:${port}/check`, caBundle: hook.caBundle },
      failurePolicy,
    });
    await configure(VWC, `ignore-${ns}`, [unreachable('ignore.example.com', 'Ignore')]);
    const ignored = await apiRequest(cp, 'POST', CONFIGMAPS(ns), { body: configMap('i') });
    assert.equal(ignored.status, 201, ignored.text);
    const metrics = await apiRequest(cp, 'GET', '/metrics');
    assert.match(
      metrics.text,
      /apiserver_admission_webhook_fail_open_count\{name="ignore.example.com",type="validating"\} 1/,
    );
    await configure(VWC, `fail-${ns}`, [unreachable('fail.example.com', 'Fail')]);
    const failed = await apiRequest(cp, 'POST', CONFIGMAPS(ns), { body: configMap('f') });
    assert.equal(failed.status, 500, failed.text);
    assert.equal(failed.body.reason, 'InternalError');
    assert.equal(
      failed.body.message,
      `Internal error occurred: failed calling webhook "fail.example.com": failed to call webhook: Post "https://127.0.0.1:${port}/check?timeout=10s": dial tcp 127.0.0.1:${port}: connect: connection refused`,
    );
  });

  it('a webhook that does not answer within timeoutSeconds fails as its failurePolicy says', async () => {
    const ns = await namespace();
    hook.on('/hang', () => 'hang');
    await configure(MWC, `slow-${ns}`, [webhook('slow.example.com', '/hang', ns, { timeoutSeconds: 1 })]);
    const res = await apiRequest(cp, 'POST', CONFIGMAPS(ns), { body: configMap('t') });
    assert.equal(res.status, 500, res.text);
    assert.equal(
      res.body.message,
      `Internal error occurred: failed calling webhook "slow.example.com": failed to call webhook: Post "${hook.url}/hang?timeout=1s": context deadline exceeded`,
    );
  });

  it('a certificate the caBundle does not vouch for is a failure to call', async () => {
    const ns = await namespace();
    const other = await startWebhookServer();
    try {
      const wrongCA = { url: `${hook.url}/deny`, caBundle: other.caBundle };
      await configure(VWC, `ca-${ns}`, [{ ...webhook('ca.example.com', '/', ns), clientConfig: wrongCA }]);
      const res = await apiRequest(cp, 'POST', CONFIGMAPS(ns), { body: configMap('x') });
      assert.equal(res.status, 500, res.text);
      assert.match(res.body.message, /x509: certificate signed by unknown authority$/);
    } finally {
      await other.close();
    }
  });

  it('namespaceSelector matches the namespace labels, objectSelector the new or old object', async () => {
    const selected = await namespace({ team: 'blue' });
    const other = await namespace({ team: 'red' });
    hook.on('/ns-deny', () => ({ allowed: false, status: { message: 'blue team only' } }));
    await configure(VWC, `nssel-${selected}`, [
      {
        ...webhook('ns.example.com', '/ns-deny', selected),
        namespaceSelector: { matchExpressions: [{ key: 'team', operator: 'In', values: ['blue'] }] },
        objectSelector: { matchLabels: { checked: 'yes' } },
      },
    ]);
    const inSelected = await apiRequest(cp, 'POST', CONFIGMAPS(selected), { body: configMap('a', { checked: 'yes' }) });
    assert.equal(inSelected.status, 400, inSelected.text);
    assert.match(inSelected.body.message, /blue team only/);
    const unlabelled = await apiRequest(cp, 'POST', CONFIGMAPS(selected), { body: configMap('b') });
    assert.equal(unlabelled.status, 201, unlabelled.text);
    const elsewhere = await apiRequest(cp, 'POST', CONFIGMAPS(other), { body: configMap('c', { checked: 'yes' }) });
    assert.equal(elsewhere.status, 201, elsewhere.text);
    // The old object matches: an update that removes the label is still sent to the webhook.
    hook.on('/ns-deny', () => ({ allowed: true }));
    const labelled = await apiRequest(cp, 'POST', CONFIGMAPS(selected), { body: configMap('d', { checked: 'yes' }) });
    assert.equal(labelled.status, 201, labelled.text);
    hook.on('/ns-deny', () => ({ allowed: false, status: { message: 'blue team only' } }));
    const unlabel = await apiRequest(cp, 'PATCH', `${CONFIGMAPS(selected)}/d`, {
      body: { metadata: { labels: { checked: null } } },
      contentType: 'application/merge-patch+json',
    });
    assert.equal(unlabel.status, 400, unlabel.text);
    const sent = hook.received.filter((r) => r.path === '/ns-deny').at(-1)?.review;
    assert.equal(sent.request.operation, 'UPDATE');
    assert.equal(sent.request.object.metadata.labels, undefined);
    assert.equal(sent.request.oldObject.metadata.labels.checked, 'yes');
    await apiRequest(cp, 'DELETE', `${VWC}/nssel-${selected}`);
  });

  it('matchConditions in CEL decide whether the webhook is called; an error fails closed under Fail', async () => {
    const ns = await namespace();
    hook.on('/cel', () => ({ allowed: false, status: { message: 'matched' } }));
    const conditions = [
      { name: 'not-exempt', expression: "!has(object.metadata.labels) || object.metadata.labels['exempt'] != 'true'" },
      { name: 'admin-only', expression: "request.userInfo.username == 'kubernetes-admin'" },
      { name: 'may-create', expression: "authorizer.requestResource.check('create').allowed()" },
    ];
    await configure(VWC, `cel-${ns}`, [webhook('cel.example.com', '/cel', ns, { matchConditions: conditions })]);
    const matched = await apiRequest(cp, 'POST', CONFIGMAPS(ns), { body: configMap('a') });
    assert.equal(matched.status, 400, matched.text);
    assert.equal(matched.body.message, 'admission webhook "cel.example.com" denied the request: matched');
    const skipped = await apiRequest(cp, 'POST', CONFIGMAPS(ns), { body: configMap('b', { exempt: 'true' }) });
    assert.equal(skipped.status, 201, skipped.text);

    const failing = [{ name: 'missing-key', expression: "object.data['nope'] == 'x'" }];
    await configure(VWC, `celerr-${ns}`, [webhook('celerr.example.com', '/cel', ns, { matchConditions: failing })]);
    const errored = await apiRequest(cp, 'POST', CONFIGMAPS(ns), { body: configMap('c', { exempt: 'true' }) });
    assert.equal(errored.status, 403, errored.text);
    assert.equal(
      errored.body.message,
      `configmaps "c" is forbidden: expression 'object.data['nope'] == 'x'' resulted in error: no such key: nope`,
    );
    await apiRequest(cp, 'DELETE', `${VWC}/celerr-${ns}`);
  });

  it('matchConditions that do not compile are refused when the configuration is written', async () => {
    const res = await apiRequest(cp, 'POST', VWC, {
      body: {
        metadata: { name: 'bad-cel' },
        webhooks: [
          {
            ...webhook('badcel.example.com', '/cel', 'default'),
            matchConditions: [
              { name: 'syntax', expression: 'object.metadata.name ==' },
              { name: 'not-bool', expression: "'a string'" },
            ],
          },
        ],
      },
    });
    assert.equal(res.status, 422, res.text);
    const causes = res.body.details.causes.map((c: { field: string }) => c.field);
    assert.deepEqual(causes, [
      'webhooks[0].matchConditions[0].expression',
      'webhooks[0].matchConditions[1].expression',
    ]);
    assert.match(res.body.message, /compilation failed: ERROR: <input>:1:/);
  });

  it('matchConditions whose type is not exactly bool (dyn included) are refused', async () => {
    for (const [collection, kind] of [
      [VWC, 'ValidatingWebhookConfiguration'],
      [MWC, 'MutatingWebhookConfiguration'],
    ]) {
      const res = await apiRequest(cp, 'POST', collection as string, {
        body: {
          metadata: { name: 'typed-cel' },
          webhooks: [
            {
              ...webhook('typedcel.example.com', '/cel', 'default'),
              matchConditions: [
                { name: 'dyn', expression: 'object.spec.enabled' },
                { name: 'string', expression: ' request.name ' },
                { name: 'bool', expression: 'request.dryRun' },
              ],
            },
          ],
        },
      });
      assert.equal(res.status, 422, res.text);
      assert.equal(
        res.body.message,
        `${kind}.admissionregistration.k8s.io "typed-cel" is invalid: [webhooks[0].matchConditions[0].expression: Invalid value: "object.spec.enabled": must evaluate to bool but got dyn, webhooks[0].matchConditions[1].expression: Invalid value: "request.name": must evaluate to bool but got string]`,
      );
    }
  });

  it('a DELETE sends the stored object as oldObject, with DeleteOptions', async () => {
    const ns = await namespace();
    const created = await apiRequest(cp, 'POST', CONFIGMAPS(ns), { body: configMap('d', { keep: 'me' }) });
    assert.equal(created.status, 201, created.text);
    hook.on('/no-delete', (review) =>
      review.request.operation === 'DELETE'
        ? { allowed: false, status: { message: `keep ${review.request.oldObject.metadata.labels.keep}` } }
        : { allowed: true },
    );
    await configure(VWC, `nodelete-${ns}`, [webhook('nodelete.example.com', '/no-delete', ns)]);
    const res = await apiRequest(cp, 'DELETE', `${CONFIGMAPS(ns)}/d`, {
      body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background' },
    });
    assert.equal(res.status, 400, res.text);
    assert.equal(res.body.message, 'admission webhook "nodelete.example.com" denied the request: keep me');
    const sent = hook.received.filter((r) => r.path === '/no-delete').at(-1)?.review;
    assert.equal(sent.request.object, null);
    assert.equal(sent.request.oldObject.metadata.name, 'd');
    assert.deepEqual(sent.request.options, {
      kind: 'DeleteOptions',
      apiVersion: 'meta.k8s.io/v1',
      propagationPolicy: 'Background',
    });
  });

  it('warnings go to Warning headers; a dry run reaches webhooks without side effects', async () => {
    const ns = await namespace();
    hook.on('/warn', () => ({ allowed: true, warnings: ['configmap k is deprecated', 'second warning'] }));
    await configure(VWC, `warn-${ns}`, [webhook('warn.example.com', '/warn', ns, { sideEffects: 'NoneOnDryRun' })]);
    const res = await apiRequest(cp, 'POST', `${CONFIGMAPS(ns)}?dryRun=All`, { body: configMap('w') });
    assert.equal(res.status, 201, res.text);
    const header = res.headers.warning;
    const warnings = Array.isArray(header) ? header.join(', ') : String(header);
    assert.match(warnings, /299 - "configmap k is deprecated"/);
    assert.match(warnings, /299 - "second warning"/);
    const sent = hook.received.filter((r) => r.path === '/warn').at(-1)?.review;
    assert.equal(sent.request.dryRun, true);
    assert.deepEqual(sent.request.options.dryRun, ['All']);
  });

  it('a dry run matching a webhook with side effects is refused (a configuration stored by an older server)', async () => {
    const ns = await namespace();
    // v1 refuses sideEffects Some for new objects; one kept from v1beta1 days is put into storage directly.
    const name = `sideeffects-${ns}`;
    const obj = {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name, uid: '6b1f0c55-0000-4000-8000-000000000001', creationTimestamp: new Date().toISOString() },
      webhooks: [
        {
          ...webhook('effects.example.com', '/effects', ns, { sideEffects: 'Some' }),
          failurePolicy: 'Fail',
          matchPolicy: 'Equivalent',
          objectSelector: {},
          timeoutSeconds: 10,
        },
      ],
    };
    await cp.storage.create(`/registry/validatingwebhookconfigurations/${name}`, JSON.stringify(obj));
    await eventually(async () => {
      const list = await apiRequest(cp, 'GET', `${VWC}?resourceVersion=0`);
      assert.ok(list.body.items.some((i: { metadata: { name: string } }) => i.metadata.name === name));
    });
    const dry = await apiRequest(cp, 'POST', `${CONFIGMAPS(ns)}?dryRun=All`, { body: configMap('s') });
    assert.equal(dry.status, 400, dry.text);
    assert.equal(dry.body.reason, 'BadRequest');
    assert.equal(dry.body.message, 'admission webhook "effects.example.com" does not support dry run');
    const real = await apiRequest(cp, 'POST', CONFIGMAPS(ns), { body: configMap('s') });
    assert.equal(real.status, 201, real.text);
  });

  it('a service reference is resolved to the Service endpoints and verified as <service>.<namespace>.svc', async () => {
    const ns = await namespace();
    const svcNs = 'webhooks';
    await apiRequest(cp, 'POST', '/api/v1/namespaces', { body: { metadata: { name: svcNs } } });
    await apiRequest(cp, 'POST', `/api/v1/namespaces/${svcNs}/services`, {
      body: { metadata: { name: 'hooks' }, spec: { ports: [{ name: 'https', port: 443, targetPort: 8443 }] } },
    });
    const ep = await apiRequest(cp, 'POST', `/apis/discovery.k8s.io/v1/namespaces/${svcNs}/endpointslices`, {
      body: {
        metadata: { name: 'hooks-1', labels: { 'kubernetes.io/service-name': 'hooks' } },
        addressType: 'IPv4',
        endpoints: [{ addresses: ['127.0.0.1'], conditions: { ready: true } }],
        ports: [{ name: 'https', port: hook.port, protocol: 'TCP' }],
      },
    });
    assert.equal(ep.status, 201, ep.text);
    hook.on('/svc', () => ({ allowed: false, status: { message: 'via the service' } }));
    await configure(VWC, `svc-${ns}`, [
      {
        ...webhook('svc.example.com', '/', ns),
        clientConfig: { service: { namespace: svcNs, name: 'hooks', path: '/svc' }, caBundle: hook.caBundle },
      },
    ]);
    const res = await apiRequest(cp, 'POST', CONFIGMAPS(ns), { body: configMap('v') });
    assert.equal(res.status, 400, res.text);
    assert.equal(res.body.message, 'admission webhook "svc.example.com" denied the request: via the service');
    // A Service that does not exist fails when the call is made, naming the URL it was for, as upstream's resolver.
    const other = await namespace();
    await configure(VWC, `nosvc-${other}`, [
      {
        ...webhook('svc.example.com', '/', other),
        clientConfig: { service: { namespace: svcNs, name: 'nosvc', path: '/svc' }, caBundle: hook.caBundle },
      },
    ]);
    const gone = await apiRequest(cp, 'POST', CONFIGMAPS(other), { body: configMap('w') });
    assert.equal(gone.status, 500, gone.text);
    assert.equal(
      gone.body.message,
      'Internal error occurred: failed calling webhook "svc.example.com": failed to call webhook: Post "https://nosvc.webhooks.svc:443/svc?timeout=10s": service "nosvc" not found',
    );
  });

  it('a webhook URL off this machine is never dialled', async () => {
    const ns = await namespace();
    await configure(VWC, `remote-${ns}`, [
      { ...webhook('remote.example.com', '/', ns), clientConfig: { url: 'https://192.0.2.1/check' } },
    ]);
    const res = await apiRequest(cp, 'POST', CONFIGMAPS(ns), { body: configMap('r') });
    assert.equal(res.status, 500, res.text);
    assert.equal(
      res.body.message,
      'Internal error occurred: failed calling webhook "remote.example.com": failed to call webhook: wheelhouse dials only loopback addresses (127.0.0.0/8, ::1, localhost); "192.0.2.1" is not one',
    );
  });

  it('reinvocationPolicy IfNeeded calls a webhook again after a later webhook changed the object', async () => {
    const ns = await namespace();
    hook.on('/first', () => ({ allowed: true }));
    hook.on('/second', (review) =>
      review.request.object.metadata.labels?.second
        ? { allowed: true }
        : { allowed: true, ...jsonPatch([{ op: 'add', path: '/metadata/labels/second', value: 'done' }]) },
    );
    await configure(MWC, `a-${ns}`, [webhook('first.example.com', '/first', ns, { reinvocationPolicy: 'IfNeeded' })]);
    await configure(MWC, `b-${ns}`, [webhook('second.example.com', '/second', ns)]);
    const before = hook.received.length;
    const res = await apiRequest(cp, 'POST', CONFIGMAPS(ns), { body: configMap('r', { first: 'x' }) });
    assert.equal(res.status, 201, res.text);
    const calls = hook.received.slice(before).map((r) => r.path);
    assert.deepEqual(calls, ['/first', '/second', '/first']);
    const last = hook.received.at(-1)?.review;
    assert.equal(last.request.object.metadata.labels.second, 'done');
  });

  it('matchPolicy Equivalent sends a v2 HorizontalPodAutoscaler as autoscaling/v1 to a v1 rule; Exact does not', async () => {
    const ns = await namespace();
    const v1Rule = [
      {
        operations: ['CREATE'],
        apiGroups: ['autoscaling'],
        apiVersions: ['v1'],
        resources: ['horizontalpodautoscalers'],
      },
    ];
    hook.on('/hpa-equivalent', () => ({
      allowed: true,
      ...jsonPatch([{ op: 'replace', path: '/spec/maxReplicas', value: 9 }]),
    }));
    hook.on('/hpa-exact', () => ({ allowed: false, status: { message: 'exact matched' } }));
    await configure(MWC, `hpa-${ns}`, [
      { ...webhook('equivalent.example.com', '/hpa-equivalent', ns), rules: v1Rule },
      { ...webhook('exact.example.com', '/hpa-exact', ns), rules: v1Rule, matchPolicy: 'Exact' },
    ]);
    const res = await apiRequest(cp, 'POST', `/apis/autoscaling/v2/namespaces/${ns}/horizontalpodautoscalers`, {
      body: {
        metadata: { name: 'web' },
        spec: {
          scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
          maxReplicas: 5,
          metrics: [
            { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } } },
          ],
        },
      },
    });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.apiVersion, 'autoscaling/v2');
    assert.equal(res.body.spec.maxReplicas, 9);
    assert.equal(res.body.spec.metrics[0].resource.target.averageUtilization, 60);
    const sent = hook.received.filter((r) => r.path === '/hpa-equivalent').at(-1)?.review;
    assert.deepEqual(sent.request.kind, { group: 'autoscaling', version: 'v1', kind: 'HorizontalPodAutoscaler' });
    assert.deepEqual(sent.request.resource, {
      group: 'autoscaling',
      version: 'v1',
      resource: 'horizontalpodautoscalers',
    });
    assert.deepEqual(sent.request.requestKind, {
      group: 'autoscaling',
      version: 'v2',
      kind: 'HorizontalPodAutoscaler',
    });
    assert.equal(sent.request.object.apiVersion, 'autoscaling/v1');
    assert.equal(sent.request.object.spec.targetCPUUtilizationPercentage, 60);
    assert.ok(!hook.received.some((r) => r.path === '/hpa-exact'));
  });

  it('rules name subresources: deployments/scale is checked, the deployment itself is not', async () => {
    const ns = await namespace();
    hook.on('/scale', (review) =>
      review.request.object.spec.replicas > 3
        ? { allowed: false, status: { message: `at most 3 replicas, not ${review.request.object.spec.replicas}` } }
        : { allowed: true },
    );
    await configure(VWC, `scale-${ns}`, [
      {
        ...webhook('scale.example.com', '/scale', ns),
        rules: [{ operations: ['UPDATE'], apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments/scale'] }],
      },
    ]);
    const deployments = `/apis/apps/v1/namespaces/${ns}/deployments`;
    const created = await apiRequest(cp, 'POST', deployments, {
      body: {
        metadata: { name: 'web' },
        spec: {
          replicas: 5,
          selector: { matchLabels: { app: 'web' } },
          template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
        },
      },
    });
    assert.equal(created.status, 201, created.text);
    const scaled = await apiRequest(cp, 'PATCH', `${deployments}/web/scale`, {
      body: { spec: { replicas: 8 } },
      contentType: 'application/merge-patch+json',
    });
    assert.equal(scaled.status, 400, scaled.text);
    assert.equal(
      scaled.body.message,
      'admission webhook "scale.example.com" denied the request: at most 3 replicas, not 8',
    );
    const sent = hook.received.filter((r) => r.path === '/scale').at(-1)?.review;
    assert.equal(sent.request.subResource, 'scale');
    assert.deepEqual(sent.request.kind, { group: 'autoscaling', version: 'v1', kind: 'Scale' });
    assert.deepEqual(sent.request.resource, { group: 'apps', version: 'v1', resource: 'deployments' });
  });

  /** A pod with one container `c`, not bound to a node (a connect request that gets past admission stops there). */
  async function unboundPod(ns: string, name: string): Promise<void> {
    const res = await apiRequest(cp, 'POST', `/api/v1/namespaces/${ns}/pods`, {
      body: { metadata: { name }, spec: { containers: [{ name: 'c', image: 'busybox' }] } },
    });
    assert.equal(res.status, 201, res.text);
  }

  it('CONNECT: exec, attach and portforward are sent with their options object, and a denial stops them', async () => {
    const ns = await namespace();
    await unboundPod(ns, 'p');
    hook.on('/connect', (review) => {
      const { subResource, object } = review.request;
      if (subResource === 'exec' && object.command?.[0] !== 'rm') return { allowed: true };
      return { allowed: false, status: { code: 403, reason: 'Forbidden', message: `no ${subResource} here` } };
    });
    await configure(VWC, `connect-${ns}`, [
      {
        ...webhook('connect.example.com', '/connect', ns),
        rules: [
          {
            operations: ['CONNECT'],
            apiGroups: [''],
            apiVersions: ['v1'],
            resources: ['pods/exec', 'pods/attach', 'pods/portforward'],
          },
        ],
      },
    ]);
    const pod = `/api/v1/namespaces/${ns}/pods/p`;
    const sent = () => hook.received.filter((r) => r.path === '/connect').at(-1)?.review;

    const exec = await apiRequest(cp, 'POST', `${pod}/exec?command=rm&command=-rf&container=c&stdin=true&stdout=true`);
    assert.equal(exec.status, 403, exec.text);
    assert.equal(exec.body.reason, 'Forbidden');
    assert.equal(exec.body.message, 'admission webhook "connect.example.com" denied the request: no exec here');
    const review = sent();
    assert.equal(review.request.operation, 'CONNECT');
    assert.deepEqual(review.request.kind, { group: '', version: 'v1', kind: 'PodExecOptions' });
    assert.deepEqual(review.request.requestKind, { group: '', version: 'v1', kind: 'PodExecOptions' });
    assert.deepEqual(review.request.resource, { group: '', version: 'v1', resource: 'pods' });
    assert.equal(review.request.subResource, 'exec');
    assert.equal(review.request.requestSubResource, 'exec');
    assert.equal(review.request.name, 'p');
    assert.equal(review.request.namespace, ns);
    assert.deepEqual(review.request.object, {
      kind: 'PodExecOptions',
      apiVersion: 'v1',
      stdin: true,
      stdout: true,
      container: 'c',
      command: ['rm', '-rf'],
    });
    assert.equal(review.request.oldObject, null);
    assert.equal(review.request.options, null);
    assert.equal(review.request.dryRun, false);

    // Allowed: the request goes on to the pod, which has no node.
    const allowed = await apiRequest(cp, 'GET', `${pod}/exec?command=ls&stdout=1&tty=false`);
    assert.deepEqual([allowed.status, allowed.body.message], [400, 'pod p does not have a host assigned']);
    assert.deepEqual(sent().request.object, {
      kind: 'PodExecOptions',
      apiVersion: 'v1',
      stdout: true,
      command: ['ls'],
    });

    const attach = await apiRequest(cp, 'POST', `${pod}/attach?stdout=true&stderr=true`);
    assert.deepEqual(
      [attach.status, attach.body.message],
      [403, `admission webhook "connect.example.com" denied the request: no attach here`],
    );
    assert.deepEqual(sent().request.object, { kind: 'PodAttachOptions', apiVersion: 'v1', stdout: true, stderr: true });

    const forward = await apiRequest(cp, 'POST', `${pod}/portforward?ports=80,8080`);
    assert.equal(forward.status, 403, forward.text);
    assert.deepEqual(sent().request.object, { kind: 'PodPortForwardOptions', apiVersion: 'v1', ports: [80, 8080] });
    assert.deepEqual(sent().request.kind, { group: '', version: 'v1', kind: 'PodPortForwardOptions' });

    // Refused before admission, as upstream's connect handler does.
    const calls = hook.received.length;
    const badPort = await apiRequest(cp, 'POST', `${pod}/portforward?ports=http`);
    assert.deepEqual(
      [badPort.status, badPort.body.message],
      [400, 'cannot convert to []int32: strconv.ParseUint: parsing "http": invalid syntax'],
    );
    const dryRun = await apiRequest(cp, 'POST', `${pod}/exec?command=ls&dryRun=All`);
    assert.deepEqual([dryRun.status, dryRun.body.message], [400, 'dryRun is not supported']);
    assert.equal(hook.received.length, calls);

    const metrics = await apiRequest(cp, 'GET', '/metrics');
    assert.match(
      metrics.text,
      /apiserver_admission_webhook_rejection_count\{name="connect.example.com",type="validating",operation="CONNECT",error_type="no_error",rejection_code="403"\} 3/,
    );
  });

  it('CONNECT: a mutating webhook may change the options the kubelet would be asked for', async () => {
    const ns = await namespace();
    await unboundPod(ns, 'p');
    hook.on('/connect-mutate', () => ({
      allowed: true,
      ...jsonPatch([{ op: 'add', path: '/container', value: 'sidecar' }]),
    }));
    await configure(MWC, `connect-mutate-${ns}`, [
      {
        ...webhook('connect-mutate.example.com', '/connect-mutate', ns),
        rules: [{ operations: ['CONNECT'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods/*'] }],
      },
    ]);
    // The patched container is the one looked for in the pod.
    const res = await apiRequest(cp, 'POST', `/api/v1/namespaces/${ns}/pods/p/exec?command=ls&stdout=true`);
    assert.deepEqual([res.status, res.body.message], [400, 'container sidecar is not valid for pod p']);
    // pods/log is a read, not a connect: no webhook sees it.
    const calls = hook.received.length;
    const log = await apiRequest(cp, 'GET', `/api/v1/namespaces/${ns}/pods/p/log`);
    assert.equal(log.status, 200, log.text);
    assert.equal(hook.received.length, calls);
  });

  it("request.options is the write's Create/UpdateOptions from its query, for subresources too", async () => {
    const ns = await namespace();
    hook.on('/options', () => ({ allowed: true }));
    await configure(VWC, `options-${ns}`, [
      {
        ...webhook('options.example.com', '/options', ns),
        rules: [
          {
            operations: ['*'],
            apiGroups: ['', 'apps'],
            apiVersions: ['v1'],
            resources: ['deployments', 'deployments/*', 'pods', 'pods/*'],
          },
        ],
      },
    ]);
    const seen = () => {
      const review = hook.received.filter((r) => r.path === '/options').at(-1)?.review;
      return [review.request.operation, review.request.subResource ?? '', review.request.options];
    };
    const update = (extra: Record<string, unknown> = {}) => ({
      kind: 'UpdateOptions',
      apiVersion: 'meta.k8s.io/v1',
      ...extra,
    });
    const deployments = `/apis/apps/v1/namespaces/${ns}/deployments`;
    const created = await apiRequest(cp, 'POST', `${deployments}?fieldManager=kubectl-create&fieldValidation=Strict`, {
      body: {
        metadata: { name: 'd1' },
        spec: {
          replicas: 1,
          selector: { matchLabels: { app: 'd1' } },
          template: { metadata: { labels: { app: 'd1' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
        },
      },
    });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(seen(), [
      'CREATE',
      '',
      {
        kind: 'CreateOptions',
        apiVersion: 'meta.k8s.io/v1',
        fieldManager: 'kubectl-create',
        fieldValidation: 'Strict',
      },
    ]);
    // No fieldManager in the query: none in the options (the User-Agent only names the managedFields entry).
    const merge = { contentType: 'application/merge-patch+json', headers: { 'user-agent': 'tester/1.0' } };
    const patched = await apiRequest(cp, 'PATCH', `${deployments}/d1`, {
      ...merge,
      body: { metadata: { labels: { a: 'b' } } },
    });
    assert.equal(patched.status, 200, patched.text);
    assert.deepEqual(seen(), ['UPDATE', '', update()]);

    // kubectl scale and kubectl patch --subresource=scale.
    const scaled = await apiRequest(cp, 'PATCH', `${deployments}/d1/scale?fieldManager=kubectl-patch`, {
      ...merge,
      body: { spec: { replicas: 2 } },
    });
    assert.equal(scaled.status, 200, scaled.text);
    assert.deepEqual(seen(), ['UPDATE', 'scale', update({ fieldManager: 'kubectl-patch' })]);
    const scale = await apiRequest(cp, 'GET', `${deployments}/d1/scale`);
    const put = await apiRequest(cp, 'PUT', `${deployments}/d1/scale?fieldValidation=Ignore`, {
      body: { ...scale.body, spec: { replicas: 3 } },
    });
    assert.equal(put.status, 200, put.text);
    assert.deepEqual(seen(), ['UPDATE', 'scale', update({ fieldValidation: 'Ignore' })]);

    const current = await apiRequest(cp, 'GET', `${deployments}/d1`);
    const status = await apiRequest(cp, 'PUT', `${deployments}/d1/status?fieldManager=ctl`, {
      body: { ...current.body, status: { observedGeneration: 1 } },
    });
    assert.equal(status.status, 200, status.text);
    assert.deepEqual(seen(), ['UPDATE', 'status', update({ fieldManager: 'ctl' })]);
    const statusPatch = await apiRequest(cp, 'PATCH', `${deployments}/d1/status?dryRun=All`, {
      ...merge,
      body: { status: { observedGeneration: 2 } },
    });
    assert.equal(statusPatch.status, 200, statusPatch.text);
    assert.deepEqual(seen(), ['UPDATE', 'status', update({ dryRun: ['All'] })]);

    const pods = `/api/v1/namespaces/${ns}/pods`;
    const pod = await apiRequest(cp, 'POST', pods, {
      body: { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } },
    });
    assert.equal(pod.status, 201, pod.text);
    const binding = await apiRequest(cp, 'POST', `${pods}/p/binding?fieldManager=kube-scheduler`, {
      body: { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'p' }, target: { kind: 'Node', name: 'n1' } },
    });
    assert.equal(binding.status, 201, binding.text);
    assert.deepEqual(seen(), [
      'CREATE',
      'binding',
      { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1', fieldManager: 'kube-scheduler' },
    ]);
    const eviction = await apiRequest(cp, 'POST', `${pods}/p/eviction`, {
      body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'p', namespace: ns } },
    });
    assert.equal(eviction.status, 201, eviction.text);
    assert.deepEqual(seen().slice(0, 3), [
      'CREATE',
      'eviction',
      { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1' },
    ]);
  });

  it("a Namespace is matched by namespaceSelector on its own labels, and its name is the request's namespace", async () => {
    hook.on('/namespaces', () => ({ allowed: false, status: { message: 'frozen namespaces stay' } }));
    await configure(VWC, 'frozen-namespaces', [
      {
        name: 'frozen.example.com',
        clientConfig: { url: `${hook.url}/namespaces`, caBundle: hook.caBundle },
        rules: [
          { operations: ['DELETE'], apiGroups: [''], apiVersions: ['v1'], resources: ['namespaces'], scope: 'Cluster' },
        ],
        namespaceSelector: { matchLabels: { frozen: 'true' } },
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
      },
    ]);
    const frozen = await namespace({ frozen: 'true' });
    const thawed = await namespace();
    const refused = await apiRequest(cp, 'DELETE', `/api/v1/namespaces/${frozen}`);
    assert.equal(refused.status, 400, refused.text);
    assert.match(refused.body.message, /frozen namespaces stay/);
    const sent = hook.received.filter((r) => r.path === '/namespaces').at(-1)?.review;
    assert.equal(sent.request.namespace, frozen);
    assert.equal(sent.request.name, frozen);
    const deleted = await apiRequest(cp, 'DELETE', `/api/v1/namespaces/${thawed}`);
    assert.equal(deleted.status, 200, deleted.text);
    await apiRequest(cp, 'DELETE', `${VWC}/frozen-namespaces`);
  });

  it('an invalid answer is a failure to call, with upstream words', async () => {
    const ns = await namespace();
    hook.on('/bad-uid', () => ({ uid: 'not-the-request', allowed: true }));
    await configure(VWC, `baduid-${ns}`, [webhook('baduid.example.com', '/bad-uid', ns)]);
    const res = await apiRequest(cp, 'POST', CONFIGMAPS(ns), { body: configMap('u') });
    assert.equal(res.status, 500, res.text);
    assert.match(
      res.body.message,
      /^Internal error occurred: failed calling webhook "baduid.example.com": received invalid webhook response: expected response.uid="[0-9a-f-]+", got "not-the-request"$/,
    );
    // An answer that is not JSON, in the words of Go's decoder.
    const other = await namespace();
    hook.on('/not-json', () => ({ raw: { status: 200, body: 'not json' } }));
    await configure(VWC, `notjson-${other}`, [webhook('notjson.example.com', '/not-json', other)]);
    const garbled = await apiRequest(cp, 'POST', CONFIGMAPS(other), { body: configMap('g') });
    assert.equal(
      garbled.body.message,
      `Internal error occurred: failed calling webhook "notjson.example.com": failed to call webhook: couldn't get version/kind; json parse error: invalid character 'o' in literal null (expecting 'u')`,
    );
  });

  it('webhooks are never called for webhook configurations themselves', async () => {
    hook.on('/everything', () => ({ allowed: false, status: { message: 'no' } }));
    await configure(VWC, 'zz-everything', [
      {
        name: 'everything.example.com',
        clientConfig: { url: `${hook.url}/everything`, caBundle: hook.caBundle },
        rules: [
          { operations: ['*'], apiGroups: ['admissionregistration.k8s.io'], apiVersions: ['*'], resources: ['*'] },
        ],
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
      },
    ]);
    const del = await apiRequest(cp, 'DELETE', `${VWC}/zz-everything`);
    assert.equal(del.status, 200, del.text);
    assert.ok(!hook.received.some((r) => r.path === '/everything'));
  });

  it('refuses configurations upstream refuses', async () => {
    const res = await apiRequest(cp, 'POST', MWC, {
      body: {
        metadata: { name: 'invalid' },
        webhooks: [
          {
            name: 'short.name',
            clientConfig: { url: 'https://127.0.0.1/x?q=1' },
            admissionReviewVersions: ['v1'],
            matchConditions: [{ name: 'has spaces', expression: 'true' }],
            reinvocationPolicy: 'Always',
          },
        ],
      },
    });
    assert.equal(res.status, 422, res.text);
    assert.equal(
      res.body.message,
      'MutatingWebhookConfiguration.admissionregistration.k8s.io "invalid" is invalid: [webhooks[0].name: Invalid value: "short.name": should be a domain with at least three segments separated by dots, webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun, webhooks[0].reinvocationPolicy: Unsupported value: "Always": supported values: "IfNeeded", "Never", webhooks[0].clientConfig.url: Invalid value: "q=1": query parameters are not permitted in the URL, webhooks[0].matchConditions[0].name: Invalid value: "has spaces": name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\',  or \'my.name\',  or \'123-abc\', regex used for validation is \'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\')]',
    );
  });
});
