/**
 * What one replica set's last sync found, kept so that the next sync looks only at the pods that changed since.
 *
 * A sync of a set of N pods used to walk all N (claim, then count for the status) each time any of them changed,
 * so a Deployment scaled to tens of thousands did work growing with the square of its size. The controller's pod
 * event handlers instead mark the key of each pod an event concerns as dirty in the tally of every replica set the
 * pod may belong to (its controller, old and new; for an orphan, each set of its namespace). A sync claims the dirty
 * pods only and updates the counts. Anything the counts depend on besides the pods — the set's uid, selector,
 * template labels, minReadySeconds or deletionTimestamp — is the tally's fingerprint: when it differs the tally is
 * dropped and every candidate pod is dirty again, which is the full walk.
 */
import type { KubeObject } from '../../client/types.js';
import { isPodReady, podKey } from '../common/pods.js';

interface Entry {
  pod: KubeObject;
  fullyLabeled: boolean;
  ready: boolean;
}

/** The parts of a replica set that decide which pods it claims and how they count. */
export function tallyFingerprint(rs: KubeObject): string {
  return JSON.stringify([
    rs.metadata.uid ?? '',
    rs.spec?.selector ?? null,
    rs.spec?.template?.metadata?.labels ?? null,
    rs.spec?.minReadySeconds ?? 0,
    rs.metadata.deletionTimestamp ? 1 : 0,
  ]);
}

export class PodTally {
  /** Keys (namespace/name) of the pods to look at again in the next sync. */
  dirty = new Set<string>();
  private readonly claimed = new Map<string, Entry>();
  private fullyLabeledCount = 0;
  private readyCount = 0;

  constructor(readonly fingerprint: string) {}

  /** Takes the dirty keys, leaving an empty set for the events that arrive from now on. */
  takeDirty(): Set<string> {
    const keys = this.dirty;
    this.dirty = new Set();
    return keys;
  }

  /** Records pod as claimed by the set (replacing what was recorded under its key). */
  set(pod: KubeObject, fullyLabeled: boolean): void {
    const key = podKey(pod);
    this.remove(key);
    const entry = { pod, fullyLabeled, ready: isPodReady(pod) };
    this.claimed.set(key, entry);
    if (entry.fullyLabeled) this.fullyLabeledCount++;
    if (entry.ready) this.readyCount++;
  }

  /** Forgets the pod under key (no longer claimed, not active, or gone). */
  remove(key: string): void {
    const old = this.claimed.get(key);
    if (!old) return;
    this.claimed.delete(key);
    if (old.fullyLabeled) this.fullyLabeledCount--;
    if (old.ready) this.readyCount--;
  }

  get replicas(): number {
    return this.claimed.size;
  }

  get fullyLabeled(): number {
    return this.fullyLabeledCount;
  }

  get ready(): number {
    return this.readyCount;
  }

  /** The claimed pods, as last seen. */
  pods(): KubeObject[] {
    return Array.from(this.claimed.values(), (e) => e.pod);
  }
}
