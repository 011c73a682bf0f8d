/**
 * A DaemonSet's ControllerRevisions (upstream's constructHistory, snapshot, dedupCurHistories and cleanupHistory).
 * Each revision records the template as the patch kubectl applies on `rollout undo`; the current revision is the one
 * whose data equals the DaemonSet's template patch. It is named `<ds>-<hash>` with the pod-template hash of the
 * template and status.collisionCount, labelled `controller-revision-hash: <hash>`, and carries the DaemonSet's
 * annotations (so `kubernetes.io/change-cause` shows in `kubectl rollout history`). A name clash with other data bumps
 * status.collisionCount and fails the sync, which comes back with the new count.
 */
import { LabelSelector } from '../../api/labels.js';
import type { Indexer } from '../../client/cache/store.js';
import type { KubeClient } from '../../client/rest.js';
import { isAlreadyExists, type KubeObject } from '../../client/types.js';
import type { Logger } from '../../util/logger.js';
import { ControllerRefManager, newControllerRef, ownerCanAdopt } from '../common/controller-ref.js';
import { computeHash } from '../deployment/util/hash.js';
import { CONTROLLER_REVISION_HASH_LABEL_KEY } from '../history/hash.js';
import {
  type ControllerRevision,
  sameTemplateData,
  sortControllerRevisions,
  templatePatch,
} from '../history/revisions.js';

export const DAEMON_SET_KIND = { apiVersion: 'apps/v1', kind: 'DaemonSet' };

/** Match: the revision records exactly the DaemonSet's current template. */
export function matchesRevision(ds: KubeObject, revision: ControllerRevision): boolean {
  return sameTemplateData(templatePatch(ds), revision.data);
}

export class DaemonSetHistory {
  constructor(
    private readonly client: KubeClient,
    private readonly revisions: Indexer,
    private readonly log: Logger,
  ) {}

  /** The revisions ds controls, after adopting matching orphans and releasing the ones that stopped matching. */
  async controlled(ds: KubeObject): Promise<ControllerRevision[]> {
    const manager = new ControllerRefManager<ControllerRevision>({
      owner: ds,
      ownerKind: DAEMON_SET_KIND,
      selector: LabelSelector.fromObject(ds.spec?.selector),
      children: this.client.controllerRevisions(),
      canAdopt: ownerCanAdopt(this.client.daemonSets(), ds, DAEMON_SET_KIND),
    });
    return manager.claim(this.revisions.byIndex('namespace', ds.metadata.namespace ?? '') as ControllerRevision[]);
  }

  /** [current, old]: finds or creates the current revision and gives it the highest revision number. */
  async construct(
    ds: KubeObject,
    relabelPods: (hash: string) => Promise<void>,
  ): Promise<[ControllerRevision, ControllerRevision[]]> {
    const ns = this.client.controllerRevisions(ds.metadata.namespace ?? '');
    const current: ControllerRevision[] = [];
    const old: ControllerRevision[] = [];
    for (let revision of await this.controlled(ds)) {
      if (revision.metadata.labels?.[CONTROLLER_REVISION_HASH_LABEL_KEY] === undefined) {
        // Older revisions lack the label: their name stands in for the hash.
        const toUpdate = structuredClone(revision);
        toUpdate.metadata.labels = { ...(toUpdate.metadata.labels ?? {}) };
        toUpdate.metadata.labels[CONTROLLER_REVISION_HASH_LABEL_KEY] = toUpdate.metadata.name ?? '';
        revision = (await ns.update(toUpdate)) as ControllerRevision;
      }
      (matchesRevision(ds, revision) ? current : old).push(revision);
    }
    const next = Math.max(0, ...old.map((r) => r.revision ?? 0)) + 1;
    if (current.length === 0) return [await this.snapshot(ds, next), old];
    const cur = await this.dedup(ds, current, relabelPods);
    if ((cur.revision ?? 0) < next) {
      const updated = (await ns.update({ ...structuredClone(cur), revision: next })) as ControllerRevision;
      return [updated, old];
    }
    return [cur, old];
  }

