/**
 * The customresourcedefinitions resource (apiextensions.k8s.io/v1) as upstream's registry defines it: v1
 * defaulting, status reset on create and kept on update, status.storedVersions gaining the storage version, and a
 * first DELETE that only adds the cleanup finalizer and the Terminating condition (the finalizer controller
 * deletes the custom resources, then the CRD goes).
 */

import { nowTimestamp } from '../registry/object.js';
import { builtin, statusStrategy } from '../registry/resources/common.js';
import { validateCRD, validateCRDStatusUpdate, validateCRDUpdate } from './crd-validation.js';
import { asCRD, CLEANUP_FINALIZER, type CustomResourceDefinition, setCondition, storageVersion } from './types.js';

/** Upstream's SetDefaults_CustomResourceDefinitionSpec. */
function defaultCRD(crd: CustomResourceDefinition): void {
  const names = crd.spec.names;
  if (names && typeof names === 'object') {
    if (!names.singular && names.kind) names.singular = names.kind.toLowerCase();
    if (!names.listKind && names.kind) names.listKind = `${names.kind}List`;
  }
  if (!crd.spec.conversion) crd.spec.conversion = { strategy: 'None' };
}

function addStorageVersion(crd: CustomResourceDefinition): void {
  const version = storageVersion(crd);
  if (!version) return;
  const stored = crd.status?.storedVersions ?? [];
  // A new status, not a change to the old one: on an update the status is the stored object's, which may be shared.
  if (!stored.includes(version)) crd.status = { ...crd.status, storedVersions: [...stored, version] };
}

export const customresourcedefinitions = (() => {
  const base = builtin({
    group: 'apiextensions.k8s.io',
    version: 'v1',
    resource: 'customresourcedefinitions',
    hasStatus: true,
    strategy: {
      allowUnconditionalUpdate: false,
      default: (obj) => defaultCRD(asCRD(obj)),
      prepareForCreate: (obj) => addStorageVersion(asCRD(obj)),
      prepareForUpdate: (obj) => addStorageVersion(asCRD(obj)),
      validate: (obj) => validateCRD(asCRD(obj)),
      validateUpdate: (obj, old) => validateCRDUpdate(asCRD(obj), asCRD(old)),
      prepareForDelete(obj, _opts, now) {
        if (obj.metadata.deletionTimestamp) return false;
        const crd = asCRD(obj);
        obj.metadata.deletionTimestamp = nowTimestamp(now);
        obj.metadata.deletionGracePeriodSeconds = 0;
        const finalizers = obj.metadata.finalizers ?? [];
        if (!finalizers.includes(CLEANUP_FINALIZER)) obj.metadata.finalizers = [...finalizers, CLEANUP_FINALIZER];
        setCondition(
          crd,
          {
            type: 'Terminating',
            status: 'True',
            reason: 'InstanceDeletionPending',
            message: 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon',
          },
          nowTimestamp(now),
        );
        return true;
      },
    },
  });
  // Upstream's CRD status strategy resets no metadata (its reset is given the new object twice): the finalizer
  // controller removes its finalizer through /status.
  base.def.status = statusStrategy((obj, old) => validateCRDStatusUpdate(asCRD(obj), asCRD(old)), []);
  return base;
})();
