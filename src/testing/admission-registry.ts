/**
 * A registry of every built-in resource over memory storage, with no admission of its own, for unit tests of the
 * admission plugins: seed cluster state with `put`, then run a plugin over attributes made with `attrs`.
 */
import { StatusError } from '../api/status-error.js';
import { attributesFor } from '../apiserver/admission/attributes.js';
import type { AdmissionAttributes, AdmissionPlugin, Operation } from '../apiserver/admission/types.js';
import type { APIRegistry } from '../apiserver/api-registry.js';
import { buildRegistry } from '../apiserver/assemble.js';
import type { KubeObject } from '../apiserver/registry/object.js';
import { MemoryStore } from '../storage/memory.js';
import { silentLogger } from '../util/logger.js';
import assert from './assert.js';

export interface AdmissionTestCluster {
  registry: APIRegistry;
  /** Stores obj (status included) as the apiserver's own writes would (no admission, no validation). */
  put(group: string, version: string, resource: string, obj: KubeObject): Promise<KubeObject>;
  /** Reads an object from storage (undefined when missing). */
  get(
    group: string,
    version: string,
    resource: string,
    namespace: string,
    name: string,
  ): Promise<KubeObject | undefined>;
  /** Admission attributes for a write of a served resource. */
  attrs(
    group: string,
    version: string,
    resource: string,
    fields: {
      operation: Operation;
      object?: KubeObject;
      oldObject?: KubeObject;
      subresource?: string;
      namespace?: string;
      name?: string;
      dryRun?: boolean;
    },
  ): AdmissionAttributes;
  /** Lets the watch caches catch up with what was put. */
  settle(): Promise<void>;
  close(): Promise<void>;
}

export function admissionTestCluster(): AdmissionTestCluster {
  const storage = new MemoryStore();
  const registry = buildRegistry(storage, silentLogger);
  const served = (group: string, version: string, resource: string) => {
    const s = registry.lookup(group, version, resource);
    if (!s) throw new Error(`${group}/${version} ${resource} is not served`);
    return s;
  };
  return {
    registry,
    async put(group, version, resource, obj) {
      const { store } = served(group, version, resource);
      const namespace = obj.metadata.namespace ?? '';
      const created = await store.create(namespace, obj, { internal: true });
      if (obj.status === undefined) return created;
      // Creates reset status, as upstream's strategies do; a status write puts it back.
      return store.guaranteedUpdate(
        namespace,
        created.metadata.name ?? '',
        (current) => ({ ...current, status: obj.status }),
        {
          internal: true,
          subresource: 'status',
        },
      );
    },
    async get(group, version, resource, namespace, name) {
      try {
        return await served(group, version, resource).store.get(namespace, name);
      } catch {
        return undefined;
      }
    },
    attrs(group, version, resource, fields) {
      const def = served(group, version, resource).def;
      const namespace =
        fields.namespace ?? fields.object?.metadata.namespace ?? fields.oldObject?.metadata.namespace ?? '';
      return attributesFor(def, {
        operation: fields.operation,
        object: fields.object,
        oldObject: fields.oldObject,
        ...(fields.subresource ? { subresource: fields.subresource } : {}),
        namespace,
        name: fields.name ?? fields.object?.metadata.name ?? fields.oldObject?.metadata.name ?? '',
        dryRun: fields.dryRun === true,
      });
    },
    async settle() {
      // Start every cache (a cache lists storage when first used), then let storage's watch events reach them.
      await Promise.all(registry.all().map((s) => s.store.cacher.start()));
      for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
    },
    async close() {
      for (const s of registry.all()) s.store.cacher.stop();
      await storage.close();
    },
  };
}

/** Runs a plugin's mutating then validating step, as the chain would for one plugin. */
export async function runPlugin(plugin: AdmissionPlugin, attrs: AdmissionAttributes): Promise<void> {
  if (plugin.handles && !plugin.handles(attrs.operation)) return;
  await plugin.admit?.(attrs);
  await plugin.validate?.(attrs);
}

/** The StatusError a plugin run throws (failing the test when it does not), checked to carry the code. */
export async function admissionRefusal(run: Promise<void>, code = 403): Promise<StatusError> {
  try {
    await run;
  } catch (err) {
    assert.ok(err instanceof StatusError, String(err));
    assert.equal(err.code, code);
    return err;
  }
  assert.fail('admission did not refuse');
}

/** The message of a 403 refusal. */
export async function refusalMessage(run: Promise<void>): Promise<string> {
  return (await admissionRefusal(run)).message;
}
