import { type FieldError, invalid, invalidStatus, path } from '../../api/field-errors.js';
import { schemaForKind } from '../../api/schema.js';
import { StatusError, statusErrors } from '../../api/status-error.js';
import { GoValue } from '../../api/validation/go-format.js';
import { handOver, isStorageError, type KeyValue, type Store } from '../../storage/types.js';
import { type Clock, realClock } from '../../util/clock.js';
import { attributesFor, type RequestOptionFields, requestOptions } from '../admission/attributes.js';
import type { AdmissionChain } from '../admission/chain.js';
import type { AdmissionAttributes, AdmissionSink, Operation } from '../admission/types.js';
import type { Cacher } from '../cacher/cacher.js';
import type { UserInfo } from '../context.js';
import {
  decodeFromStorage,
  encodeForStorage,
  invalidError,
  rememberWritten,
  storageToStatus,
  withTypeFirst,
} from './codec.js';
import { type ManagedFieldsEntry, updateManagedFields } from './managed-fields.js';
import { deepClone, generateNameFrom, jsonEqual, type KubeObject, newUid, nowTimestamp } from './object.js';
import {
  apiVersionOf,
  type DeleteOptions,
  groupResource,
  type HookContext,
  type ResourceDefinition,
  STATUS_LIKE_SUBRESOURCES,
  type StatusLikeSubresource,
  statusLikeStrategy,
  storageKey,
  type WriteOptions,
} from './resource.js';

export type { DeleteOptions, WriteOptions } from './resource.js';

/** Who writes, as admission sees it, and whether admission runs here at all. */
export interface AdmissionRequest {
  /** The requesting user (admission plugins see it). */
  user?: UserInfo | undefined;
  /** Where admission's warnings and audit annotations go (the request's response and audit event). */
  sink?: AdmissionSink | undefined;
  /**
   * No admission for this write: the apiserver's own writes, and writes made on behalf of a subresource whose
   * admission ran on its own object (binding, eviction, scale), as upstream's subresource handlers do them.
   */
  skipAdmission?: boolean;
  /**
   * The options the request itself gave (its query), which admission sees as `request.options`; absent for the
   * apiserver's own writes, whose options are made from the write's.
   */
  requestOptions?: RequestOptionFields | undefined;
}

/** The options of a write through the store: the registry's, and admission's. */
export type StoreWriteOptions = WriteOptions &
  AdmissionRequest & {
    /**
     * The caller hands the object over (a request body decoded for this write): the store may change it instead
     * of working on a copy.
     */
    ownsInput?: boolean;
    /**
     * The caller only reads the object the write answers, and never changes it (a REST handler writing its
     * response): the watch cache then takes that object as the decoded form of the change instead of decoding the
     * stored bytes, and may hand it to the object's next update as its current state.
     */
    shareResult?: boolean;
  };
export type StoreDeleteOptions = DeleteOptions & AdmissionRequest;

/**
 * The finalizers after a DELETE with the given propagation policy, as upstream decides: a policy replaces whichever
 * of `orphan` / `foregroundDeletion` the object has (Background: neither); no policy keeps what it has.
 */
function gcFinalizers(finalizers: string[], policy: DeleteOptions['propagationPolicy']): string[] {
  if (policy === undefined) return finalizers;
  const kept = finalizers.filter((f) => f !== 'orphan' && f !== 'foregroundDeletion');
  if (policy === 'Orphan') kept.push('orphan');
  if (policy === 'Foreground') kept.push('foregroundDeletion');
  return kept;
}

/** ObjectMeta's lists and maps are `omitempty` upstream: an empty one is not kept (e.g. after a patch removed the last). */
function dropEmptyMetadata(obj: KubeObject): void {
  const meta = obj.metadata as Record<string, unknown> | undefined;
  if (!meta) return;
  for (const field of ['labels', 'annotations', 'ownerReferences', 'finalizers', 'managedFields']) {
    const value = meta[field];
    if (
      Array.isArray(value)
        ? value.length === 0
        : value !== null && typeof value === 'object' && Object.keys(value).length === 0
    ) {
      delete meta[field];
    }
  }
}

