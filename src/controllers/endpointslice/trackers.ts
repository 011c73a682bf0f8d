/**
 * Bookkeeping the endpoint controllers keep between syncs (upstream's EndpointSliceTracker, TriggerTimeTracker and
 * the endpoints controller's stale tracker). They only help: the informer caches stay the source of truth, and
 * losing this state (a restart) costs at most one extra sync.
 */
import type { KubeObject } from '../../client/types.js';
import type { EndpointSlice, Pod, Service } from './types.js';
import { LABEL_SERVICE_NAME, podReadyCondition } from './util.js';

const DELETION_EXPECTED = -1;

const timeOf = (text: string | undefined): number => {
  const ms = text ? Date.parse(text) : Number.NaN;
  return Number.isNaN(ms) ? 0 : ms;
};

/**
 * The generation this controller last wrote for each slice of each Service (or Endpoints), so that it can tell its
 * own writes from changes made by others, and notice a cache that has not caught up with its writes yet.
 */
export class EndpointSliceTracker {
  /** `namespace/service` -> slice uid -> generation (or DELETION_EXPECTED). */
  private readonly generations = new Map<string, Map<string, number>>();
  private readonly serviceUIDs = new Map<string, string>();

  private keyOf(slice: EndpointSlice): string {
    return `${slice.metadata.namespace ?? ''}/${slice.metadata.labels?.[LABEL_SERVICE_NAME] ?? ''}`;
  }

  private slicesOf(slice: EndpointSlice, create: boolean): Map<string, number> | undefined {
    const key = this.keyOf(slice);
    let gens = this.generations.get(key);
    if (!gens && create) {
      gens = new Map();
      this.generations.set(key, gens);
    }
    return gens;
  }

  /** Whether a generation is tracked for the slice. */
  has(slice: EndpointSlice): boolean {
    return this.slicesOf(slice, false)?.has(slice.metadata.uid ?? '') ?? false;
  }

  /** True unless the slice is at (or behind) the generation this controller wrote. */
  shouldSync(slice: EndpointSlice): boolean {
    const g = this.slicesOf(slice, false)?.get(slice.metadata.uid ?? '');
    return g === undefined || (slice.metadata.generation ?? 0) > g;
  }

  /**
   * Whether the cache looks older than this controller's own writes for the Service: a slice older than written,
   * one expected deleted still there, or one written and not there.
   */
  staleSlices(svc: KubeObject, slices: readonly EndpointSlice[]): boolean {
    const key = `${svc.metadata.namespace ?? ''}/${svc.metadata.name ?? ''}`;
    const trackedUID = this.serviceUIDs.get(key);
    if (trackedUID && svc.metadata.uid && trackedUID !== svc.metadata.uid) this.generations.delete(key);
    this.serviceUIDs.set(key, svc.metadata.uid ?? '');
    const gens = this.generations.get(key);
    if (!gens) return false;
    const seen = new Set<string>();
    for (const slice of slices) {
      const uid = slice.metadata.uid ?? '';
      seen.add(uid);
      const g = gens.get(uid);
      if (g !== undefined && (g === DELETION_EXPECTED || g > (slice.metadata.generation ?? 0))) return true;
    }
    for (const [uid, g] of gens) if (g !== DELETION_EXPECTED && !seen.has(uid)) return true;
    return false;
  }

  /** Records the generation of a slice this controller just wrote. */
  update(slice: EndpointSlice): void {
    this.slicesOf(slice, true)?.set(slice.metadata.uid ?? '', slice.metadata.generation ?? 0);
  }

  /** Records that this controller deleted the slice. */
  expectDeletion(slice: EndpointSlice): void {
    this.slicesOf(slice, true)?.set(slice.metadata.uid ?? '', DELETION_EXPECTED);
  }

  /** Forgets a deleted slice; answers whether this controller expected that deletion. */
  handleDeletion(slice: EndpointSlice): boolean {
    const gens = this.slicesOf(slice, false);
    if (!gens) return true;
    const uid = slice.metadata.uid ?? '';
    const g = gens.get(uid);
    gens.delete(uid);
    return g === undefined || g === DELETION_EXPECTED;
  }

  deleteService(namespace: string, name: string): void {
    this.generations.delete(`${namespace}/${name}`);
    this.serviceUIDs.delete(`${namespace}/${name}`);
  }
}

/**
 * Computes the `endpoints.kubernetes.io/last-change-trigger-time` annotation: the earliest time among the changes
 * (pod readiness transitions, the Service's creation) seen since the last sync of the Service; the Service's
 * creation time the first time it is synced; none when nothing relevant changed.
 */
export class TriggerTimeTracker {
  private readonly states = new Map<string, { service: number; pods: Map<string, number> }>();

  /** The trigger time in ms since the epoch, or undefined for none. */
  compute(namespace: string, svc: Service, pods: readonly Pod[]): number | undefined {
    const key = `${namespace}/${svc.metadata.name ?? ''}`;
    const state = this.states.get(key);
    let min: number | undefined;
    const podTimes = new Map<string, number>();
    for (const pod of pods) {
      const t = timeOf(podReadyCondition(pod)?.lastTransitionTime);
      if (t === 0) continue;
      const name = pod.metadata.name ?? '';
      podTimes.set(name, t);
      if (t > (state?.pods.get(name) ?? 0)) min = min === undefined ? t : Math.min(min, t);
    }
    const serviceTime = timeOf(svc.metadata.creationTimestamp);
    if (serviceTime > (state?.service ?? 0)) min = min === undefined ? serviceTime : Math.min(min, serviceTime);
    this.states.set(key, { service: serviceTime, pods: podTimes });
    if (!state) return serviceTime === 0 ? undefined : serviceTime;
    return min;
  }

  deleteService(namespace: string, name: string): void {
    this.states.delete(`${namespace}/${name}`);
  }
}

/** The resourceVersions of Endpoints this controller has replaced: a cache still showing one is behind. */
export class StaleEndpointsTracker {
  private readonly stale = new Map<string, string>();

  markStale(ep: KubeObject): void {
    this.stale.set(`${ep.metadata.namespace ?? ''}/${ep.metadata.name ?? ''}`, ep.metadata.resourceVersion ?? '');
  }

  isStale(ep: KubeObject): boolean {
    const rv = this.stale.get(`${ep.metadata.namespace ?? ''}/${ep.metadata.name ?? ''}`);
    return rv !== undefined && rv === ep.metadata.resourceVersion;
  }

  delete(namespace: string, name: string): void {
    this.stale.delete(`${namespace}/${name}`);
  }
}
