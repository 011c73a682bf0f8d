/**
 * kube-apiserver's RBAC bootstrap: at start-up every object of the default policy (rbac-policy-data.ts) is created
 * when missing, and otherwise reconciled unless a user marked it `rbac.authorization.kubernetes.io/autoupdate:
 * "false"` — missing rules (appended broken down, one group, resource and verb a rule, as upstream's Covers reports
 * them), aggregation selectors, subjects, labels and annotations are added and nothing else is taken away
 * (upstream's reconciliation without --remove-extra-permissions), except an aggregationRule on a role the policy
 * does not aggregate.
 */
import { StatusError } from '../../api/status-error.js';
import type { APIRegistry, ServedResource } from '../api-registry.js';
import { covers } from '../authz/escalation.js';
import { type PolicyRule, rulesOf } from '../authz/policy-rule.js';
import type { KubeObject } from '../registry/object.js';
import {
  CLUSTER_ROLE_BINDINGS,
  CLUSTER_ROLES,
  CONTROLLER_ROLES,
  NAMESPACE_ROLE_BINDINGS,
  NAMESPACE_ROLES,
  type SubjectSpec,
} from './rbac-policy-data.js';

const RBAC_GROUP = 'rbac.authorization.k8s.io';
const API_VERSION = `${RBAC_GROUP}/v1`;
export const BOOTSTRAPPING_LABEL = 'kubernetes.io/bootstrapping';
export const AUTOUPDATE_ANNOTATION = 'rbac.authorization.kubernetes.io/autoupdate';

function meta(name: string, namespace?: string, labels: Record<string, string> = {}) {
  return {
    name,
    ...(namespace ? { namespace } : {}),
    labels: { [BOOTSTRAPPING_LABEL]: 'rbac-defaults', ...labels },
    annotations: { [AUTOUPDATE_ANNOTATION]: 'true' },
  };
}

function subject(s: SubjectSpec): Record<string, string> {
  return s.kind === 'ServiceAccount'
    ? { kind: s.kind, name: s.name, namespace: s.namespace }
    : { apiGroup: RBAC_GROUP, kind: s.kind, name: s.name };
}

const CONTROLLER_PREFIX = 'system:controller:';

/** Every ClusterRole of the bootstrap policy, the controllers' included. */
export function bootstrapClusterRoles(): KubeObject[] {
  const roles: KubeObject[] = CLUSTER_ROLES.map((spec) => ({
    apiVersion: API_VERSION,
    kind: 'ClusterRole',
    metadata: meta(spec.name, undefined, spec.labels),
    ...(spec.aggregateFrom
      ? { aggregationRule: { clusterRoleSelectors: [{ matchLabels: { [spec.aggregateFrom]: 'true' } }] }, rules: [] }
      : { rules: structuredClone(spec.rules ?? []) }),
  }));
  for (const c of CONTROLLER_ROLES) {
    roles.push({
      apiVersion: API_VERSION,
      kind: 'ClusterRole',
      metadata: meta(`${CONTROLLER_PREFIX}${c.name}`),
      rules: structuredClone(c.rules),
    });
  }
  return roles;
}

/** Every ClusterRoleBinding of the bootstrap policy, the controllers' included. */
export function bootstrapClusterRoleBindings(): KubeObject[] {
  const binding = (name: string, subjects: SubjectSpec[]): KubeObject => ({
    apiVersion: API_VERSION,
    kind: 'ClusterRoleBinding',
    metadata: meta(name),
    roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name },
    ...(subjects.length > 0 ? { subjects: subjects.map(subject) } : {}),
  });
  return [
    ...CLUSTER_ROLE_BINDINGS.map((b) => binding(b.name, b.subjects)),
    ...CONTROLLER_ROLES.map((c) =>
      binding(`${CONTROLLER_PREFIX}${c.name}`, [{ kind: 'ServiceAccount', name: c.name, namespace: 'kube-system' }]),
    ),
  ];
}

export function bootstrapRoles(): KubeObject[] {
  return NAMESPACE_ROLES.map((r) => ({
    apiVersion: API_VERSION,
    kind: 'Role',
    metadata: meta(r.name, r.namespace),
    rules: structuredClone(r.rules),
  }));
}

