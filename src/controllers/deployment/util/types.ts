/**
 * The shapes of apps/v1 Deployments and ReplicaSets as the deployment controller reads them (the JSON the API
 * serves; the apiserver has already applied upstream's defaults), and the names upstream gives to their labels,
 * annotations, condition reasons and event reasons.
 */
import type { LabelSelectorObject } from '../../../api/labels.js';
import type { KubeObject } from '../../../client/types.js';

export type IntOrString = number | string;

export interface PodTemplate {
  metadata?: { labels?: Record<string, string>; annotations?: Record<string, string>; [field: string]: unknown };
  spec?: Record<string, unknown>;
}

export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
  lastUpdateTime?: string;
  lastTransitionTime?: string;
}

export interface DeploymentSpec {
  replicas?: number;
  selector?: LabelSelectorObject;
  template?: PodTemplate;
  strategy?: { type?: string; rollingUpdate?: { maxSurge?: IntOrString; maxUnavailable?: IntOrString } };
  minReadySeconds?: number;
  revisionHistoryLimit?: number;
  paused?: boolean;
  progressDeadlineSeconds?: number;
}

export interface DeploymentStatus {
  observedGeneration?: number;
  replicas?: number;
  updatedReplicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  unavailableReplicas?: number;
  conditions?: Condition[];
  collisionCount?: number;
}

export interface Deployment extends KubeObject {
  spec: DeploymentSpec;
  status?: DeploymentStatus;
}

export interface ReplicaSet extends KubeObject {
  spec: { replicas?: number; minReadySeconds?: number; selector?: LabelSelectorObject; template?: PodTemplate };
  status?: {
    replicas?: number;
    fullyLabeledReplicas?: number;
    readyReplicas?: number;
    availableReplicas?: number;
    observedGeneration?: number;
    conditions?: Condition[];
  };
}

/** apps.DefaultDeploymentUniqueLabelKey */
export const POD_TEMPLATE_HASH_LABEL = 'pod-template-hash';

export const REVISION_ANNOTATION = 'deployment.kubernetes.io/revision';
export const REVISION_HISTORY_ANNOTATION = 'deployment.kubernetes.io/revision-history';
export const DESIRED_REPLICAS_ANNOTATION = 'deployment.kubernetes.io/desired-replicas';
export const MAX_REPLICAS_ANNOTATION = 'deployment.kubernetes.io/max-replicas';
/** Set on Deployments converted from extensions/v1beta1 with spec.rollbackTo; never copied to ReplicaSets. */
export const DEPRECATED_ROLLBACK_TO_ANNOTATION = 'deprecated.deployment.rollback.to';
export const LAST_APPLIED_CONFIG_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';

// Progressing condition reasons.
export const REPLICA_SET_UPDATED_REASON = 'ReplicaSetUpdated';
export const FAILED_RS_CREATE_REASON = 'ReplicaSetCreateError';
export const NEW_REPLICA_SET_REASON = 'NewReplicaSetCreated';
export const FOUND_NEW_RS_REASON = 'FoundNewReplicaSet';
export const NEW_RS_AVAILABLE_REASON = 'NewReplicaSetAvailable';
export const TIMED_OUT_REASON = 'ProgressDeadlineExceeded';
export const PAUSED_DEPLOY_REASON = 'DeploymentPaused';
export const RESUMED_DEPLOY_REASON = 'DeploymentResumed';
// Available condition reasons.
export const MINIMUM_REPLICAS_AVAILABLE = 'MinimumReplicasAvailable';
export const MINIMUM_REPLICAS_UNAVAILABLE = 'MinimumReplicasUnavailable';

export const DEPLOYMENT_AVAILABLE = 'Available';
export const DEPLOYMENT_PROGRESSING = 'Progressing';
export const DEPLOYMENT_REPLICA_FAILURE = 'ReplicaFailure';

/** Upstream's math.MaxInt32: progressDeadlineSeconds / revisionHistoryLimit meaning "none". */
export const MAX_INT32 = 2147483647;

/** spec.replicas of a Deployment or ReplicaSet (both default to 1). */
export function replicasOf(obj: Deployment | ReplicaSet | undefined): number {
  return obj?.spec?.replicas ?? 1;
}
