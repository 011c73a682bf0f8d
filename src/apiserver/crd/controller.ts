/**
 * The controllers upstream's apiextensions-apiserver runs beside its handlers, here inside the apiserver and fed
 * by the CRD watch cache: naming (status.acceptedNames and NamesAccepted, deconflicting names within a group),
 * establishing (Established once the names are accepted and the resource is served), serving (the custom
 * resource's versions added to, updated in and removed from the APIRegistry, over one watch cache per CRD), and
 * the finalizer (a deleted CRD's custom resources are deleted, then its cleanup finalizer is removed and it goes).
 * One key at a time, level-triggered: every sync reads the CRD afresh.
 */
import { StatusError, statusErrors } from '../../api/status-error.js';
import type { Logger } from '../../util/logger.js';
import type { APIRegistry, ServedResource } from '../api-registry.js';
import { Cacher, cacheTypeDescription } from '../cacher/cacher.js';
import { followStore, KeyQueue } from '../key-queue.js';
import { decodeFromStorage } from '../registry/codec.js';
import { jsonEqual, type KubeObject, nowTimestamp } from '../registry/object.js';
import type { ResourceDefinition } from '../registry/resource.js';
import { GenericStore } from '../registry/store.js';
import { calculateNames } from './naming.js';
import { servedVersions, storagePrefixOf } from './serving.js';
import {
  asCRD,
  CLEANUP_FINALIZER,
  CRD_GROUP,
  type CRDCondition,
  type CustomResourceDefinition,
  isConditionTrue,
  setCondition,
  storageVersion,
} from './types.js';

const RETRY_MS = 500;

interface Serving {
  uid: string;
  prefix: string;
  signature: string;
  cacher: Cacher;
  versions: ServedResource[];
}

export class CustomResourceController {
  private readonly serving = new Map<string, Serving>();
  /** CRD names, one at a time. */
  private readonly queue: KeyQueue;
  private watch: { stop(): void } | undefined;

  constructor(
    private readonly registry: APIRegistry,
    private readonly log: Logger,
  ) {
    this.queue = new KeyQueue((name) => this.sync(name), { log, retryMs: RETRY_MS });
  }

  private get crds(): GenericStore | undefined {
    return this.registry.lookup(CRD_GROUP, 'v1', 'customresourcedefinitions')?.store;
  }

  /** Follows the CRD watch cache; resolves once the CRDs already stored are served. */
  async start(): Promise<void> {
    const crds = this.crds;
    if (!crds) return;
    this.watch = await followStore(crds, (obj) => this.queue.add(obj.metadata.name ?? ''), {
      log: this.log,
      // A CRD deleted while the cache reloaded is looked at again.
      resync: () => {
        for (const name of this.serving.keys()) this.queue.add(name);
      },
    });
    // CRDs found in storage are served before the server listens.
    await this.queue.whenIdle();
  }

  stop(): void {
    this.queue.stop();
    this.watch?.stop();
    for (const s of this.serving.values()) s.cacher.stop();
  }

  private async read(name: string): Promise<CustomResourceDefinition | undefined> {
    try {
      return asCRD((await this.crds?.get('', name)) as KubeObject);
    } catch (err) {
      if (err instanceof StatusError && err.code === 404) return undefined;
      throw err;
    }
  }

  private async allCRDs(): Promise<CustomResourceDefinition[]> {
    const crds = this.crds;
    if (!crds) return [];
    return (await crds.cacher.list(`${crds.def.storagePrefix}/`, () => true)).items.map(asCRD);
  }

  private async requeueGroup(group: string, except: string): Promise<void> {
    for (const other of await this.allCRDs()) {
      if (other.spec.group === group && other.metadata.name !== except) this.queue.add(other.metadata.name ?? '');
    }
  }

  /** Writes the CRD's status (and finalizers) as the apiserver; a CRD gone or changed meanwhile is synced again. */
  private async writeStatus(
    name: string,
    change: (crd: CustomResourceDefinition) => void,
  ): Promise<CustomResourceDefinition | undefined> {
    try {
      const updated = await this.crds?.guaranteedUpdate(
        '',
        name,
        (current) => {
          change(asCRD(current));
          return current;
        },
        { internal: true },
      );
      return updated ? asCRD(updated) : undefined;
    } catch (err) {
      if (err instanceof StatusError && (err.code === 404 || err.code === 409)) return undefined;
      throw err;
    }
  }