/** The options of guaranteedUpdate. */
export type UpdateOptions = StoreWriteOptions & {
  validate?: (next: KubeObject, old: KubeObject) => FieldError[];
  /** Apply prepareUpdate (of the status subresource when status) after mutating admission. */
  prepare?: { status: boolean };
  /** tryUpdate only reads the current object and answers one of its own: it is given no copy of it. */
  replaces?: boolean;
};

/**
 * Checks a write makes with the requesting user before it is validated and stored (RBAC's escalation prevention);
 * throws a StatusError to refuse. Not run for the apiserver's own writes (no user, or internal).
 */
export interface WritePolicy {
  create?(obj: KubeObject, namespace: string, user: UserInfo): void | Promise<void>;
  update?(next: KubeObject, old: KubeObject, namespace: string, user: UserInfo): void | Promise<void>;
}

const MAX_UPDATE_RETRIES = 20;

/** Objects decoded from a value storage marked stale (KeyValue.stale): an update must write them even unchanged. */
const staleStates = new WeakSet<KubeObject>();

/**
 * Where a write leaves the JSON it stored on the object it returns: a property that JSON, Object.keys and spreads do
 * not see (so no copy carries it), and that goes away with the object.
 */
const STORED_JSON = Symbol('storedJson');

function rememberStoredJson(obj: KubeObject, json: Buffer): void {
  Object.defineProperty(obj, STORED_JSON, { value: json, enumerable: false, configurable: true });
}

/**
 * The generic registry store: create, get, update (optimistic concurrency), delete (preconditions, finalizers,
 * graceful deletion) for one resource, shaped by the resource's strategy. Lists and watches are in list.ts.
 */
export class GenericStore {
  /** Set by the apiserver for resources whose writes it checks against the user (RBAC objects). */
  writePolicy: WritePolicy | undefined;

  constructor(
    readonly def: ResourceDefinition,
    readonly storage: Store,
    readonly cacher: Cacher,
    private readonly deps: { clock?: Clock; admission?: AdmissionChain } = {},
  ) {}

  private get clock(): Clock {
    return this.deps.clock ?? realClock;
  }

  /** The admission chain writes through this store run (undefined: none). */
  get admission(): AdmissionChain | undefined {
    return this.deps.admission;
  }

  private admissionChainFor(opts: StoreWriteOptions): AdmissionChain | undefined {
    return opts.skipAdmission || opts.internal ? undefined : this.deps.admission;
  }

  private attributes(
    operation: Operation,
    object: KubeObject | undefined,
    oldObject: KubeObject | undefined,
    namespace: string,
    name: string,
    opts: StoreWriteOptions,
  ) {
    return attributesFor(this.def, {
      operation,
      object,
      oldObject,
      subresource: operation === 'DELETE' ? '' : (opts.subresource ?? ''),
      namespace,
      name,
      user: opts.user,
      dryRun: opts.dryRun === true,
      sink: opts.sink,
      options: requestOptions(operation, opts.requestOptions ?? opts),
    });
  }

  /**
   * The mutating phase for a write of this resource; the object as the plugins left it. At once (no promise) when
   * every plugin answered at once, as nearly all do.
   */
  private mutatingAdmission(
    operation: Operation,
    object: KubeObject,
    old: KubeObject | undefined,
    namespace: string,
    name: string,
    opts: StoreWriteOptions,
  ): KubeObject | Promise<KubeObject> {
    const chain = this.admissionChainFor(opts);
    if (!chain) return object;
    const attrs = this.attributes(operation, object, old, namespace, name, opts);
    const pending = chain.admit(attrs);
    return pending ? pending.then(() => this.admitted(attrs)) : this.admitted(attrs);
  }

  private admitted(attrs: AdmissionAttributes): KubeObject {
    const admitted = attrs.object as KubeObject;
    admitted.apiVersion = apiVersionOf(this.def);
    admitted.kind = this.def.kind;
    if (!admitted.metadata || typeof admitted.metadata !== 'object') admitted.metadata = {};
    return admitted;
  }

  /** The validating phase for a write of this resource (at once, like the mutating one, when it can be). */
  private validatingAdmission(
    operation: Operation,
    object: KubeObject,
    old: KubeObject | undefined,
    namespace: string,
    name: string,
    opts: StoreWriteOptions,
  ): void | Promise<void> {
    return this.admissionChainFor(opts)?.validate(this.attributes(operation, object, old, namespace, name, opts));
  }

