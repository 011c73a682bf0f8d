/**
 * NodeName (Filter): a pod that names a node (`spec.nodeName`) fits only that node. Upstream v1.33 has no PreFilter
 * here (pods with a node name never reach the scheduler's queue), so neither do we.
 */

import {
  type ClusterEventWithHint,
  type EnqueueExtensions,
  type FilterPlugin,
  type NodeInfo,
  type PluginFactory,
  type Pod,
  Status,
} from '../../framework/types.js';

export const name = 'NodeName';
export const ERR_REASON = "node(s) didn't match the requested node name";

export function fits(pod: Pod, nodeInfo: NodeInfo): boolean {
  const want: string | undefined = pod.spec?.nodeName;
  return !want || want === nodeInfo.node.metadata?.name;
}

export class NodeName implements FilterPlugin, EnqueueExtensions {
  readonly name = name;

  filter(_state: unknown, pod: Pod, nodeInfo: NodeInfo): Status {
    return fits(pod, nodeInfo) ? Status.success() : Status.unresolvable(ERR_REASON);
  }

  eventsToRegister(): ClusterEventWithHint[] {
    // No hint: a new node always gets the pod retried.
    return [{ event: { resource: 'Node', actions: ['Add'] } }];
  }
}

export const factory: PluginFactory = () => new NodeName();
