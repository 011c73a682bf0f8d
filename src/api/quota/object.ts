/**
 * What quota arithmetic reads of an object: its metadata's deletion fields and annotations, and its other fields as
 * plain JSON. Both the apiserver's and the client's object types fit it, so the ResourceQuota admission plugin and
 * the resourcequota controller measure objects with the same code.
 */
export interface QuotaObject {
  metadata: {
    name?: string;
    namespace?: string;
    annotations?: Record<string, string>;
    deletionTimestamp?: string;
    deletionGracePeriodSeconds?: number;
  };
  [field: string]: unknown;
}

/** A group, version and resource (the version is the one listed and watched). */
export interface QuotaResource {
  group: string;
  version: string;
  resource: string;
}