  key(namespace: string, name: string): string {
    return storageKey(this.def, namespace, name);
  }

  async get(namespace: string, name: string): Promise<KubeObject> {
    const kv = await this.getStored(namespace, name);
    const obj = this.decode(kv.value, kv.modRevision);
    if (kv.stale) staleStates.add(obj);
    return obj;
  }

  /** The object as storage holds it now (bytes in the storage version), or NotFound. */
  async getStored(namespace: string, name: string): Promise<KeyValue> {
    const kv = await this.wrap(name, () => this.storage.get(this.key(namespace, name)));
    if (!kv) throw statusErrors.notFound(groupResource(this.def), name);
    return kv;
  }

  /**
   * The JSON in storage (without resourceVersion) of an object that a create or update of this store just
   * returned: a response may send it instead of encoding the object again. Only for the caller that got the object
   * back, before it changes anything in it, and only once; undefined for anything else.
   */
  storedJsonOf(obj: KubeObject): Buffer | undefined {
    const json = (obj as { [STORED_JSON]?: Buffer })[STORED_JSON];
    // Given once: the object may live on (shared with the watch cache), its encoded bytes need not.
    if (json) delete (obj as { [STORED_JSON]?: Buffer })[STORED_JSON];
    return json;
  }

  /**
   * The bytes storage is given for obj: handed over (stored as they are), and remembered with obj for the watch cache
   * when the caller shares the result.
   */
  private storedBytes(obj: KubeObject, opts: StoreWriteOptions): Buffer {
    const bytes = handOver(Buffer.from(this.encode(obj)));
    // The watch cache holds the stored form: an object served in another version is not it.
    if (opts.shareResult && !this.def.conversion) rememberWritten(bytes, obj);
    return bytes;
  }

  /** A stored value as this resource's version serves it. */
  decode(value: Buffer, revision: number): KubeObject {
    return this.fromStored(decodeFromStorage(value, revision));
  }

  /** A stored-form object (as the watch cache holds it) as this version serves it. */
  fromStored(obj: KubeObject): KubeObject {
    return this.def.conversion ? this.def.conversion.fromStorage(obj) : obj;
  }

  private encode(obj: KubeObject): string {
    return encodeForStorage(this.def.conversion ? this.def.conversion.toStorage(obj) : obj);
  }

