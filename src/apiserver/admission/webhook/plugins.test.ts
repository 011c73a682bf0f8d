import { after, before, describe, it } from 'node:test';
import { MemoryStore } from '../../../storage/memory.js';
import { admissionAttributes } from '../../../testing/admission-attributes.js';
import assert from '../../../testing/assert.js';
import { jsonPatch, startWebhookServer, type WebhookServer } from '../../../testing/webhook-server.js';
import { silentLogger } from '../../../util/logger.js';
import type { APIRegistry } from '../../api-registry.js';
import { buildRegistry } from '../../assemble.js';
import type { KubeObject } from '../../registry/object.js';
import type { AdmissionSink } from '../types.js';
import { mutatingAdmissionWebhook } from './mutating.js';
import { validatingAdmissionWebhook } from './validating.js';

/** The plugins' audit annotations (with the audit level each needs) and warnings, as the request's sink receives them. */
function recordingAttrs(object: KubeObject) {
  const annotations: Record<string, string> = {};
  const levels: Record<string, string> = {};
  const warnings: string[] = [];
  const sink: AdmissionSink = {
    warn: (w) => warnings.push(w),
    annotate: (k, v, level = 'Metadata') => {
      annotations[k] = v;
      levels[k] = level;
    },
  };
  return { attrs: admissionAttributes({ object, sink }), annotations, levels, warnings };
}

describe('webhook plugins: audit annotations', () => {
  let registry: APIRegistry;
  let hook: WebhookServer;
  before(async () => {
    registry = buildRegistry(new MemoryStore(), silentLogger, {});
    hook = await startWebhookServer();
    const webhook = (name: string, path: string, extra: Record<string, unknown> = {}) => ({
      name,
      clientConfig: { url: `${hook.url}${path}`, caBundle: hook.caBundle },
      rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
      sideEffects: 'None',
      admissionReviewVersions: ['v1'],
      ...extra,
    });
    const create = async (resource: string, name: string, webhooks: unknown[]) => {
      const served = registry.lookup('admissionregistration.k8s.io', 'v1', resource);
      await served?.store.create('', { metadata: { name }, webhooks } as unknown as KubeObject);
    };
    hook.on('/annotate', () => ({ allowed: true, auditAnnotations: { reason: 'looked fine' }, warnings: ['careful'] }));
    hook.on('/label', () => ({
      allowed: true,
      ...jsonPatch([{ op: 'add', path: '/metadata/labels', value: { seen: 'yes' } }]),
    }));
    await create('validatingwebhookconfigurations', 'v', [
      // Never called for these requests: the failed-open index counts only the webhooks called.
      webhook('deletes.example.com', '/x', {
        rules: [{ operations: ['DELETE'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'] }],
      }),
      webhook('annotate.example.com', '/annotate'),
      webhook('down.example.com', '/x', { clientConfig: { url: 'https://127.0.0.1:1/x' }, failurePolicy: 'Ignore' }),
    ]);
    // Keys out of order and characters Go's encoder escapes: the patch annotation re-encodes them as upstream does.
    hook.on('/note', () => ({
      allowed: true,
      ...jsonPatch([{ value: { note: '<b> & </b>' }, path: '/metadata/annotations', op: 'add' }]),
    }));
    await create('mutatingwebhookconfigurations', 'm', [
      webhook('noop.example.com', '/noop'),
      webhook('label.example.com', '/label'),
    ]);
    await create('mutatingwebhookconfigurations', 'n', [webhook('note.example.com', '/note')]);
  });
  after(async () => {
    await hook?.close();
    for (const s of registry?.all() ?? []) s.store.cacher.stop();
  });

  it('validating: the answer’s annotations under <webhook>/<key>, warnings, and failed-open for an ignored failure', async () => {
    const { attrs, annotations, warnings } = recordingAttrs({ metadata: { name: 'c' } } as KubeObject);
    await validatingAdmissionWebhook(registry).validate?.(attrs);
    assert.deepEqual(annotations, {
      'annotate.example.com/reason': 'looked fine',
      'failed-open.validating.webhook.admission.k8s.io/round_0_index_1': 'down.example.com',
    });
    assert.deepEqual(warnings, ['careful']);
    const sent = hook.received.find((r) => r.path === '/annotate')?.review;
    assert.deepEqual(sent.request.userInfo, { username: 'jane', groups: ['system:authenticated'] });
  });

  it('mutating: one mutation annotation per webhook called, saying whether it changed the object', async () => {
    const { attrs, annotations } = recordingAttrs({ metadata: { name: 'c' } } as KubeObject);
    attrs.reinvocation = { isReinvoke: false, shouldReinvoke: false, values: new Map() };
    await mutatingAdmissionWebhook(registry).admit?.(attrs);
    assert.deepEqual(attrs.object?.metadata.labels, { seen: 'yes' });
    assert.equal(attrs.reinvocation.shouldReinvoke, true);
    assert.deepEqual(JSON.parse(annotations['mutation.webhook.admission.k8s.io/round_0_index_0'] ?? ''), {
      configuration: 'm',
      webhook: 'noop.example.com',
      mutated: false,
    });
    assert.deepEqual(JSON.parse(annotations['mutation.webhook.admission.k8s.io/round_0_index_1'] ?? ''), {
      configuration: 'm',
      webhook: 'label.example.com',
      mutated: true,
    });
  });

  it('mutating: each patch applied is recorded for Request-level events, with upstream keys and JSON shape', async () => {
    const { attrs, annotations, levels } = recordingAttrs({ metadata: { name: 'c' } } as KubeObject);
    attrs.reinvocation = { isReinvoke: false, shouldReinvoke: false, values: new Map() };
    await mutatingAdmissionWebhook(registry).admit?.(attrs);
    // The noop webhook answered no patch: no patch annotation at its index, only the mutation one.
    assert.equal(annotations['patch.webhook.admission.k8s.io/round_0_index_0'], undefined);
    assert.equal(levels['mutation.webhook.admission.k8s.io/round_0_index_0'], 'Metadata');
    assert.equal(
      annotations['patch.webhook.admission.k8s.io/round_0_index_1'],
      '{"configuration":"m","webhook":"label.example.com","patch":[{"op":"add","path":"/metadata/labels","value":{"seen":"yes"}}],"patchType":"JSONPatch"}',
    );
    assert.equal(levels['patch.webhook.admission.k8s.io/round_0_index_1'], 'Request');
    // Index 2: the webhooks of all configurations are counted in one list (configuration m, then n).
    assert.equal(
      annotations['patch.webhook.admission.k8s.io/round_0_index_2'],
      '{"configuration":"n","webhook":"note.example.com","patch":[{"op":"add","path":"/metadata/annotations","value":{"note":"\\u003cb\\u003e \\u0026 \\u003c/b\\u003e"}}],"patchType":"JSONPatch"}',
    );
    assert.equal(levels['patch.webhook.admission.k8s.io/round_0_index_2'], 'Request');
    assert.deepEqual(attrs.object?.metadata.annotations, { note: '<b> & </b>' });
  });
});
