/**
 * StorageObjectInUseProtection (upstream's plugin/pkg/admission/storage/storageobjectinuseprotection): every new
 * PersistentVolumeClaim gets the `kubernetes.io/pvc-protection` finalizer and every new PersistentVolume the
 * `kubernetes.io/pv-protection` one, so that a claim still mounted by a pod, or a volume still bound to a claim,
 * is only marked for deletion; the persistentvolumeclaim-protection and persistentvolume-protection controllers
 * remove the finalizers once the objects are no longer in use.
 */
import { type AdmissionPlugin, isResource } from '../types.js';

export const STORAGE_OBJECT_IN_USE_PROTECTION = 'StorageObjectInUseProtection';
export const PVC_PROTECTION_FINALIZER = 'kubernetes.io/pvc-protection';
export const PV_PROTECTION_FINALIZER = 'kubernetes.io/pv-protection';

export function storageObjectInUseProtection(): AdmissionPlugin {
  return {
    name: STORAGE_OBJECT_IN_USE_PROTECTION,
    handles: (op) => op === 'CREATE',
    resources: ['/persistentvolumeclaims', '/persistentvolumes'],
    admit(attrs) {
      const obj = attrs.object;
      if (!obj) return;
      const finalizer = isResource(attrs, '', 'persistentvolumeclaims')
        ? PVC_PROTECTION_FINALIZER
        : isResource(attrs, '', 'persistentvolumes')
          ? PV_PROTECTION_FINALIZER
          : undefined;
      if (!finalizer) return;
      const finalizers = obj.metadata.finalizers ?? [];
      if (!finalizers.includes(finalizer)) obj.metadata.finalizers = [...finalizers, finalizer];
    },
  };
}
