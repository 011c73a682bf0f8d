/**
 * The shapes of apps/v1 StatefulSets and ControllerRevisions as the statefulset controller reads them (the JSON the
 * API serves, with upstream's defaults already applied by the apiserver), and the label and annotation keys
 * upstream puts on a StatefulSet's pods.
 */
import type { LabelSelectorObject } from '../../api/labels.js';
import type { KubeObject } from '../../client/types.js';

export type IntOrString = number | string;

export interface PodTemplate {
  metadata?: { labels?: Record<string, string>; annotations?: Record<string, string>; [field: string]: unknown };
  // biome-ignore lint/suspicious/noExplicitAny: the pod spec is passed through as it is
  spec?: any;
}

export interface ClaimTemplate {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; namespace?: string; labels?: Record<string, string>; [field: string]: unknown };
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
}

export type RetentionPolicyType = 'Retain' | 'Delete';

export interface StatefulSetSpec {
  replicas?: number;
  selector?: LabelSelectorObject;
  template?: PodTemplate;
  volumeClaimTemplates?: ClaimTemplate[];
  serviceName?: string;
  podManagementPolicy?: 'OrderedReady' | 'Parallel';
  updateStrategy?: {
    type?: 'RollingUpdate' | 'OnDelete';
    rollingUpdate?: { partition?: number; maxUnavailable?: IntOrString };
  };
  revisionHistoryLimit?: number;
  minReadySeconds?: number;
  persistentVolumeClaimRetentionPolicy?: { whenDeleted?: RetentionPolicyType; whenScaled?: RetentionPolicyType };
  ordinals?: { start?: number };
}

export interface StatefulSetStatus {
  observedGeneration?: number;
  replicas: number;
  readyReplicas?: number;
  currentReplicas?: number;
  updatedReplicas?: number;
  currentRevision?: string;
  updateRevision?: string;
  collisionCount?: number;
  availableReplicas: number;
  conditions?: unknown[];
}

export interface StatefulSet extends KubeObject {
  spec: StatefulSetSpec;
  status?: Partial<StatefulSetStatus>;
}

export interface ControllerRevision extends KubeObject {
  data?: unknown;
  revision: number;
}

// biome-ignore lint/suspicious/noExplicitAny: pods are plain JSON objects
export type Pod = KubeObject & { spec?: any; status?: any };

/** apps/v1 StatefulSetPodNameLabel: the pod's own name, so a Service can select one member. */
export const POD_NAME_LABEL = 'statefulset.kubernetes.io/pod-name';
/** apps/v1 PodIndexLabel: the pod's ordinal (the PodIndexLabel feature is GA in v1.33). */
export const POD_INDEX_LABEL = 'apps.kubernetes.io/pod-index';
/** apps/v1 StatefulSetRevisionLabel (= ControllerRevisionHashLabelKey): the revision a pod was made from. */
export const REVISION_LABEL = 'controller-revision-hash';

export const STATEFUL_SET_KIND = { apiVersion: 'apps/v1', kind: 'StatefulSet' } as const;
export const POD_KIND = { apiVersion: 'v1', kind: 'Pod' } as const;
