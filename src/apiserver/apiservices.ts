/**
 * The APIServices of what this apiserver serves itself, as kube-apiserver's aggregator registers them: at start,
 * one per built-in group version it serves (with upstream's group and version priorities, labelled
 * `kube-aggregator.kubernetes.io/automanaged: onstart`) and one for the resource metrics API (metrics-server's
 * priorities, though served here); while it runs, one per group version a CustomResourceDefinition serves
 * (priorities 1000 and 100, labelled `automanaged: "true"`, removed when no CRD serves it any more). Every APIService
 * without a `service` is Local and marked Available (reason Local), as the aggregator's local availability
 * controller does. APIServices naming a Service are stored but not proxied to: their status is left as it is.
 */
import { servedGroupVersions } from '../api/catalog.js';
import { StatusError } from '../api/status-error.js';
import type { Logger } from '../util/logger.js';
import type { APIRegistry } from './api-registry.js';
import { createIfMissing } from './assemble.js';
import { asCRD } from './crd/types.js';
import { followStore, KeyQueue } from './key-queue.js';
import { METRICS_GROUP, METRICS_VERSION } from './metrics-api.js';
import { jsonEqual, type KubeObject, nowTimestamp } from './registry/object.js';

const GROUP = 'apiregistration.k8s.io';
export const AUTOMANAGED_LABEL = 'kube-aggregator.kubernetes.io/automanaged';
const ON_START = 'onstart';
const CONTINUOUSLY = 'true';
const RETRY_MS = 500;

/**
 * Upstream's priorities (kube-apiserver's apiVersionPriorities, over the generic control plane's), by
 * `group/version`: higher groups come first in discovery; within a group, higher versions. A served group version
 * missing here gets no APIService, as upstream skips it.
 */
const PRIORITIES: Record<string, [group: number, version: number]> = {
  '/v1': [18000, 1],
  'events.k8s.io/v1': [17750, 15],
  'authentication.k8s.io/v1': [17700, 15],
  'authorization.k8s.io/v1': [17600, 15],
  'apps/v1': [17800, 15],
  'autoscaling/v1': [17500, 15],
  'autoscaling/v2': [17500, 30],
  'batch/v1': [17400, 15],
  'certificates.k8s.io/v1': [17300, 15],
  'networking.k8s.io/v1': [17200, 15],
  'policy/v1': [17100, 15],
  'rbac.authorization.k8s.io/v1': [17000, 15],
  'storage.k8s.io/v1': [16800, 15],
  'admissionregistration.k8s.io/v1': [16700, 15],
  'apiextensions.k8s.io/v1': [16700, 15],
  'scheduling.k8s.io/v1': [16600, 15],
  'coordination.k8s.io/v1': [16500, 15],
  'node.k8s.io/v1': [16300, 15],
  'discovery.k8s.io/v1': [16200, 15],
  'flowcontrol.apiserver.k8s.io/v1': [16100, 21],
};
/** The priorities metrics-server registers its API with. */
const METRICS_PRIORITY: [number, number] = [100, 100];
/** What the CRD registration gives a custom resource's group version: below every built-in group. */
const CRD_PRIORITY: [number, number] = [1000, 100];

/** A Local APIService for group/version. */
function localAPIService(
  group: string,
  version: string,
  [groupPriority, versionPriority]: [number, number],
  managed: string,
): KubeObject {
  return {
    apiVersion: `${GROUP}/v1`,
    kind: 'APIService',
    metadata: { name: `${version}.${group}`, labels: { [AUTOMANAGED_LABEL]: managed } },
    spec: { group, version, groupPriorityMinimum: groupPriority, versionPriority },
  };
}

/** The APIServices registered at start: the served built-in group versions upstream has priorities for, and metrics. */
export function startupAPIServices(): KubeObject[] {
  const out: KubeObject[] = [];
  for (const g of servedGroupVersions()) {
    for (const version of g.versions) {
      const priority = PRIORITIES[`${g.group}/${version}`];
      if (priority) out.push(localAPIService(g.group, version, priority, ON_START));
    }
  }
  out.push(localAPIService(METRICS_GROUP, METRICS_VERSION, METRICS_PRIORITY, ON_START));
  return out;
}

/** Whether an APIService's Available condition is True. */
function isAvailable(svc: Readonly<KubeObject>): boolean {
  const conditions = (svc.status as { conditions?: Record<string, string>[] } | undefined)?.conditions ?? [];
  return conditions.some((c) => c.type === 'Available' && c.status === 'True');
}

/** The condition every local APIService carries. */
function localAvailable(now: string): Record<string, string> {
  return {
    type: 'Available',
    status: 'True',
    lastTransitionTime: now,
    reason: 'Local',
    message: 'Local APIServices are always available',
  };
}

/** Registers and marks the APIServices, following the CRDs and the APIServices through their watch caches. */
export class APIServiceRegistration {
  private readonly watches: { stop(): void }[] = [];
  /** `group:<CRD group>` and `apiservice:<name>` keys, synced together. */
  private readonly queue: KeyQueue;

  constructor(
    private readonly registry: APIRegistry,
    private readonly log: Logger,
  ) {
    this.queue = new KeyQueue(
      (key) =>
        key.startsWith('group:')
          ? this.syncGroup(key.slice('group:'.length))
          : this.markAvailable(key.slice('apiservice:'.length)),
      { log, retryMs: RETRY_MS, batched: true },
    );
  }

  private get apiServices() {
    return this.registry.lookup(GROUP, 'v1', 'apiservices')?.store;
  }

