/**
 * The parts of metav1.ObjectMeta that metadata validation reads, as they arrive decoded from JSON (any field may
 * be missing or null). Generated API types fit these shapes.
 */

export interface OwnerReferenceInput {
  apiVersion?: string | null;
  kind?: string | null;
  name?: string | null;
  uid?: string | null;
  controller?: boolean | null;
  blockOwnerDeletion?: boolean | null;
}

export interface ManagedFieldsEntryInput {
  manager?: string | null;
  operation?: string | null;
  apiVersion?: string | null;
  time?: string | null;
  fieldsType?: string | null;
  fieldsV1?: unknown;
  subresource?: string | null;
}

export interface ObjectMetaInput {
  name?: string | null;
  generateName?: string | null;
  namespace?: string | null;
  uid?: string | null;
  resourceVersion?: string | null;
  generation?: number | null;
  creationTimestamp?: string | null;
  deletionTimestamp?: string | null;
  deletionGracePeriodSeconds?: number | null;
  labels?: Record<string, string> | null;
  annotations?: Record<string, string> | null;
  ownerReferences?: OwnerReferenceInput[] | null;
  finalizers?: string[] | null;
  managedFields?: ManagedFieldsEntryInput[] | null;
}
