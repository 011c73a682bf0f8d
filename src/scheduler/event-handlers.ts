/**
 * What the scheduler does with informer events (upstream's eventhandlers.go): bound pods go to the cache,
 * unscheduled pods of its profiles to the queue, and every change that may make waiting pods schedulable
 * (node added or changed, bound pod deleted or changed, …) is offered to the queue as a cluster event.
 * Handlers never throw (cache inconsistencies are logged, as upstream does).
 */
import type { ResourceEventHandler } from '../client/cache/processor.js';
import { DeletedFinalStateUnknown } from '../client/cache/store.js';
import type { Logger } from '../util/logger.js';
import type { SchedulerCache } from './cache/cache.js';
import type { EventResource, Node, Pod } from './framework/types.js';
import {
  EVENT_ASSIGNED_POD_ADD,
  EVENT_ASSIGNED_POD_DELETE,
  EVENT_NODE_ADD,
  EVENT_NODE_DELETE,
  nodeSchedulingPropertiesChange,
  podSchedulingPropertiesChange,
} from './queue/events.js';
import type { SchedulingQueue } from './queue/scheduling-queue.js';
import { type Framework, podPriority } from './runtime/framework.js';

export interface EventHandlerDeps {
  cache: SchedulerCache;
  queue: SchedulingQueue;
  profiles: Map<string, Framework>;
  logger: Logger;
}

const assigned = (pod: Pod) => Boolean(pod.spec?.nodeName);
const describe = (obj: { metadata?: { namespace?: string; name?: string } }) =>
  obj.metadata?.namespace ? `${obj.metadata.namespace}/${obj.metadata.name}` : (obj.metadata?.name ?? '');

function unwrap<T>(obj: T | DeletedFinalStateUnknown<T>): { obj: T; tombstone: boolean } {
  return obj instanceof DeletedFinalStateUnknown ? { obj: obj.obj, tombstone: true } : { obj, tombstone: false };
}

export function podEventHandler(d: EventHandlerDeps): ResourceEventHandler<Pod> {
  const responsible = (pod: Pod) => d.profiles.has(pod.spec?.schedulerName ?? '');
  const guard = (what: string, fn: () => void) => {
    try {
      fn();
    } catch (err) {
      d.logger.error(what, { err: String(err) });
    }
  };

  const addAssigned = (pod: Pod) => {
    d.logger.v(3).info('Add event for scheduled pod', { pod: describe(pod) });
    guard('Scheduler cache AddPod failed', () => d.cache.addPod(pod));
    d.queue.moveAllToActiveOrBackoffQueue(EVENT_ASSIGNED_POD_ADD, undefined, pod);
  };

  const deleteAssigned = (pod: Pod) => {
    d.logger.v(3).info('Delete event for scheduled pod', { pod: describe(pod) });
    guard('Scheduler cache RemovePod failed', () => d.cache.removePod(pod));
    d.queue.moveAllToActiveOrBackoffQueue(EVENT_ASSIGNED_POD_DELETE, pod, undefined);
  };

  /** A pod deleted while assumed: free what it held now (its binding will fail). */
  const assumedPodDeleted = (pod: Pod) => {
    const cached = d.cache.getPod(pod);
    if (!cached) return;
    const fwk = d.profiles.get(cached.spec?.schedulerName ?? '');
    if (!fwk?.rejectWaitingPod(cached.metadata?.uid ?? '')) {
      guard('Scheduler cache ForgetPod failed', () => d.cache.forgetPod(cached));
    }
    d.queue.moveAllToActiveOrBackoffQueue(EVENT_ASSIGNED_POD_DELETE, cached, undefined);
  };

  const lowerOrEqualPriority = (priority: number) => (p: Pod) => podPriority(p) <= priority;

  const deleteUnscheduled = (pod: Pod, inBinding: boolean) => {
    d.logger.v(3).info('Delete event for unscheduled pod', { pod: describe(pod) });
    d.queue.delete(pod);
    if (inBinding) return;
    if (d.cache.isAssumedPod(pod)) {
      assumedPodDeleted(pod);
    } else if (pod.status?.nominatedNodeName) {
      // Lower-priority pods treated the nominated pod as if it were on the node: it no longer is.
      d.queue.moveAllToActiveOrBackoffQueue(
        EVENT_ASSIGNED_POD_DELETE,
        pod,
        undefined,
        lowerOrEqualPriority(podPriority(pod)),
      );
    }
  };

  const updateUnscheduled = (oldPod: Pod, newPod: Pod) => {
    if (oldPod.metadata?.resourceVersion === newPod.metadata?.resourceVersion) return;
    if (d.cache.isAssumedPod(newPod)) {
      if (newPod.metadata?.deletionTimestamp && !oldPod.metadata?.deletionTimestamp) assumedPodDeleted(newPod);
      return;
    }
    d.logger.v(4).info('Update event for unscheduled pod', { pod: describe(newPod) });
    d.queue.update(oldPod, newPod);
    const oldNominated = oldPod.status?.nominatedNodeName;
    if (oldNominated && oldNominated !== newPod.status?.nominatedNodeName) {
      d.queue.moveAllToActiveOrBackoffQueue(
        EVENT_ASSIGNED_POD_DELETE,
        oldPod,
        undefined,
        lowerOrEqualPriority(podPriority(oldPod)),
      );
    }
  };

  return {
    onAdd(pod) {
      if (assigned(pod)) addAssigned(pod);
      else if (responsible(pod)) {
        d.logger.v(3).info('Add event for unscheduled pod', { pod: describe(pod) });
        d.queue.add(pod);
      }
    },
    onUpdate(oldPod, newPod) {
      if (assigned(oldPod)) {
        d.logger.v(4).info('Update event for scheduled pod', { pod: describe(oldPod) });
        guard('Scheduler cache UpdatePod failed', () => d.cache.updatePod(oldPod, newPod));
        for (const evt of podSchedulingPropertiesChange(newPod, oldPod)) {
          d.queue.moveAllToActiveOrBackoffQueue(evt, oldPod, newPod);
        }
      } else if (assigned(newPod)) {
        // The pod was bound (by us, confirming the assumed pod, or by someone else).
        addAssigned(newPod);
        if (responsible(oldPod)) deleteUnscheduled(oldPod, true);
      } else if (responsible(oldPod)) {
        updateUnscheduled(oldPod, newPod);
      }
    },
    onDelete(obj) {
      const { obj: pod, tombstone } = unwrap(obj);
      if (!pod?.metadata) return;
      if (tombstone) {
        // The last known state may be stale: try both.
        guard('Scheduler cache RemovePod failed', () => {
          if (d.cache.getPod(pod)) d.cache.removePod(d.cache.getPod(pod) as Pod);
        });
        if (responsible(pod)) deleteUnscheduled(pod, false);
        return;
      }
      if (assigned(pod)) deleteAssigned(pod);
      else if (responsible(pod)) deleteUnscheduled(pod, false);
    },
  };
}

