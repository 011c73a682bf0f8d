import { parseArgs } from 'node:util';
import { Compactor } from '../storage/compactor.js';
import { openStore } from '../storage/open.js';
import type { Store } from '../storage/types.js';
import { createLogger } from '../util/logger.js';
import { compactionPolicyOf, storageConfigOf, storageFlagSpec } from './storage-flags.js';

export const upHelp = `Usage: wheelhouse up [--data-dir DIR] [--storage memory|sqlite|etcd] [--etcd-servers URL,…]
    [--etcd-cafile F --etcd-certfile F --etcd-keyfile F] [--etcd-compaction-interval 5m]
    [--storage-retain-revisions 1000] [--storage-retain-duration 5m] [-v N]

Opens the cluster's storage (default: sqlite in ./.wheelhouse/state.db), reports what it holds, and keeps it
open until interrupted, compacting history every --etcd-compaction-interval (0: never) while keeping at least
the last --storage-retain-revisions revisions and everything newer than --storage-retain-duration.`;

/** Counts keys per resource under /registry/, as etcdctl get --prefix --keys-only would show them. */
async function resourceCounts(store: Store): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  let startKey: string | undefined;
  for (;;) {
    const page = await store.list('/registry/', { limit: 1000, ...(startKey ? { startKey } : {}) });
    for (const item of page.items) {
      const resource = item.key.split('/')[2] ?? '';
      counts.set(resource, (counts.get(resource) ?? 0) + 1);
    }
    if (!page.more) return counts;
    startKey = `${page.items[page.items.length - 1]?.key}\u0000`;
  }
}

/**
 * `wheelhouse up`. For now it runs the storage layer only: the apiserver and the other components are built on it
 * in the following steps.
 */
export async function upCommand(args: string[], out: (line: string) => void): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { ...storageFlagSpec, v: { type: 'string', short: 'v' }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help) {
    out(upHelp);
    return 0;
  }
  const config = storageConfigOf(values);
  const policy = compactionPolicyOf(values);
  const log = createLogger({ component: 'wheelhouse', verbosity: Number(values.v ?? 0) });
  const store = openStore(config, log.child('storage'));
  const compactor = policy ? new Compactor(store, policy, undefined, log.child('compactor')) : undefined;
  const revision = await store.currentRevision();
  const counts = await resourceCounts(store);
  const where =
    config.backend === 'sqlite'
      ? `sqlite at ${config.dataDir}/state.db`
      : config.backend === 'etcd'
        ? `etcd at ${config.servers.join(',')}`
        : 'memory (nothing is kept after exit)';
  out(`wheelhouse: storage ready: ${where}`);
  out(`  revision ${revision}, ${[...counts.values()].reduce((a, b) => a + b, 0)} objects`);
  for (const [resource, n] of [...counts].sort()) out(`    ${resource}: ${n}`);
  out(
    policy
      ? `  compacting every ${policy.intervalMs / 1000}s, keeping the last ${policy.retainRevisions} revisions and ${policy.retainMs / 1000}s of history`
      : '  compaction is off (--etcd-compaction-interval=0)',
  );
  out('  The API server and the other components are not part of this build yet. Press Ctrl-C to stop.');
  compactor?.start();
  await new Promise<void>((resolve) => {
    // The compactor's timers do not hold the process open; this does, until a signal arrives.
    const keepAlive = setInterval(() => {}, 1 << 30);
    const stop = () => {
      clearInterval(keepAlive);
      resolve();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  compactor?.stop();
  await store.close();
  out('wheelhouse: storage closed');
  return 0;
}
