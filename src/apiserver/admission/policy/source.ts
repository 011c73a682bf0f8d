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
  /** The last answer, and the revisions and sizes of the two caches it was built from. */
  private cached: { key: number[]; hooks: PolicyWithBindings[] } | undefined;

  constructor(private readonly registry: APIRegistry) {}

  /** The policies as the last call found them, when neither policies nor bindings changed since (else undefined). */
  policiesNow(): PolicyWithBindings[] | undefined {
    const policies = this.registry.lookup(POLICY_GROUP, 'v1', 'validatingadmissionpolicies');
    const bindings = this.registry.lookup(POLICY_GROUP, 'v1', 'validatingadmissionpolicybindings');
    if (!policies || !bindings) return [];
    const [pc, bc] = [policies.store.cacher, bindings.store.cacher];
    const last = this.cached;
    if (!pc.isLoaded || !bc.isLoaded || !last) return undefined;
    const key = last.key;
    const same = key[0] === pc.revision && key[1] === pc.size && key[2] === bc.revision && key[3] === bc.size;
    return same ? last.hooks : undefined;
  }

  async policies(): Promise<PolicyWithBindings[]> {
    const known = this.policiesNow();
    if (known) return known;
    const policies = this.registry.lookup(POLICY_GROUP, 'v1', 'validatingadmissionpolicies');
    const bindings = this.registry.lookup(POLICY_GROUP, 'v1', 'validatingadmissionpolicybindings');
    if (!policies || !bindings) return [];
    const [pc, bc] = [policies.store.cacher, bindings.store.cacher];
    if (!pc.isLoaded || !bc.isLoaded) await Promise.all([pc.start(), bc.start()]);
    const key = [pc.revision, pc.size, bc.revision, bc.size];
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
