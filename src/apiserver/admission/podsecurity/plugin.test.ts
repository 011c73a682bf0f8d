/**
 * The PodSecurity plugin over fake sources: what it adds to a request (warnings, audit annotations under
 * pod-security.kubernetes.io/) and what it refuses, for pods, workloads and namespaces.
 */
import { describe, it } from 'node:test';
import { StatusError } from '../../../api/status-error.js';
import assert from '../../../testing/assert.js';
import type { KubeObject } from '../../registry/object.js';
import { attributesFor } from '../attributes.js';
import type { AdmissionAttributes, Operation } from '../types.js';
import { PodSecurityMetrics } from './metrics.js';
import { podSecurity } from './plugin.js';

const PODS = { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true };
const NAMESPACES = { group: '', version: 'v1', resource: 'namespaces', kind: 'Namespace', namespaced: false };
const DEPLOYMENTS = { group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment', namespaced: true };

function ns(name: string, labels: Record<string, string> = {}): KubeObject {
  return { metadata: { name, labels } };
}

function pod(name: string, spec: Record<string, unknown> = {}, metadata: Record<string, unknown> = {}): KubeObject {
  return { metadata: { name, ...metadata }, spec: { containers: [{ name: 'c', image: 'nginx' }], ...spec } };
}

function plugin(
  namespaces: KubeObject[],
  opts: { configuration?: unknown; pods?: KubeObject[]; now?: () => number; metrics?: PodSecurityMetrics } = {},
) {
  return podSecurity({
    ...(opts.configuration ? { configuration: opts.configuration } : {}),
    ...(opts.metrics ? { metrics: opts.metrics } : {}),
    sources: {
      namespace: async (name) => namespaces.find((n) => n.metadata.name === name),
      pods: async () => opts.pods ?? [],
    },
    maxPodsToCheck: 3,
    ...(opts.now ? { now: opts.now } : {}),
  });
}

interface Recorded {
  warnings: string[];
  annotations: Record<string, string>;
  error?: StatusError;
}

async function run(
  p: ReturnType<typeof plugin>,
  def: typeof PODS,
  fields: {
    operation?: Operation;
    object?: KubeObject;
    oldObject?: KubeObject;
    namespace?: string;
    name?: string;
    user?: string;
    subresource?: string;
  },
): Promise<Recorded> {
  const out: Recorded = { warnings: [], annotations: {} };
  const attrs: AdmissionAttributes = attributesFor(def, {
    operation: fields.operation ?? 'CREATE',
    object: fields.object,
    oldObject: fields.oldObject,
    namespace: fields.namespace ?? 'ns',
    name: fields.name ?? fields.object?.metadata.name ?? '',
    ...(fields.subresource ? { subresource: fields.subresource } : {}),
    ...(fields.user ? { user: { name: fields.user, groups: [] } } : {}),
    sink: { warn: (t) => out.warnings.push(t), annotate: (k, v) => (out.annotations[k] = v) },
  });
  if (p.handles && !p.handles(attrs.operation)) return out;
  try {
    await p.validate?.(attrs);
  } catch (err) {
    assert.ok(err instanceof StatusError, String(err));
    out.error = err;
  }
  return out;
}

const RESTRICTED = { 'pod-security.kubernetes.io/enforce': 'restricted' };

describe('PodSecurity plugin: pods', () => {
  it('refuses with the enforce policy and records it, with audit violations', async () => {
    const p = plugin([ns('ns', { ...RESTRICTED, 'pod-security.kubernetes.io/audit': 'baseline' })]);
    const r = await run(p, PODS, { object: pod('x', { hostNetwork: true }) });
    assert.equal(r.error?.code, 403);
    assert.match(
      r.error?.message ?? '',
      /^pods "x" is forbidden: violates PodSecurity "restricted:latest": host namespaces \(hostNetwork=true\), /,
    );
    assert.deepEqual(r.warnings, []);
    assert.deepEqual(r.annotations, {
      'pod-security.kubernetes.io/enforce-policy': 'restricted:latest',
      'pod-security.kubernetes.io/audit-violations':
        'would violate PodSecurity "baseline:latest": host namespaces (hostNetwork=true)',
    });
  });

  it('records the privileged policy for fully privileged namespaces, and nothing else', async () => {
    const r = await run(plugin([ns('ns')]), PODS, { object: pod('x', { hostNetwork: true }) });
    assert.equal(r.error, undefined);
    assert.deepEqual(r.annotations, { 'pod-security.kubernetes.io/enforce-policy': 'privileged:latest' });
  });

  it('fails closed on an invalid enforce label and says why in the audit annotations', async () => {
    const p = plugin([ns('ns', { 'pod-security.kubernetes.io/enforce': 'bogus' })]);
    const r = await run(p, PODS, { object: pod('x') });
    assert.equal(r.error?.code, 403);
    assert.match(r.error?.message ?? '', /violates PodSecurity "restricted:latest"/);
    assert.equal(
      r.annotations['pod-security.kubernetes.io/error'],
      'Failed to parse policy: metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "bogus": must be one of privileged, baseline, restricted',
    );
  });

  it('exempts configured users, namespaces and runtime classes, and says which', async () => {
    const configuration = {
      apiVersion: 'pod-security.admission.config.k8s.io/v1',
      kind: 'PodSecurityConfiguration',
      defaults: { enforce: 'restricted' },
      exemptions: { usernames: ['admin'], namespaces: ['tools'], runtimeClasses: ['kata'] },
    };
    const p = plugin([ns('ns'), ns('tools')], { configuration });
    const user = await run(p, PODS, { object: pod('x'), user: 'admin' });
    assert.equal(user.error, undefined);
    assert.deepEqual(user.annotations, { 'pod-security.kubernetes.io/exempt': 'user' });
    const namespace = await run(p, PODS, { object: pod('x'), namespace: 'tools' });
    assert.deepEqual(namespace.annotations, { 'pod-security.kubernetes.io/exempt': 'namespace' });
    const runtime = await run(p, PODS, { object: pod('x', { runtimeClassName: 'kata' }) });
    assert.equal(runtime.error, undefined);
    assert.deepEqual(runtime.annotations, { 'pod-security.kubernetes.io/exempt': 'runtimeClass' });
    assert.equal((await run(p, PODS, { object: pod('x'), user: 'jane' })).error?.code, 403);
  });

  it('ignores updates that change no image and subresources without a pod spec', async () => {
    const p = plugin([ns('ns', RESTRICTED)]);
    const old = pod('x', { hostNetwork: true });
    const relabelled = pod('x', { hostNetwork: true }, { labels: { a: 'b' } });
    assert.equal((await run(p, PODS, { operation: 'UPDATE', object: relabelled, oldObject: old })).error, undefined);
    assert.equal(
      (await run(p, PODS, { operation: 'UPDATE', object: old, oldObject: old, subresource: 'status' })).error,
      undefined,
    );
    const reimaged = pod('x', { hostNetwork: true, containers: [{ name: 'c', image: 'nginx:2' }] });
    assert.equal((await run(p, PODS, { operation: 'UPDATE', object: reimaged, oldObject: old })).error?.code, 403);
    const debug = pod('x', { hostNetwork: true, ephemeralContainers: [{ name: 'debug', image: 'busybox' }] });
    const added = await run(p, PODS, {
      operation: 'UPDATE',
      object: debug,
      oldObject: old,
      subresource: 'ephemeralcontainers',
    });
    assert.equal(added.error?.code, 403);
    // Deletes are not PodSecurity's business.
    assert.equal((await run(p, PODS, { operation: 'DELETE', oldObject: old })).error, undefined);
  });

  it('answers 500 when the namespace cannot be read', async () => {
    const r = await run(plugin([]), PODS, { object: pod('x'), namespace: 'gone' });
    assert.equal(r.error?.code, 500);
    assert.equal(r.error?.message, 'Internal error occurred: failed to lookup namespace "gone"');
    assert.match(
      r.annotations['pod-security.kubernetes.io/error'] ?? '',
      /^Internal error occurred: failed to lookup namespace "gone": /,
    );
  });
});

describe('PodSecurity plugin: workloads', () => {
  const deployment = (spec: Record<string, unknown>): KubeObject => ({
    metadata: { name: 'web' },
    spec: { template: { metadata: {}, spec: { containers: [{ name: 'web', image: 'nginx' }], ...spec } } },
  });

  it('warn and audit only, never refused', async () => {
    const p = plugin([ns('ns', { ...RESTRICTED, 'pod-security.kubernetes.io/audit': 'baseline' })]);
    const r = await run(p, DEPLOYMENTS, { object: deployment({ hostIPC: true }) });
    assert.equal(r.error, undefined);
    assert.equal(r.warnings.length, 1);
    assert.match(
      r.warnings[0] ?? '',
      /^would violate PodSecurity "restricted:latest": host namespaces \(hostIPC=true\), /,
    );
    assert.deepEqual(r.annotations, {
      'pod-security.kubernetes.io/audit-violations':
        'would violate PodSecurity "baseline:latest": host namespaces (hostIPC=true)',
    });
  });

  it('skips subresources (scale, status) and namespaces where warn and audit are privileged', async () => {
    const p = plugin([
      ns('ns', { 'pod-security.kubernetes.io/enforce': 'baseline', 'pod-security.kubernetes.io/warn': 'privileged' }),
    ]);
    const r = await run(p, DEPLOYMENTS, { object: deployment({ hostIPC: true }) });
    assert.deepEqual(r, { warnings: [], annotations: {} });
    const q = plugin([ns('ns', RESTRICTED)]);
    const scale = await run(q, DEPLOYMENTS, {
      operation: 'UPDATE',
      object: deployment({ hostIPC: true }),
      subresource: 'scale',
    });
    assert.deepEqual(scale, { warnings: [], annotations: {} });
  });
});

describe('PodSecurity plugin: namespaces', () => {
  const update = (labels: Record<string, string>, oldLabels: Record<string, string>) => ({
    operation: 'UPDATE' as const,
    object: ns('ns', labels),
    oldObject: ns('ns', oldLabels),
    name: 'ns',
    namespace: '',
  });

  it('lets an update through that keeps labels invalid as they were, and refuses new errors', async () => {
    const bad = { 'pod-security.kubernetes.io/enforce': 'bogus' };
    const p = plugin([]);
    assert.equal((await run(p, NAMESPACES, update({ ...bad, other: 'x' }, bad))).error, undefined);
    const worse = await run(p, NAMESPACES, update({ 'pod-security.kubernetes.io/enforce': 'worse' }, bad));
    assert.equal(worse.error?.code, 422);
    assert.equal(worse.error?.reason, 'Invalid');
    assert.deepEqual(worse.error?.status.details?.causes, [
      {
        reason: 'FieldValueInvalid',
        message: 'Invalid value: "worse": must be one of privileged, baseline, restricted',
        field: 'metadata.labels[pod-security.kubernetes.io/enforce]',
      },
    ]);
  });

  it('checks existing pods only when enforce gets stricter', async () => {
    const pods = [pod('a', { hostNetwork: true })];
    const p = plugin([], { pods });
    const stricter = await run(p, NAMESPACES, update({ 'pod-security.kubernetes.io/enforce': 'baseline' }, {}));
    assert.deepEqual(stricter.warnings, [
      'existing pods in namespace "ns" violate the new PodSecurity enforce level "baseline:latest"',
      'a: host namespaces',
    ]);
    const looser = await run(
      p,
      NAMESPACES,
      update(
        { 'pod-security.kubernetes.io/enforce': 'baseline' },
        { 'pod-security.kubernetes.io/enforce': 'restricted' },
      ),
    );
    assert.deepEqual(looser.warnings, []);
    // A new version at the same level is checked.
    const pinned = await run(
      p,
      NAMESPACES,
      update(
        { 'pod-security.kubernetes.io/enforce': 'baseline', 'pod-security.kubernetes.io/enforce-version': 'v1.20' },
        { 'pod-security.kubernetes.io/enforce': 'baseline' },
      ),
    );
    assert.equal(
      pinned.warnings[0],
      'existing pods in namespace "ns" violate the new PodSecurity enforce level "baseline:v1.20"',
    );
  });

  it('checks one pod per controller first, at most the limit, and says how many it checked', async () => {
    const owned = (name: string, uid: string) =>
      pod(
        name,
        { hostPID: true },
        { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid, controller: true }] },
      );
    const pods = [
      owned('rs1-a', 'u1'),
      owned('rs1-b', 'u1'),
      owned('rs1-c', 'u1'),
      owned('rs2-a', 'u2'),
      pod('solo', { containers: [{ name: 'c', image: 'nginx', securityContext: { privileged: true } }] }),
    ];
    const r = await run(
      plugin([], { pods }),
      NAMESPACES,
      update({ 'pod-security.kubernetes.io/enforce': 'baseline' }, {}),
    );
    assert.deepEqual(r.warnings, [
      'new PodSecurity enforce level only checked against the first 3 of 5 existing pods',
      'existing pods in namespace "ns" violate the new PodSecurity enforce level "baseline:latest"',
      'rs1-a (and 1 other pod): host namespaces',
      'solo: privileged',
    ]);
  });

  it('stops checking when its time is up', async () => {
    let t = 0;
    const pods = [pod('a', { hostPID: true }), pod('b', { hostPID: true })];
    const p = plugin([], { pods, now: () => (t += 1000) });
    const r = await run(p, NAMESPACES, update({ 'pod-security.kubernetes.io/enforce': 'baseline' }, {}));
    assert.deepEqual(r.warnings, [
      'new PodSecurity enforce level only checked against the first 1 of 2 existing pods',
      'existing pods in namespace "ns" violate the new PodSecurity enforce level "baseline:latest"',
      'a: host namespaces',
    ]);
  });

  it('warns that labels of an exempt namespace are ignored, on create and on a stricter update', async () => {
    const configuration = {
      apiVersion: 'pod-security.admission.config.k8s.io/v1beta1',
      kind: 'PodSecurityConfiguration',
      exemptions: { namespaces: ['ns'] },
    };
    const p = plugin([], { configuration, pods: [pod('a', { hostPID: true })] });
    const labels = {
      'pod-security.kubernetes.io/enforce': 'baseline',
      'pod-security.kubernetes.io/audit': 'restricted',
    };
    const created = await run(p, NAMESPACES, { object: ns('ns', labels), name: 'ns', namespace: '' });
    assert.deepEqual(created.warnings, [
      'namespace "ns" is exempt from Pod Security, and the policy (enforce=baseline:latest, audit=restricted:latest) will be ignored',
    ]);
    const updated = await run(p, NAMESPACES, update(labels, {}));
    assert.deepEqual(updated.warnings, created.warnings);
    const plain = await run(p, NAMESPACES, { object: ns('ns'), name: 'ns', namespace: '' });
    assert.deepEqual(plain.warnings, []);
  });
});

