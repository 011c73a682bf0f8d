import { setMaxListeners } from 'node:events';

/**
 * An AbortController whose signal every controller, informer and request of a component listens to. Dozens of
 * listeners on it are expected, so Node's leak warning (at 11) is turned off for it.
 */
export function sharedAbortController(): AbortController {
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  return controller;
}
