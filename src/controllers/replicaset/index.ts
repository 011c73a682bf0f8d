/**
 * The replicaset-controller and replicationcontroller-controller descriptors: one implementation (controller.ts)
 * over apps/v1 ReplicaSets and core/v1 ReplicationControllers, as upstream runs both.
 */
import type { ControllerDescriptor } from '../context.js';
import { ReplicaSetController } from './controller.js';
import { REPLICA_SET_KIND, REPLICATION_CONTROLLER_KIND } from './kinds.js';

export { BURST_REPLICAS, ReplicaSetController } from './controller.js';
export { REPLICA_SET_KIND, REPLICATION_CONTROLLER_KIND, type ReplicaSetKind } from './kinds.js';

export const replicaSetController: ControllerDescriptor = {
  name: REPLICA_SET_KIND.name,
  serviceAccount: 'replicaset-controller',
  create: (ctx) => new ReplicaSetController(ctx, REPLICA_SET_KIND),
};

export const replicationControllerController: ControllerDescriptor = {
  name: REPLICATION_CONTROLLER_KIND.name,
  serviceAccount: 'replication-controller',
  create: (ctx) => new ReplicaSetController(ctx, REPLICATION_CONTROLLER_KIND),
};
