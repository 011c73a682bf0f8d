import { describe, it } from 'node:test';
import assert from '../../../testing/assert.js';
import {
  defaultContainer,
  defaultPodSpec,
  defaultPodTemplate,
  defaultPullPolicy,
  imageTag,
  serviceAccountAlias,
} from './apps-pod-template-defaults.js';

describe('pod template defaults', () => {
  it('fills the PodSpec defaults upstream applies to every template', () => {
    const spec: Record<string, unknown> = { containers: [{ name: 'c', image: 'nginx' }] };
    defaultPodSpec(spec);
    assert.equal(spec.restartPolicy, 'Always');
    assert.equal(spec.dnsPolicy, 'ClusterFirst');
    assert.equal(spec.schedulerName, 'default-scheduler');
    assert.equal(spec.terminationGracePeriodSeconds, 30);
    assert.deepEqual(spec.securityContext, {});
    assert.deepEqual(spec.containers, [
      {
        name: 'c',
        image: 'nginx',
        resources: {},
        imagePullPolicy: 'Always',
        terminationMessagePath: '/dev/termination-log',
        terminationMessagePolicy: 'File',
      },
    ]);
  });

  it("gives a template Go's zero values: metadata with creationTimestamp null, containers' resources {}", () => {
    const owner: Record<string, unknown> = {
      template: { spec: { containers: [{ name: 'c', image: 'a:1', resources: null }] } },
    };
    defaultPodTemplate(owner, 'Deployment');
    const template = owner.template as { metadata: unknown; spec: { containers: { resources: unknown }[] } };
    assert.deepEqual(template.metadata, { creationTimestamp: null });
    assert.deepEqual(template.spec.containers[0]?.resources, {});
    const labelled: Record<string, unknown> = {
      template: { metadata: { labels: { a: 'b' } }, spec: { containers: [] } },
    };
    defaultPodTemplate(labelled, 'Deployment');
    assert.deepEqual((labelled.template as { metadata: unknown }).metadata, {
      labels: { a: 'b' },
      creationTimestamp: null,
    });
  });

  it('keeps what the user set, a zero grace period included', () => {
    const spec: Record<string, unknown> = {
      restartPolicy: 'Never',
      terminationGracePeriodSeconds: 0,
      securityContext: { runAsUser: 1000 },
      containers: [],
    };
    defaultPodSpec(spec);
    assert.equal(spec.restartPolicy, 'Never');
    assert.equal(spec.terminationGracePeriodSeconds, 0);
    assert.deepEqual(spec.securityContext, { runAsUser: 1000 });
  });

  it('picks the pull policy from the image tag as upstream parses references', () => {
    assert.equal(imageTag('nginx'), 'latest');
    assert.equal(imageTag('nginx:1.25'), '1.25');
    assert.equal(imageTag('localhost:5000/team/app'), 'latest');
    assert.equal(imageTag(`busybox@sha256:${'a'.repeat(64)}`), '');
    assert.equal(defaultPullPolicy('nginx:latest'), 'Always');
    assert.equal(defaultPullPolicy('registry.example.com:443/nginx:1.2'), 'IfNotPresent');
    assert.equal(defaultPullPolicy('Nginx'), 'IfNotPresent', 'an unparsable reference has no tag');
    assert.equal(defaultPullPolicy(''), 'IfNotPresent');
  });

  it('defaults ports, env field references, probes and lifecycle handlers', () => {
    const c: Record<string, unknown> = {
      image: 'app:1',
      ports: [{ containerPort: 80 }, { containerPort: 53, protocol: 'UDP' }],
      env: [{ name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
      livenessProbe: { httpGet: { port: 8080 } },
      readinessProbe: { grpc: { port: 9000 }, periodSeconds: 5 },
      lifecycle: { preStop: { httpGet: { port: 80, path: '/quit' } } },
    };
    defaultContainer(c);
    assert.deepEqual(c.ports, [
      { containerPort: 80, protocol: 'TCP' },
      { containerPort: 53, protocol: 'UDP' },
    ]);
    assert.deepEqual(c.env, [
      { name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name', apiVersion: 'v1' } } },
    ]);
    assert.deepEqual(c.livenessProbe, {
      httpGet: { port: 8080, path: '/', scheme: 'HTTP' },
      timeoutSeconds: 1,
      periodSeconds: 10,
      successThreshold: 1,
      failureThreshold: 3,
    });
    assert.deepEqual(c.readinessProbe, {
      grpc: { port: 9000, service: '' },
      periodSeconds: 5,
      timeoutSeconds: 1,
      successThreshold: 1,
      failureThreshold: 3,
    });
    assert.deepEqual(c.lifecycle, { preStop: { httpGet: { port: 80, path: '/quit', scheme: 'HTTP' } } });
  });

  it('defaults volume sources', () => {
    const spec: Record<string, unknown> = {
      containers: [],
      volumes: [
        { name: 'scratch' },
        { name: 'cfg', configMap: { name: 'x' } },
        { name: 'sec', secret: { secretName: 's', defaultMode: 256 } },
        { name: 'host', hostPath: { path: '/data' } },
        { name: 'tok', projected: { sources: [{ serviceAccountToken: { path: 't' } }] } },
      ],
    };
    defaultPodSpec(spec);
    assert.deepEqual(spec.volumes, [
      { name: 'scratch', emptyDir: {} },
      { name: 'cfg', configMap: { name: 'x', defaultMode: 420 } },
      { name: 'sec', secret: { secretName: 's', defaultMode: 256 } },
      { name: 'host', hostPath: { path: '/data', type: '' } },
      {
        name: 'tok',
        projected: { sources: [{ serviceAccountToken: { path: 't', expirationSeconds: 3600 } }], defaultMode: 420 },
      },
    ]);
  });

  it('keeps serviceAccount as the alias of serviceAccountName, the name first, where the pair stood', () => {
    const aliasOnly: Record<string, unknown> = { containers: [], serviceAccount: 'a', nodeName: 'n' };
    serviceAccountAlias(aliasOnly);
    assert.deepEqual(Object.entries(aliasOnly), [
      ['containers', []],
      ['serviceAccountName', 'a'],
      ['serviceAccount', 'a'],
      ['nodeName', 'n'],
    ]);
    const reversed: Record<string, unknown> = { serviceAccount: 'b', hostname: 'h', serviceAccountName: 'a' };
    serviceAccountAlias(reversed);
    assert.deepEqual(Object.entries(reversed), [
      ['serviceAccountName', 'a'],
      ['serviceAccount', 'a'],
      ['hostname', 'h'],
    ]);
    const empty: Record<string, unknown> = { serviceAccountName: '', serviceAccount: null };
    serviceAccountAlias(empty);
    assert.deepEqual(empty, {});
    const notAString: Record<string, unknown> = { serviceAccount: 7 };
    serviceAccountAlias(notAString);
    assert.deepEqual(notAString, { serviceAccount: 7 });
  });
});
