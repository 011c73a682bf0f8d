import { after, before, describe, it } from 'node:test';
import { type ControlPlane, startControlPlane } from '../../src/index.js';
import { apiRequest } from '../../src/testing/api-client.js';
import assert from '../../src/testing/assert.js';

/**
 * The deprecated `spec.serviceAccount` of every PodSpec is an alias of `serviceAccountName`, as upstream's v1
 * conversion makes it: read as the name when the name is empty, written back as a copy of the name.
 */
type Rec = Record<string, unknown>;

const PODS = '/api/v1/namespaces/default/pods';
const DEPLOYMENTS = '/apis/apps/v1/namespaces/default/deployments';
const containers = [{ name: 'web', image: 'nginx:1.27' }];
const pod = (name: string, spec: Rec = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { containers, ...spec },
});
const deployment = (name: string, spec: Rec) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name },
  spec: {
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers, ...spec } },
  },
});

/** The pair as stored: [serviceAccountName, serviceAccount] (undefined when absent). */
const pair = (spec: Rec) => [spec.serviceAccountName, spec.serviceAccount];

/** The value at a path of field names (undefined when something on the way is missing). */
function at(obj: unknown, path: string[]): Rec {
  return path.reduce<unknown>((o, key) => (o && typeof o === 'object' ? (o as Rec)[key] : undefined), obj) as Rec;
}

/** Rewrites a stored object as an older wheelhouse stored it: its pod spec (at specPath) without the alias. */
async function storeWithoutAlias(cp: ControlPlane, key: string, specPath: string[]) {
  const kv = await cp.storage.get(key);
  assert.ok(kv, key);
  const obj = JSON.parse(kv.value.toString());
  delete at(obj, specPath).serviceAccount;
  await cp.storage.update(key, JSON.stringify(obj), kv.modRevision);
}

/** The fields a manager owns under spec (FieldsV1 keys), for the manager named. */
function ownedSpecFields(obj: { metadata: { managedFields?: Rec[] } }, manager: string): string[] {
  const entry = obj.metadata.managedFields?.find((e) => e.manager === manager);
  return Object.keys(at(entry, ['fieldsV1', 'f:spec']) ?? {});
}

