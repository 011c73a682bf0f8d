/**
 * Resource lists (`{cpu: 500m, memory: 1Gi}`) as upstream decodes and defaults them: every value must parse as a
 * quantity (a 400 BadRequest otherwise, as the decoder answers), is rounded up to milli units (SetDefaults_ResourceList)
 * and is kept in canonical form.
 */

import { canonicalQuantity, QuantityError } from '../../../api/quantity.js';
import { statusErrors } from '../../../api/status-error.js';
import { isObject } from '../object.js';
import { type Rec, rec } from './core-json.js';

/** The decoder's refusal of an object whose quantity does not parse. */
export function undecodable(kind: string, err: unknown): Error {
  const why = err instanceof Error ? err.message : String(err);
  return statusErrors.badRequest(`${kind} in version "v1" cannot be handled as a ${kind}: ${why}`);
}

function canonical(value: unknown, kind: string, milli: boolean): string {
  if (typeof value !== 'string' && typeof value !== 'number') {
    throw undecodable(kind, new QuantityError(`quantities must be strings or numbers, got ${JSON.stringify(value)}`));
  }
  try {
    return canonicalQuantity(value, milli);
  } catch (err) {
    throw undecodable(kind, err);
  }
}

/** Canonicalizes the resource list at owner[key] in place (absent or null lists are left alone). */
export function defaultResourceList(owner: Rec, key: string, kind: string): void {
  const list = owner[key];
  if (!isObject(list)) return;
  for (const [name, value] of Object.entries(list)) {
    if (value === null) continue;
    list[name] = canonical(value, kind, true);
  }
}

/** Canonicalizes a single quantity field (not rounded: only resource lists are). */
export function defaultQuantityField(owner: Rec, key: string, kind: string): void {
  const value = owner[key];
  if (value === undefined || value === null) return;
  owner[key] = canonical(value, kind, false);
}

/** The limits and requests of a ResourceRequirements object. */
export function defaultRequirements(requirements: unknown, kind: string): void {
  if (!isObject(requirements)) return;
  defaultResourceList(requirements, 'limits', kind);
  defaultResourceList(requirements, 'requests', kind);
}

/** Resource lists nested in a PodSpec: container resources, overhead, emptyDir limits, ephemeral claims. */
export function defaultPodSpecQuantities(spec: Rec, kind: string): void {
  for (const key of ['initContainers', 'containers', 'ephemeralContainers']) {
    const containers = spec[key];
    if (!Array.isArray(containers)) continue;
    for (const c of containers) if (isObject(c)) defaultRequirements(c.resources, kind);
  }
  defaultResourceList(spec, 'overhead', kind);
  defaultRequirements(spec.resources, kind);
  const volumes = spec.volumes;
  if (!Array.isArray(volumes)) return;
  for (const v of volumes) {
    const volume = rec(v);
    if (isObject(volume.emptyDir)) defaultQuantityField(volume.emptyDir, 'sizeLimit', kind);
    const claim = rec(rec(volume.ephemeral).volumeClaimTemplate);
    if (isObject(claim.spec)) defaultRequirements(claim.spec.resources, kind);
  }
}
