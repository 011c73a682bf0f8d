/**
 * The controllers this build of kube-controller-manager has, in the order they start.
 */
import type { ControllerDescriptor } from './context.js';
import { namespaceController } from './namespace/index.js';
import { replicaSetController, replicationControllerController } from './replicaset/index.js';
import { rootCaCertPublisherController } from './rootcacert/index.js';
import { serviceAccountController } from './serviceaccount/index.js';

export const CONTROLLERS: readonly ControllerDescriptor[] = [
  serviceAccountController,
  rootCaCertPublisherController,
  namespaceController,
  replicaSetController,
  replicationControllerController,
];
