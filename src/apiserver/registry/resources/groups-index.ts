import type { Builtin } from './common.js';

/** The built-in resources of the named API groups (apps, batch, networking.k8s.io, …). */
export function appsAndOtherGroupResources(): Builtin[] {
  return [];
}
