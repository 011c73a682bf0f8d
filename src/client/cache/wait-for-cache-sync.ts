/**
 * client-go's cache.WaitForCacheSync: wait until every informer (or handler registration) has synced before a
 * controller starts its workers, so that it never acts on a half-filled cache.
 */

/** Informers and handler registrations both have these. */
export interface CacheSyncable {
  hasSynced(): boolean;
  /** Resolves true once synced, false if it stopped first. */
  whenSynced(): Promise<boolean>;
}

/** Resolves true once all have synced; false if signal aborts or one of them stops first. */
export async function waitForCacheSync(
  signal: AbortSignal | undefined,
  ...syncables: CacheSyncable[]
): Promise<boolean> {
  if (syncables.every((s) => s.hasSynced())) return true;
  if (signal?.aborted) return false;
  let onAbort: (() => void) | undefined;
  try {
    return await new Promise<boolean>((resolve) => {
      onAbort = () => resolve(false);
      signal?.addEventListener('abort', onAbort, { once: true });
      let waiting = syncables.length;
      for (const s of syncables) {
        void s.whenSynced().then((synced) => {
          if (!synced) resolve(false);
          else if (--waiting === 0) resolve(true);
        });
      }
    });
  } finally {
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  }
}