  async create(namespace: string, input: KubeObject, opts: StoreWriteOptions = {}): Promise<KubeObject> {
    const obj = opts.ownsInput ? input : deepClone(input);
    dropEmptyMetadata(obj);
    this.checkNamespace(obj, namespace);
    this.def.strategy.default?.(obj);
    if (this.def.namespaced) obj.metadata.namespace = namespace;
    else delete obj.metadata.namespace;
    // The writer's fields are recorded before mutating admission, as upstream's create handler does: what the
    // admission plugins and webhooks add (a service account's token volume, default tolerations, a priority) belongs
    // to no manager. Mutating admission sees the decoded, defaulted object with them, before a generated name and
    // system fields.
    this.recordManager(obj, undefined, opts);
    const managedFields = obj.metadata.managedFields;
    const admitting = this.mutatingAdmission(
      'CREATE',
      withTypeFirst(obj, apiVersionOf(this.def), this.def.kind),
      undefined,
      namespace,
      obj.metadata.name ?? '',
      opts,
    );
    // Not awaited when it answered at once: a write should not give up its turn for nothing.
    const admitted = admitting instanceof Promise ? await admitting : admitting;
    dropEmptyMetadata(admitted);
    const typed = withTypeFirst(admitted);
    const meta = typed.metadata;
    if (!meta.name && meta.generateName) meta.name = generateNameFrom(meta.generateName);
    if (this.def.namespaced) meta.namespace = namespace;
    else delete meta.namespace;
    meta.uid = newUid();
    meta.creationTimestamp = nowTimestamp(this.clock.now());
    const requestedRV = meta.resourceVersion;
    delete meta.resourceVersion;
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
    delete meta.selfLink;
    if (this.def.strategy.tracksGeneration !== false) meta.generation = 1;
    else delete meta.generation;
    if (this.writePolicy?.create && opts.user && !opts.internal) {
      await this.writePolicy.create(typed, namespace, opts.user);
    }
    const finish = await this.def.strategy.beginCreate?.(typed, this.hookContext(opts));
    let stored = false;
    try {
      this.def.strategy.prepareForCreate?.(typed, opts.user);
      const problems = opts.internal ? [] : (this.def.strategy.validate?.(typed) ?? []);
      if (problems.length > 0) throw invalidError(this.def, meta.name ?? '', problems);
      if (opts.sink) for (const text of this.def.strategy.warningsOnCreate?.(typed) ?? []) opts.sink.warn(text);
      const name = meta.name as string;
      const validating = this.validatingAdmission('CREATE', typed, undefined, namespace, name, opts);
      if (validating) await validating;
      this.def.strategy.defaultOnRead?.(typed);
      // Storage refuses a create that names a revision, as upstream's etcd3 store does (an error that is not a
      // Status: 500 with no reason); "0" and what does not parse as a revision pass, as there.
      if (!opts.dryRun && Number(requestedRV) > 0 && /^\d+$/.test(requestedRV ?? '')) {
        throw new StatusError(500, '', 'resourceVersion should not be set on objects to be created');
      }
      if (managedFields) meta.managedFields = managedFields;
      else delete meta.managedFields;
      if (opts.dryRun) {
        // As upstream's dry-run storage: only a key read without error exists (one whose value cannot be read,
        // such as an encrypted value no key opens, does not stop a dry run).
        const existing = await this.storage.get(this.key(namespace, name)).catch(() => null);
        if (existing) throw statusErrors.alreadyExists(groupResource(this.def), name);
        return typed;
      }
      const encoded = this.storedBytes(typed, opts);
      const { revision } = await this.wrap(name, () => this.storage.create(this.key(namespace, name), encoded));
      typed.metadata.resourceVersion = String(revision);
      rememberStoredJson(typed, encoded);
      stored = true;
      return typed;
    } finally {
      finish?.(stored);
    }
  }

  /** Sets metadata.managedFields: what opts.fieldManager changed is now its (others keep the rest). */
  private recordManager(next: KubeObject, old: KubeObject | undefined, opts: WriteOptions): void {
    const previous = (old?.metadata.managedFields ?? []) as unknown as ManagedFieldsEntry[];
    if (!opts.fieldManager) {
      // Writers that do not say who they are (the apiserver's own bootstrap) keep what was recorded.
      if (old) next.metadata.managedFields = old.metadata.managedFields;
      return;
    }
    const entries = updateManagedFields(previous, old, next, {
      manager: opts.fieldManager,
      apiVersion: apiVersionOf(this.def),
      time: nowTimestamp(this.clock.now()),
      schema:
        this.def.custom?.schema ??
        schemaForKind({ group: this.def.group, version: this.def.version, kind: this.def.kind }),
      ...(opts.subresource ? { subresource: opts.subresource } : {}),
    });
    if (entries.length > 0) next.metadata.managedFields = entries as unknown as Array<Record<string, unknown>>;
    else delete next.metadata.managedFields;
  }

  private hookContext(opts: WriteOptions): HookContext {
    return { storage: this.storage, dryRun: opts.dryRun === true };
  }

  /** Runs the strategy's afterDelete for an object that is gone; the delete stands whatever the hook does. */
  private async afterDelete(obj: KubeObject): Promise<void> {
    try {
      await this.def.strategy.afterDelete?.(obj, this.hookContext({}));
    } catch {
      // The object is deleted; a failing clean-up must not turn that into an error.
    }
  }

