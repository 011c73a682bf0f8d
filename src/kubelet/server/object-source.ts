/**
 * ConfigMaps and Secrets read through the API, for exec's environment and mounted files: with one client, or as the
 * kubelet of the pod's node (a client per node, e.g. its system:node:<name> identity).
 */
import type { KubeClient } from '../../client/rest.js';
import { isNotFound, type KubeObject } from '../../client/types.js';
import type { ObjectSource } from './types.js';

export function apiObjectSource(client: KubeClient | ((node: string | undefined) => KubeClient)): ObjectSource {
  const clientOf = typeof client === 'function' ? client : () => client;
  const get = async (read: () => Promise<KubeObject>): Promise<KubeObject | undefined> => {
    try {
      return await read();
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  };
  return {
    configMap: (namespace, name, node) => get(() => clientOf(node).configMaps(namespace).get(name)),
    secret: (namespace, name, node) => get(() => clientOf(node).secrets(namespace).get(name)),
  };
}
