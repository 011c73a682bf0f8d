/**
 * Objects in the version a webhook asked for: with matchPolicy Equivalent a webhook may be called about another
 * version of the requested resource (autoscaling/v1 for a v2 HorizontalPodAutoscaler); its objects are converted
 * through the stored form, and a mutating webhook's result is converted back.
 */
import type { APIRegistry } from '../../api-registry.js';
import { deepClone, type KubeObject } from '../../registry/object.js';
import { apiVersionOf, type ResourceDefinition } from '../../registry/resource.js';
import type { AdmissionAttributes } from '../types.js';
import type { WebhookInvocation } from './matching.js';

function convert(obj: KubeObject, from: ResourceDefinition | undefined, to: ResourceDefinition): KubeObject {
  const stored = from?.conversion ? from.conversion.toStorage(obj) : obj;
  const out = to.conversion ? to.conversion.fromStorage(stored) : deepClone(stored);
  out.apiVersion = apiVersionOf(to);
  out.kind = to.kind;
  return out;
}

function requestDefinition(registry: APIRegistry, attrs: AdmissionAttributes): ResourceDefinition | undefined {
  return registry.lookup(attrs.resource.group, attrs.resource.version, attrs.resource.resource)?.def;
}

/** The request's objects as the invocation's version has them. */
export function objectsFor(
  registry: APIRegistry,
  attrs: AdmissionAttributes,
  invocation: WebhookInvocation,
): { object: KubeObject | undefined; oldObject: KubeObject | undefined } {
  const to = invocation.convertTo;
  if (!to) return { object: attrs.object, oldObject: attrs.oldObject };
  const from = requestDefinition(registry, attrs);
  return {
    object: attrs.object && convert(attrs.object, from, to),
    oldObject: attrs.oldObject && convert(attrs.oldObject, from, to),
  };
}

/** A patched object of the invocation's version, back in the request's version. */
export function backToRequestVersion(
  registry: APIRegistry,
  attrs: AdmissionAttributes,
  invocation: WebhookInvocation,
  obj: KubeObject,
): KubeObject {
  const from = invocation.convertTo;
  const to = requestDefinition(registry, attrs);
  if (!from || !to) return obj;
  return convert(obj, from, to);
}

/** The definition whose defaulting applies to the invocation's objects (none for a subresource's own kind, e.g. Scale). */
export function invocationDefinition(
  registry: APIRegistry,
  attrs: AdmissionAttributes,
  invocation: WebhookInvocation,
): ResourceDefinition | undefined {
  const def = invocation.convertTo ?? requestDefinition(registry, attrs);
  return def && def.kind === invocation.kind.kind ? def : undefined;
}