  /**
   * Reads the object, lets tryUpdate compute its next state, and writes it if the object did not change meanwhile;
   * retries on a conflicting write unless tryUpdate itself refuses (a client precondition). Each attempt runs, in
   * upstream's order: tryUpdate, mutating admission (an UPDATE of opts.subresource), the update rules when
   * `prepare` asks for them (prepareUpdate), validation, validating admission. An update that changes nothing
   * writes nothing. Returns the stored object.
   */
  async guaranteedUpdate(
    namespace: string,
    name: string,
    tryUpdate: (current: KubeObject) => KubeObject | Promise<KubeObject>,
    opts: UpdateOptions = {},
  ): Promise<KubeObject> {
    const key = this.key(namespace, name);
    // The first attempt starts from the watch cache's state of the object, as upstream's cacher hands
    // GuaranteedUpdate its cached object: the one it decoded for the latest change when it still has it, else one
    // decoded from its bytes (not read from storage). It may be stale, so the write is conditional on its revision,
    // and a refusal or a no-op reached from it is checked against storage before it stands.
    // A dry run answers what storage holds now, as upstream's dry-run storage reads it.
    let cached =
      this.def.conversion || opts.dryRun ? undefined : (this.cacher.takeRecent(key) ?? this.cacher.latestNow(key));
    for (let attempt = 0; ; attempt++) {
      const current = cached ?? (await this.get(namespace, name));
      const mayBeStale = cached !== undefined;
      cached = undefined;
      const progress = { writing: false };
      let outcome: { result: KubeObject } | 'retry';
      try {
        outcome = await this.updateAttempt(key, namespace, name, current, tryUpdate, opts, attempt, progress);
      } catch (err) {
        // Only a refusal before the write may come from stale data: once the write was tried, its outcome stands.
        if (mayBeStale && !progress.writing && (await this.isStale(key, current))) continue;
        throw err;
      }
      if (outcome === 'retry') continue;
      if (mayBeStale && outcome.result === current && (await this.isStale(key, current))) continue;
      return outcome.result;
    }
  }

  /**
   * Whether storage holds a newer state of the object than current (or no longer holds it, or holds it in a form it
   * no longer writes).
   */
  private async isStale(key: string, current: KubeObject): Promise<boolean> {
    const kv = await this.storage.get(key).catch(() => undefined);
    return kv?.modRevision !== Number(current.metadata.resourceVersion) || kv.stale === true;
  }

  /**
   * One attempt of guaranteedUpdate from current: the updated object written (or current itself when the update
   * changes nothing), or 'retry' after a conflicting write.
   */
  private async updateAttempt(
    key: string,
    namespace: string,
    name: string,
    current: KubeObject,
    tryUpdate: (current: KubeObject) => KubeObject | Promise<KubeObject>,
    opts: UpdateOptions,
    attempt: number,
    progress: { writing: boolean },
  ): Promise<{ result: KubeObject } | 'retry'> {
    let next = await tryUpdate(opts.replaces ? current : deepClone(current));
    next.apiVersion = apiVersionOf(this.def);
    next.kind = this.def.kind;
    const admitting = this.mutatingAdmission('UPDATE', next, current, namespace, name, opts);
    next = admitting instanceof Promise ? await admitting : admitting;
    if (opts.prepare) next = this.prepareUpdate(next, current, opts.prepare.status, opts.subresource);
    dropEmptyMetadata(next);
    if (this.writePolicy?.update && opts.user && !opts.internal && !opts.subresource) {
      await this.writePolicy.update(next, current, namespace, opts.user);
    }
    const finish = await this.def.strategy.beginUpdate?.(next, current, this.hookContext(opts));
    let written = false;
    try {
      const problems = opts.validate?.(next, current) ?? [];
      this.recordManager(next, current, opts);
      if (problems.length > 0) throw invalidError(this.def, name, problems);
      if (opts.sink && opts.prepare && !opts.prepare.status) {
        for (const text of this.def.strategy.warningsOnUpdate?.(next, current) ?? []) opts.sink.warn(text);
      }
      const validating = this.validatingAdmission('UPDATE', next, current, namespace, name, opts);
      if (validating) await validating;
      // A no-op writes nothing, unless storage holds the value in a form it no longer writes (an encryption key
      // that is not first any more), as upstream's GuaranteedUpdate rewrites a stale state.
      if (sameButVolatile(next, current) && !staleStates.has(current)) return { result: current };
      if (opts.dryRun) return { result: next };
      const expected = Number(current.metadata.resourceVersion);
      progress.writing = true;
      try {
        if (this.shouldDeleteDuringUpdate(next, current)) {
          // The last finalizer of an object being deleted is gone: the object goes now.
          const { revision } = await this.storage.delete(key, expected);
          next.metadata.resourceVersion = String(revision);
          written = true;
          await this.afterDelete(next);
          return { result: next };
        }
        const encoded = this.storedBytes(next, opts);
        const { revision } = await this.storage.update(key, encoded, expected);
        next.metadata.resourceVersion = String(revision);
        rememberStoredJson(next, encoded);
        written = true;
        return { result: next };
      } catch (err) {
        if (isStorageError(err, 'Conflict') && attempt < MAX_UPDATE_RETRIES) return 'retry';
        throw storageToStatus(err, this.def, name);
      }
    } finally {
      finish?.(written);
    }
  }

