/**
 * The pods whose tracking finalizer a Job's sync removed but whose update the informer has not shown yet (upstream's
 * uidTrackingExpectations for finalizers): until then the cache still shows the finalizer, and the pod must not be
 * counted again.
 */
export class FinalizerExpectations {
  private readonly byJob = new Map<string, Set<string>>();

  getExpectedUIDs(key: string): ReadonlySet<string> {
    return new Set(this.byJob.get(key) ?? []);
  }

  expectFinalizersRemoved(key: string, uids: readonly string[]): void {
    let set = this.byJob.get(key);
    if (!set) {
      set = new Set();
      this.byJob.set(key, set);
    }
    for (const id of uids) set.add(id);
  }

  finalizerRemovalObserved(key: string, uid: string): void {
    const set = this.byJob.get(key);
    if (!set) return;
    set.delete(uid);
    if (set.size === 0) this.byJob.delete(key);
  }

  deleteExpectations(key: string): void {
    this.byJob.delete(key);
  }
}
