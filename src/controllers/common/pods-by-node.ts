/**
 * The index of pods by the node they are bound to (upstream's `spec.nodeName` pod index), shared by the node
 * lifecycle and taint eviction controllers: both ask for it on the one shared pod informer, so both must pass this
 * same function.
 */
import type { Indexer } from '../../client/cache/store.js';
import type { KubeObject } from '../../client/types.js';

export const POD_NODE_NAME_INDEX = 'spec.nodeName';

/** A bound pod under its node's name; an unbound pod under nothing. */
export function podNodeNameIndexFunc(pod: KubeObject): string[] {
  const nodeName = pod.spec?.nodeName;
  return typeof nodeName === 'string' && nodeName !== '' ? [nodeName] : [];
}

/** The cached pods bound to a node. */
export function podsAssignedToNode(pods: Indexer, nodeName: string): KubeObject[] {
  return pods.byIndex(POD_NODE_NAME_INDEX, nodeName);
}
