/**
 * The controllers this build of kube-controller-manager has, in the order they start.
 */

import { bootstrapSignerController } from './bootstrap/bootstrap-signer.js';
import { tokenCleanerController } from './bootstrap/token-cleaner.js';
import { csrApprovingController, csrCleanerController, csrSigningController } from './certificates/index.js';
import { clusterRoleAggregationController } from './clusterroleaggregation/index.js';
import type { ControllerDescriptor } from './context.js';
import { cronJobController } from './cronjob/index.js';
import { daemonSetController } from './daemonset/index.js';
import { deploymentController } from './deployment/index.js';
import { disruptionController } from './disruption/index.js';
import { endpointsController } from './endpoints/index.js';
import { endpointSliceController } from './endpointslice/index.js';
import { endpointSliceMirroringController } from './endpointslicemirroring/index.js';
import { garbageCollectorController } from './garbagecollector/index.js';
import { jobController } from './job/index.js';
import { namespaceController } from './namespace/index.js';
import { nodeLifecycleController } from './nodelifecycle/index.js';
import { persistentVolumeBinderController } from './persistentvolume/index.js';
import { horizontalPodAutoscalerController } from './podautoscaler/index.js';
import { podGcController } from './podgc/index.js';
import { pvcProtectionController } from './pvcprotection/index.js';
import { pvProtectionController } from './pvprotection/index.js';
import { replicaSetController, replicationControllerController } from './replicaset/index.js';
import { resourceQuotaController } from './resourcequota/index.js';
import { rootCaCertPublisherController } from './rootcacert/index.js';
import { serviceAccountController } from './serviceaccount/index.js';
import { serviceAccountTokenController } from './serviceaccounttoken/index.js';
import { statefulSetController } from './statefulset/index.js';
import { taintEvictionController } from './tainteviction/index.js';
import { ttlAfterFinishedController } from './ttlafterfinished/index.js';
import { validatingAdmissionPolicyStatusController } from './validatingadmissionpolicystatus/index.js';

export const CONTROLLERS: readonly ControllerDescriptor[] = [
  serviceAccountController,
  serviceAccountTokenController,
  rootCaCertPublisherController,
  namespaceController,
  replicaSetController,
  replicationControllerController,
  deploymentController,
  cronJobController,
  daemonSetController,
  jobController,
  statefulSetController,
  endpointsController,
  endpointSliceController,
  endpointSliceMirroringController,
  podGcController,
  ttlAfterFinishedController,
  validatingAdmissionPolicyStatusController,
  resourceQuotaController,
  clusterRoleAggregationController,
  garbageCollectorController,
  nodeLifecycleController,
  taintEvictionController,
  disruptionController,
  horizontalPodAutoscalerController,
  persistentVolumeBinderController,
  pvcProtectionController,
  pvProtectionController,
  csrSigningController,
  csrApprovingController,
  csrCleanerController,
  bootstrapSignerController,
  tokenCleanerController,
];
