/**
 * The garbage-collector-controller descriptor. With --enable-garbage-collector=false it is skipped, as upstream.
 */
import type { ControllerDescriptor } from '../context.js';
import { GarbageCollector, type GarbageCollectorOptions } from './garbage-collector.js';

export { GarbageCollector, GC_SYNC_PERIOD_MS } from './garbage-collector.js';

/** Upstream's event source component of the garbage collector. */
export const GARBAGE_COLLECTOR_COMPONENT = 'garbage-collector-controller';

/** A descriptor with settings changed (for tests: a shorter discovery period). */
export function newGarbageCollectorController(
  settings: Pick<GarbageCollectorOptions, 'syncPeriodMs' | 'ignoredResources'> = {},
): ControllerDescriptor {
  return {
    name: 'garbage-collector-controller',
    serviceAccount: 'generic-garbage-collector',
    create(ctx) {
      if (!ctx.options.enableGarbageCollector) {
        ctx.logger.info('Warning: skipping controller', { controller: 'garbage-collector-controller' });
        return { run: async () => {} };
      }
      const gc = new GarbageCollector({
        client: ctx.client,
        informers: ctx.informers,
        clock: ctx.clock,
        logger: ctx.logger,
        recorder: ctx.recorder(GARBAGE_COLLECTOR_COMPONENT),
        workers: ctx.options.concurrentGcSyncs,
        signal: ctx.signal,
        ...settings,
      });
      return { run: () => gc.run() };
    },
  };
}

export const garbageCollectorController: ControllerDescriptor = newGarbageCollectorController();
