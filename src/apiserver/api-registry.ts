import type { Printer } from './printers/table.js';
import type { ResourceDefinition } from './registry/resource.js';
import type { GenericStore } from './registry/store.js';

/** One resource the server serves: its definition, its store and how it is printed. */
export interface ServedResource {
  def: ResourceDefinition;
  store: GenericStore;
  printer: Printer;
}

/** The resources this server serves, found by group, version and plural name. */
export class APIRegistry {
  private readonly byPath = new Map<string, ServedResource>();

  add(served: ServedResource): void {
    this.byPath.set(this.path(served.def.group, served.def.version, served.def.resource), served);
  }

  lookup(group: string, version: string, resource: string): ServedResource | undefined {
    return this.byPath.get(this.path(group, version, resource));
  }

  all(): ServedResource[] {
    return [...this.byPath.values()];
  }

  private path(group: string, version: string, resource: string): string {
    return `${group}/${version}/${resource}`;
  }
}
