/**
 * Whether a policy's matchConstraints (or a binding's matchResources) cover a request, as upstream's generic
 * matcher decides: the namespaceSelector against the labels of the request's namespace (of the object itself for
 * a Namespace; cluster-scoped requests always match), the objectSelector against the new or the old object, then
 * no excludeResourceRule may match, and a resourceRule must (when there are any) (operation, group, version, resource/subresource with
 * `*`, scope, resourceNames), with matchPolicy Equivalent also under the other versions and groups the resource is
 * served as. A selector that cannot be parsed, or a missing namespace, is an error.
 */
import { LabelSelector, type LabelSelectorObject } from '../../../api/labels.js';
import type { APIRegistry } from '../../api-registry.js';
import type { KubeObject } from '../../registry/object.js';
import type { AdmissionAttributes, GroupVersionResource } from '../types.js';

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : {});
const strs = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []);

/** Reads a namespace: the watch cache, else storage (one created a moment ago). */
export type NamespaceReader = (name: string) => Promise<KubeObject | undefined>;

export function namespaceReaderFrom(registry: APIRegistry): NamespaceReader {
  return async (name) => {
    const served = registry.lookup('', 'v1', 'namespaces');
    if (!served) return undefined;
    const store = served.store;
    return (await store.cacher.getShared(store.key('', name))) ?? (await store.get('', name).catch(() => undefined));
  };
}

const isNamespaceRequest = (attrs: AdmissionAttributes) =>
  attrs.resource.group === '' && attrs.resource.resource === 'namespaces' && attrs.subresource === '';

function labelsOf(obj: KubeObject | undefined): Record<string, string> {
  const labels = obj?.metadata?.labels;
  return labels && typeof labels === 'object' ? labels : {};
}

function ruleMatches(rule: Rec, attrs: AdmissionAttributes, resource: GroupVersionResource): boolean {
  const namespaceObject = resource.group === '' && resource.resource === 'namespaces';
  const clusterScoped = namespaceObject || attrs.namespace === '';
  const scope = typeof rule.scope === 'string' ? rule.scope : '*';
  if (scope === 'Namespaced' && clusterScoped) return false;
  if (scope === 'Cluster' && !clusterScoped) return false;
  if (!strs(rule.operations).some((op) => op === '*' || op === attrs.operation)) return false;
  if (!strs(rule.apiGroups).some((g) => g === '*' || g === resource.group)) return false;
  if (!strs(rule.apiVersions).some((v) => v === '*' || v === resource.version)) return false;
  const names = strs(rule.resourceNames);
  if (names.length > 0 && !names.includes(attrs.name)) return false;
  return strs(rule.resources).some((entry) => {
    const slash = entry.indexOf('/');
    const res = slash < 0 ? entry : entry.slice(0, slash);
    const sub = slash < 0 ? '' : entry.slice(slash + 1);
    return (res === '*' || res === resource.resource) && (sub === '*' || sub === attrs.subresource);
  });
}

/** The resource under every name it is served as: the request's own first. */
function namesOf(registry: APIRegistry, attrs: AdmissionAttributes, equivalent: boolean): GroupVersionResource[] {
  const own = attrs.resource;
  if (!equivalent) return [own];
  const def = registry.lookup(own.group, own.version, own.resource)?.def;
  if (!def) return [own];
  const others = registry
    .all()
    .map((s) => s.def)
    .filter((d) => d.storagePrefix === def.storagePrefix && !(d.group === own.group && d.version === own.version))
    .map((d) => ({ group: d.group, version: d.version, resource: d.resource }));
  return [own, ...others];
}

function selector(v: unknown): LabelSelector {
  return LabelSelector.fromObject(v == null ? {} : (rec(v) as LabelSelectorObject));
}

/**
 * Whether the MatchResources cover the request; throws (an Error with upstream's text) when a selector is broken
 * or the request's namespace cannot be read.
 */
export async function matchResourcesCover(
  mr: unknown,
  attrs: AdmissionAttributes,
  registry: APIRegistry,
  readNamespace: NamespaceReader,
): Promise<boolean> {
  const m = rec(mr);
  const nsSelector = selector(m.namespaceSelector);
  if (!nsSelector.isEmpty() && (attrs.namespace !== '' || isNamespaceRequest(attrs))) {
    let labels: Record<string, string>;
    if (isNamespaceRequest(attrs)) labels = labelsOf(attrs.operation === 'DELETE' ? attrs.oldObject : attrs.object);
    else {
      const ns = await readNamespace(attrs.namespace);
      if (!ns) throw new Error(`namespace "${attrs.namespace}" not found`);
      labels = labelsOf(ns);
    }
    if (!nsSelector.matches(labels)) return false;
  }
  const objSelector = selector(m.objectSelector);
  if (!objSelector.isEmpty()) {
    // An object without metadata (a connect request's options) matches no selector, as upstream's matcher has it.
    const matches = (o: KubeObject | undefined) =>
      o !== undefined && o.metadata !== undefined && objSelector.matches(labelsOf(o));
    if (!matches(attrs.object) && !matches(attrs.oldObject)) return false;
  }
  const names = namesOf(registry, attrs, m.matchPolicy !== 'Exact');
  const excluded = (Array.isArray(m.excludeResourceRules) ? m.excludeResourceRules : []).some((r) =>
    ruleMatches(rec(r), attrs, attrs.resource),
  );
  if (excluded) return false;
  const rules = Array.isArray(m.resourceRules) ? m.resourceRules : [];
  // Unset resourceRules do not constrain (a binding's matchResources; a policy must have some).
  if (rules.length === 0) return true;
  return rules.some((r) => names.some((n) => ruleMatches(rec(r), attrs, n)));
}
