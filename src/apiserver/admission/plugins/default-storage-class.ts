/**
 * DefaultStorageClass (upstream's plugin/pkg/admission/storage/storageclass/setdefault): a new
 * PersistentVolumeClaim that names no class (neither `spec.storageClassName`, not even "", nor the beta
 * annotation) gets the default StorageClass's name — the class annotated
 * `storageclass.kubernetes.io/is-default-class: "true"`, the newest one when several are. Without a default class
 * the claim is left as it is (the persistentvolume-binder assigns one later, when a default appears).
 */
import { claimHasClass, defaultStorageClass } from '../../../api/persistent-volumes.js';
import { isObject, type KubeObject } from '../../registry/object.js';
import { type AdmissionPlugin, isResource } from '../types.js';

export const DEFAULT_STORAGE_CLASS = 'DefaultStorageClass';

/** Where the plugin reads StorageClasses (upstream: an informer's lister): shared objects, only to be read. */
export interface StorageClassSource {
  list(): Promise<readonly Readonly<KubeObject>[]>;
}

export function defaultStorageClassPlugin(source: StorageClassSource | undefined): AdmissionPlugin {
  return {
    name: DEFAULT_STORAGE_CLASS,
    handles: (op) => op === 'CREATE',
    resources: ['/persistentvolumeclaims'],
    async admit(attrs) {
      if (!attrs.object || !source || !isResource(attrs, '', 'persistentvolumeclaims')) return;
      const pvc = attrs.object;
      if (claimHasClass(pvc)) return;
      const sc = defaultStorageClass(await source.list());
      if (!sc?.metadata.name) return;
      if (!isObject(pvc.spec)) pvc.spec = {};
      (pvc.spec as Record<string, unknown>).storageClassName = sc.metadata.name;
    },
  };
}
