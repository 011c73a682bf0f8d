/**
 * The bootstrap RBAC policy of a fresh Kubernetes v1.33 cluster, as data: every ClusterRole, ClusterRoleBinding,
 * Role and RoleBinding kube-apiserver reconciles at start-up (the facts of upstream's bootstrappolicy testdata,
 * with the default feature gates of v1.33), written in a compact form. rbac-policy.ts turns it into objects.
 *
 * A rule is `r(verbs, apiGroups, resources, resourceNames?)` or `n(verbs, nonResourceURLs)`, each list comma-separated;
 * the core group is the empty string, so `',events.k8s.io'` is the core group and events.k8s.io.
 */
import type { PolicyRule } from '../authz/policy-rule.js';

const list = (s: string): string[] => s.split(',');

export function r(verbs: string, apiGroups: string, resources: string, resourceNames?: string): PolicyRule {
  return {
    apiGroups: list(apiGroups),
    resources: list(resources),
    ...(resourceNames ? { resourceNames: list(resourceNames) } : {}),
    verbs: list(verbs),
  };
}

export function n(verbs: string, urls: string): PolicyRule {
  return { nonResourceURLs: list(urls), verbs: list(verbs) };
}

const READ = 'get,list,watch';
const WRITE = 'create,delete,deletecollection,patch,update';
const events = r('create,patch,update', ',events.k8s.io', 'events');

export interface ClusterRoleSpec {
  name: string;
  rules?: PolicyRule[];
  /** aggregationRule: the aggregate-to label its ClusterRoles carry. */
  aggregateFrom?: string;
  /** Extra labels (the aggregate-to-* labels). */
  labels?: Record<string, string>;
}