  /** Keeps the highest-numbered of several current revisions; relabels pods to it and deletes the others. */
  private async dedup(
    ds: KubeObject,
    current: ControllerRevision[],
    relabelPods: (hash: string) => Promise<void>,
  ): Promise<ControllerRevision> {
    if (current.length === 1) return current[0] as ControllerRevision;
    let keep = current[0] as ControllerRevision;
    for (const r of current) if ((r.revision ?? 0) >= (keep.revision ?? 0)) keep = r;
    const hash = keep.metadata.labels?.[CONTROLLER_REVISION_HASH_LABEL_KEY] ?? '';
    for (const r of current) {
      if (r.metadata.name === keep.metadata.name) continue;
      await relabelPods(hash);
      await this.client.controllerRevisions(ds.metadata.namespace ?? '').delete(r.metadata.name ?? '');
    }
    return keep;
  }

  /** Records the DaemonSet's template as a new revision. */
  private async snapshot(ds: KubeObject, revision: number): Promise<ControllerRevision> {
    const collisionCount: number | undefined = ds.status?.collisionCount ?? undefined;
    const hash = computeHash(ds.spec?.template, collisionCount);
    const name = `${ds.metadata.name ?? ''}-${hash}`;
    const namespace = ds.metadata.namespace ?? '';
    const cr: ControllerRevision = {
      apiVersion: 'apps/v1',
      kind: 'ControllerRevision',
      metadata: {
        name,
        namespace,
        labels: { ...(ds.spec?.template?.metadata?.labels ?? {}), [CONTROLLER_REVISION_HASH_LABEL_KEY]: hash },
        ...(ds.metadata.annotations ? { annotations: { ...ds.metadata.annotations } } : {}),
        ownerReferences: [newControllerRef(ds, DAEMON_SET_KIND)],
      },
      data: templatePatch(ds),
      revision,
    };
    const revisions = this.client.controllerRevisions(namespace);
    try {
      return (await revisions.create(cr)) as ControllerRevision;
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
      const existing = (await revisions.get(name)) as ControllerRevision;
      if (matchesRevision(ds, existing)) return existing;
      // Another template took the name: bump collisionCount, unless the count we used was stale.
      const dss = this.client.daemonSets(namespace);
      const fresh = await dss.get(ds.metadata.name ?? '');
      const freshCount: number | undefined = fresh.status?.collisionCount ?? undefined;
      if (freshCount !== collisionCount) {
        throw new Error(
          `found a stale collision count (${collisionCount ?? 'nil'}, expected ${freshCount ?? 'nil'}) of DaemonSet "${ds.metadata.name}" while processing; will retry until it is updated`,
        );
      }
      const bumped = (freshCount ?? 0) + 1;
      await dss.updateStatus({ ...fresh, status: { ...(fresh.status ?? {}), collisionCount: bumped } });
      this.log.v(2).info('Found a hash collision for DaemonSet - bumping collisionCount to resolve it', {
        daemonset: `${namespace}/${ds.metadata.name}`,
        collisionCount: bumped,
      });
      throw err;
    }
  }

  /**
   * Deletes the oldest old revisions beyond spec.revisionHistoryLimit, never one that a live pod was made from
   * (liveHashes: the revision-hash labels of the DaemonSet's pods).
   */
  async cleanup(ds: KubeObject, old: ControllerRevision[], liveHashes: ReadonlySet<string>): Promise<void> {
    const limit: number = ds.spec?.revisionHistoryLimit ?? 10;
    let toKill = old.length - limit;
    if (toKill <= 0) return;
    const revisions = this.client.controllerRevisions(ds.metadata.namespace ?? '');
    for (const r of sortControllerRevisions(old)) {
      if (toKill <= 0) break;
      if (liveHashes.has(r.metadata.labels?.[CONTROLLER_REVISION_HASH_LABEL_KEY] ?? '')) continue;
      await revisions.delete(r.metadata.name ?? '');
      toKill--;
    }
  }
}
