/**
 * kube-controller-manager's flags that wheelhouse reads, with upstream's names and defaults (v1.33).
 */
import { LEADER_ELECTION_DEFAULTS } from '../client/leader-election.js';
import type { CertificateAuthority } from '../util/certificates.js';

/** The CA (PEM) each of csrsigning's signers signs with; a signer without one does not run. */
export interface ClusterSigningCAs {
  kubeApiserverClient?: CertificateAuthority;
  kubeletClient?: CertificateAuthority;
  kubeletServing?: CertificateAuthority;
  legacyUnknown?: CertificateAuthority;
}

export interface ControllerManagerOptions {
  /** --controllers (default `*`). */
  controllers: string[];
  /**
   * --use-service-account-credentials (default false; kubeadm sets it): each controller acts as its ServiceAccount
   * kube-system/<name> with a TokenRequest token, instead of as the controller manager's own identity.
   */
  useServiceAccountCredentials: boolean;
  /** --kube-api-qps / --kube-api-burst. */
  kubeApiQps: number;
  kubeApiBurst: number;
  /** --leader-elect and its timings (ms). */
  leaderElect: boolean;
  leaderElectLeaseDurationMs: number;
  leaderElectRenewDeadlineMs: number;
  leaderElectRetryPeriodMs: number;
  leaderElectResourceNamespace: string;
  leaderElectResourceName: string;
  /** --concurrent-*-syncs: workers per controller. */
  concurrentDeploymentSyncs: number;
  concurrentReplicasetSyncs: number;
  concurrentRcSyncs: number;
  concurrentNamespaceSyncs: number;
  concurrentServiceaccountTokenSyncs: number;
  concurrentEndpointSyncs: number;
  concurrentServiceEndpointSyncs: number;
  mirroringConcurrentServiceEndpointSyncs: number;
  concurrentGcSyncs: number;
  concurrentResourceQuotaSyncs: number;
  concurrentTtlAfterFinishedSyncs: number;
  concurrentJobSyncs: number;
  concurrentCronJobSyncs: number;
  concurrentStatefulsetSyncs: number;
  concurrentDaemonsetSyncs: number;
  concurrentHorizontalPodAutoscalerSyncs: number;
  /** --horizontal-pod-autoscaler-sync-period (15s), in ms: how often each HPA is reconciled. */
  horizontalPodAutoscalerSyncPeriodMs: number;
  /** --horizontal-pod-autoscaler-downscale-stabilization (5m), in ms: how far back recommendations hold a scale-down. */
  horizontalPodAutoscalerDownscaleStabilizationMs: number;
  /** --horizontal-pod-autoscaler-tolerance (0.1): the usage ratio's distance from 1 that does not rescale. */
  horizontalPodAutoscalerTolerance: number;
  /** --horizontal-pod-autoscaler-cpu-initialization-period (5m), in ms: a starting pod's CPU is trusted only when ready. */
  horizontalPodAutoscalerCpuInitializationPeriodMs: number;
  /** --horizontal-pod-autoscaler-initial-readiness-delay (30s), in ms: readiness changes early in a pod's life. */
  horizontalPodAutoscalerInitialReadinessDelayMs: number;
  /** --max-endpoints-per-slice (100) and --mirroring-max-endpoints-per-subset (1000). */
  maxEndpointsPerSlice: number;
  mirroringMaxEndpointsPerSubset: number;
  /** --terminated-pod-gc-threshold (12500; <= 0 turns terminated-pod collection off). */
  terminatedPodGcThreshold: number;
  /** --namespace-sync-period (5m) and --resource-quota-sync-period (5m), in ms. */
  namespaceSyncPeriodMs: number;
  resourceQuotaSyncPeriodMs: number;
  /** --min-resync-period (12h), in ms: informer resyncs are randomised between it and twice it. */
  minResyncPeriodMs: number;
  /** --enable-garbage-collector (true). */
  enableGarbageCollector: boolean;
  /** --node-monitor-period (5s), in ms: how often node-lifecycle-controller looks at node health. */
  nodeMonitorPeriodMs: number;
  /** --node-monitor-grace-period (50s since v1.32), in ms: silence after which a node's Ready turns Unknown. */
  nodeMonitorGracePeriodMs: number;
  /** --node-startup-grace-period (1m), in ms: the same for a node that never posted status. */
  nodeStartupGracePeriodMs: number;
  /** --node-eviction-rate (0.1): nodes per second tainted NoExecute while a zone is healthy. */
  nodeEvictionRate: number;
  /** --secondary-node-eviction-rate (0.01): the same while a zone is unhealthy (0 in clusters up to the threshold). */
  secondaryNodeEvictionRate: number;
  /** --large-cluster-size-threshold (50). */
  largeClusterSizeThreshold: number;
  /** --unhealthy-zone-threshold (0.55): the fraction of not-ready nodes (at least 3) that makes a zone unhealthy. */
  unhealthyZoneThreshold: number;
  /** The cluster CA certificate (PEM) published as `kube-root-ca.crt` (upstream: --root-ca-file). */
  rootCaPem: string | undefined;
  /**
   * The signers' CAs, read from --cluster-signing-cert-file/--cluster-signing-key-file or the per-signer
   * --cluster-signing-<signer>-cert-file/-key-file flags.
   */
  clusterSigning?: ClusterSigningCAs;
  /** --cluster-signing-duration (8760h), in ms: the longest validity csrsigning gives a certificate. */
  clusterSigningDurationMs: number;
  /** --service-account-private-key-file's key (PEM): what serviceaccount-token-controller signs tokens with. */
  serviceAccountPrivateKeyPem?: string;
  /** --pvclaimbinder-sync-period (15s), in ms: how often every PV and PVC is synced again. */
  pvClaimBinderSyncPeriodMs?: number;
  /** Workers of the persistentvolume-binder (upstream runs one per queue). */
  concurrentPvBinderSyncs?: number;
}

