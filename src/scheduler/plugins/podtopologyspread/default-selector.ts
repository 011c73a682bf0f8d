/**
 * The selector cluster-default spread constraints use for a pod (upstream's helper.DefaultSelector): the labels
 * of the selectors of every Service in the pod's namespace that selects it, and of the ReplicationController,
 * ReplicaSet or StatefulSet controlling it. Read from the scheduler's informer caches.
 */

import { LabelSelector, type LabelSet } from '../../../api/labels.js';
import type { SharedInformerFactory } from '../../../client/cache/factory.js';
import { type Indexer, NAMESPACE_INDEX } from '../../../client/cache/store.js';
import type { KubeObject } from '../../../client/types.js';
import type { Pod } from '../../framework/types.js';

export const SERVICES = { group: '', version: 'v1', resource: 'services' } as const;
export const REPLICATION_CONTROLLERS = { group: '', version: 'v1', resource: 'replicationcontrollers' } as const;
export const REPLICA_SETS = { group: 'apps', version: 'v1', resource: 'replicasets' } as const;
export const STATEFUL_SETS = { group: 'apps', version: 'v1', resource: 'statefulsets' } as const;

export interface WorkloadListers {
  services: Indexer<KubeObject>;
  replicationControllers: Indexer<KubeObject>;
  replicaSets: Indexer<KubeObject>;
  statefulSets: Indexer<KubeObject>;
}

export function workloadListersFrom(factory: SharedInformerFactory): WorkloadListers {
  return {
    services: factory.forGroupVersionResource(SERVICES).getIndexer(),
    replicationControllers: factory.forGroupVersionResource(REPLICATION_CONTROLLERS).getIndexer(),
    replicaSets: factory.forGroupVersionResource(REPLICA_SETS).getIndexer(),
    statefulSets: factory.forGroupVersionResource(STATEFUL_SETS).getIndexer(),
  };
}

function controllerOf(pod: Pod): { apiVersion: string; kind: string; name: string } | undefined {
  return pod.metadata?.ownerReferences?.find((o) => o.controller === true);
}

/** The selector; empty when nothing selects or controls the pod. */
export function defaultSelector(pod: Pod, listers: WorkloadListers): LabelSelector {
  const ns = pod.metadata?.namespace ?? '';
  const podLabels = (pod.metadata?.labels ?? {}) as LabelSet;
  let labelSet: Record<string, string> = {};
  for (const svc of listers.services.byIndex(NAMESPACE_INDEX, ns)) {
    const sel = svc.spec?.selector as Record<string, string> | null | undefined;
    // A service without a selector selects nothing.
    if (sel == null) continue;
    if (LabelSelector.fromSet(sel).matches(podLabels)) labelSet = { ...labelSet, ...sel };
  }
  let selector = LabelSelector.fromSet(labelSet);

  const owner = controllerOf(pod);
  if (!owner) return selector;
  const key = `${ns}/${owner.name}`;
  if (owner.apiVersion === 'v1' && owner.kind === 'ReplicationController') {
    const rc = listers.replicationControllers.getByKey(key);
    if (rc) {
      labelSet = { ...labelSet, ...((rc.spec?.selector as Record<string, string> | undefined) ?? {}) };
      selector = LabelSelector.fromSet(labelSet);
    }
  } else if (owner.apiVersion === 'apps/v1' && (owner.kind === 'ReplicaSet' || owner.kind === 'StatefulSet')) {
    const indexer = owner.kind === 'ReplicaSet' ? listers.replicaSets : listers.statefulSets;
    const obj = indexer.getByKey(key);
    if (obj) {
      try {
        const other = LabelSelector.fromObject(obj.spec?.selector);
        if (other.selectable) selector = selector.add(...other.requirements);
      } catch {
        // A selector that does not parse adds nothing.
      }
    }
  }
  return selector;
}