describe('the deprecated spec.serviceAccount alias', () => {
  let cp: ControlPlane;
  before(async () => {
    cp = await startControlPlane();
  });
  after(async () => {
    await cp?.stop();
  });

  it('is written as a copy of serviceAccountName, right after it, and read back', async () => {
    const res = await apiRequest(cp, 'POST', `${PODS}?fieldManager=creator`, {
      body: pod('named', { serviceAccountName: 'builder', nodeSelector: { disk: 'ssd' } }),
    });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(pair(res.body.spec), ['builder', 'builder']);
    const keys = Object.keys(res.body.spec);
    assert.equal(keys[keys.indexOf('serviceAccountName') + 1], 'serviceAccount', keys.join(','));
    assert.ok(keys.indexOf('serviceAccount') < keys.indexOf('nodeSelector'), keys.join(','));
    const read = await apiRequest(cp, 'GET', `${PODS}/named`);
    assert.deepEqual(pair(read.body.spec), ['builder', 'builder']);
    // The creator set the name, so it owns the alias too (as upstream's managedFields of `kubectl run
    // --serviceaccount` show).
    const owned = ownedSpecFields(read.body, 'creator');
    assert.ok(owned.includes('f:serviceAccountName') && owned.includes('f:serviceAccount'), owned.join(','));
  });

  it('is read as the name when only the alias is given', async () => {
    const res = await apiRequest(cp, 'POST', PODS, { body: pod('aliased', { serviceAccount: 'builder' }) });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(pair(res.body.spec), ['builder', 'builder']);
    const keys = Object.keys(res.body.spec);
    assert.equal(keys[keys.indexOf('serviceAccountName') + 1], 'serviceAccount', keys.join(','));
  });

  it('loses to serviceAccountName when both are given and differ', async () => {
    const res = await apiRequest(cp, 'POST', PODS, {
      body: pod('both', { serviceAccount: 'other', serviceAccountName: 'builder' }),
    });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(pair(res.body.spec), ['builder', 'builder']);
  });

  it('is absent, with the name, when neither is given (no ServiceAccount admission)', async () => {
    const res = await apiRequest(cp, 'POST', PODS, { body: pod('neither', { serviceAccountName: '' }) });
    assert.equal(res.status, 201, res.text);
    assert.ok(!('serviceAccountName' in res.body.spec) && !('serviceAccount' in res.body.spec), res.text);
  });

  it('follows the name in a pod update; a change of the alias alone changes nothing', async () => {
    const path = `${PODS}/named`;
    const alias = await apiRequest(cp, 'PATCH', path, {
      body: { spec: { serviceAccount: 'intruder' } },
      contentType: 'application/merge-patch+json',
    });
    assert.equal(alias.status, 200, alias.text);
    assert.deepEqual(pair(alias.body.spec), ['builder', 'builder']);
    assert.equal(alias.body.metadata.generation, 1);
    const name = await apiRequest(cp, 'PATCH', path, {
      body: { spec: { serviceAccountName: 'intruder' } },
      contentType: 'application/merge-patch+json',
    });
    assert.equal(name.status, 422, name.text);
    assert.match(name.body.message, /pod updates may not change fields other than/);
    assert.match(name.body.message, /- spec\.serviceAccountName: "builder"\n\+ spec\.serviceAccountName: "intruder"/);
    assert.doesNotMatch(name.body.message, /spec\.serviceAccount:/);
    // A label change of a pod stored without the alias (as an older wheelhouse stored it) is no spec change.
    await storeWithoutAlias(cp, '/registry/pods/default/named', ['spec']);
    assert.ok(!('serviceAccount' in (await apiRequest(cp, 'GET', path)).body.spec));
    const label = await apiRequest(cp, 'PATCH', path, {
      body: { metadata: { labels: { touched: 'yes' } } },
      contentType: 'application/merge-patch+json',
    });
    assert.equal(label.status, 200, label.text);
    assert.deepEqual(pair(label.body.spec), ['builder', 'builder']);
  });

  it("follows a Deployment template's name through creates, patches and updates", async () => {
    const created = await apiRequest(cp, 'POST', DEPLOYMENTS, {
      body: deployment('web', { serviceAccount: 'builder' }),
    });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(pair(created.body.spec.template.spec), ['builder', 'builder']);
    const path = `${DEPLOYMENTS}/web`;
    const merge = (spec: Rec) =>
      apiRequest(cp, 'PATCH', path, {
        body: { spec: { template: { spec } } },
        contentType: 'application/merge-patch+json',
      });
    // Only the name changes: the alias follows it.
    let res = await merge({ serviceAccountName: 'deployer' });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(pair(res.body.spec.template.spec), ['deployer', 'deployer']);
    assert.equal(res.body.metadata.generation, 2);
    // Only the alias changes while the name is set: the name wins, nothing changes.
    res = await merge({ serviceAccount: 'ignored' });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(pair(res.body.spec.template.spec), ['deployer', 'deployer']);
    assert.equal(res.body.metadata.generation, 2);
    // The name removed while the stored alias stays: the alias is read as the name again.
    res = await merge({ serviceAccountName: null });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(pair(res.body.spec.template.spec), ['deployer', 'deployer']);
    // Both removed: neither remains.
    res = await merge({ serviceAccountName: null, serviceAccount: null });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(pair(res.body.spec.template.spec), [undefined, undefined]);
    // A PUT naming the account by the alias only.
    const body = res.body;
    body.spec.template.spec.serviceAccount = 'putter';
    res = await apiRequest(cp, 'PUT', path, { body });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(pair(res.body.spec.template.spec), ['putter', 'putter']);
  });

  it('is kept in the pod template of every workload', async () => {
    const template = { metadata: { labels: { app: 'x' } }, spec: { containers, serviceAccount: 'builder' } };
    const jobTemplate = { ...template, spec: { ...template.spec, restartPolicy: 'Never' } };
    const selector = { matchLabels: { app: 'x' } };
    const cases: Array<[string, Rec, string[]]> = [
      [
        '/apis/apps/v1/namespaces/default/replicasets',
        { kind: 'ReplicaSet', spec: { selector, template } },
        ['spec', 'template', 'spec'],
      ],
      [
        '/apis/apps/v1/namespaces/default/statefulsets',
        { kind: 'StatefulSet', spec: { selector, serviceName: 'x', template } },
        ['spec', 'template', 'spec'],
      ],
      [
        '/apis/apps/v1/namespaces/default/daemonsets',
        { kind: 'DaemonSet', spec: { selector, template } },
        ['spec', 'template', 'spec'],
      ],
      [
        '/apis/batch/v1/namespaces/default/jobs',
        { kind: 'Job', spec: { template: jobTemplate } },
        ['spec', 'template', 'spec'],
      ],
      [
        '/apis/batch/v1/namespaces/default/cronjobs',
        { kind: 'CronJob', spec: { schedule: '*/5 * * * *', jobTemplate: { spec: { template: jobTemplate } } } },
        ['spec', 'jobTemplate', 'spec', 'template', 'spec'],
      ],
      ['/api/v1/namespaces/default/podtemplates', { kind: 'PodTemplate', template }, ['template', 'spec']],
      [
        '/api/v1/namespaces/default/replicationcontrollers',
        { kind: 'ReplicationController', spec: { selector: { app: 'x' }, template } },
        ['spec', 'template', 'spec'],
      ],
    ];
    for (const [path, body, specPath] of cases) {
      const res = await apiRequest(cp, 'POST', path, { body: { metadata: { name: 'alias' }, ...body } });
      assert.equal(res.status, 201, `${body.kind}: ${res.text}`);
      assert.deepEqual(pair(at(res.body, specPath)), ['builder', 'builder'], String(body.kind));
    }
  });

  it('lets a Job whose template was stored without the alias be updated', async () => {
    const path = '/apis/batch/v1/namespaces/default/jobs/alias';
    await storeWithoutAlias(cp, '/registry/jobs/default/alias', ['spec', 'template', 'spec']);
    const res = await apiRequest(cp, 'PATCH', path, {
      body: { metadata: { labels: { touched: 'yes' } } },
      contentType: 'application/merge-patch+json',
    });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(pair(res.body.spec.template.spec), ['builder', 'builder']);
  });
});

describe('the alias with ServiceAccount admission', () => {
  let cp: ControlPlane;
  before(async () => {
    cp = await startControlPlane({ admission: { enablePlugins: ['ServiceAccount'] } });
    const sa = await apiRequest(cp, 'POST', '/api/v1/namespaces/default/serviceaccounts', {
      body: { metadata: { name: 'default' } },
    });
    assert.equal(sa.status, 201, sa.text);
  });
  after(async () => {
    await cp?.stop();
  });

  it('follows the default name the plugin gives, which belongs to no manager', async () => {
    const res = await apiRequest(cp, 'POST', `${PODS}?fieldManager=creator`, {
      body: pod('defaulted', { automountServiceAccountToken: false }),
    });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(pair(res.body.spec), ['default', 'default']);
    const read = await apiRequest(cp, 'GET', `${PODS}/defaulted`);
    assert.deepEqual(pair(read.body.spec), ['default', 'default']);
    const owned = ownedSpecFields(read.body, 'creator');
    assert.ok(owned.includes('f:dnsPolicy'), owned.join(','));
    assert.ok(!owned.includes('f:serviceAccountName') && !owned.includes('f:serviceAccount'), owned.join(','));
  });
});
