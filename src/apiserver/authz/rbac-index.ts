/**
 * The RBAC objects the authorizer reads, kept in memory from the watch caches of roles, clusterroles, rolebindings
 * and clusterrolebindings (as upstream's authorizer reads informers): rules by role, and bindings indexed by the
 * subject they name, so that finding a user's bindings costs a few map lookups however many bindings exist.
 */

import { BoundedMemo } from '../../util/bounded-memo.js';
import type { Cacher } from '../cacher/cacher.js';
import { CacheFollower } from '../cacher/follower.js';
import type { KubeObject } from '../registry/object.js';
import { type PolicyRule, rulesOf } from './policy-rule.js';

export interface Subject {
  kind: string;
  name: string;
  namespace?: string;
}

export interface RoleRef {
  kind: string;
  name: string;
}

export interface Binding {
  kind: 'RoleBinding' | 'ClusterRoleBinding';
  name: string;
  /** Empty for ClusterRoleBindings. */
  namespace: string;
  roleRef: RoleRef;
  subjects: Subject[];
}

/** A binding found for a user, with the subject of it that names the user. */
export interface BindingMatch {
  binding: Binding;
  subject: Subject;
}

type Feed = Pick<Cacher, 'watch'>;

export interface RBACSources {
  roles: { cacher: Feed; prefix: string };
  clusterRoles: { cacher: Feed; prefix: string };
  roleBindings: { cacher: Feed; prefix: string };
  clusterRoleBindings: { cacher: Feed; prefix: string };
}

const SA_PREFIX = 'system:serviceaccount:';

/** The index key a subject is found under: users and ServiceAccounts by user name, groups by group name. */
function subjectKey(subject: Subject, bindingNamespace: string): string | undefined {
  switch (subject.kind) {
    case 'User':
      return `u:${subject.name}`;
    case 'Group':
      return `g:${subject.name}`;
    case 'ServiceAccount': {
      const ns = subject.namespace || bindingNamespace;
      return ns ? `u:${SA_PREFIX}${ns}:${subject.name}` : undefined;
    }
    default:
      return undefined;
  }
}

function bindingOf(obj: KubeObject, kind: Binding['kind']): Binding {
  const roleRef = (obj.roleRef ?? {}) as Record<string, unknown>;
  const subjects = Array.isArray(obj.subjects) ? (obj.subjects as Record<string, unknown>[]) : [];
  return {
    kind,
    name: obj.metadata.name ?? '',
    namespace: kind === 'RoleBinding' ? (obj.metadata.namespace ?? '') : '',
    roleRef: { kind: String(roleRef.kind ?? ''), name: String(roleRef.name ?? '') },
    subjects: subjects
      .filter((s) => s && typeof s === 'object')
      .map((s) => ({
        kind: String(s.kind ?? ''),
        name: String(s.name ?? ''),
        ...(typeof s.namespace === 'string' && s.namespace ? { namespace: s.namespace } : {}),
      })),
  };
}

/** How many users' answers a SubjectIndex remembers before it starts again. */
const FOUND_CACHE_SIZE = 4096;

/**
 * Bindings by subject key; each entry remembers which of its subjects matched. The answer for a user's keys is
 * remembered until the index changes: the same few users (the components, a handful of people) ask on every request.
 */
class SubjectIndex {
  private readonly byKey = new Map<string, Map<string, BindingMatch>>();
  private readonly keysOf = new Map<string, string[]>();
  private readonly found = new BoundedMemo<string, BindingMatch[]>(FOUND_CACHE_SIZE);

  set(id: string, binding: Binding): void {
    this.remove(id);
    this.found.clear();
    const keys: string[] = [];
    for (const subject of binding.subjects) {
      const key = subjectKey(subject, binding.namespace);
      if (!key) continue;
      let entries = this.byKey.get(key);
      if (!entries) {
        entries = new Map();
        this.byKey.set(key, entries);
      }
      // The first subject that names the user is the one upstream reports.
      if (!entries.has(id)) entries.set(id, { binding, subject });
      keys.push(key);
    }
    this.keysOf.set(id, keys);
  }

  remove(id: string): void {
    this.found.clear();
    for (const key of this.keysOf.get(id) ?? []) {
      const entries = this.byKey.get(key);
      entries?.delete(id);
      if (entries?.size === 0) this.byKey.delete(key);
    }
    this.keysOf.delete(id);
  }

