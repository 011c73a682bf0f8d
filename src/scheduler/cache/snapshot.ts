/**
 * The nodes of one scheduling cycle (upstream's backend/cache Snapshot): copies of the cache's NodeInfos, the
 * node list in the order Filter walks it (zones interleaved), and the lists of nodes that have pods with
 * affinity / required anti-affinity (for InterPodAffinity). The cache refreshes it in place before every cycle,
 * copying only the nodes that changed since the last refresh.
 */
import type { NodeInfo, SnapshotLister } from '../framework/types.js';

/** How many in-place changes the snapshot remembers for changedSince (older marks get undefined). */
const MAX_CHANGE_LOG = 8192;

/**
 * What a snapshot tells plugins that keep aggregates over all nodes between cycles (PodTopologySpread's counts):
 * which NodeInfos of nodeInfoList were refreshed in place since a mark. A rebuilt nodeInfoList is a new array, so
 * a plugin that also remembers the list it counted over notices membership changes.
 */
export interface SnapshotChangeFeed {
  /** A mark for the current state. */
  changeMark(): number;
  /** The NodeInfos refreshed in place since the mark (repeats possible), or undefined when that is not known. */
  changedSince(mark: number): readonly NodeInfo[] | undefined;
}

/** The snapshot's change feed, when it has one (snapshots built by Snapshot.of have none). */
export function changeFeedOf(lister: SnapshotLister): SnapshotChangeFeed | undefined {
  return lister instanceof Snapshot && lister.tracksChanges ? lister : undefined;
}

export class Snapshot implements SnapshotLister, SnapshotChangeFeed {
  /** node name → NodeInfo (only nodes that exist). */
  readonly nodeInfoMap = new Map<string, NodeInfo>();
  nodeInfoList: NodeInfo[] = [];
  havePodsWithAffinityNodeInfoList: NodeInfo[] = [];
  havePodsWithRequiredAntiAffinityNodeInfoList: NodeInfo[] = [];
  /** The cache generation this snapshot reflects. */
  generation = 0;
  /** False for fixed snapshots (Snapshot.of): their NodeInfos may be changed by whoever made them. */
  tracksChanges = true;
  /** NodeInfos refreshed in place, oldest first; entry i is change number changesDropped + i. */
  private changeLog: NodeInfo[] = [];
  private changesDropped = 0;

  /** A snapshot of fixed NodeInfos (for tests and what-if copies). */
  static of(nodeInfos: NodeInfo[]): Snapshot {
    const s = new Snapshot();
    for (const ni of nodeInfos) {
      const name = ni.node.metadata?.name;
      if (name) s.nodeInfoMap.set(name, ni);
    }
    s.nodeInfoList = [...s.nodeInfoMap.values()];
    s.refreshAffinityLists();
    s.tracksChanges = false;
    return s;
  }

  changeMark(): number {
    return this.changesDropped + this.changeLog.length;
  }

  changedSince(mark: number): readonly NodeInfo[] | undefined {
    if (!this.tracksChanges || mark < this.changesDropped || mark > this.changeMark()) return undefined;
    return this.changeLog.slice(mark - this.changesDropped);
  }

  /** Records that the cache refreshed this NodeInfo in place (called by the cache's updateSnapshot). */
  recordChange(ni: NodeInfo): void {
    this.changeLog.push(ni);
    if (this.changeLog.length > MAX_CHANGE_LOG) {
      const drop = MAX_CHANGE_LOG / 2;
      this.changeLog = this.changeLog.slice(drop);
      this.changesDropped += drop;
    }
  }

  numNodes(): number {
    return this.nodeInfoList.length;
  }

  /** The lister plugins read (one object, made once: plugins call this per node). */
  private readonly lister: ReturnType<SnapshotLister['nodeInfos']> = {
    list: () => this.nodeInfoList,
    havePodsWithAffinityList: () => this.havePodsWithAffinityNodeInfoList,
    havePodsWithRequiredAntiAffinityList: () => this.havePodsWithRequiredAntiAffinityNodeInfoList,
    get: (nodeName: string) => this.nodeInfoMap.get(nodeName),
  };

  nodeInfos(): ReturnType<SnapshotLister['nodeInfos']> {
    return this.lister;
  }

  /** Rebuilds the affinity lists from nodeInfoList. */
  refreshAffinityLists(): void {
    this.havePodsWithAffinityNodeInfoList = this.nodeInfoList.filter((ni) => ni.podsWithAffinity.length > 0);
    this.havePodsWithRequiredAntiAffinityNodeInfoList = this.nodeInfoList.filter(
      (ni) => ni.podsWithRequiredAntiAffinity.length > 0,
    );
  }
}
