/**
 * The two resources one replica-set implementation serves, as upstream serves ReplicationControllers through the
 * ReplicaSet controller: apps/v1 ReplicaSets (a metav1 LabelSelector) and core/v1 ReplicationControllers (a plain
 * label map). Everything else — spec.replicas, spec.template, spec.minReadySeconds and the status fields — has the
 * same shape in both.
 */
import { LabelSelector } from '../../api/labels.js';
import type { KubeClient } from '../../client/rest.js';
import type { GroupVersionResource, KubeObject, ResourceClient } from '../../client/types.js';
import type { GroupVersionKind } from '../common/controller-ref.js';
import type { ControllerManagerOptions } from '../options.js';

export interface ReplicaSetKind extends GroupVersionKind {
  gvr: GroupVersionResource;
  /** The controller's name (for logs and the queue). */
  name: string;
  /** The event source component. */
  component: string;
  /** Workers, from the --concurrent-*-syncs flag. */
  workers(options: ControllerManagerOptions): number;
  /** The resource's client (all namespaces). */
  client(client: KubeClient): ResourceClient;
  /** The object's pod selector; throws for an invalid one. */
  selector(obj: KubeObject): LabelSelector;
}

export const REPLICA_SET_KIND: ReplicaSetKind = {
  apiVersion: 'apps/v1',
  kind: 'ReplicaSet',
  gvr: { group: 'apps', version: 'v1', resource: 'replicasets' },
  name: 'replicaset-controller',
  component: 'replicaset-controller',
  workers: (o) => o.concurrentReplicasetSyncs,
  client: (c) => c.replicaSets(),
  selector: (obj) => LabelSelector.fromObject(obj.spec?.selector),
};

export const REPLICATION_CONTROLLER_KIND: ReplicaSetKind = {
  apiVersion: 'v1',
  kind: 'ReplicationController',
  gvr: { group: '', version: 'v1', resource: 'replicationcontrollers' },
  name: 'replicationcontroller-controller',
  component: 'replication-controller',
  workers: (o) => o.concurrentRcSyncs,
  client: (c) => c.replicationControllers(),
  // A missing map selects nothing (as its conversion to a ReplicaSet gives no selector); `{}` selects everything.
  selector: (obj) => (obj.spec?.selector == null ? LabelSelector.nothing() : LabelSelector.fromSet(obj.spec.selector)),
};