  /** PUT of the whole object (or of its status subresource, or a CSR's approval). */
  async update(
    namespace: string,
    name: string,
    input: KubeObject,
    opts: StoreWriteOptions & { subresource?: StatusLikeSubresource } = {},
  ): Promise<{ object: KubeObject; created: boolean }> {
    const obj = opts.ownsInput ? input : deepClone(input);
    this.checkNamespace(obj, namespace);
    if (obj.metadata.name && obj.metadata.name !== name) {
      throw statusErrors.badRequest('the name of the object does not match the name on the URL');
    }
    obj.metadata.name = name;
    const wantRV = obj.metadata.resourceVersion;
    const status = opts.subresource !== undefined && STATUS_LIKE_SUBRESOURCES.includes(opts.subresource);
    if (!status && this.def.strategy.allowCreateOnUpdate && !wantRV) {
      const exists = await this.wrap(name, () => this.storage.get(this.key(namespace, name)));
      if (!exists) return { object: await this.create(namespace, obj, opts), created: true };
    }
    if (!status) this.def.strategy.default?.(obj);
    const object = await this.guaranteedUpdate(
      namespace,
      name,
      (current) => {
        if (!wantRV && this.def.strategy.allowUnconditionalUpdate === false) throw this.resourceVersionRequired(name);
        if (wantRV && wantRV !== current.metadata.resourceVersion)
          throw statusErrors.modified(groupResource(this.def), name);
        // A uid in the body is a precondition, as upstream treats it: it must be the stored object's.
        const uid = obj.metadata.uid;
        if (uid && uid !== current.metadata.uid) {
          throw statusErrors.uidPreconditionFailed(groupResource(this.def), name, uid, current.metadata.uid);
        }
        return deepClone(obj);
      },
      {
        ...opts,
        ...(status ? { subresource: opts.subresource } : {}),
        prepare: { status },
        replaces: true,
        validate: (next, old) => this.validateUpdate(next, old, status, opts.subresource),
      },
    );
    return { object, created: false };
  }

  /**
   * The propagation policy a DELETE takes: the one it names, else the strategy's default (orphaning, for Jobs and
   * ReplicationControllers) unless the object already carries a garbage collector finalizer, which then stands.
   */
  private propagationPolicy(current: KubeObject, opts: StoreDeleteOptions): DeleteOptions['propagationPolicy'] {
    if (opts.propagationPolicy !== undefined || !this.def.strategy.orphanDependentsByDefault) {
      return opts.propagationPolicy;
    }
    const finalizers = current.metadata.finalizers ?? [];
    return finalizers.includes('orphan') || finalizers.includes('foregroundDeletion') ? undefined : 'Orphan';
  }

  /**
   * The refusal of an update without a resourceVersion when the strategy does not allow unconditional updates. As
   * upstream's generic store words it, the "kind" is the resource's plural and the value Go's %#v of a uint64 zero.
   */
  private resourceVersionRequired(name: string): StatusError {
    const gk = { group: this.def.group, kind: this.def.resource };
    const err = invalid(path('metadata', 'resourceVersion'), new GoValue('0x0'), 'must be specified for an update');
    const s = invalidStatus(gk, name, [err]);
    return new StatusError(422, 'Invalid', s.message, s.details);
  }

