import type { FieldError } from '../../api/field-errors.js';
import type { SchemaNode } from '../../api/schema-node.js';
import type { GroupKind, GroupResource } from '../../api/status-error.js';
import type { Store } from '../../storage/types.js';
import type { UserInfo } from '../context.js';
import type { KubeObject } from './object.js';

export interface WriteOptions {
  /** dryRun=All: run every step but do not store. */
  dryRun?: boolean;
  /**
   * A write by the apiserver itself (its bootstrap objects), which skips the resource's validation: the
   * `kubernetes` Endpoints must name a loopback address when the server listens only on loopback.
   */
  internal?: boolean;
  /** Who writes (?fieldManager or the User-Agent): recorded in metadata.managedFields. */
  fieldManager?: string;
  /** The subresource written through (status, scale), recorded with the manager. */
  subresource?: string;
}

export interface DeleteOptions extends WriteOptions {
  gracePeriodSeconds?: number;
  propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
  preconditions?: { uid?: string; resourceVersion?: string };
}

/** Ends what a begin hook started: true keeps its reservations (the write went through), false gives them back. */
export type FinishFunc = (success: boolean) => void;

/** What the store gives registry hooks besides the object. */
export interface HookContext {
  /** The storage backend, for hooks that must know what is stored (e.g. which ClusterIPs are taken). */
  storage: Store;
  dryRun: boolean;
}

/**
 * What makes one resource different from another in the generic store (ARCHITECTURE.md "one generic store, many
 * strategies"). Every hook is optional.
 */
export interface Strategy {
  /** Fills defaults into an object decoded from a request, as upstream's defaulting functions do. */
  default?(obj: KubeObject): void;
  /**
   * Resets what a client may not set on create (e.g. status on resources that have a status subresource); user is
   * who creates (undefined for the apiserver's own writes), for resources that record it (a CSR's spec.username).
   */
  prepareForCreate?(obj: KubeObject, user?: UserInfo): void;
  /**
   * Carries over what a client may not change on update (status from old, …). old may be shared with other readers
   * (the watch cache's last decoded state): a subtree carried over from it is replaced, never changed in place.
   */
  prepareForUpdate?(obj: KubeObject, old: KubeObject): void;
  validate?(obj: KubeObject): FieldError[];
  validateUpdate?(obj: KubeObject, old: KubeObject): FieldError[];
  /**
   * Runs on a created object once it has passed validation and admission, just before it is stored: what upstream's
   * defaulting adds only when the stored object is decoded again (so it is neither validated nor admitted).
   */
  defaultOnRead?(obj: KubeObject): void;
  /** Fields a field selector may use besides metadata.name and metadata.namespace, with how to read each. */
  selectableFields?: Record<string, (obj: KubeObject) => string>;
  /** Older names a field selector may still use for a selectable field (upstream's field label conversion). */
  fieldLabelRenames?: Readonly<Record<string, string>>;
  /**
   * A selectable field the watch cache indexes its watchers by (upstream's trigger field; pods: spec.nodeName): a
   * watcher whose field selector requires one value of it is given only the events of objects that have, or had,
   * that value — a thousand kubelets watching their own pods cost each pod event two watchers, not a thousand.
   */
  watchIndexField?: string;
  /**
   * Graceful deletion: may mark obj for deletion (deletionTimestamp, grace period, status) and return true to keep
   * it, instead of deleting it at once (pods on a node, namespaces with spec.finalizers), or 'now' to have it deleted
   * once that mark is written (a pod's zero grace period: watchers see it marked, then gone).
   */
  prepareForDelete?(obj: KubeObject, opts: DeleteOptions, now: number): boolean | 'now';
  /** Refuses a delete by throwing a StatusError (e.g. the system priority classes). */
  beforeDelete?(obj: KubeObject): void;
  /**
   * Whether an update changes what metadata.generation counts (default: anything outside metadata and status;
   * upstream also counts annotation changes for Deployments and label changes for EndpointSlices).
   */
  generationChanged?(next: KubeObject, old: KubeObject): boolean;
  /** For an object marked for deletion without metadata.finalizers: whether it may go now (default yes). */
  mayFinishDeletion?(obj: KubeObject): boolean;
  /**
   * Upstream's BeginCreate: runs after system fields are set and before prepareForCreate and validation; may fill
   * fields and reserve things (a Service's ClusterIP). The store calls the returned function once it knows whether
   * the object was stored.
   */
  beginCreate?(obj: KubeObject, ctx: HookContext): Promise<FinishFunc>;
  /** Upstream's BeginUpdate: once per update attempt, after prepareForUpdate and before validateUpdate. */
  beginUpdate?(obj: KubeObject, old: KubeObject, ctx: HookContext): Promise<FinishFunc>;
  /** Upstream's AfterDelete: after the object is gone from storage (not when it is only marked for deletion). */
  afterDelete?(obj: KubeObject, ctx: HookContext): Promise<void>;
  /** Upstream's WarningsOnCreate: the Warning texts a valid create answers with. */
  warningsOnCreate?(obj: KubeObject): string[];
  /** Upstream's WarningsOnUpdate: the Warning texts a valid update (not of a status-like subresource) answers with. */
  warningsOnUpdate?(obj: KubeObject, old: KubeObject): string[];
  /** Whether an update (PUT) of a missing object creates it. */
  allowCreateOnUpdate?: boolean;
  /**
   * false: an update (PUT) must carry metadata.resourceVersion (upstream's AllowUnconditionalUpdate, true for most
   * built-in resources, false for CustomResourceDefinitions and custom resources).
   */
  allowUnconditionalUpdate?: boolean;
  /** Whether a DELETE answers with the deleted object rather than a Success status. */
  returnDeletedObject?: boolean;
  /**
   * A DELETE that names no propagation policy (and an object without the orphan or foregroundDeletion finalizer)
   * orphans the dependents: upstream's DefaultGarbageCollectionPolicy OrphanDependents, which batch/v1 Jobs and v1
   * ReplicationControllers keep for backward compatibility.
   */
  orphanDependentsByDefault?: boolean;
  /** Whether changes to the object outside metadata and status count as spec changes that bump generation. */
  tracksGeneration?: boolean;
}

