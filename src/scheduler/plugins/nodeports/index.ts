/**
 * NodePorts. PreFilter: collects the host ports the pod's containers ask for (Skip when none). Filter: rejects a
 * node where one of them is taken — by the same (hostIP, protocol, port), or by 0.0.0.0 on either side, which binds
 * every address.
 */

import { type HostPort, hostPortsConflict, podHostPorts } from '../../framework/node-info.js';
import {
  type ClusterEventWithHint,
  type CycleState,
  type EnqueueExtensions,
  type FilterPlugin,
  type NodeInfo,
  type PluginFactory,
  type Pod,
  type PreFilterPlugin,
  type PreFilterResult,
  QueueingHint,
  Status,
} from '../../framework/types.js';

export const name = 'NodePorts';
export const ERR_REASON = "node(s) didn't have free ports for the requested pod ports";
const PRE_FILTER_STATE_KEY = `PreFilter${name}`;

/** Whether every wanted port is free on the node. */
export function fitsPorts(want: readonly HostPort[], nodeInfo: NodeInfo): boolean {
  return !want.some((p) => hostPortsConflict(nodeInfo.usedPorts, p.hostIP, p.protocol, p.hostPort));
}

function portsConflict(a: readonly HostPort[], b: readonly HostPort[]): boolean {
  for (const x of a) {
    for (const y of b) {
      if (x.hostPort !== y.hostPort || x.protocol !== y.protocol) continue;
      if (x.hostIP === y.hostIP || x.hostIP === '0.0.0.0' || y.hostIP === '0.0.0.0') return true;
    }
  }
  return false;
}

export class NodePorts implements PreFilterPlugin, FilterPlugin, EnqueueExtensions {
  readonly name = name;

  preFilter(state: CycleState, pod: Pod): { result?: PreFilterResult; status: Status } {
    const ports = podHostPorts(pod);
    if (ports.length === 0) return { status: Status.skip() };
    state.write(PRE_FILTER_STATE_KEY, ports);
    return { status: Status.success() };
  }

  filter(state: CycleState, pod: Pod, nodeInfo: NodeInfo): Status {
    const want = state.read<HostPort[]>(PRE_FILTER_STATE_KEY) ?? podHostPorts(pod);
    return fitsPorts(want, nodeInfo) ? Status.success() : Status.unschedulable(ERR_REASON);
  }

  eventsToRegister(): ClusterEventWithHint[] {
    return [
      // Container ports are immutable, so only a deletion can free a port.
      { event: { resource: 'Pod', actions: ['Delete'] }, hint: isSchedulableAfterPodDeleted },
      { event: { resource: 'Node', actions: ['Add'] } },
    ];
  }
}

function isSchedulableAfterPodDeleted(pod: Pod, oldObj: unknown): QueueingHint {
  const deleted = oldObj as Pod | undefined;
  if (!deleted?.spec?.nodeName) return QueueingHint.Skip;
  const freed = podHostPorts(deleted);
  if (freed.length === 0) return QueueingHint.Skip;
  return portsConflict(podHostPorts(pod), freed) ? QueueingHint.Queue : QueueingHint.Skip;
}

export const factory: PluginFactory = () => new NodePorts();
