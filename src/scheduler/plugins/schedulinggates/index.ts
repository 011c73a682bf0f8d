/**
 * SchedulingGates (PreEnqueue): a pod with `spec.schedulingGates` is not scheduled until every gate is removed;
 * the queue keeps it gated and moves it on when the pod update that removes the last gate arrives.
 */

import {
  type ClusterEventWithHint,
  Code,
  type EnqueueExtensions,
  type PluginFactory,
  type Pod,
  type PreEnqueuePlugin,
  QueueingHint,
  Status,
} from '../../framework/types.js';

export const name = 'SchedulingGates';

export class SchedulingGates implements PreEnqueuePlugin, EnqueueExtensions {
  readonly name = name;

  preEnqueue(pod: Pod): Status {
    const gates: { name?: string }[] = pod.spec?.schedulingGates ?? [];
    if (gates.length === 0) return Status.success();
    // Go's %v of a []string: [a b]
    const names = gates.map((g) => g.name ?? '').join(' ');
    return new Status(Code.UnschedulableAndUnresolvable, [`waiting for scheduling gates: [${names}]`]);
  }

  eventsToRegister(): ClusterEventWithHint[] {
    return [
      {
        event: { resource: 'Pod', actions: ['UpdatePodSchedulingGatesEliminated'] },
        hint: (pod, _old, modified) =>
          modified?.metadata?.uid === pod.metadata?.uid ? QueueingHint.Queue : QueueingHint.Skip,
      },
    ];
  }
}

export const factory: PluginFactory = () => new SchedulingGates();
