import { after, before, describe, it } from 'node:test';
import { type ControlPlane, startControlPlane } from '../../src/index.js';
import { apiRequest } from '../../src/testing/api-client.js';
import assert from '../../src/testing/assert.js';

const DEPLOYS = '/apis/apps/v1/namespaces/default/deployments';

function deployment(name: string, labels: Record<string, string> = { app: name }, selector = labels) {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: {
      selector: { matchLabels: selector },
      template: {
        metadata: { labels },
        spec: { containers: [{ name: 'web', image: 'nginx:1.25', ports: [{ containerPort: 80 }] }] },
      },
    },
  };
}

describe('apps/v1 through the HTTP API', () => {
  let cp: ControlPlane;
  before(async () => {
    cp = await startControlPlane();
  });
  after(async () => {
    await cp?.stop();
  });

  it('gives a Deployment its defaults', async () => {
    const res = await apiRequest(cp, 'POST', DEPLOYS, { body: deployment('web') });
    assert.equal(res.status, 201, res.text);
    const { metadata, spec, status } = res.body;
    assert.equal(metadata.generation, 1);
    assert.equal(spec.replicas, 1);
    assert.deepEqual(spec.strategy, {
      type: 'RollingUpdate',
      rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' },
    });
    assert.equal(spec.revisionHistoryLimit, 10);
    assert.equal(spec.progressDeadlineSeconds, 600);
    const podSpec = spec.template.spec;
    assert.equal(podSpec.restartPolicy, 'Always');
    assert.equal(podSpec.dnsPolicy, 'ClusterFirst');
    assert.equal(podSpec.schedulerName, 'default-scheduler');
    assert.equal(podSpec.terminationGracePeriodSeconds, 30);
    assert.deepEqual(podSpec.securityContext, {});
    const container = podSpec.containers[0];
    assert.equal(container.imagePullPolicy, 'IfNotPresent');
    assert.equal(container.terminationMessagePath, '/dev/termination-log');
    assert.equal(container.terminationMessagePolicy, 'File');
    assert.equal(container.ports[0].protocol, 'TCP');
    assert.deepEqual(status, {});
    const stored = await apiRequest(cp, 'GET', `${DEPLOYS}/web`);
    assert.deepEqual(stored.body.spec, spec, 'the defaults are stored');
  });

  it('refuses a selector that does not match the template, with upstream text and causes', async () => {
    const res = await apiRequest(cp, 'POST', DEPLOYS, { body: deployment('mismatch', { app: 'a' }, { app: 'b' }) });
    assert.equal(res.status, 422);
    assert.equal(res.body.reason, 'Invalid');
    assert.equal(
      res.body.message,
      'Deployment.apps "mismatch" is invalid: spec.template.metadata.labels: Invalid value: map[string]string{"app":"a"}: `selector` does not match template `labels`',
    );
    assert.deepEqual(res.body.details, {
      name: 'mismatch',
      group: 'apps',
      kind: 'Deployment',
      causes: [
        {
          reason: 'FieldValueInvalid',
          message: 'Invalid value: map[string]string{"app":"a"}: `selector` does not match template `labels`',
          field: 'spec.template.metadata.labels',
        },
      ],
    });
    assert.equal((await apiRequest(cp, 'GET', `${DEPLOYS}/mismatch`)).status, 404);
  });

  it('bumps generation on a spec change but not on a label or status change', async () => {
    const created = (await apiRequest(cp, 'POST', DEPLOYS, { body: deployment('gen') })).body;
    assert.equal(created.metadata.generation, 1);
    const relabelled = await apiRequest(cp, 'PUT', `${DEPLOYS}/gen`, {
      body: { ...created, metadata: { ...created.metadata, labels: { team: 'a' } } },
    });
    assert.equal(relabelled.status, 200, relabelled.text);
    assert.equal(relabelled.body.metadata.generation, 1);
    assert.notEqual(relabelled.body.metadata.resourceVersion, created.metadata.resourceVersion);
    const scaled = await apiRequest(cp, 'PATCH', `${DEPLOYS}/gen`, {
      body: { spec: { replicas: 3 } },
      contentType: 'application/merge-patch+json',
    });
    assert.equal(scaled.status, 200, scaled.text);
    assert.equal(scaled.body.metadata.generation, 2);
    const status = await apiRequest(cp, 'PUT', `${DEPLOYS}/gen/status`, {
      body: {
        ...scaled.body,
        metadata: {
          ...scaled.body.metadata,
          labels: { team: 'b' },
          annotations: { 'deployment.kubernetes.io/revision': '1' },
        },
        spec: { ...scaled.body.spec, replicas: 9 },
        status: { observedGeneration: 2, replicas: 3 },
      },
    });
    assert.equal(status.status, 200, status.text);
    assert.equal(status.body.metadata.generation, 2);
    assert.equal(status.body.spec.replicas, 3, 'a status write does not change spec');
    assert.deepEqual(status.body.metadata.labels, { team: 'a' }, 'nor labels');
    assert.deepEqual(
      status.body.metadata.annotations,
      { 'deployment.kubernetes.io/revision': '1' },
      'a Deployment status write may set annotations, as upstream (its controller writes the revision so)',
    );
    assert.deepEqual(status.body.status, { observedGeneration: 2, replicas: 3 });
    const sneaky = await apiRequest(cp, 'PUT', `${DEPLOYS}/gen`, {
      body: { ...status.body, status: { replicas: 100 } },
    });
    assert.deepEqual(sneaky.body.status, { observedGeneration: 2, replicas: 3 }, 'the main resource ignores status');
  });

  it('keeps the selector immutable and checks status counters', async () => {
    const current = (await apiRequest(cp, 'GET', `${DEPLOYS}/web`)).body;
    const moved = deployment('web', { app: 'web', v: '2' });
    const res = await apiRequest(cp, 'PUT', `${DEPLOYS}/web`, {
      body: { ...moved, metadata: { ...moved.metadata, resourceVersion: current.metadata.resourceVersion } },
    });
    assert.equal(res.status, 422);
    assert.equal(
      res.body.message,
      'Deployment.apps "web" is invalid: spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"web", "v":"2"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable',
    );
    const badStatus = await apiRequest(cp, 'PUT', `${DEPLOYS}/web/status`, {
      body: { ...current, status: { replicas: 1, readyReplicas: 2 } },
    });
    assert.equal(badStatus.status, 422);
    assert.equal(
      badStatus.body.message,
      'Deployment.apps "web" is invalid: status.readyReplicas: Invalid value: 2: cannot be greater than status.replicas',
    );
  });

  it('serves the scale subresource of Deployments and StatefulSets', async () => {
    const scale = await apiRequest(cp, 'GET', `${DEPLOYS}/web/scale`);
    assert.equal(scale.status, 200, scale.text);
    assert.equal(scale.body.kind, 'Scale');
    assert.equal(scale.body.spec.replicas, 1);
    assert.equal(scale.body.status.selector, 'app=web');
    const sts = await apiRequest(cp, 'POST', '/apis/apps/v1/namespaces/default/statefulsets', {
      body: {
        metadata: { name: 'db' },
        spec: {
          serviceName: 'db',
          selector: { matchLabels: { app: 'db' } },
          template: { metadata: { labels: { app: 'db' } }, spec: { containers: [{ name: 'db', image: 'postgres' }] } },
        },
      },
    });
    assert.equal(sts.status, 201, sts.text);
    assert.equal(sts.body.spec.podManagementPolicy, 'OrderedReady');
    const stsScale = await apiRequest(cp, 'GET', '/apis/apps/v1/namespaces/default/statefulsets/db/scale');
    assert.equal(stsScale.body.status.selector, 'app=db');
  });

  it('decodes IntOrString and Scale values as their Go types do, and keeps a patch in its namespace', async () => {
    const d = deployment('typed');
    const bad = await apiRequest(cp, 'POST', DEPLOYS, {
      body: { ...d, spec: { ...d.spec, strategy: { rollingUpdate: { maxSurge: true } } } },
    });
    assert.equal(bad.status, 400, bad.text);
    assert.equal(
      bad.body.message,
      'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal bool into Go value of type int32',
    );
    const fractional = await apiRequest(cp, 'POST', DEPLOYS, {
      body: { ...d, spec: { ...d.spec, strategy: { rollingUpdate: { maxUnavailable: 1.5 } } } },
    });
    assert.equal(fractional.status, 400, fractional.text);
    assert.match(fractional.body.message, /json: cannot unmarshal number 1.5 into Go value of type int32$/);
    const ok = await apiRequest(cp, 'POST', DEPLOYS, {
      body: { ...d, spec: { ...d.spec, strategy: { rollingUpdate: { maxSurge: '50%', maxUnavailable: 0 } } } },
    });
    assert.equal(ok.status, 201, ok.text);

    const scale = (await apiRequest(cp, 'GET', `${DEPLOYS}/typed/scale`)).body;
    const tooMany = await apiRequest(cp, 'PUT', `${DEPLOYS}/typed/scale`, {
      body: { ...scale, spec: { replicas: 2147483648 } },
    });
    assert.equal(tooMany.status, 400, tooMany.text);
    assert.equal(
      tooMany.body.message,
      'Scale in version "v1" cannot be handled as a Scale: json: cannot unmarshal number 2147483648 into Go struct field ScaleSpec.spec.replicas of type int32',
    );
    const text = await apiRequest(cp, 'PATCH', `${DEPLOYS}/typed/scale`, {
      body: { spec: { replicas: '3' } },
      contentType: 'application/merge-patch+json',
    });
    assert.equal(text.status, 422, text.text);
    assert.match(text.body.message, /Go struct field ScaleSpec.spec.replicas of type int32$/);
    assert.equal((await apiRequest(cp, 'GET', `${DEPLOYS}/typed`)).body.spec.replicas, 1);

    const moved = await apiRequest(cp, 'PATCH', `${DEPLOYS}/typed`, {
      body: { metadata: { namespace: 'kube-system' } },
      contentType: 'application/merge-patch+json',
    });
    assert.equal(moved.status, 400, moved.text);
    assert.equal(
      moved.body.message,
      'the namespace of the provided object does not match the namespace sent on the request',
    );
    for (const query of ['gracePeriodSeconds=abc', 'gracePeriodSeconds=1.5']) {
      const res = await apiRequest(cp, 'DELETE', `${DEPLOYS}/typed?${query}`);
      assert.equal(res.status, 400, `${query}: ${res.text}`);
      assert.match(res.body.message, /^strconv.ParseInt: parsing ".*": invalid syntax$/);
    }
    const watch = await apiRequest(cp, 'GET', `${DEPLOYS}?watch=true&timeoutSeconds=abc`);
    assert.equal(watch.status, 400, watch.text);
    assert.equal((await apiRequest(cp, 'DELETE', `${DEPLOYS}/typed`)).status, 200);
  });

  it('creates a DaemonSet with its template generation and refuses a non-Always restart policy', async () => {
    const ds = {
      metadata: { name: 'agent' },
      spec: {
        selector: { matchLabels: { app: 'agent' } },
        template: { metadata: { labels: { app: 'agent' } }, spec: { containers: [{ name: 'a', image: 'agent:1' }] } },
      },
    };
    const res = await apiRequest(cp, 'POST', '/apis/apps/v1/namespaces/default/daemonsets', { body: ds });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.metadata.annotations['deprecated.daemonset.template.generation'], '1');
    const bad = structuredClone(ds);
    bad.metadata.name = 'bad';
    (bad.spec.template.spec as Record<string, unknown>).restartPolicy = 'Never';
    const refused = await apiRequest(cp, 'POST', '/apis/apps/v1/namespaces/default/daemonsets', { body: bad });
    assert.equal(refused.status, 422);
    assert.equal(
      refused.body.message,
      'DaemonSet.apps "bad" is invalid: spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"',
    );
  });
});