  /** The bindings naming any of keys, each once, in a stable order (by id). The caller must not change the list. */
  find(keys: string[]): readonly BindingMatch[] {
    // JSON keeps the keys apart whatever characters a user or group name holds.
    const cacheKey = JSON.stringify(keys);
    return this.found.get(cacheKey) ?? this.found.remember(cacheKey, this.lookUp(keys));
  }

  private lookUp(keys: string[]): BindingMatch[] {
    const found = new Map<string, BindingMatch>();
    for (const key of keys) {
      const entries = this.byKey.get(key);
      if (!entries) continue;
      for (const [id, match] of entries) if (!found.has(id)) found.set(id, match);
    }
    if (found.size <= 1) return [...found.values()];
    return [...found.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, m]) => m);
  }

  clear(): void {
    this.found.clear();
    this.byKey.clear();
    this.keysOf.clear();
  }
}

export class RBACIndex {
  private readonly roles = new Map<string, PolicyRule[]>();
  private readonly clusterRoles = new Map<string, PolicyRule[]>();
  private readonly clusterBindings = new SubjectIndex();
  /** RoleBindings per namespace. */
  private readonly roleBindings = new Map<string, SubjectIndex>();
  private readonly follower = new CacheFollower();
  /** Grows with every change of the roles and bindings indexed: an answer worked out at one version holds for it. */
  version = 0;

  constructor(private readonly sources: RBACSources) {}

  /** Loads the current objects and follows changes; resolves once everything stored is indexed. */
  async start(): Promise<void> {
    // Every change of a role or binding, and every reset, makes a new version of the index.
    const changes =
      <A extends unknown[]>(f: (...args: A) => void) =>
      (...args: A) => {
        this.version++;
        f(...args);
      };
    await Promise.all([
      this.follower.follow(
        this.sources.roles,
        changes((type, obj) => {
          const key = `${obj.metadata.namespace}/${obj.metadata.name}`;
          if (type === 'DELETED') this.roles.delete(key);
          else this.roles.set(key, rulesOf(obj));
        }),
        changes(() => this.roles.clear()),
      ),
      this.follower.follow(
        this.sources.clusterRoles,
        changes((type, obj) => {
          const key = obj.metadata.name ?? '';
          if (type === 'DELETED') this.clusterRoles.delete(key);
          else this.clusterRoles.set(key, rulesOf(obj));
        }),
        changes(() => this.clusterRoles.clear()),
      ),
      this.follower.follow(
        this.sources.clusterRoleBindings,
        changes((type, obj) => {
          const id = obj.metadata.name ?? '';
          if (type === 'DELETED') this.clusterBindings.remove(id);
          else this.clusterBindings.set(id, bindingOf(obj, 'ClusterRoleBinding'));
        }),
        changes(() => this.clusterBindings.clear()),
      ),
      this.follower.follow(
        this.sources.roleBindings,
        changes((type, obj) => {
          const ns = obj.metadata.namespace ?? '';
          const id = obj.metadata.name ?? '';
          let index = this.roleBindings.get(ns);
          if (type === 'DELETED') {
            index?.remove(id);
            return;
          }
          if (!index) {
            index = new SubjectIndex();
            this.roleBindings.set(ns, index);
          }
          index.set(id, bindingOf(obj, 'RoleBinding'));
        }),
        changes(() => this.roleBindings.clear()),
      ),
    ]);
  }

  stop(): void {
    this.follower.stop();
  }

  /** The rules of the role a binding refers to, or undefined when there is no such role. */
  rulesOf(roleRef: RoleRef, bindingNamespace: string): PolicyRule[] | undefined {
    if (roleRef.kind === 'ClusterRole') return this.clusterRoles.get(roleRef.name);
    if (roleRef.kind === 'Role') return this.roles.get(`${bindingNamespace}/${roleRef.name}`);
    return undefined;
  }

  /** The ClusterRoleBindings naming the user or one of its groups. */
  clusterBindingsFor(user: { name: string; groups: string[] }): readonly BindingMatch[] {
    return this.clusterBindings.find(keysFor(user));
  }

  /** The RoleBindings of a namespace naming the user or one of its groups. */
  roleBindingsFor(user: { name: string; groups: string[] }, namespace: string): readonly BindingMatch[] {
    return this.roleBindings.get(namespace)?.find(keysFor(user)) ?? [];
  }
}

function keysFor(user: { name: string; groups: string[] }): string[] {
  return [`u:${user.name}`, ...user.groups.map((g) => `g:${g}`)];
}