export function nodeEventHandler(d: EventHandlerDeps): ResourceEventHandler<Node> {
  return {
    onAdd(node) {
      d.logger.v(3).info('Add event for node', { node: describe(node) });
      d.cache.addNode(node);
      d.queue.moveAllToActiveOrBackoffQueue(EVENT_NODE_ADD, undefined, node);
    },
    onUpdate(oldNode, newNode) {
      d.logger.v(4).info('Update event for node', { node: describe(newNode) });
      d.cache.updateNode(oldNode, newNode);
      for (const evt of nodeSchedulingPropertiesChange(newNode, oldNode)) {
        d.queue.moveAllToActiveOrBackoffQueue(evt, oldNode, newNode);
      }
    },
    onDelete(obj) {
      const { obj: node } = unwrap(obj);
      if (!node?.metadata) return;
      d.queue.moveAllToActiveOrBackoffQueue(EVENT_NODE_DELETE, node, undefined);
      d.logger.v(3).info('Delete event for node', { node: describe(node) });
      try {
        d.cache.removeNode(node);
      } catch (err) {
        d.logger.error('Scheduler cache RemoveNode failed', { err: String(err) });
      }
    },
  };
}

/**
 * Changes of the other resources plugins registered interest in (PersistentVolumes, PersistentVolumeClaims,
 * StorageClasses): each is offered to the queue as that resource's Add, Update or Delete (upstream's
 * addAllEventHandlers for the GVKs of the plugins' EnqueueExtensions).
 */
export function clusterEventHandler<T extends { metadata?: unknown }>(
  resource: EventResource,
  d: Pick<EventHandlerDeps, 'queue'>,
): ResourceEventHandler<T> {
  return {
    onAdd(obj) {
      d.queue.moveAllToActiveOrBackoffQueue({ resource, action: 'Add' }, undefined, obj);
    },
    onUpdate(oldObj, newObj) {
      d.queue.moveAllToActiveOrBackoffQueue({ resource, action: 'Update' }, oldObj, newObj);
    },
    onDelete(obj) {
      const { obj: o } = unwrap(obj);
      d.queue.moveAllToActiveOrBackoffQueue({ resource, action: 'Delete' }, o, undefined);
    },
  };
}
