/**
 * Which served resources a group and kind name (a RESTMapper's RESTMappings, from discovery): asked of the server
 * once and again whenever a kind is not found, as a controller's deferred discovery mapper resets on a miss.
 */
import { type DiscoveredResource, serverResources } from '../../client/discovery.js';
import type { KubeClient } from '../../client/rest.js';

export class KindResources {
  private discovered: DiscoveredResource[] | undefined;

  constructor(private readonly client: KubeClient) {}

  /** The resources serving group/kind, the group's preferred version first; empty when none is served. */
  async mappings(group: string, kind: string): Promise<DiscoveredResource[]> {
    const find = () =>
      (this.discovered ?? [])
        .filter((r) => r.group === group && r.kind === kind)
        .sort((a, b) => Number(b.preferred) - Number(a.preferred));
    let found = find();
    if (found.length === 0) {
      this.discovered = await serverResources(this.client).catch((err) => {
        // Some groups could not be read: what could be is enough to find this kind.
        if (err && typeof err === 'object' && 'resources' in err)
          return (err as { resources: DiscoveredResource[] }).resources;
        throw err;
      });
      found = find();
    }
    return found;
  }
}
