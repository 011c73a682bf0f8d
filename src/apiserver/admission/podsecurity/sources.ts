/**
 * What the PodSecurity plugin reads of the cluster: a namespace (for its labels) and the pods of a namespace (when
 * a namespace's enforce level is raised). Served from the watch caches, as upstream reads informers, with a
 * namespace not cached yet looked up in storage (upstream falls back to a live read the same way).
 */
import type { APIRegistry } from '../../api-registry.js';
import type { KubeObject } from '../../registry/object.js';
import { ClusterReader } from '../plugins/cluster-reader.js';

export interface PodSecuritySources {
  /** The namespace, or undefined when it does not exist. */
  namespace(name: string): Promise<KubeObject | undefined>;
  /** The namespace without waiting, when it is at hand (undefined otherwise: ask namespace()). */
  namespaceNow?(name: string): KubeObject | undefined;
  /** Every pod of the namespace. */
  pods(namespace: string): Promise<KubeObject[]>;
}

const NAMESPACES = { group: '', version: 'v1', resource: 'namespaces' };
const PODS = { group: '', version: 'v1', resource: 'pods' };

export function registrySources(registry: APIRegistry): PodSecuritySources {
  const reader = new ClusterReader(registry);
  return {
    namespace: (name) => reader.shared(NAMESPACES, '', name),
    namespaceNow: (name) => reader.sharedNow(NAMESPACES, '', name),
    pods: (namespace) => reader.list(PODS, namespace),
  };
}