const toAdmin = { 'rbac.authorization.k8s.io/aggregate-to-admin': 'true' };
const toEdit = { 'rbac.authorization.k8s.io/aggregate-to-edit': 'true' };
const toView = { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' };

export const CLUSTER_ROLES: ClusterRoleSpec[] = [
  { name: 'admin', aggregateFrom: 'rbac.authorization.k8s.io/aggregate-to-admin' },
  { name: 'cluster-admin', rules: [r('*', '*', '*'), n('*', '*')] },
  { name: 'edit', aggregateFrom: 'rbac.authorization.k8s.io/aggregate-to-edit', labels: toAdmin },
  {
    name: 'system:aggregate-to-admin',
    labels: toAdmin,
    rules: [
      r('create', 'authorization.k8s.io', 'localsubjectaccessreviews'),
      r(
        'create,delete,deletecollection,get,list,patch,update,watch',
        'rbac.authorization.k8s.io',
        'rolebindings,roles',
      ),
    ],
  },
  {
    name: 'system:aggregate-to-edit',
    labels: toEdit,
    rules: [
      r(READ, '', 'pods/attach,pods/exec,pods/portforward,pods/proxy,secrets,services/proxy'),
      r('impersonate', '', 'serviceaccounts'),
      r(WRITE, '', 'pods,pods/attach,pods/exec,pods/portforward,pods/proxy'),
      r('create', '', 'pods/eviction'),
      r(
        WRITE,
        '',
        'configmaps,events,persistentvolumeclaims,replicationcontrollers,replicationcontrollers/scale,secrets,serviceaccounts,services,services/proxy',
      ),
      r('create', '', 'serviceaccounts/token'),
      r(
        WRITE,
        'apps',
        'daemonsets,deployments,deployments/rollback,deployments/scale,replicasets,replicasets/scale,statefulsets,statefulsets/scale',
      ),
      r(WRITE, 'autoscaling', 'horizontalpodautoscalers'),
      r(WRITE, 'batch', 'cronjobs,jobs'),
      r(
        WRITE,
        'extensions',
        'daemonsets,deployments,deployments/rollback,deployments/scale,ingresses,networkpolicies,replicasets,replicasets/scale,replicationcontrollers/scale',
      ),
      r(WRITE, 'policy', 'poddisruptionbudgets'),
      r(WRITE, 'networking.k8s.io', 'ingresses,networkpolicies'),
      r('create,delete,deletecollection,get,list,patch,update,watch', 'coordination.k8s.io', 'leases'),
    ],
  },
  {
    name: 'system:aggregate-to-view',
    labels: toView,
    rules: [
      r(
        READ,
        '',
        'configmaps,endpoints,persistentvolumeclaims,persistentvolumeclaims/status,pods,replicationcontrollers,replicationcontrollers/scale,serviceaccounts,services,services/status',
      ),
      r(
        READ,
        '',
        'bindings,events,limitranges,namespaces/status,pods/log,pods/status,replicationcontrollers/status,resourcequotas,resourcequotas/status',
      ),
      r(READ, '', 'namespaces'),
      r(READ, 'discovery.k8s.io', 'endpointslices'),
      r(
        READ,
        'apps',
        'controllerrevisions,daemonsets,daemonsets/status,deployments,deployments/scale,deployments/status,replicasets,replicasets/scale,replicasets/status,statefulsets,statefulsets/scale,statefulsets/status',
      ),
      r(READ, 'autoscaling', 'horizontalpodautoscalers,horizontalpodautoscalers/status'),
      r(READ, 'batch', 'cronjobs,cronjobs/status,jobs,jobs/status'),
      r(
        READ,
        'extensions',
        'daemonsets,daemonsets/status,deployments,deployments/scale,deployments/status,ingresses,ingresses/status,networkpolicies,replicasets,replicasets/scale,replicasets/status,replicationcontrollers/scale',
      ),
      r(READ, 'policy', 'poddisruptionbudgets,poddisruptionbudgets/status'),
      r(READ, 'networking.k8s.io', 'ingresses,ingresses/status,networkpolicies'),
    ],
  },
  {
    name: 'system:auth-delegator',
    rules: [
      r('create', 'authentication.k8s.io', 'tokenreviews'),
      r('create', 'authorization.k8s.io', 'subjectaccessreviews'),
    ],
  },
  {
    name: 'system:basic-user',
    rules: [
      r('create', 'authorization.k8s.io', 'selfsubjectaccessreviews,selfsubjectrulesreviews'),
      r('create', 'authentication.k8s.io', 'selfsubjectreviews'),
    ],
  },
  {
    name: 'system:certificates.k8s.io:certificatesigningrequests:nodeclient',
    rules: [r('create', 'certificates.k8s.io', 'certificatesigningrequests/nodeclient')],
  },
  {
    name: 'system:certificates.k8s.io:certificatesigningrequests:selfnodeclient',
    rules: [r('create', 'certificates.k8s.io', 'certificatesigningrequests/selfnodeclient')],
  },
  {
    name: 'system:certificates.k8s.io:kube-apiserver-client-approver',
    rules: [r('approve', 'certificates.k8s.io', 'signers', 'kubernetes.io/kube-apiserver-client')],
  },
  {
    name: 'system:certificates.k8s.io:kube-apiserver-client-kubelet-approver',
    rules: [r('approve', 'certificates.k8s.io', 'signers', 'kubernetes.io/kube-apiserver-client-kubelet')],
  },
  {
    name: 'system:certificates.k8s.io:kubelet-serving-approver',
    rules: [r('approve', 'certificates.k8s.io', 'signers', 'kubernetes.io/kubelet-serving')],
  },
  {
    name: 'system:certificates.k8s.io:legacy-unknown-approver',
    rules: [r('approve', 'certificates.k8s.io', 'signers', 'kubernetes.io/legacy-unknown')],
  },
  {
    name: 'system:discovery',
    rules: [n('get', '/api,/api/*,/apis,/apis/*,/healthz,/livez,/openapi,/openapi/*,/readyz,/version,/version/')],
  },
  {
    name: 'system:heapster',
    rules: [r(READ, '', 'events,namespaces,nodes,pods'), r(READ, 'extensions', 'deployments')],
  },
  { name: 'system:kube-aggregator', rules: [r(READ, '', 'endpoints,services')] },
  {
    name: 'system:kube-controller-manager',
    rules: [
      events,
      r('create', 'coordination.k8s.io', 'leases'),
      r('get,update', 'coordination.k8s.io', 'leases', 'kube-controller-manager'),
      r('create', '', 'secrets,serviceaccounts'),
      r('delete', '', 'secrets'),
      r('get', '', 'configmaps,namespaces,secrets,serviceaccounts'),
      r('update', '', 'secrets,serviceaccounts'),
      r('create', 'authentication.k8s.io', 'tokenreviews'),
      r('create', 'authorization.k8s.io', 'subjectaccessreviews'),
      r('list,watch', '*', '*'),
      r('create', '', 'serviceaccounts/token'),
    ],
  },
  { name: 'system:kube-dns', rules: [r('list,watch', '', 'endpoints,services')] },
  {
    name: 'system:kube-scheduler',
    rules: [
      events,
      r('create', 'coordination.k8s.io', 'leases'),
      r('get,update', 'coordination.k8s.io', 'leases', 'kube-scheduler'),
      r(READ, '', 'nodes'),
      r('delete,get,list,watch', '', 'pods'),
      r('create', '', 'bindings,pods/binding'),
      r('patch,update', '', 'pods/status'),
      r(READ, '', 'replicationcontrollers,services'),
      r(READ, 'apps,extensions', 'replicasets'),
      r(READ, 'apps', 'statefulsets'),
      r(READ, 'policy', 'poddisruptionbudgets'),
      r(READ, '', 'persistentvolumeclaims,persistentvolumes'),
      r('create', 'authentication.k8s.io', 'tokenreviews'),
      r('create', 'authorization.k8s.io', 'subjectaccessreviews'),
      r(READ, 'storage.k8s.io', 'csinodes'),
      r(READ, '', 'namespaces'),
      r(READ, 'storage.k8s.io', 'csidrivers'),
      r(READ, 'storage.k8s.io', 'csistoragecapacities'),
    ],
  },
  {
    name: 'system:kubelet-api-admin',
    rules: [
      r(READ, '', 'nodes'),
      r('proxy', '', 'nodes'),
      r('*', '', 'nodes/log,nodes/metrics,nodes/proxy,nodes/stats'),
    ],
  },
  {
    name: 'system:monitoring',
    rules: [n('get', '/healthz,/healthz/*,/livez,/livez/*,/metrics,/metrics/slis,/readyz,/readyz/*')],
  },
  {
    name: 'system:node',
    rules: [
      r('create', 'authentication.k8s.io', 'tokenreviews'),
      r('create', 'authorization.k8s.io', 'localsubjectaccessreviews,subjectaccessreviews'),
      r(READ, '', 'services'),
      r('create,get,list,watch', '', 'nodes'),
      r('patch,update', '', 'nodes/status'),
      r('patch,update', '', 'nodes'),
      r('create,patch,update', '', 'events'),
      r(READ, '', 'pods'),
      r('create,delete', '', 'pods'),
      r('patch,update', '', 'pods/status'),
      r('create', '', 'pods/eviction'),
      r(READ, '', 'configmaps,secrets'),
      r('get', '', 'persistentvolumeclaims,persistentvolumes'),
      r('get', '', 'endpoints'),
      r('create,get,list,watch', 'certificates.k8s.io', 'certificatesigningrequests'),
      r('create,delete,get,patch,update', 'coordination.k8s.io', 'leases'),
      r('get', 'storage.k8s.io', 'volumeattachments'),
      r('create', '', 'serviceaccounts/token'),
      r('get,patch,update', '', 'persistentvolumeclaims/status'),
      r(READ, 'storage.k8s.io', 'csidrivers'),
      r('create,delete,get,patch,update', 'storage.k8s.io', 'csinodes'),
      r(READ, 'node.k8s.io', 'runtimeclasses'),
    ],
  },
  {
    name: 'system:node-bootstrapper',
    rules: [r('create,get,list,watch', 'certificates.k8s.io', 'certificatesigningrequests')],
  },
  {
    name: 'system:node-problem-detector',
    rules: [r('get', '', 'nodes'), r('patch', '', 'nodes/status'), events],
  },
  {
    name: 'system:node-proxier',
    rules: [
      r('list,watch', '', 'endpoints,services'),
      r(READ, '', 'nodes'),
      events,
      r('list,watch', 'discovery.k8s.io', 'endpointslices'),
    ],
  },
  {
    name: 'system:persistent-volume-provisioner',
    rules: [
      r('create,delete,get,list,watch', '', 'persistentvolumes'),
      r('get,list,update,watch', '', 'persistentvolumeclaims'),
      r(READ, 'storage.k8s.io', 'storageclasses'),
      r('watch', '', 'events'),
      events,
    ],
  },
  { name: 'system:public-info-viewer', rules: [n('get', '/healthz,/livez,/readyz,/version,/version/')] },
  {
    name: 'system:service-account-issuer-discovery',
    // The slash-ended paths too, for clients generated from the OpenAPI of before upstream's fix (as upstream).
    rules: [
      n('get', '/.well-known/openid-configuration,/.well-known/openid-configuration/,/openid/v1/jwks,/openid/v1/jwks/'),
    ],
  },
  {
    name: 'system:volume-scheduler',
    rules: [
      r('get,list,patch,update,watch', '', 'persistentvolumes'),
      r(READ, 'storage.k8s.io', 'storageclasses'),
      r('get,list,patch,update,watch', '', 'persistentvolumeclaims'),
    ],
  },
  { name: 'view', aggregateFrom: 'rbac.authorization.k8s.io/aggregate-to-view', labels: toEdit },
];

/** The per-controller roles of kube-controller-manager (system:controller:<name>, bound to ServiceAccount <name>). */
export const CONTROLLER_ROLES: { name: string; rules: PolicyRule[] }[] = [
  {
    name: 'attachdetach-controller',
    rules: [
      r('list,watch', '', 'persistentvolumeclaims,persistentvolumes'),
      r(READ, '', 'nodes'),
      r('patch,update', '', 'nodes/status'),
      r('list,watch', '', 'pods'),
      events,
      r('create,delete,get,list,watch', 'storage.k8s.io', 'volumeattachments'),
      r(READ, 'storage.k8s.io', 'csidrivers'),
      r(READ, 'storage.k8s.io', 'csinodes'),
    ],
  },
  {
    name: 'certificate-controller',
    rules: [
      r('delete,get,list,watch', 'certificates.k8s.io', 'certificatesigningrequests'),
      r('update', 'certificates.k8s.io', 'certificatesigningrequests/approval,certificatesigningrequests/status'),
      r('approve', 'certificates.k8s.io', 'signers', 'kubernetes.io/kube-apiserver-client-kubelet'),
      r(
        'sign',
        'certificates.k8s.io',
        'signers',
        'kubernetes.io/kube-apiserver-client,kubernetes.io/kube-apiserver-client-kubelet,kubernetes.io/kubelet-serving,kubernetes.io/legacy-unknown',
      ),
      r('create', 'authorization.k8s.io', 'subjectaccessreviews'),
      events,
    ],
  },
  {
    name: 'clusterrole-aggregation-controller',
    rules: [r('escalate,get,list,patch,update,watch', 'rbac.authorization.k8s.io', 'clusterroles')],
  },
  {
    name: 'cronjob-controller',
    rules: [
      r('get,list,update,watch', 'batch', 'cronjobs'),
      r('create,delete,get,list,patch,update,watch', 'batch', 'jobs'),
      r('update', 'batch', 'cronjobs/status'),
      r('update', 'batch', 'cronjobs/finalizers'),
      r('delete,list,watch', '', 'pods'),
      events,
    ],
  },
  {
    name: 'daemon-set-controller',
    rules: [
      r(READ, 'apps,extensions', 'daemonsets'),
      r('update', 'apps,extensions', 'daemonsets/status'),
      r('update', 'apps,extensions', 'daemonsets/finalizers'),
      r('list,watch', '', 'nodes'),
      r('create,delete,list,patch,watch', '', 'pods'),
      r('create', '', 'pods/binding'),
      r('create,delete,get,list,patch,update,watch', 'apps', 'controllerrevisions'),
      events,
    ],
  },
  {
    name: 'deployment-controller',
    rules: [
      r('get,list,update,watch', 'apps,extensions', 'deployments'),
      r('update', 'apps,extensions', 'deployments/status'),
      r('update', 'apps,extensions', 'deployments/finalizers'),
      r('create,delete,get,list,patch,update,watch', 'apps,extensions', 'replicasets'),
      r('get,list,update,watch', '', 'pods'),
      events,
    ],
  },
  {
    name: 'disruption-controller',
    rules: [
      r(READ, 'apps,extensions', 'deployments'),
      r(READ, 'apps,extensions', 'replicasets'),
      r(READ, '', 'replicationcontrollers'),
      r(READ, 'policy', 'poddisruptionbudgets'),
      r(READ, 'apps', 'statefulsets'),
      r('update', 'policy', 'poddisruptionbudgets/status'),
      r('patch,update', '', 'pods/status'),
      r('get', '*', '*/scale'),
      events,
    ],
  },
  {
    name: 'endpoint-controller',
    rules: [
      r(READ, '', 'pods,services'),
      r('create,delete,get,list,update,watch', '', 'endpoints'),
      r('create', '', 'endpoints/restricted'),
      events,
    ],
  },
  {
    name: 'endpointslice-controller',
    rules: [
      r(READ, '', 'nodes,pods,services'),
      r('update', '', 'services/finalizers'),
      r('create,delete,get,list,update,watch', 'discovery.k8s.io', 'endpointslices'),
      events,
    ],
  },
  {
    name: 'endpointslicemirroring-controller',
    rules: [
      r(READ, '', 'endpoints,services'),
      r('update', '', 'services/finalizers'),
      r('update', '', 'endpoints/finalizers'),
      r('create,delete,get,list,update,watch', 'discovery.k8s.io', 'endpointslices'),
      events,
    ],
  },
  {
    name: 'ephemeral-volume-controller',
    rules: [
      r(READ, '', 'pods'),
      r('update', '', 'pods/finalizers'),
      r('create,get,list,watch', '', 'persistentvolumeclaims'),
      events,
    ],
  },
  {
    name: 'expand-controller',
    rules: [
      r('get,list,patch,update,watch', '', 'persistentvolumes'),
      r('patch,update', '', 'persistentvolumeclaims/status'),
      r(READ, '', 'persistentvolumeclaims'),
      events,
    ],
  },
  {
    name: 'generic-garbage-collector',
    rules: [r('delete,get,list,patch,update,watch', '*', '*'), events],
  },
  {
    name: 'horizontal-pod-autoscaler',
    rules: [
      r(READ, 'autoscaling', 'horizontalpodautoscalers'),
      r('update', 'autoscaling', 'horizontalpodautoscalers/status'),
      r('get,update', '*', '*/scale'),
      r('list,watch', '', 'pods'),
      r('list,watch', 'metrics.k8s.io', 'pods'),
      r(READ, 'custom.metrics.k8s.io', '*'),
      r(READ, 'external.metrics.k8s.io', '*'),
      events,
    ],
  },
  {
    name: 'job-controller',
    rules: [
      r('get,list,patch,update,watch', 'batch', 'jobs'),
      r('update', 'batch', 'jobs/status'),
      r('update', 'batch', 'jobs/finalizers'),
      r('create,delete,list,patch,watch', '', 'pods'),
      events,
    ],
  },
  {
    name: 'legacy-service-account-token-cleaner',
    rules: [
      r('get', '', 'configmaps', 'kube-apiserver-legacy-service-account-token-tracking'),
      r('delete,patch', '', 'secrets'),
    ],
  },
  {
    name: 'namespace-controller',
    rules: [
      r('delete,get,list,watch', '', 'namespaces'),
      r('update', '', 'namespaces/finalize,namespaces/status'),
      r('delete,deletecollection,get,list,watch', '*', '*'),
    ],
  },
  {
    name: 'node-controller',
    rules: [
      r('delete,get,list,patch,update,watch', '', 'nodes'),
      r('patch,update', '', 'nodes/status'),
      r('patch,update', '', 'pods/status'),
      r('delete,get,list,watch', '', 'pods'),
      events,
    ],
  },
  {
    name: 'persistent-volume-binder',
    rules: [
      r('create,delete,get,list,update,watch', '', 'persistentvolumes'),
      r('update', '', 'persistentvolumes/status'),
      r('get,list,update,watch', '', 'persistentvolumeclaims'),
      r('update', '', 'persistentvolumeclaims/status'),
      r('create,delete,get,list,watch', '', 'pods'),
      r(READ, 'storage.k8s.io', 'storageclasses'),
      r('list,watch', '', 'nodes'),
      events,
      r('watch', '', 'events'),
    ],
  },
  {
    name: 'pod-garbage-collector',
    rules: [r('delete,list,watch', '', 'pods'), r(READ, '', 'nodes'), r('patch', '', 'pods/status')],
  },
  {
    name: 'pv-protection-controller',
    rules: [r('get,list,update,watch', '', 'persistentvolumes'), events],
  },
  {
    name: 'pvc-protection-controller',
    rules: [
      r('get,list,update,watch', '', 'persistentvolumeclaims'),
      r('update', '', 'persistentvolumeclaims/status'),
      r(READ, '', 'pods'),
      events,
    ],
  },
  {
    name: 'replicaset-controller',
    rules: [
      r('get,list,update,watch', 'apps,extensions', 'replicasets'),
      r('update', 'apps,extensions', 'replicasets/status'),
      r('update', 'apps,extensions', 'replicasets/finalizers'),
      r('create,delete,list,patch,watch', '', 'pods'),
      events,
    ],
  },
  {
    name: 'replication-controller',
    rules: [
      r('get,list,update,watch', '', 'replicationcontrollers'),
      r('update', '', 'replicationcontrollers/status'),
      r('update', '', 'replicationcontrollers/finalizers'),
      r('create,delete,list,patch,watch', '', 'pods'),
      events,
    ],
  },
  {
    name: 'resourcequota-controller',
    rules: [r('list,watch', '*', '*'), r('update', '', 'resourcequotas/status'), events],
  },
  {
    name: 'root-ca-cert-publisher',
    rules: [r('create,update', '', 'configmaps'), events],
  },
  {
    name: 'route-controller',
    rules: [r('list,watch', '', 'nodes'), r('patch', '', 'nodes/status'), events],
  },
  {
    name: 'selinux-warning-controller',
    rules: [
      events,
      r(READ, '', 'persistentvolumes'),
      r(READ, '', 'persistentvolumeclaims'),
      r(READ, '', 'pods'),
      r(READ, 'storage.k8s.io', 'csidrivers'),
    ],
  },
  {
    name: 'service-account-controller',
    rules: [r('create', '', 'serviceaccounts'), events],
  },
  {
    name: 'service-cidrs-controller',
    rules: [
      r('get,list,patch,update,watch', 'networking.k8s.io', 'servicecidrs'),
      r('patch,update', 'networking.k8s.io', 'servicecidrs/finalizers'),
      r('patch,update', 'networking.k8s.io', 'servicecidrs/status'),
      r(READ, 'networking.k8s.io', 'ipaddresses'),
      events,
    ],
  },
  {
    name: 'service-controller',
    rules: [r(READ, '', 'services'), r('patch,update', '', 'services/status'), r('list,watch', '', 'nodes'), events],
  },
  {
    name: 'statefulset-controller',
    rules: [
      r('list,watch', '', 'pods'),
      r(READ, 'apps', 'statefulsets'),
      r('update', 'apps', 'statefulsets/status'),
      r('update', 'apps', 'statefulsets/finalizers'),
      r('create,delete,get,patch,update', '', 'pods'),
      r('create,delete,get,list,patch,update,watch', 'apps', 'controllerrevisions'),
      r('create,get,list,watch', '', 'persistentvolumeclaims'),
      r('delete,update', '', 'persistentvolumeclaims'),
      r('update', '', 'pods/finalizers'),
      events,
    ],
  },
  {
    name: 'ttl-after-finished-controller',
    rules: [r('delete,get,list,watch', 'batch', 'jobs'), events],
  },
  {
    name: 'ttl-controller',
    rules: [r('list,patch,update,watch', '', 'nodes'), events],
  },
  {
    name: 'validatingadmissionpolicy-status-controller',
    rules: [
      r(READ, 'admissionregistration.k8s.io', 'validatingadmissionpolicies'),
      r('get,patch,update', 'admissionregistration.k8s.io', 'validatingadmissionpolicies/status'),
      events,
    ],
  },
];

export type SubjectSpec =
  | { kind: 'User' | 'Group'; name: string }
  | { kind: 'ServiceAccount'; name: string; namespace: string };

const user = (name: string): SubjectSpec => ({ kind: 'User', name });
const group = (name: string): SubjectSpec => ({ kind: 'Group', name });
const sa = (namespace: string, name: string): SubjectSpec => ({ kind: 'ServiceAccount', name, namespace });

/** ClusterRoleBindings (each named after its ClusterRole), besides the controllers'. */
export const CLUSTER_ROLE_BINDINGS: { name: string; subjects: SubjectSpec[] }[] = [
  { name: 'cluster-admin', subjects: [group('system:masters')] },
  { name: 'system:basic-user', subjects: [group('system:authenticated')] },
  { name: 'system:discovery', subjects: [group('system:authenticated')] },
  { name: 'system:kube-controller-manager', subjects: [user('system:kube-controller-manager')] },
  { name: 'system:kube-dns', subjects: [sa('kube-system', 'kube-dns')] },
  { name: 'system:kube-scheduler', subjects: [user('system:kube-scheduler')] },
  { name: 'system:monitoring', subjects: [group('system:monitoring')] },
  // Kept without subjects since the Node authorizer took over, as upstream.
  { name: 'system:node', subjects: [] },
  { name: 'system:node-proxier', subjects: [user('system:kube-proxy')] },
  { name: 'system:public-info-viewer', subjects: [group('system:authenticated'), group('system:unauthenticated')] },
  { name: 'system:service-account-issuer-discovery', subjects: [group('system:serviceaccounts')] },
  { name: 'system:volume-scheduler', subjects: [user('system:kube-scheduler')] },
];

const LEADER_LOCKING = [
  r('create,get,list,update,watch', 'coordination.k8s.io', 'leases'),
  r('create,get,list,update,watch', 'coordination.k8s.io', 'leasecandidates'),
];

/** Roles in kube-system and kube-public. */
export const NAMESPACE_ROLES: { namespace: string; name: string; rules: PolicyRule[] }[] = [
  {
    namespace: 'kube-public',
    name: 'system:controller:bootstrap-signer',
    rules: [r(READ, '', 'configmaps'), r('update', '', 'configmaps', 'cluster-info'), events],
  },
  {
    namespace: 'kube-system',
    name: 'extension-apiserver-authentication-reader',
    rules: [r(READ, '', 'configmaps', 'extension-apiserver-authentication')],
  },
  { namespace: 'kube-system', name: 'system::leader-locking-kube-controller-manager', rules: LEADER_LOCKING },
  { namespace: 'kube-system', name: 'system::leader-locking-kube-scheduler', rules: LEADER_LOCKING },
  { namespace: 'kube-system', name: 'system:controller:bootstrap-signer', rules: [r(READ, '', 'secrets')] },
  {
    namespace: 'kube-system',
    name: 'system:controller:cloud-provider',
    rules: [r('create,get,list,watch', '', 'configmaps')],
  },
  {
    namespace: 'kube-system',
    name: 'system:controller:token-cleaner',
    rules: [r('delete,get,list,watch', '', 'secrets'), events],
  },
];

/** RoleBindings in kube-system and kube-public, each to a Role of its namespace. */
export const NAMESPACE_ROLE_BINDINGS: { namespace: string; name: string; role: string; subjects: SubjectSpec[] }[] = [
  {
    namespace: 'kube-public',
    name: 'system:controller:bootstrap-signer',
    role: 'system:controller:bootstrap-signer',
    subjects: [sa('kube-system', 'bootstrap-signer')],
  },
  {
    namespace: 'kube-system',
    name: 'system::extension-apiserver-authentication-reader',
    role: 'extension-apiserver-authentication-reader',
    subjects: [user('system:kube-controller-manager'), user('system:kube-scheduler')],
  },
  {
    namespace: 'kube-system',
    name: 'system::leader-locking-kube-controller-manager',
    role: 'system::leader-locking-kube-controller-manager',
    subjects: [
      user('system:kube-controller-manager'),
      sa('kube-system', 'kube-controller-manager'),
      sa('kube-system', 'leader-election-controller'),
    ],
  },
  {
    namespace: 'kube-system',
    name: 'system::leader-locking-kube-scheduler',
    role: 'system::leader-locking-kube-scheduler',
    subjects: [user('system:kube-scheduler'), sa('kube-system', 'kube-scheduler')],
  },
  {
    namespace: 'kube-system',
    name: 'system:controller:bootstrap-signer',
    role: 'system:controller:bootstrap-signer',
    subjects: [sa('kube-system', 'bootstrap-signer')],
  },
  {
    namespace: 'kube-system',
    name: 'system:controller:cloud-provider',
    role: 'system:controller:cloud-provider',
    subjects: [sa('kube-system', 'cloud-provider')],
  },
  {
    namespace: 'kube-system',
    name: 'system:controller:token-cleaner',
    role: 'system:controller:token-cleaner',
    subjects: [sa('kube-system', 'token-cleaner')],
  },
];
