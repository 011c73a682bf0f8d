/**
 * The default StorageClass of a cluster with simulated nodes: `standard`, as kind names its own, provisioned by the
 * simulated nodes' provisioner, binding when a pod first uses a claim (so the volume lands on the pod's node), and
 * deleting volumes with their claims.
 */
import { ANN_DEFAULT_STORAGE_CLASS } from '../../api/persistent-volumes.js';
import type { KubeClient } from '../../client/rest.js';
import { isAlreadyExists, isNotFound, type KubeObject } from '../../client/types.js';
import { SIM_LOCAL_PROVISIONER } from './sim-local.js';

const CLASSES = { group: 'storage.k8s.io', version: 'v1', resource: 'storageclasses' };

export const DEFAULT_STORAGE_CLASS_NAME = 'standard';

export function defaultStorageClassManifest(): KubeObject {
  return {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: { name: DEFAULT_STORAGE_CLASS_NAME, annotations: { [ANN_DEFAULT_STORAGE_CLASS]: 'true' } },
    provisioner: SIM_LOCAL_PROVISIONER,
    reclaimPolicy: 'Delete',
    volumeBindingMode: 'WaitForFirstConsumer',
  };
}

/** Creates `standard` unless a class of that name exists (a user's own is left alone); true when it was created. */
export async function ensureDefaultStorageClass(client: KubeClient): Promise<boolean> {
  const classes = client.resource(CLASSES);
  try {
    await classes.get(DEFAULT_STORAGE_CLASS_NAME);
    return false;
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
  try {
    await classes.create(defaultStorageClassManifest());
    return true;
  } catch (err) {
    if (isAlreadyExists(err)) return false;
    throw err;
  }
}