  private async sync(name: string): Promise<void> {
    let crd = await this.read(name);
    if (!crd) {
      const gone = this.serving.get(name);
      this.unserve(name);
      if (gone) await this.requeueGroup(name.slice(name.indexOf('.') + 1), name);
      return;
    }
    const now = nowTimestamp();
    // Naming: accept what does not conflict with the other CRDs of the group.
    if (!jsonEqual(crd.spec.names ?? {}, crd.status?.acceptedNames ?? {}) && !crd.metadata.deletionTimestamp) {
      const others = (await this.allCRDs()).filter((o) => o.spec.group === crd?.spec.group && o.metadata.name !== name);
      const result = calculateNames(crd, others);
      const current = crd.status?.conditions?.find((c) => c.type === 'NamesAccepted');
      if (
        !jsonEqual(result.acceptedNames, crd.status?.acceptedNames ?? {}) ||
        !sameCondition(current, result.namesAccepted)
      ) {
        const written = await this.writeStatus(name, (c) => {
          c.status ??= {};
          c.status.acceptedNames = result.acceptedNames;
          setCondition(c, result.namesAccepted, now);
          setCondition(c, result.established, now);
        });
        if (!written) return;
        crd = written;
        await this.requeueGroup(crd.spec.group ?? '', name);
      }
    }
    if (isConditionTrue(crd, 'NamesAccepted') || isConditionTrue(crd, 'Established')) await this.serve(crd);
    else this.unserve(name);
    // Establishing: the names are accepted and the resource is served.
    if (isConditionTrue(crd, 'NamesAccepted') && !isConditionTrue(crd, 'Established')) {
      const written = await this.writeStatus(name, (c) =>
        setCondition(
          c,
          {
            type: 'Established',
            status: 'True',
            reason: 'InitialNamesAccepted',
            message: 'the initial names have been accepted',
          },
          now,
        ),
      );
      if (!written) return;
      crd = written;
    }
    if (crd.metadata.deletionTimestamp && (crd.metadata.finalizers ?? []).includes(CLEANUP_FINALIZER)) {
      await this.finalize(crd);
    }
  }

  private async serve(crd: CustomResourceDefinition): Promise<void> {
    const name = crd.metadata.name ?? '';
    const terminating = isConditionTrue(crd, 'Terminating');
    const signature = JSON.stringify([
      crd.metadata.generation,
      crd.spec,
      crd.status?.acceptedNames,
      crd.status?.storedVersions,
      terminating,
    ]);
    let current = this.serving.get(name);
    if (current && current.signature === signature && current.uid === crd.metadata.uid) return;
    const prefix = `${storagePrefixOf(crd)}/`;
    let cacher = current && current.uid === crd.metadata.uid && current.prefix === prefix ? current.cacher : undefined;
    if (!cacher) {
      if (current) this.unserve(name);
      current = undefined;
      const crds = this.crds as GenericStore;
      cacher = new Cacher(crds.storage, prefix, decodeFromStorage, this.log.child(`cacher/${name}`), {
        ...this.registry.watchCache,
        typeDescription: cacheTypeDescription(
          crd.spec.group ?? '',
          crd.status?.acceptedNames?.kind ?? crd.spec.names?.kind ?? '',
          storageVersion(crd) ?? '',
        ),
      });
      // Served even when the cache cannot load yet (it keeps trying; its readers are refused meanwhile).
      await cacher.start().catch(() => {});
    }
    const admission = this.crds?.admission;
    const makeStore = (def: ResourceDefinition, c: Cacher) => {
      if (terminating) def.strategy.beginCreate = refuseCreateWhileTerminating(def);
      return new GenericStore(def, (this.crds as GenericStore).storage, c, admission ? { admission } : {});
    };
    const versions = servedVersions(crd, cacher, makeStore);
    for (const old of current?.versions ?? []) {
      if (!versions.some((v) => v.def.version === old.def.version && v.def.resource === old.def.resource)) {
        this.registry.remove(old.def.group, old.def.version, old.def.resource);
      }
    }
    for (const v of versions) this.registry.add(v);
    this.serving.set(name, { uid: crd.metadata.uid ?? '', prefix, signature, cacher, versions });
  }