export const DEFAULT_CONTROLLER_MANAGER_OPTIONS: Readonly<ControllerManagerOptions> = {
  controllers: ['*'],
  useServiceAccountCredentials: false,
  kubeApiQps: 20,
  kubeApiBurst: 30,
  leaderElect: LEADER_ELECTION_DEFAULTS.leaderElect,
  leaderElectLeaseDurationMs: LEADER_ELECTION_DEFAULTS.leaseDurationMs,
  leaderElectRenewDeadlineMs: LEADER_ELECTION_DEFAULTS.renewDeadlineMs,
  leaderElectRetryPeriodMs: LEADER_ELECTION_DEFAULTS.retryPeriodMs,
  leaderElectResourceNamespace: 'kube-system',
  leaderElectResourceName: 'kube-controller-manager',
  concurrentDeploymentSyncs: 5,
  concurrentReplicasetSyncs: 5,
  concurrentRcSyncs: 5,
  concurrentNamespaceSyncs: 10,
  concurrentServiceaccountTokenSyncs: 5,
  concurrentEndpointSyncs: 5,
  concurrentServiceEndpointSyncs: 5,
  mirroringConcurrentServiceEndpointSyncs: 5,
  concurrentGcSyncs: 20,
  concurrentResourceQuotaSyncs: 5,
  concurrentTtlAfterFinishedSyncs: 5,
  concurrentJobSyncs: 5,
  concurrentCronJobSyncs: 5,
  concurrentStatefulsetSyncs: 5,
  concurrentDaemonsetSyncs: 2,
  concurrentHorizontalPodAutoscalerSyncs: 5,
  horizontalPodAutoscalerSyncPeriodMs: 15_000,
  horizontalPodAutoscalerDownscaleStabilizationMs: 5 * 60_000,
  horizontalPodAutoscalerTolerance: 0.1,
  horizontalPodAutoscalerCpuInitializationPeriodMs: 5 * 60_000,
  horizontalPodAutoscalerInitialReadinessDelayMs: 30_000,
  maxEndpointsPerSlice: 100,
  mirroringMaxEndpointsPerSubset: 1000,
  terminatedPodGcThreshold: 12500,
  namespaceSyncPeriodMs: 5 * 60_000,
  resourceQuotaSyncPeriodMs: 5 * 60_000,
  minResyncPeriodMs: 12 * 3600_000,
  enableGarbageCollector: true,
  nodeMonitorPeriodMs: 5_000,
  nodeMonitorGracePeriodMs: 50_000,
  nodeStartupGracePeriodMs: 60_000,
  nodeEvictionRate: 0.1,
  secondaryNodeEvictionRate: 0.01,
  largeClusterSizeThreshold: 50,
  unhealthyZoneThreshold: 0.55,
  rootCaPem: undefined,
  clusterSigningDurationMs: 8760 * 3600_000,
};
