/**
 * The ValidatingAdmissionPolicies and their Bindings the watch caches hold (as upstream's plugin reads them from
 * informers), each policy with the bindings that name it, in name order. The list is rebuilt only when one of the
 * two caches has moved on.
 */
import type { APIRegistry } from '../../api-registry.js';
import type { KubeObject } from '../../registry/object.js';

export const POLICY_GROUP = 'admissionregistration.k8s.io';

export interface PolicyWithBindings {
  policy: KubeObject;
  bindings: KubeObject[];
}

const byName = (a: KubeObject, b: KubeObject) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1);

export class PolicySource {
  private cached: { key: string; hooks: PolicyWithBindings[] } | undefined;

  constructor(private readonly registry: APIRegistry) {}

  async policies(): Promise<PolicyWithBindings[]> {
    const policies = this.registry.lookup(POLICY_GROUP, 'v1', 'validatingadmissionpolicies');
    const bindings = this.registry.lookup(POLICY_GROUP, 'v1', 'validatingadmissionpolicybindings');
    if (!policies || !bindings) return [];
    await Promise.all([policies.store.cacher.start(), bindings.store.cacher.start()]);
    const key = [policies, bindings].map((s) => `${s.store.cacher.revision}/${s.store.cacher.size}`).join(',');
    if (this.cached?.key === key) return this.cached.hooks;
    const [p, b] = await Promise.all([
      policies.store.cacher.list(`${policies.def.storagePrefix}/`, () => true),
      bindings.store.cacher.list(`${bindings.def.storagePrefix}/`, () => true),
    ]);
    const forPolicy = new Map<string, KubeObject[]>();
    for (const binding of [...b.items].sort(byName)) {
      const spec = binding.spec as { policyName?: unknown } | undefined;
      const name = typeof spec?.policyName === 'string' ? spec.policyName : '';
      const list = forPolicy.get(name) ?? [];
      list.push(binding);
      forPolicy.set(name, list);
    }
    const hooks = [...p.items]
      .sort(byName)
      .map((policy) => ({ policy, bindings: forPolicy.get(policy.metadata.name ?? '') ?? [] }))
      .filter((h) => h.bindings.length > 0);
    this.cached = { key, hooks };
    return hooks;
  }
}
