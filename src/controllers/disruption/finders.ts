/**
 * How the disruption controller learns how many pods a PodDisruptionBudget should expect: each selected pod's
 * controller, and that controller's desired scale (upstream's podControllerFinders). Tried in upstream's order:
 * ReplicationController, Deployment (through its ReplicaSet), ReplicaSet without a Deployment, StatefulSet, and
 * finally any resource with a `scale` subresource, found through discovery.
 */
import type { Indexer } from '../../client/cache/store.js';
import type { DiscoveredResource } from '../../client/discovery.js';
import type { KubeClient } from '../../client/rest.js';
import { isNotFound, type KubeObject, type OwnerReference } from '../../client/types.js';
import { getControllerOf } from '../common/controller-ref.js';
import { KindResources } from '../common/kind-resources.js';

/** A controller's uid and desired replicas. */
export interface ControllerAndScale {
  uid: string;
  scale: number;
}

export type PodControllerFinder = (ref: OwnerReference, namespace: string) => Promise<ControllerAndScale | undefined>;

/** The group of an apiVersion (`apps/v1` → `apps`, `v1` → ''); throws on a malformed one. */
export function groupOf(apiVersion: string): string {
  const parts = apiVersion.split('/');
  if (parts.length === 1) return '';
  if (parts.length === 2 && parts[0] !== '' && parts[1] !== '') return parts[0] as string;
  throw new Error(`unexpected GroupVersion string: ${apiVersion}`);
}

function verifyGroupKind(ref: OwnerReference, kind: string, groups: readonly string[]): boolean {
  const group = groupOf(ref.apiVersion);
  return ref.kind === kind && groups.includes(group);
}

const replicasOf = (obj: KubeObject): number => {
  const replicas = obj.spec?.replicas;
  return typeof replicas === 'number' ? replicas : 1;
};

export interface FinderSources {
  client: KubeClient;
  rcs: Indexer;
  replicaSets: Indexer;
  deployments: Indexer;
  statefulSets: Indexer;
}

export class PodControllerFinders {
  private readonly kinds: KindResources;

  constructor(private readonly src: FinderSources) {
    this.kinds = new KindResources(src.client);
  }

  /** The finders in upstream's order. */
  finders(): PodControllerFinder[] {
    return [
      (ref, ns) => this.replicationController(ref, ns),
      (ref, ns) => this.deployment(ref, ns),
      (ref, ns) => this.replicaSet(ref, ns),
      (ref, ns) => this.statefulSet(ref, ns),
      (ref, ns) => this.scaleController(ref, ns),
    ];
  }

  private cached(indexer: Indexer, namespace: string, ref: { name: string; uid: string }): KubeObject | undefined {
    const obj = indexer.getByKey(`${namespace}/${ref.name}`);
    return obj && obj.metadata.uid === ref.uid ? obj : undefined;
  }

  private async replicaSet(ref: OwnerReference, namespace: string): Promise<ControllerAndScale | undefined> {
    if (!verifyGroupKind(ref, 'ReplicaSet', ['apps', 'extensions'])) return undefined;
    const rs = this.cached(this.src.replicaSets, namespace, ref);
    if (!rs) return undefined;
    // A ReplicaSet under a Deployment is counted through the Deployment.
    if (getControllerOf(rs)?.kind === 'Deployment') return undefined;
    return { uid: rs.metadata.uid ?? '', scale: replicasOf(rs) };
  }

  private async deployment(ref: OwnerReference, namespace: string): Promise<ControllerAndScale | undefined> {
    if (!verifyGroupKind(ref, 'ReplicaSet', ['apps', 'extensions'])) return undefined;
    const rs = this.cached(this.src.replicaSets, namespace, ref);
    if (!rs) return undefined;
    const rsRef = getControllerOf(rs);
    if (!rsRef || !verifyGroupKind(rsRef, 'Deployment', ['apps', 'extensions'])) return undefined;
    const deployment = this.cached(this.src.deployments, namespace, rsRef);
    if (!deployment) return undefined;
    return { uid: deployment.metadata.uid ?? '', scale: replicasOf(deployment) };
  }

  private async statefulSet(ref: OwnerReference, namespace: string): Promise<ControllerAndScale | undefined> {
    if (!verifyGroupKind(ref, 'StatefulSet', ['apps'])) return undefined;
    const ss = this.cached(this.src.statefulSets, namespace, ref);
    return ss ? { uid: ss.metadata.uid ?? '', scale: replicasOf(ss) } : undefined;
  }

  private async replicationController(ref: OwnerReference, namespace: string) {
    if (!verifyGroupKind(ref, 'ReplicationController', [''])) return undefined;
    const rc = this.cached(this.src.rcs, namespace, ref);
    return rc ? { uid: rc.metadata.uid ?? '', scale: replicasOf(rc) } : undefined;
  }

  /** The resource serving group/kind, preferring the given version; discovery is asked again on a miss. */
  private async resourceFor(group: string, version: string, kind: string): Promise<DiscoveredResource | undefined> {
    const matches = await this.kinds.mappings(group, kind);
    return matches.find((r) => r.version === version) ?? matches[0];
  }

  /** Any controller with a scale subresource (upstream's getScaleController). */
  private async scaleController(ref: OwnerReference, namespace: string): Promise<ControllerAndScale | undefined> {
    const group = groupOf(ref.apiVersion);
    const version = ref.apiVersion.split('/').pop() ?? '';
    const resource = await this.resourceFor(group, version, ref.kind);
    if (!resource) throw new Error(`no matches for kind "${ref.kind}" in version "${ref.apiVersion}"`);
    const groupResource = group ? `${resource.resource}.${group}` : resource.resource;
    let scale: KubeObject;
    try {
      scale = await this.src.client
        .resource({ group, version: resource.version, resource: resource.resource })
        .namespace(namespace)
        .getSubresource(ref.name, 'scale');
    } catch (err) {
      if (!isNotFound(err)) throw err;
      // NotFound means either no such object or no scale subresource: tell which.
      if (!(resource.subresources ?? []).some((s) => s.name === 'scale')) {
        throw new Error(`${groupResource} does not implement the scale subresource`);
      }
      return undefined;
    }
    if (scale.metadata.uid !== ref.uid) return undefined;
    return { uid: scale.metadata.uid ?? '', scale: Number(scale.spec?.replicas ?? 0) };
  }
}