describe('PodSecurity metrics', () => {
  it('counts evaluations by decision, policy and mode, exemptions and errors, with upstream labels', async () => {
    const metrics = new PodSecurityMetrics();
    const configuration = {
      apiVersion: 'pod-security.admission.config.k8s.io/v1',
      kind: 'PodSecurityConfiguration',
      exemptions: { usernames: ['admin'] },
    };
    const p = plugin(
      [
        ns('ns', {
          ...RESTRICTED,
          'pod-security.kubernetes.io/audit': 'baseline',
          'pod-security.kubernetes.io/audit-version': 'v1.40',
        }),
        ns('open'),
        ns('typo', { 'pod-security.kubernetes.io/warn': 'nope' }),
      ],
      { configuration, metrics },
    );
    await run(p, PODS, { object: pod('x', { hostNetwork: true }) });
    await run(p, PODS, { object: pod('y'), namespace: 'open' });
    await run(p, PODS, { object: pod('z'), user: 'admin' });
    await run(p, PODS, { object: pod('t'), namespace: 'typo' });
    await run(p, DEPLOYMENTS, { object: { metadata: { name: 'd' }, spec: { template: { spec: { hostPID: true } } } } });
    const text = await metrics.registry.metrics();
    const lines = text.split('\n').filter((l) => l.startsWith('pod_security_'));
    assert.deepEqual(lines.sort(), [
      'pod_security_errors_total{fatal="false",request_operation="create",resource="pod",subresource=""} 1',
      'pod_security_evaluations_total{decision="allow",policy_level="privileged",policy_version="latest",mode="enforce",request_operation="create",resource="pod",subresource=""} 2',
      'pod_security_evaluations_total{decision="deny",policy_level="baseline",policy_version="future",mode="audit",request_operation="create",resource="controller",subresource=""} 1',
      'pod_security_evaluations_total{decision="deny",policy_level="baseline",policy_version="future",mode="audit",request_operation="create",resource="pod",subresource=""} 1',
      'pod_security_evaluations_total{decision="deny",policy_level="restricted",policy_version="latest",mode="enforce",request_operation="create",resource="pod",subresource=""} 1',
      'pod_security_evaluations_total{decision="deny",policy_level="restricted",policy_version="latest",mode="warn",request_operation="create",resource="controller",subresource=""} 1',
      'pod_security_exemptions_total{request_operation="create",resource="pod",subresource=""} 1',
    ]);
  });
});
