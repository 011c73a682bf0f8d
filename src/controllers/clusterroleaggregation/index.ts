/**
 * clusterrole-aggregation-controller: fills aggregated ClusterRoles with the rules of the roles they select.
 */
import type { ControllerDescriptor } from '../context.js';
import { ClusterRoleAggregationController } from './clusterroleaggregation-controller.js';

export const clusterRoleAggregationController: ControllerDescriptor = {
  name: 'clusterrole-aggregation-controller',
  serviceAccount: 'clusterrole-aggregation-controller',
  create: (ctx) => new ClusterRoleAggregationController(ctx),
};
