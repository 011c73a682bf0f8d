/**
 * Controller expectations (upstream's pkg/controller ControllerExpectations and UIDTrackingControllerExpectations):
 * a controller that has just asked the apiserver to create or delete N children records that it expects to see N
 * adds or deletes arrive through its informer, and does not act on its (stale) cache for that owner until it has
 * seen them, so a slow informer never makes it create or delete twice. Expectations older than
 * EXPECTATIONS_TIMEOUT_MS (5 minutes, on the given clock) count as satisfied, so a lost event cannot wedge an owner.
 *
 * API (stable; shared with the deployment controller):
 * - `new ControllerExpectations(clock)`:
 *   - `satisfiedExpectations(key)`: true when the owner may be synced against the cache (no record, all observed,
 *     or expired);
 *   - `expectCreations(key, n)`, `expectDeletions(key, n)`, `setExpectations(key, add, del)`: replace the record;
 *   - `raiseExpectations(key, add, del)`, `lowerExpectations(key, add, del)`: adjust an existing record;
 *   - `creationObserved(key)`, `deletionObserved(key)`: one fewer to wait for;
 *   - `deleteExpectations(key)`: forget the owner (it was deleted);
 *   - `getExpectations(key)`: the record, for inspection.
 * - `new UIDTrackingControllerExpectations(clock)`: the same, but deletions are expected of named children
 *   (`expectDeletions(key, childKeys)`, `deletionObserved(key, childKey)`), so that a child seen deleted twice
 *   (e.g. once when it got its deletionTimestamp and again when it disappeared) is counted once.
 *
 * Keys are the owner's `namespace/name` (metaNamespaceKeyFunc); child keys are `namespace/name` too.
 */
import type { Clock } from '../../util/clock.js';

/** Upstream's ExpectationsTimeout. */
export const EXPECTATIONS_TIMEOUT_MS = 5 * 60_000;

/** What one owner waits for: adds and deletes still to be observed, and when the record was set. */
export interface ControlleeExpectations {
  add: number;
  del: number;
  /** When the record was last set (clock ms). */
  timestamp: number;
}

export class ControllerExpectations {
  private readonly records = new Map<string, ControlleeExpectations>();

  constructor(private readonly clock: Clock) {}

  getExpectations(key: string): Readonly<ControlleeExpectations> | undefined {
    return this.records.get(key);
  }

  /**
   * Whether the owner may be synced now: it has no record (new owner, or forgotten), every expected add and delete
   * was observed, or the record is older than the timeout.
   */
  satisfiedExpectations(key: string): boolean {
    const exp = this.records.get(key);
    if (!exp) return true;
    if (fulfilled(exp)) return true;
    return this.clock.now() - exp.timestamp > EXPECTATIONS_TIMEOUT_MS;
  }

  setExpectations(key: string, add: number, del: number): void {
    this.records.set(key, { add, del, timestamp: this.clock.now() });
  }

  expectCreations(key: string, adds: number): void {
    this.setExpectations(key, adds, 0);
  }

  expectDeletions(key: string, dels: number): void {
    this.setExpectations(key, 0, dels);
  }

  /** Adds to an existing record (does nothing without one); the timestamp stays. */
  raiseExpectations(key: string, add: number, del: number): void {
    const exp = this.records.get(key);
    if (!exp) return;
    exp.add += add;
    exp.del += del;
  }

  /** Subtracts from an existing record (does nothing without one). */
  lowerExpectations(key: string, add: number, del: number): void {
    const exp = this.records.get(key);
    if (!exp) return;
    exp.add -= add;
    exp.del -= del;
  }

  creationObserved(key: string): void {
    this.lowerExpectations(key, 1, 0);
  }

  deletionObserved(key: string): void {
    this.lowerExpectations(key, 0, 1);
  }

  deleteExpectations(key: string): void {
    this.records.delete(key);
  }
}

function fulfilled(exp: ControlleeExpectations): boolean {
  return exp.add <= 0 && exp.del <= 0;
}

/** ControllerExpectations whose deletions are tracked by child key, so each child's deletion counts once. */
export class UIDTrackingControllerExpectations {
  private readonly inner: ControllerExpectations;
  private readonly pendingDeletes = new Map<string, Set<string>>();

  constructor(clock: Clock) {
    this.inner = new ControllerExpectations(clock);
  }

  getExpectations(key: string): Readonly<ControlleeExpectations> | undefined {
    return this.inner.getExpectations(key);
  }

  /** The child keys whose deletion is still awaited. */
  getDeleteKeys(key: string): ReadonlySet<string> | undefined {
    return this.pendingDeletes.get(key);
  }

  satisfiedExpectations(key: string): boolean {
    return this.inner.satisfiedExpectations(key);
  }

  expectCreations(key: string, adds: number): void {
    this.inner.expectCreations(key, adds);
  }

  creationObserved(key: string): void {
    this.inner.creationObserved(key);
  }

  lowerExpectations(key: string, add: number, del: number): void {
    this.inner.lowerExpectations(key, add, del);
  }

  /** Expects the deletion of exactly these children (replacing any earlier record of the owner). */
  expectDeletions(key: string, childKeys: readonly string[]): void {
    const set = new Set(childKeys);
    this.pendingDeletes.set(key, set);
    this.inner.expectDeletions(key, set.size);
  }

  /** The child's deletion was seen; counts only for a child whose deletion was expected, and only once. */
  deletionObserved(key: string, childKey: string): void {
    const set = this.pendingDeletes.get(key);
    if (!set?.has(childKey)) return;
    set.delete(childKey);
    this.inner.deletionObserved(key);
  }

  deleteExpectations(key: string): void {
    this.inner.deleteExpectations(key);
    this.pendingDeletes.delete(key);
  }
}
