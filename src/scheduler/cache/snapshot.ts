/**
 * The nodes of one scheduling cycle (upstream's backend/cache Snapshot): copies of the cache's NodeInfos, the
 * node list in the order Filter walks it (zones interleaved), and the lists of nodes that have pods with
 * affinity / required anti-affinity (for InterPodAffinity). The cache refreshes it in place before every cycle,
 * copying only the nodes that changed since the last refresh.
 */
import type { NodeInfo, SnapshotLister } from '../framework/types.js';

export class Snapshot implements SnapshotLister {
  /** node name → NodeInfo (only nodes that exist). */
  readonly nodeInfoMap = new Map<string, NodeInfo>();
  nodeInfoList: NodeInfo[] = [];
  havePodsWithAffinityNodeInfoList: NodeInfo[] = [];
  havePodsWithRequiredAntiAffinityNodeInfoList: NodeInfo[] = [];
  /** The cache generation this snapshot reflects. */
  generation = 0;

  /** A snapshot of fixed NodeInfos (for tests and what-if copies). */
  static of(nodeInfos: NodeInfo[]): Snapshot {
    const s = new Snapshot();
    for (const ni of nodeInfos) {
      const name = ni.node.metadata?.name;
      if (name) s.nodeInfoMap.set(name, ni);
    }
    s.nodeInfoList = [...s.nodeInfoMap.values()];
    s.refreshAffinityLists();
    return s;
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
