/**
 * The ValidatingAdmissionPolicy status controller (upstream's pkg/controller/validatingadmissionpolicystatus): a
 * policy whose metadata.generation is past its status.observedGeneration is type-checked, and its status gets the
 * generation and `typeChecking.expressionWarnings` (for built-in kinds and custom resources alike), written with
 * server-side apply on /status under the field
 * manager `validatingadmissionpolicy-status-controller` (a merge patch where the server takes no apply patches).
 */
import { Lister } from '../../client/cache/listers.js';
import type { SharedIndexInformer } from '../../client/cache/shared-informer.js';
import { metaNamespaceKeyFunc, splitMetaNamespaceKey } from '../../client/cache/store.js';
import { waitForCacheSync } from '../../client/cache/wait-for-cache-sync.js';
import { ApiError, type KubeObject } from '../../client/types.js';
import { createRateLimitingQueue, type RateLimitingQueue } from '../../client/workqueue/rate-limiting.js';
import type { Controller, ControllerContext } from '../context.js';
import { runWorkers } from '../worker.js';
import { servedSchemas } from './served-schemas.js';
import { checkPolicy } from './typecheck.js';

export const CONTROLLER_NAME = 'validatingadmissionpolicy-status-controller';
const POLICIES = { group: 'admissionregistration.k8s.io', version: 'v1', resource: 'validatingadmissionpolicies' };

export class ValidatingAdmissionPolicyStatusController implements Controller {
  private readonly queue: RateLimitingQueue<string>;
  private readonly informer: SharedIndexInformer<KubeObject>;
  private readonly policies: Lister<KubeObject>;

  constructor(private readonly ctx: ControllerContext) {
    this.queue = createRateLimitingQueue<string>({ clock: ctx.clock, name: 'validatingadmissionpolicy-status' });
    this.informer = ctx.informers.forGroupVersionResource(POLICIES);
    this.policies = new Lister(this.informer.getIndexer());
    const enqueue = (p: KubeObject) => this.queue.add(metaNamespaceKeyFunc(p));
    this.informer.addEventHandler({ onAdd: enqueue, onUpdate: (_old, p) => enqueue(p) });
  }

  async run(): Promise<void> {
    const { ctx } = this;
    ctx.logger.info('Starting controller', { controller: CONTROLLER_NAME });
    if (await waitForCacheSync(ctx.signal, this.informer)) {
      await runWorkers({
        queue: this.queue,
        workers: 1,
        sync: (key) => this.sync(key),
        signal: ctx.signal,
        logger: ctx.logger,
      });
    }
    ctx.logger.info('Shutting down controller', { controller: CONTROLLER_NAME });
  }

  private async sync(key: string): Promise<void> {
    const { name } = splitMetaNamespaceKey(key);
    const policy = this.policies.get(name);
    if (!policy) return;
    const generation = typeof policy.metadata.generation === 'number' ? policy.metadata.generation : 0;
    const status = (policy.status ?? {}) as { observedGeneration?: number };
    if (generation <= (status.observedGeneration ?? 0)) return;
    // Custom resources' kinds and schemas as the server publishes them now (discovery, OpenAPI v3).
    const warnings = await checkPolicy(policy, servedSchemas(this.ctx.client));
    // As upstream's apply configuration: no warnings, no list (`typeChecking: {}`).
    const typeChecking = warnings.length > 0 ? { expressionWarnings: warnings } : {};
    const newStatus = { observedGeneration: generation, typeChecking };
    const client = this.ctx.client.resource(POLICIES);
    try {
      await client.patch(
        name,
        'apply',
        {
          apiVersion: 'admissionregistration.k8s.io/v1',
          kind: 'ValidatingAdmissionPolicy',
          metadata: { name },
          status: newStatus,
        },
        { fieldManager: CONTROLLER_NAME, force: true, subresource: 'status' },
      );
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 415)) throw err;
      const merge = {
        observedGeneration: generation,
        typeChecking: { expressionWarnings: warnings.length > 0 ? warnings : null },
      };
      await client.patch(name, 'merge', { status: merge }, { subresource: 'status' });
    }
  }
}
