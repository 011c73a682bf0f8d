import type { Builtin } from './common.js';

/** The core/v1 resources beyond namespaces, configmaps, secrets and serviceaccounts. */
export function coreResources(): Builtin[] {
  return [];
}
