/**
 * Why a pod fits nowhere (upstream's framework.Diagnosis and FitError): the status of each node Filter rejected,
 * the status of nodes not looked at individually (rejected by PreFilter, or left out by a PreFilter result), the
 * plugins that rejected the pod (to match cluster events later), and the PreFilter/PostFilter messages. The
 * message is upstream's FitError.Error():
 *
 *   0/3 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 2
 *   Insufficient cpu. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.
 */
import { Code, type NodeToStatus, type Status, Status as StatusClass } from './framework/types.js';

/** upstream's ErrNoNodesAvailable. */
export const NO_NODES_AVAILABLE_MESSAGE = 'no nodes available to schedule pods';

export class NoNodesAvailableError extends Error {
  constructor() {
    super(NO_NODES_AVAILABLE_MESSAGE);
    this.name = 'NoNodesAvailableError';
  }
}

export class Diagnosis {
  /** Nodes Filter (or Reserve/Permit) rejected, each with its status. */
  readonly nodeToStatus: NodeToStatus = new Map();
  /** The status of every node not in nodeToStatus (upstream's default has no reasons). */
  absentNodesStatus: Status = new StatusClass(Code.UnschedulableAndUnresolvable);
  readonly unschedulablePlugins = new Set<string>();
  readonly pendingPlugins = new Set<string>();
  preFilterMsg = '';
  postFilterMsg = '';

  /** Records the plugin of a rejecting status (upstream's AddPluginStatus). */
  addPluginStatus(s: Status): void {
    if (!s.plugin) return;
    if (s.isRejected()) this.unschedulablePlugins.add(s.plugin);
    if (s.code === Code.Pending) this.pendingPlugins.add(s.plugin);
  }

  /** Every node's status: the explicit ones, and the absent status for the rest of `allNodes`. */
  fullStatusMap(allNodes: string[]): NodeToStatus {
    const out: NodeToStatus = new Map(this.nodeToStatus);
    for (const name of allNodes) if (!out.has(name)) out.set(name, this.absentNodesStatus);
    return out;
  }
}

/** The "0/N nodes are available: …" message (upstream's FitError.Error()). */
export function fitErrorMessage(numAllNodes: number, d: Diagnosis): string {
  let msg = `0/${numAllNodes} nodes are available:`;
  if (d.preFilterMsg) {
    msg += ` ${d.preFilterMsg}.`;
  } else {
    const reasons = new Map<string, number>();
    for (const status of d.nodeToStatus.values()) {
      for (const reason of status.reasons) reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
    }
    const absent = numAllNodes - d.nodeToStatus.size;
    if (absent > 0) {
      for (const reason of d.absentNodesStatus.reasons) reasons.set(reason, (reasons.get(reason) ?? 0) + absent);
    }
    // Go's sort.Strings: byte order of "<count> <reason>".
    const histogram = [...reasons].map(([reason, count]) => `${count} ${reason}`).sort(byteOrder);
    if (histogram.length > 0) msg += ` ${histogram.join(', ')}.`;
  }
  if (d.postFilterMsg) msg += ` ${d.postFilterMsg}`;
  return msg;
}

function byteOrder(a: string, b: string): number {
  const ba = Buffer.from(a);
  const bb = Buffer.from(b);
  return Buffer.compare(ba, bb);
}

export class FitError {
  constructor(
    readonly numAllNodes: number,
    readonly diagnosis: Diagnosis,
  ) {}

  message(): string {
    return fitErrorMessage(this.numAllNodes, this.diagnosis);
  }
}
