import type { ResourceInfo } from '../api/catalog.js';
import type { ModeAuthorizer } from './authz/attributes.js';
import type { CacherOptions } from './cacher/cacher.js';
import type { RequestContext } from './context.js';
import type { Printer } from './printers/table.js';
import type { ResourceDefinition } from './registry/resource.js';
import type { GenericStore } from './registry/store.js';

/** One resource the server serves: its definition, its store and how it is printed. */
export interface ServedResource {
  def: ResourceDefinition;
  store: GenericStore;
  printer: Printer;
  /** Discovery facts of a resource the built-in catalog does not know (a custom resource). */
  discovery?: ResourceInfo;
  /** The OpenAPI v3 schema of a custom resource's kind, and a token that changes when it does. */
  openapi?: { schema: Record<string, unknown>; signature: string };
}

/**
 * A resource that is not stored: a create-only review (SubjectAccessReview, TokenReview, …) answered by the
 * apiserver from the request, or a computed one (componentstatuses, the resource metrics). It is listed in
 * discovery like the stored ones.
 */
export interface VirtualResource {
  group: string;
  version: string;
  resource: string;
  /** Discovery facts of a resource the built-in catalog does not know (the resource metrics API). */
  discovery?: ResourceInfo;
  /** Answers a request for the resource (the handler checks the verb). */
  serve(ctx: RequestContext): Promise<void>;
}

/** The resources this server serves, found by group, version and plural name. */
export type WatchCacheBounds = Pick<CacherOptions, 'capacity' | 'maxCapacity'>;

export class APIRegistry {
  private readonly byPath = new Map<string, ServedResource>();
  private readonly virtualByPath = new Map<string, VirtualResource>();
  /**
   * The server's authorizer chain, once authorization is set up: for admission plugins that ask authorization
   * questions (CertificateApproval, CertificateSigning, CEL's `authorizer`). Undefined before the server starts.
   */
  authorizer: ModeAuthorizer | undefined;
  /** The bounds of the watch caches' windows, for the caches made later (custom resources'); default bounds when unset. */
  watchCache: WatchCacheBounds | undefined;

  addVirtual(resource: VirtualResource): void {
    this.virtualByPath.set(this.path(resource.group, resource.version, resource.resource), resource);
  }

  lookupVirtual(group: string, version: string, resource: string): VirtualResource | undefined {
    return this.virtualByPath.get(this.path(group, version, resource));
  }

  allVirtual(): VirtualResource[] {
    return [...this.virtualByPath.values()];
  }

  /**
   * The same resources by resource, group and version: lookup runs several times for every request (the handler,
   * admission plugins, authorization), and nested maps find it without building a key string.
   */
  private readonly byName = new Map<string, Map<string, Map<string, ServedResource>>>();

  add(served: ServedResource): void {
    const { group, version, resource } = served.def;
    this.byPath.set(this.path(group, version, resource), served);
    let groups = this.byName.get(resource);
    if (!groups) {
      groups = new Map();
      this.byName.set(resource, groups);
    }
    let versions = groups.get(group);
    if (!versions) {
      versions = new Map();
      groups.set(group, versions);
    }
    versions.set(version, served);
  }

  /** Stops serving a resource (a custom resource whose CRD went away or changed). */
  remove(group: string, version: string, resource: string): void {
    this.byPath.delete(this.path(group, version, resource));
    this.byName.get(resource)?.get(group)?.delete(version);
  }

  lookup(group: string, version: string, resource: string): ServedResource | undefined {
    return this.byName.get(resource)?.get(group)?.get(version);
  }

  all(): ServedResource[] {
    return [...this.byPath.values()];
  }

  /** Whether any version of the API group is served (custom resources' groups included). */
  servesGroup(group: string): boolean {
    for (const served of this.byPath.values()) if (served.def.group === group) return true;
    for (const virtual of this.virtualByPath.values()) if (virtual.group === group) return true;
    return false;
  }

  private path(group: string, version: string, resource: string): string {
    return `${group}/${version}/${resource}`;
  }
}