  private get crds() {
    return this.registry.lookup('apiextensions.k8s.io', 'v1', 'customresourcedefinitions')?.store;
  }

  /** Creates (or brings back in line) the start-up APIServices, then follows CRDs and APIServices. */
  async start(): Promise<void> {
    const store = this.apiServices;
    if (!store) return;
    await Promise.all(startupAPIServices().map((svc) => this.ensure(svc)));
    const follow = async (s: typeof store | undefined, onEvent: (obj: KubeObject) => void) => {
      if (s) this.watches.push(await followStore(s, onEvent, { log: this.log }));
    };
    const group = (g: string | undefined) => g && this.queue.add(`group:${g}`);
    // A CRD's group versions are synced, and each APIService (marked Available when Local).
    await follow(this.crds, (obj) => group(asCRD(obj).spec.group));
    await follow(store, (obj) => {
      this.queue.add(`apiservice:${obj.metadata.name ?? ''}`);
      // A CRD's, checked against the CRDs (whose group may have gone while no apiserver ran).
      if (obj.metadata.labels?.[AUTOMANAGED_LABEL] === CONTINUOUSLY) group((obj.spec as { group?: string })?.group);
    });
    await this.queue.whenIdle();
  }

  stop(): void {
    this.queue.stop();
    for (const w of this.watches) w.stop();
  }

  /** The start-up APIServices not seen Available yet, by name; once seen, one stays counted (as upstream's check). */
  private notSeenAvailable: string[] | undefined;

  /** The start-up APIServices not seen Available yet (upstream's autoregister-completion check). */
  missing(): string[] {
    const store = this.apiServices;
    if (!store) return [];
    this.notSeenAvailable ??= startupAPIServices()
      .map((svc) => svc.metadata.name ?? '')
      .sort();
    this.notSeenAvailable = this.notSeenAvailable.filter((name) => {
      const current = store.cacher.getSharedNow(`${store.def.storagePrefix}/${name}`);
      return !current || !isAvailable(current);
    });
    return this.notSeenAvailable;
  }

  /** Creates svc, or sets its spec back to what is registered when it is registered the same way. */
  private async ensure(svc: KubeObject): Promise<void> {
    const store = this.apiServices;
    if (!store || (await createIfMissing(this.registry, GROUP, 'v1', 'apiservices', svc))) return;
    const name = svc.metadata.name ?? '';
    // Only one registered the same way is brought back in line: one a user made, or registered otherwise (a
    // CRD's group version that a built-in one already is), is left as it is, as upstream's autoregister leaves it.
    const managed = svc.metadata.labels?.[AUTOMANAGED_LABEL];
    await store.guaranteedUpdate(
      '',
      name,
      (current) => {
        if (current.metadata.labels?.[AUTOMANAGED_LABEL] !== managed || jsonEqual(current.spec, svc.spec))
          return current;
        current.spec = structuredClone(svc.spec);
        return current;
      },
      { internal: true },
    );
  }

  /** The APIServices of a CRD group: one per version some CRD of the group serves; those no longer served go. */
  private async syncGroup(group: string): Promise<void> {
    const crds = this.crds;
    const store = this.apiServices;
    if (!crds || !store) return;
    const served = new Set<string>();
    for (const obj of (await crds.cacher.list(`${crds.def.storagePrefix}/`, () => true)).items) {
      const crd = asCRD(obj);
      if (crd.spec.group !== group) continue;
      for (const v of crd.spec.versions ?? []) if (v.served && v.name) served.add(v.name);
    }
    for (const version of served) await this.ensure(localAPIService(group, version, CRD_PRIORITY, CONTINUOUSLY));
    const existing = (await store.cacher.list(`${store.def.storagePrefix}/`, () => true)).items;
    for (const svc of existing) {
      const spec = (svc.spec ?? {}) as { group?: string; version?: string };
      if (spec.group !== group || served.has(spec.version ?? '')) continue;
      if (svc.metadata.labels?.[AUTOMANAGED_LABEL] !== CONTINUOUSLY) continue;
      try {
        await store.delete('', svc.metadata.name ?? '', { internal: true });
      } catch (err) {
        if (!(err instanceof StatusError && err.code === 404)) throw err;
      }
    }
  }

  /** A Local APIService is Available (reason Local); one naming a Service is left as it is. */
  private async markAvailable(name: string): Promise<void> {
    const store = this.apiServices;
    if (!store || name === '') return;
    const current = store.cacher.getSharedNow(`${store.def.storagePrefix}/${name}`);
    if (!current || (current.spec as { service?: unknown } | undefined)?.service) return;
    const conditions = (current.status as { conditions?: Record<string, string>[] } | undefined)?.conditions ?? [];
    const available = conditions.find((c) => c.type === 'Available');
    if (available?.status === 'True' && available.reason === 'Local') return;
    try {
      await store.guaranteedUpdate(
        '',
        name,
        (obj) => {
          if ((obj.spec as { service?: unknown } | undefined)?.service) return obj;
          const status = (obj.status ?? {}) as { conditions?: Record<string, string>[] };
          const list = status.conditions ?? [];
          const now = nowTimestamp();
          const at = list.findIndex((c) => c.type === 'Available');
          const next = localAvailable(now);
          if (at >= 0) {
            // The transition time moves only when the status changes.
            if (list[at]?.status === 'True') next.lastTransitionTime = list[at]?.lastTransitionTime ?? now;
            list[at] = next;
          } else list.push(next);
          obj.status = { ...status, conditions: list };
          return obj;
        },
        { internal: true },
      );
    } catch (err) {
      if (!(err instanceof StatusError && err.code === 404)) throw err;
    }
  }
}