/** The status subresource's strategy: what a PUT/PATCH of /status may change. */
export interface StatusStrategy {
  /** Copies everything but status (and the metadata status writers may touch) from old into obj. */
  prepareForUpdate(obj: KubeObject, old: KubeObject): void;
  validateUpdate?(obj: KubeObject, old: KubeObject): FieldError[];
}

/** The subresources written like status: the object read and written whole, with the subresource's strategy. */
export const STATUS_LIKE_SUBRESOURCES = ['status', 'approval', 'ephemeralcontainers', 'resize'] as const;
export type StatusLikeSubresource = (typeof STATUS_LIKE_SUBRESOURCES)[number];

/** The strategy of a status-like subresource of def, if it serves that subresource. */
export function statusLikeStrategy(
  def: ResourceDefinition,
  subresource: string | undefined,
): StatusStrategy | undefined {
  if (subresource === 'status') return def.status;
  if (subresource === 'approval') return def.approval;
  if (subresource === 'ephemeralcontainers') return def.ephemeralContainers;
  if (subresource === 'resize') return def.resize;
  return undefined;
}

export interface ResourceDefinition {
  group: string;
  version: string;
  resource: string;
  kind: string;
  listKind: string;
  namespaced: boolean;
  /** Storage key prefix without trailing slash: /registry/pods. */
  storagePrefix: string;
  strategy: Strategy;
  /** Present when the resource has a status subresource. */
  status?: StatusStrategy;
  /** True when the resource has a scale subresource (spec.replicas, status.replicas, spec.selector). */
  scale?: boolean;
  /**
   * For CertificateSigningRequests: the approval subresource, written like status (PUT, PATCH) with its own
   * strategy (only status.conditions change).
   */
  approval?: StatusStrategy;
  /** The warning every request to this deprecated API answers with (`v1 Endpoints is deprecated in v1.33+; …`). */
  deprecationWarning?: string;
  /** For pods: the ephemeralcontainers subresource, written like status (PUT, PATCH), changing only them. */
  ephemeralContainers?: StatusStrategy;
  /** For pods: the resize subresource (in-place resize), written like status (PUT, PATCH), changing only resources. */
  resize?: StatusStrategy;
  /** True for namespaces: the finalize subresource writes spec.finalizers. */
  finalize?: boolean;
  /** For pods: the binding subresource (POST a Binding to set spec.nodeName), as the scheduler uses it. */
  binding?: {
    validate(binding: KubeObject): void;
    bind(pod: KubeObject, binding: KubeObject, now: number): KubeObject;
  };
  /** For pods: the eviction subresource (POST a policy/v1 Eviction), honouring PodDisruptionBudgets. */
  eviction?: boolean;
  /**
   * For a resource served in several versions but stored once (events, horizontalpodautoscalers): converts between
   * this version and the stored one.
   */
  conversion?: Conversion;
  /** For custom resources (crd/): what their CRD's schema and settings decide instead of the built-in tables. */
  custom?: CustomResourceHooks;
}

/** How a custom resource differs from a built-in one in the request handlers. */
export interface CustomResourceHooks {
  /** Drops the fields the CRD's schema does not know from a decoded body; returns their paths (`spec.foo`). */
  prune(obj: KubeObject): string[];
  /** Warnings every request to this version answers with (a deprecated version's warning). */
  warnings: readonly string[];
  /** The version's schema as a SchemaNode (managedFields follow its list types and map keys). */
  schema?: SchemaNode;
  /** The scale subresource over the CRD's replica paths (when the version has one). */
  scale?: {
    of(obj: KubeObject): KubeObject;
    /** The spec replicas path when the object has no value there. */
    missingReplicas(obj: KubeObject): string | undefined;
    apply(obj: KubeObject, replicas: number): KubeObject;
  };
}

export interface Conversion {
  toStorage(obj: KubeObject): KubeObject;
  fromStorage(obj: KubeObject): KubeObject;
}

export function apiVersionOf(def: { group: string; version: string }): string {
  return def.group ? `${def.group}/${def.version}` : def.version;
}

export function groupResource(def: ResourceDefinition): GroupResource {
  return { group: def.group, resource: def.resource };
}

export function groupKind(def: ResourceDefinition): GroupKind {
  return { group: def.group, kind: def.kind };
}

export function storageKey(def: ResourceDefinition, namespace: string, name: string): string {
  return def.namespaced ? `${def.storagePrefix}/${namespace}/${name}` : `${def.storagePrefix}/${name}`;
}

/** The prefix under which a list of the resource (in one namespace, or in all when namespace is '') lives. */
export function listPrefix(def: ResourceDefinition, namespace: string): string {
  return def.namespaced && namespace ? `${def.storagePrefix}/${namespace}/` : `${def.storagePrefix}/`;
}
