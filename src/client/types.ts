/**
 * The client-side shapes every component programs against: objects, lists, watch events, list options, and the
 * per-resource client. The REST client (rest.ts) implements ResourceClient over HTTPS; informers (cache/) need only
 * its list and watch (ListerWatcher); tests may substitute an in-memory implementation.
 */

/** metadata.ownerReferences[] */
export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/** The metadata every stored object carries (ObjectMeta), as far as clients read it. */
export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
  managedFields?: unknown[];
}

/** Any Kubernetes object: apiVersion, kind, metadata and the rest of its fields. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  // biome-ignore lint/suspicious/noExplicitAny: objects of every kind pass through the same client
  [field: string]: any;
}

export interface ListMeta {
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
}

export interface ObjectList<T extends KubeObject = KubeObject> {
  apiVersion?: string;
  kind?: string;
  metadata: ListMeta;
  items: T[];
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

/** One event of a watch. For ERROR the object is a Status (see ApiError.fromStatus). */
export interface WatchEvent<T extends KubeObject = KubeObject> {
  type: WatchEventType;
  object: T;
}

/** An open watch: iterate its events; the iteration ends when the server closes the stream or close() is called. */
export interface WatchStream<T extends KubeObject = KubeObject> extends AsyncIterable<WatchEvent<T>> {
  close(): void;
}

/** Query parameters of list and watch, with upstream's names. */
export interface ListOptions {
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  resourceVersionMatch?: 'Exact' | 'NotOlderThan';
  timeoutSeconds?: number;
  allowWatchBookmarks?: boolean;
  sendInitialEvents?: boolean;
}

/** Query parameters of create, update and patch. */
export interface WriteOptions {
  dryRun?: 'All';
  fieldManager?: string;
  fieldValidation?: 'Strict' | 'Warn' | 'Ignore';
  /** Only for apply patches. */
  force?: boolean;
}

/** The body of a DELETE (meta/v1 DeleteOptions), with upstream's names. */
export interface DeleteOptions {
  gracePeriodSeconds?: number;
  propagationPolicy?: 'Background' | 'Foreground' | 'Orphan';
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun?: 'All';
}

export type PatchType = 'json' | 'merge' | 'strategic' | 'apply';

/** The Content-Type of each patch type. */
export const PATCH_CONTENT_TYPES: Readonly<Record<PatchType, string>> = {
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
};

/** What informers need from a resource: a list and a watch. */
export interface ListerWatcher<T extends KubeObject = KubeObject> {
  list(opts?: ListOptions): Promise<ObjectList<T>>;
  watch(opts?: ListOptions): Promise<WatchStream<T>>;
}

/**
 * One resource (group/version/resource), optionally scoped to a namespace. For a namespaced resource with no
 * namespace set, list and watch cover all namespaces, and object writes use the object's metadata.namespace.
 */
export interface ResourceClient<T extends KubeObject = KubeObject> extends ListerWatcher<T> {
  /** The same resource in namespace ns. */
  namespace(ns: string): ResourceClient<T>;
  get(name: string, opts?: { resourceVersion?: string }): Promise<T>;
  create(obj: T, opts?: WriteOptions): Promise<T>;
  /** PUT; the object's metadata.resourceVersion is the precondition (409 Conflict when stale). */
  update(obj: T, opts?: WriteOptions): Promise<T>;
  /** PUT to the status subresource. */
  updateStatus(obj: T, opts?: WriteOptions): Promise<T>;
  /** The patch is encoded as JSON, unless it is a string or a Buffer: then it is sent as it is. */
  patch(name: string, type: PatchType, patch: unknown, opts?: WriteOptions & { subresource?: string }): Promise<T>;
  /**
   * patch for a caller that does not look at the written object: resolves with its resourceVersion only, and its
   * JSON is not decoded when that can be read off the answer's text.
   */
  patchForVersion(
    name: string,
    type: PatchType,
    patch: unknown,
    opts?: WriteOptions & { subresource?: string },
  ): Promise<string>;
  /** Resolves with what the server answered: the object (when it stays, e.g. with finalizers) or a Status. */
  delete(name: string, opts?: DeleteOptions): Promise<KubeObject>;
  deleteCollection(opts?: ListOptions & DeleteOptions): Promise<KubeObject>;
  /** GET of a subresource, e.g. scale. */
  getSubresource(name: string, subresource: string): Promise<KubeObject>;
  /** POST to a subresource, e.g. binding or eviction. */
  createSubresource(name: string, subresource: string, body: KubeObject, opts?: WriteOptions): Promise<KubeObject>;
  /** PUT to a subresource, e.g. scale. */
  updateSubresource(name: string, subresource: string, body: KubeObject, opts?: WriteOptions): Promise<KubeObject>;
}

/** Identifies a resource for the dynamic client. */
export interface GroupVersionResource {
  /** '' for the core group. */
  group: string;
  version: string;
  resource: string;
}

/** meta/v1 Status, as servers send it on errors. */
export interface StatusObject {
  kind: 'Status';
  apiVersion: 'v1';
  metadata?: ListMeta;
  status?: 'Success' | 'Failure';
  message?: string;
  reason?: string;
  details?: {
    name?: string;
    group?: string;
    kind?: string;
    uid?: string;
    causes?: { type?: string; message?: string; field?: string }[];
    retryAfterSeconds?: number;
  };
  code?: number;
}

/** An error answer from the apiserver (or a watch ERROR event), carrying its Status. */
export class ApiError extends Error {
  readonly code: number;
  readonly reason: string;
  readonly status: StatusObject;

  constructor(status: StatusObject) {
    super(status.message ?? `the server answered ${status.code ?? 'an error'}`);
    this.name = 'ApiError';
    this.status = status;
    this.code = status.code ?? 0;
    this.reason = status.reason ?? '';
  }

  static fromStatus(status: unknown): ApiError {
    const s = (status && typeof status === 'object' ? status : {}) as Partial<StatusObject>;
    return new ApiError({ ...s, kind: 'Status', apiVersion: 'v1' });
  }
}

export const isNotFound = (err: unknown): boolean => err instanceof ApiError && err.code === 404;
export const isConflict = (err: unknown): boolean => err instanceof ApiError && err.reason === 'Conflict';
export const isAlreadyExists = (err: unknown): boolean => err instanceof ApiError && err.reason === 'AlreadyExists';
/** 410 Gone / reason Expired: the resourceVersion asked for is older than the server keeps. */
export const isGone = (err: unknown): boolean =>
  err instanceof ApiError && (err.code === 410 || err.reason === 'Expired' || err.reason === 'Gone');
