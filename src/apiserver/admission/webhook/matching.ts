/**
 * Which webhooks a request goes to, as upstream's webhook predicates decide: the configurations themselves are
 * never sent to webhooks; a webhook's namespaceSelector is matched against the labels of the request's namespace
 * (of the object itself for a Namespace; cluster-scoped objects always match), its objectSelector against the new or
 * the old object; then its rules (operation, group, version, resource and subresource with `*` wildcards, scope),
 * and with matchPolicy Equivalent the same resource served under another version or group. A selector error or a
 * missing namespace is only reported for a webhook whose rules match.
 */
import type { LabelSelector } from '../../../api/labels.js';
import { type StatusError, statusErrors } from '../../../api/status-error.js';
import type { APIRegistry } from '../../api-registry.js';
import type { KubeObject } from '../../registry/object.js';
import type { ResourceDefinition } from '../../registry/resource.js';
import type { AdmissionAttributes, GroupVersionKind, GroupVersionResource } from '../types.js';
import { ADMISSION_REGISTRATION_GROUP, type Webhook, type WebhookRule } from './configuration.js';

/** The kinds whose writes no webhook sees, so a broken webhook cannot lock its own configuration. */
const EXEMPT_KINDS = new Set([
  'ValidatingWebhookConfiguration',
  'MutatingWebhookConfiguration',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionPolicyBinding',
  'MutatingAdmissionPolicy',
  'MutatingAdmissionPolicyBinding',
]);

export function isExemptFromWebhooks(attrs: AdmissionAttributes): boolean {
  return attrs.kind.group === ADMISSION_REGISTRATION_GROUP && EXEMPT_KINDS.has(attrs.kind.kind);
}

/** What a webhook call is about: the request's resource, or the equivalent one a rule named. */
export interface WebhookInvocation {
  webhook: Webhook;
  resource: GroupVersionResource;
  kind: GroupVersionKind;
  /** The definition of the equivalent resource when it is not the request's own (its objects are converted). */
  convertTo?: ResourceDefinition;
}

function isNamespaceResource(attrs: AdmissionAttributes, resource: GroupVersionResource): boolean {
  return resource.group === '' && resource.resource === 'namespaces' && attrs.subresource === '';
}

function ruleMatches(rule: WebhookRule, attrs: AdmissionAttributes, resource: GroupVersionResource): boolean {
  const namespaceObject = resource.group === '' && resource.resource === 'namespaces';
  const namespaced = attrs.namespace !== '';
  if (rule.scope === 'Namespaced' && (namespaceObject || !namespaced)) return false;
  if (rule.scope === 'Cluster' && !(namespaceObject || !namespaced)) return false;
  if (!rule.operations.some((op) => op === '*' || op === attrs.operation)) return false;
  if (!rule.apiGroups.some((g) => g === '*' || g === resource.group)) return false;
  if (!rule.apiVersions.some((v) => v === '*' || v === resource.version)) return false;
  return rule.resources.some((entry) => {
    const slash = entry.indexOf('/');
    const res = slash < 0 ? entry : entry.slice(0, slash);
    const sub = slash < 0 ? '' : entry.slice(slash + 1);
    return (res === '*' || res === resource.resource) && (sub === '*' || sub === attrs.subresource);
  });
}

/** The other served versions (and groups) of the request's resource: those stored under the same key prefix. */
function equivalents(registry: APIRegistry, attrs: AdmissionAttributes): ResourceDefinition[] {
  const own = registry.lookup(attrs.resource.group, attrs.resource.version, attrs.resource.resource);
  if (!own) return [];
  return registry
    .all()
    .map((s) => s.def)
    .filter(
      (d) =>
        d.storagePrefix === own.def.storagePrefix &&
        !(d.group === own.def.group && d.version === own.def.version && d.resource === own.def.resource),
    );
}

