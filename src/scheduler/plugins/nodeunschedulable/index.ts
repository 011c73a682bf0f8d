/**
 * NodeUnschedulable (Filter): a cordoned node (`spec.unschedulable`) takes only pods that tolerate the
 * `node.kubernetes.io/unschedulable:NoSchedule` taint.
 */

import { TAINT_NODE_UNSCHEDULABLE, type Toleration, tolerationsTolerateTaint } from '../../../api/taints.js';
import {
  type ClusterEventWithHint,
  type EnqueueExtensions,
  type FilterPlugin,
  type Node,
  type NodeInfo,
  type PluginFactory,
  type Pod,
  QueueingHint,
  Status,
} from '../../framework/types.js';

export const name = 'NodeUnschedulable';
export const ERR_REASON_UNSCHEDULABLE = 'node(s) were unschedulable';

const UNSCHEDULABLE_TAINT = { key: TAINT_NODE_UNSCHEDULABLE, effect: 'NoSchedule' };

function toleratesUnschedulable(tolerations: Toleration[] | undefined): boolean {
  return tolerationsTolerateTaint(tolerations, UNSCHEDULABLE_TAINT);
}

export class NodeUnschedulable implements FilterPlugin, EnqueueExtensions {
  readonly name = name;

  filter(_state: unknown, pod: Pod, nodeInfo: NodeInfo): Status {
    if (!nodeInfo.node.spec?.unschedulable) return Status.success();
    if (toleratesUnschedulable(pod.spec?.tolerations)) return Status.success();
    return Status.unresolvable(ERR_REASON_UNSCHEDULABLE);
  }

  eventsToRegister(): ClusterEventWithHint[] {
    return [
      // A cordon/uncordon is classified as a taint change, as upstream does.
      { event: { resource: 'Node', actions: ['Add', 'UpdateNodeTaint'] }, hint: isSchedulableAfterNodeChange },
      { event: { resource: 'Pod', actions: ['UpdatePodTolerations'] }, hint: isSchedulableAfterPodTolerationChange },
    ];
  }
}

function isSchedulableAfterNodeChange(_pod: Pod, oldObj: unknown, newObj: unknown): QueueingHint {
  const modified = newObj as Node | undefined;
  const original = oldObj as Node | undefined;
  const wasSchedulable = original ? !original.spec?.unschedulable : false;
  const isSchedulable = modified ? !modified.spec?.unschedulable : false;
  return !wasSchedulable && isSchedulable ? QueueingHint.Queue : QueueingHint.Skip;
}

function isSchedulableAfterPodTolerationChange(pod: Pod, _oldObj: unknown, newObj: unknown): QueueingHint {
  const modified = newObj as Pod | undefined;
  if (!modified || modified.metadata?.uid !== pod.metadata?.uid) return QueueingHint.Skip;
  return toleratesUnschedulable(modified.spec?.tolerations) ? QueueingHint.Queue : QueueingHint.Skip;
}

export const factory: PluginFactory = () => new NodeUnschedulable();
