/**
 * In-memory indexes kept from watch caches (the RBAC index, the Node authorizer's graph), as upstream's authorizers
 * read informers: each resource is watched from its current state; when the cache ends a watch (it was rebuilt), the
 * index drops what it had of that resource and reads it again.
 */

import type { KubeObject } from '../registry/object.js';
import type { Cacher, CacheWatch } from './cacher.js';

/** How long a follower waits to follow again when the cache refused it (as a reflector backs off, about 1 s). */
const REFOLLOW_MS = 1000;

export interface CacheSource {
  cacher: Pick<Cacher, 'watch'>;
  /** The resource's storage prefix, with its trailing slash. */
  prefix: string;
}

export interface FollowOptions {
  /** Only objects whose stored bytes pass this are applied (or decoded); see CacheWatchRequest.matchesStored. */
  matchesStored?: (value: Buffer) => boolean;
  /** Changes that need not be applied, told from their type, key and bytes; see CacheWatchRequest.skipStored. */
  skipStored?: (type: 'ADDED' | 'MODIFIED' | 'DELETED', key: string, value: Buffer) => boolean;
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
      ...(opts.skipStored ? { skipStored: opts.skipStored } : {}),
      onEvent: (type, obj) => {
        if (type !== 'BOOKMARK') apply(type, obj);
      },
      onEnd: () => {
        if (this.stopped) return;
        reset();
        this.followAgain(source, apply, reset, opts);
      },
    });
    if (this.stopped) w.stop();
    else this.watches.push(w);
  }

  /** Follows again after the cache ended a watch; while the cache refuses (it cannot load), tries again later. */
  private followAgain(...args: Parameters<CacheFollower['follow']>): void {
    void this.follow(...args).catch(() => {
      if (!this.stopped) setTimeout(() => !this.stopped && this.followAgain(...args), REFOLLOW_MS).unref();
    });
  }

  stop(): void {
    this.stopped = true;
    for (const w of this.watches.splice(0)) w.stop();
  }
}