  /**
   * Applies the update rules (system fields kept, status or spec carried over, generation) to next; status: a write
   * of a status-like subresource (status, or the approval named by subresource).
   */
  prepareUpdate(next: KubeObject, current: KubeObject, status: boolean, subresource?: string): KubeObject {
    const meta = next.metadata;
    const old = current.metadata;
    // A different uid (from a patch) is left for update validation to refuse as immutable.
    if (!meta.uid) meta.uid = old.uid;
    meta.creationTimestamp = old.creationTimestamp;
    meta.resourceVersion = old.resourceVersion;
    if (this.def.namespaced) meta.namespace = old.namespace;
    if (old.deletionTimestamp) {
      meta.deletionTimestamp = old.deletionTimestamp;
      meta.deletionGracePeriodSeconds = old.deletionGracePeriodSeconds;
    } else {
      delete meta.deletionTimestamp;
      delete meta.deletionGracePeriodSeconds;
    }
    // A request cannot set generation (upstream's BeforeUpdate): it is the stored one until a strategy changes it.
    if (old.generation === undefined) delete meta.generation;
    else meta.generation = old.generation;
    if (status) {
      this.statusLikeStrategy(subresource)?.prepareForUpdate(next, current);
    } else {
      this.def.strategy.prepareForUpdate?.(next, current);
    }
    if (this.def.strategy.tracksGeneration !== false) {
      const changed = this.def.strategy.generationChanged?.(next, current) ?? specChanged(next, current);
      meta.generation = (old.generation ?? 1) + (changed ? 1 : 0);
    }
    return next;
  }

  validateUpdate(next: KubeObject, old: KubeObject, status: boolean, subresource?: string): FieldError[] {
    if (status) return this.statusLikeStrategy(subresource)?.validateUpdate?.(next, old) ?? [];
    return this.def.strategy.validateUpdate?.(next, old) ?? [];
  }

  /** The strategy of a status-like subresource (status when none is named). */
  private statusLikeStrategy(subresource: string | undefined) {
    return statusLikeStrategy(this.def, subresource ?? 'status');
  }

  /**
   * DELETE. An object with finalizers (or one the strategy deletes gracefully) is only marked with a
   * deletionTimestamp; it goes once the last finalizer is removed. Returns the object and whether it is gone.
   */
  async delete(
    namespace: string,
    name: string,
    opts: StoreDeleteOptions = {},
  ): Promise<{ object: KubeObject; deleted: boolean }> {
    const key = this.key(namespace, name);
    for (let attempt = 0; ; attempt++) {
      const current = await this.get(namespace, name);
      const pre = opts.preconditions;
      if (pre?.uid && pre.uid !== current.metadata.uid) {
        throw statusErrors.uidPreconditionFailed(groupResource(this.def), name, pre.uid, current.metadata.uid);
      }
      if (pre?.resourceVersion && pre.resourceVersion !== current.metadata.resourceVersion) {
        throw statusErrors.conflict(
          groupResource(this.def),
          name,
          `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${current.metadata.resourceVersion ?? ''}`,
        );
      }
      // Admission of a DELETE sees the stored object as the old object, and may refuse.
      const chain = this.admissionChainFor(opts);
      if (chain) {
        const attrs = this.attributes('DELETE', undefined, deepClone(current), namespace, name, opts);
        await chain.admit(attrs);
        await chain.validate(attrs);
      }
      this.def.strategy.beforeDelete?.(current);
      const next = deepClone(current);
      const finalizers = new Set(gcFinalizers(next.metadata.finalizers ?? [], this.propagationPolicy(current, opts)));
      if (finalizers.size > 0) next.metadata.finalizers = [...finalizers];
      else delete next.metadata.finalizers;
      // Graceful deletion (a pod on a node, a namespace with content): the strategy marks the object and keeps it.
      const graceful = this.def.strategy.prepareForDelete?.(next, opts, this.clock.now()) ?? false;
      // What is deleted from storage below: the stored object, or the one just written marked for deletion.
      let doomed = current;
      if (finalizers.size > 0 || graceful) {
        if (!next.metadata.deletionTimestamp) {
          next.metadata.deletionTimestamp = nowTimestamp(this.clock.now());
          next.metadata.deletionGracePeriodSeconds = 0;
        }
        // Starting a deletion moves a generation the object tracks, as upstream's BeforeDelete and markAsDeleting do.
        const generation = current.metadata.generation ?? 0;
        if (!current.metadata.deletionTimestamp && generation > 0) next.metadata.generation = generation + 1;
        // A zero grace period (a pod not on a node, or deleted with --grace-period=0): marked first, as upstream
        // writes the deletionTimestamp before it deletes, so that watchers see the pod terminating, then gone.
        const goesNow = graceful === 'now' && finalizers.size === 0;
        if (jsonEqual(next, current)) return { object: current, deleted: false };
        if (opts.dryRun) return { object: next, deleted: goesNow };
        try {
          const { revision } = await this.storage.update(
            key,
            this.encode(next),
            Number(current.metadata.resourceVersion),
          );
          next.metadata.resourceVersion = String(revision);
        } catch (err) {
          if (isStorageError(err, 'Conflict') && attempt < MAX_UPDATE_RETRIES) continue;
          throw storageToStatus(err, this.def, name);
        }
        if (!goesNow) return { object: next, deleted: false };
        doomed = next;
      } else if (opts.dryRun) {
        return { object: current, deleted: true };
      }
      try {
        const { revision } = await this.storage.delete(key, Number(doomed.metadata.resourceVersion));
        doomed.metadata.resourceVersion = String(revision);
      } catch (err) {
        // A pod just marked may have been deleted by another writer (its kubelet) first, as upstream tolerates.
        if (doomed !== current && isStorageError(err, 'NotFound')) return { object: doomed, deleted: true };
        // Changed in between: the next attempt starts again (a marked pod is then found with no grace left).
        if (isStorageError(err, 'Conflict') && attempt < MAX_UPDATE_RETRIES) continue;
        throw storageToStatus(err, this.def, name);
      }
      await this.afterDelete(doomed);
      return { object: doomed, deleted: true };
    }
  }