export function bootstrapRoleBindings(): KubeObject[] {
  return NAMESPACE_ROLE_BINDINGS.map((b) => ({
    apiVersion: API_VERSION,
    kind: 'RoleBinding',
    metadata: meta(b.name, b.namespace),
    roleRef: { apiGroup: RBAC_GROUP, kind: 'Role', name: b.role },
    subjects: b.subjects.map(subject),
  }));
}

/** Adds what expected has and existing lacks; returns undefined when nothing is missing. */
function reconcile(existing: KubeObject, expected: KubeObject): KubeObject | undefined {
  if (existing.metadata.annotations?.[AUTOUPDATE_ANNOTATION] === 'false') return undefined;
  const next = structuredClone(existing);
  let changed = false;
  for (const field of ['labels', 'annotations'] as const) {
    const have = { ...(next.metadata[field] ?? {}) } as Record<string, string>;
    for (const [k, v] of Object.entries(expected.metadata[field] ?? {})) {
      if (have[k] === undefined) {
        have[k] = v as string;
        changed = true;
      }
    }
    next.metadata[field] = have as never;
  }
  if (expected.kind === 'ClusterRole' || expected.kind === 'Role') {
    const { missing } = covers(rulesOf(existing), rulesOf(expected));
    if (missing.length > 0) {
      // Upstream appends what is missing as Covers reports it: broken down, one group, resource and verb (or one
      // URL and verb) a rule.
      next.rules = [...((existing.rules as PolicyRule[] | undefined) ?? []), ...missing];
      changed = true;
    }
    if (!expected.aggregationRule && next.aggregationRule !== undefined) {
      // A bootstrap role that does not aggregate loses an aggregationRule someone gave it.
      delete next.aggregationRule;
      changed = true;
    }
    if (expected.aggregationRule) {
      const selectors = ((next.aggregationRule as { clusterRoleSelectors?: unknown[] } | undefined)
        ?.clusterRoleSelectors ?? []) as unknown[];
      for (const s of (expected.aggregationRule as { clusterRoleSelectors: unknown[] }).clusterRoleSelectors) {
        if (!selectors.some((have) => JSON.stringify(have) === JSON.stringify(s))) {
          selectors.push(s);
          changed = true;
        }
      }
      next.aggregationRule = { clusterRoleSelectors: selectors };
    }
  } else {
    const subjects = ((next.subjects as Record<string, string>[] | undefined) ?? []).slice();
    const key = (s: Record<string, string>) => `${s.kind}/${s.namespace ?? ''}/${s.name}`;
    for (const s of (expected.subjects as Record<string, string>[] | undefined) ?? []) {
      if (!subjects.some((have) => key(have) === key(s))) {
        subjects.push(s);
        changed = true;
      }
    }
    if (subjects.length > 0) next.subjects = subjects;
  }
  return changed ? next : undefined;
}

async function ensure(registry: APIRegistry, resource: string, objects: KubeObject[]): Promise<void> {
  const served = registry.lookup(RBAC_GROUP, 'v1', resource);
  if (!served) return;
  // All at once: the storage commits concurrent writes together, so start-up pays for a few commits, not ~100.
  await Promise.all(objects.map((expected) => ensureOne(served.store, expected)));
}

async function ensureOne(store: ServedResource['store'], expected: KubeObject): Promise<void> {
  const ns = expected.metadata.namespace ?? '';
  const name = expected.metadata.name ?? '';
  let existing: KubeObject | undefined;
  try {
    existing = await store.get(ns, name);
  } catch (err) {
    if (!(err instanceof StatusError && err.code === 404)) throw err;
  }
  if (!existing) {
    try {
      await store.create(ns, expected, { internal: true });
    } catch (err) {
      // Created meanwhile by another apiserver: reconcile it next start.
      if (!(err instanceof StatusError && err.code === 409)) throw err;
    }
    return;
  }
  if (!reconcile(existing, expected)) return;
  await store.guaranteedUpdate(ns, name, (current) => reconcile(current, expected) ?? current, { internal: true });
}

/** Creates and reconciles the bootstrap RBAC policy (the namespaces kube-system and kube-public must exist). */
export async function ensureBootstrapPolicy(registry: APIRegistry): Promise<void> {
  await Promise.all([
    ensure(registry, 'clusterroles', bootstrapClusterRoles()),
    ensure(registry, 'clusterrolebindings', bootstrapClusterRoleBindings()),
    ensure(registry, 'roles', bootstrapRoles()),
    ensure(registry, 'rolebindings', bootstrapRoleBindings()),
  ]);
}