  private unserve(name: string): void {
    const current = this.serving.get(name);
    if (!current) return;
    for (const v of current.versions) {
      // Another CRD may serve the same resource by now; only our own entry goes.
      if (this.registry.lookup(v.def.group, v.def.version, v.def.resource) === v) {
        this.registry.remove(v.def.group, v.def.version, v.def.resource);
      }
    }
    current.cacher.stop();
    this.serving.delete(name);
  }

  /** The cleanup finalizer: delete every custom resource, and once none is left, let the CRD go. */
  private async finalize(crd: CustomResourceDefinition): Promise<void> {
    const name = crd.metadata.name ?? '';
    const now = nowTimestamp();
    await this.writeStatus(name, (c) =>
      setCondition(
        c,
        {
          type: 'Terminating',
          status: 'True',
          reason: 'InstanceDeletionInProgress',
          message: 'CustomResource deletion is in progress',
        },
        now,
      ),
    );
    let done: CRDCondition;
    if (isConditionTrue(crd, 'Established')) {
      const store = this.serving.get(name)?.versions[0]?.store;
      const remaining = store ? await this.deleteInstances(store) : await this.deleteStored(crd);
      if (remaining > 0) {
        this.queue.add(name, RETRY_MS);
        return;
      }
      done = {
        type: 'Terminating',
        status: 'False',
        reason: 'InstanceDeletionCompleted',
        message: 'removed all instances',
      };
    } else {
      done = {
        type: 'Terminating',
        status: 'False',
        reason: 'NeverEstablished',
        message: 'resource was never established',
      };
    }
    await this.writeStatus(name, (c) => {
      setCondition(c, done, now);
      const finalizers = (c.metadata.finalizers ?? []).filter((f) => f !== CLEANUP_FINALIZER);
      if (finalizers.length > 0) c.metadata.finalizers = finalizers;
      else delete c.metadata.finalizers;
    });
  }

  /** With no version served there is no store to go through: the stored instances are deleted as they are. */
  private async deleteStored(crd: CustomResourceDefinition): Promise<number> {
    const storage = (this.crds as GenericStore).storage;
    const prefix = `${storagePrefixOf(crd)}/`;
    for (const kv of (await storage.list(prefix)).items) {
      try {
        await storage.delete(kv.key, kv.modRevision);
      } catch {
        // changed or gone meanwhile: counted below, and tried again
      }
    }
    return storage.count(prefix);
  }

  /** Deletes every instance (their own finalizers still hold them); returns how many are left. */
  private async deleteInstances(store: GenericStore): Promise<number> {
    const prefix = `${store.def.storagePrefix}/`;
    const { items } = await store.cacher.list(prefix, () => true);
    for (const item of items) {
      if (item.metadata.deletionTimestamp) continue;
      try {
        await store.delete(item.metadata.namespace ?? '', item.metadata.name ?? '', { internal: true });
      } catch (err) {
        if (!(err instanceof StatusError && err.code === 404)) throw err;
      }
    }
    return store.storage.count(prefix);
  }
}

function sameCondition(a: CRDCondition | undefined, b: CRDCondition): boolean {
  return a !== undefined && a.status === b.status && a.reason === b.reason && a.message === b.message;
}

/** Upstream's answer to a create of a custom resource whose CRD is being deleted. */
function refuseCreateWhileTerminating(def: ResourceDefinition): () => Promise<never> {
  return async () => {
    const err = statusErrors.methodNotSupported({ group: def.group, resource: def.resource }, 'create');
    throw new StatusError(
      405,
      'MethodNotAllowed',
      'create not allowed while custom resource definition is terminating',
      err.status.details,
    );
  };
}