  /**
   * Upstream's ShouldDeleteDuringUpdate: an update finishes a deletion when the stored object was already being
   * deleted with no grace period left (a pod in its graceful shutdown stays until its kubelet deletes it) and the
   * update leaves no finalizers.
   */
  private shouldDeleteDuringUpdate(next: KubeObject, current: KubeObject): boolean {
    if (!next.metadata.deletionTimestamp || !current.metadata.deletionTimestamp) return false;
    if ((current.metadata.deletionGracePeriodSeconds ?? 0) !== 0) return false;
    return this.mayFinishDeletion(next);
  }

  private mayFinishDeletion(obj: KubeObject): boolean {
    if ((obj.metadata.finalizers ?? []).length > 0) return false;
    return this.def.strategy.mayFinishDeletion?.(obj) ?? true;
  }

  private checkNamespace(obj: KubeObject, namespace: string): void {
    if (!obj.metadata || typeof obj.metadata !== 'object') obj.metadata = {};
    const ns = obj.metadata.namespace;
    if (this.def.namespaced && ns && ns !== namespace) {
      throw statusErrors.badRequest(
        'the namespace of the provided object does not match the namespace sent on the request',
      );
    }
  }

  private async wrap<T>(name: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw storageToStatus(err, this.def, name);
    }
  }
}

/** Fields of metadata that change on every write and must not make a no-op update look like a change. */
const VOLATILE_METADATA = new Set(['resourceVersion', 'managedFields']);
const METADATA_ONLY = new Set(['metadata']);
const METADATA_AND_STATUS = new Set(['metadata', 'status']);

/** jsonEqual of two objects' fields other than those in skip (fields holding undefined count as absent). */
function equalFieldsBut(a: Record<string, unknown>, b: Record<string, unknown>, skip: ReadonlySet<string>): boolean {
  // for-in rather than Object.keys, as jsonEqual: this runs on every update.
  let count = 0;
  for (const k in a) {
    const v = a[k];
    if (v === undefined || skip.has(k)) continue;
    if (!Object.hasOwn(b, k) || !jsonEqual(v, b[k])) return false;
    count++;
  }
  for (const k in b) if (b[k] !== undefined && !skip.has(k)) count--;
  return count === 0;
}

/** Whether two states of an object differ only in what changes on every write (resourceVersion, managedFields). */
function sameButVolatile(a: KubeObject, b: KubeObject): boolean {
  const metaA = (a.metadata ?? {}) as Record<string, unknown>;
  const metaB = (b.metadata ?? {}) as Record<string, unknown>;
  return (
    equalFieldsBut(metaA, metaB, VOLATILE_METADATA) &&
    equalFieldsBut(a as Record<string, unknown>, b as Record<string, unknown>, METADATA_ONLY)
  );
}

/** Whether anything outside metadata and status differs: what bumps metadata.generation. */
export function specChanged(next: KubeObject, old: KubeObject): boolean {
  return !equalFieldsBut(next, old, METADATA_AND_STATUS);
}
