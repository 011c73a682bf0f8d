/**
 * PersistentVolumeClaimResize (upstream's plugin/pkg/admission/storage/persistentvolume/resize), a validating
 * plugin: an update that grows a claim's storage request is refused unless the claim is Bound and its
 * StorageClass (the same before and after) says `allowVolumeExpansion: true`.
 */
import { claimClass, claimRequest } from '../../../api/persistent-volumes.js';
import { compareQuantities } from '../../../api/quantity.js';
import type { KubeObject } from '../../registry/object.js';
import { type AdmissionPlugin, admissionForbidden, isResource } from '../types.js';
import type { ClusterReader } from './cluster-reader.js';

export const PERSISTENT_VOLUME_CLAIM_RESIZE = 'PersistentVolumeClaimResize';

const STORAGE_CLASSES = { group: 'storage.k8s.io', version: 'v1', resource: 'storageclasses' };

export function persistentVolumeClaimResize(reader: ClusterReader): AdmissionPlugin {
  async function allowResize(pvc: KubeObject, old: KubeObject): Promise<boolean> {
    const name = claimClass(pvc);
    if (name === '' || claimClass(old) === '' || name !== claimClass(old)) return false;
    // Upstream reads the class from its informer only.
    const sc = await reader.cached(STORAGE_CLASSES, '', name);
    return sc?.allowVolumeExpansion === true;
  }
  return {
    name: PERSISTENT_VOLUME_CLAIM_RESIZE,
    handles: (op) => op === 'UPDATE',
    resources: ['/persistentvolumeclaims'],
    async validate(attrs) {
      const pvc = attrs.object;
      const old = attrs.oldObject;
      if (!pvc || !old || !isResource(attrs, '', 'persistentvolumeclaims')) return;
      if (compareQuantities(claimRequest(pvc), claimRequest(old)) <= 0) return;
      if ((old.status as { phase?: unknown } | undefined)?.phase !== 'Bound') {
        throw admissionForbidden(attrs, 'Only bound persistent volume claims can be expanded');
      }
      if (!(await allowResize(pvc, old))) {
        throw admissionForbidden(
          attrs,
          'only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize',
        );
      }
    },
  };
}
