/**
 * Runs chosen controllers against an in-process control plane for tests: a ControllerManager without leader
 * election over the control plane's admin client.
 */
import type { ControllerDescriptor } from '../controllers/context.js';
import { ControllerManager } from '../controllers/manager.js';
import type { ControllerManagerOptions } from '../controllers/options.js';
import type { ControlPlane } from '../index.js';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';

export async function runControllers(
  cp: ControlPlane,
  descriptors: readonly ControllerDescriptor[],
  opts: { options?: Partial<ControllerManagerOptions>; clock?: Clock; logger?: Logger } = {},
): Promise<ControllerManager> {
  const manager = new ControllerManager({
    client: cp.client,
    descriptors,
    options: { leaderElect: false, ...opts.options },
    ...(opts.clock ? { clock: opts.clock } : {}),
    ...(opts.logger ? { logger: opts.logger } : {}),
  });
  manager.start();
  return manager;
}

/**
 * Retries `check` (which throws, e.g. with assert, until the condition holds) every `intervalMs` until it passes
 * or `timeoutMs` has gone by; then throws the last failure. For waiting on controllers to converge.
 */
export async function eventually<T>(
  check: () => T | Promise<T>,
  opts: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + (opts.timeoutMs ?? 15_000);
  for (;;) {
    try {
      return await check();
    } catch (err) {
      if (Date.now() >= deadline) throw err;
      await new Promise((r) => setTimeout(r, opts.intervalMs ?? 25));
    }
  }
}