function matchingInvocation(
  webhook: Webhook,
  attrs: AdmissionAttributes,
  registry: APIRegistry,
): WebhookInvocation | undefined {
  for (const rule of webhook.rules) {
    if (ruleMatches(rule, attrs, attrs.resource)) return { webhook, resource: attrs.resource, kind: attrs.kind };
  }
  if (webhook.matchPolicy !== 'Equivalent') return undefined;
  const others = equivalents(registry, attrs);
  for (const rule of webhook.rules) {
    for (const def of others) {
      const resource = { group: def.group, version: def.version, resource: def.resource };
      if (!ruleMatches(rule, attrs, resource)) continue;
      // A subresource's object (Scale, Eviction…) is the same whichever version of the parent is named.
      if (attrs.subresource !== '') return { webhook, resource, kind: attrs.kind };
      return { webhook, resource, kind: { group: def.group, version: def.version, kind: def.kind }, convertTo: def };
    }
  }
  return undefined;
}

function labelsOf(obj: KubeObject | undefined): Record<string, string> | undefined {
  const labels = obj?.metadata?.labels;
  return labels && typeof labels === 'object' ? labels : undefined;
}

/** Reads a namespace's labels: the watch cache, else storage (a namespace created a moment ago). */
export type NamespaceLabels = (namespace: string) => Promise<Record<string, string> | undefined>;

async function namespaceSelectorMatches(
  webhook: Webhook,
  attrs: AdmissionAttributes,
  namespaceLabels: NamespaceLabels,
): Promise<boolean | StatusError> {
  const namespaceObject = isNamespaceResource(attrs, attrs.resource);
  if (attrs.namespace === '' && !namespaceObject) return true;
  const selector = webhook.namespaceSelector;
  if (selector instanceof Error) return statusErrors.internal(selector);
  if (selector.isEmpty()) return true;
  if (namespaceObject) {
    const obj = attrs.operation === 'DELETE' ? attrs.oldObject : attrs.object;
    return selector.matches(labelsOf(obj) ?? {});
  }
  const labels = await namespaceLabels(attrs.namespace);
  if (labels === undefined) return statusErrors.notFound({ group: '', resource: 'namespaces' }, attrs.namespace);
  return selector.matches(labels);
}

function objectSelectorMatches(webhook: Webhook, attrs: AdmissionAttributes): boolean | StatusError {
  const selector = webhook.objectSelector;
  if (selector instanceof Error) return statusErrors.internal(selector);
  if (selector.isEmpty()) return true;
  const matches = (obj: KubeObject | undefined) =>
    obj !== undefined && obj.metadata !== undefined && (selector as LabelSelector).matches(labelsOf(obj) ?? {});
  return matches(attrs.object) || matches(attrs.oldObject);
}

/**
 * Upstream's ShouldCallHook up to the match conditions: the invocation when the webhook applies to the request,
 * undefined when it does not; throws the selector's error for a webhook that applies but cannot be judged.
 */
export async function webhookInvocation(
  webhook: Webhook,
  attrs: AdmissionAttributes,
  registry: APIRegistry,
  namespaceLabels: NamespaceLabels,
): Promise<WebhookInvocation | undefined> {
  const ns = await namespaceSelectorMatches(webhook, attrs, namespaceLabels);
  if (ns === false) return undefined;
  const obj = objectSelectorMatches(webhook, attrs);
  if (obj === false) return undefined;
  const invocation = matchingInvocation(webhook, attrs, registry);
  if (!invocation) return undefined;
  if (ns !== true) throw ns;
  if (obj !== true) throw obj;
  return invocation;
}

/** The namespace reader the plugins use: the watch cache of namespaces, falling back to storage. */
export function namespaceLabelsFrom(registry: APIRegistry): NamespaceLabels {
  return async (namespace) => {
    const served = registry.lookup('', 'v1', 'namespaces');
    if (!served) return undefined;
    const store = served.store;
    let ns = await store.cacher.get(store.key('', namespace));
    if (!ns) ns = await store.get('', namespace).catch(() => undefined);
    return ns ? (labelsOf(ns) ?? {}) : undefined;
  };
}
