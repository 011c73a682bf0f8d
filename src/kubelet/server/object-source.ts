/** ConfigMaps and Secrets read through the API, for exec's environment and mounted files. */
import type { KubeClient } from '../../client/rest.js';
import { isNotFound, type KubeObject } from '../../client/types.js';
import type { ObjectSource } from './types.js';

export function apiObjectSource(client: KubeClient): ObjectSource {
  const get = async (read: () => Promise<KubeObject>): Promise<KubeObject | undefined> => {
    try {
      return await read();
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  };
  return {
    configMap: (namespace, name) => get(() => client.configMaps(namespace).get(name)),
    secret: (namespace, name) => get(() => client.secrets(namespace).get(name)),
  };
}
