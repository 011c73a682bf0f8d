/**
 * In-memory indexes kept from watch caches (the RBAC index, the Node authorizer's graph), as upstream's authorizers
 * read informers: each resource is watched from its current state; when the cache ends a watch (it was rebuilt), the
 * index drops what it had of that resource and reads it again.
 */

import type { KubeObject } from '../registry/object.js';
import type { Cacher, CacheWatch } from './cacher.js';

export interface CacheSource {
  cacher: Pick<Cacher, 'watch'>;
  /** The resource's storage prefix, with its trailing slash. */
  prefix: string;
}

export interface FollowOptions {
  /** Only objects whose stored bytes pass this are applied (or decoded); see CacheWatchRequest.matchesStored. */
  matchesStored?: (value: Buffer) => boolean;
}

export class CacheFollower {
  private readonly watches: CacheWatch[] = [];
  private stopped = false;

  /** Resolves once every object stored now has been applied; changes keep coming until stop(). */
  async follow(
    source: CacheSource,
    apply: (type: 'ADDED' | 'MODIFIED' | 'DELETED', obj: KubeObject) => void,
    reset: () => void,
    opts: FollowOptions = {},
  ): Promise<void> {
    const w = await source.cacher.watch({
      fromRevision: undefined,
      prefix: source.prefix,
      matches: () => true,
      // Every object is wanted (or every one whose bytes pass the test): nothing is decoded to decide it.
      ...(opts.matchesStored ? { matchesStored: opts.matchesStored, storedTestDecides: true } : { everything: true }),
      onEvent: (type, obj) => {
        if (type !== 'BOOKMARK') apply(type, obj);
      },
      onEnd: () => {
        if (this.stopped) return;
        reset();
        void this.follow(source, apply, reset, opts).catch(() => {});
      },
    });
    if (this.stopped) w.stop();
    else this.watches.push(w);
  }

  stop(): void {
    this.stopped = true;
    for (const w of this.watches.splice(0)) w.stop();
  }
}
