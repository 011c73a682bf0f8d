/**
 * Facts about the built-in resources that the OpenAPI document does not carry, as a v1.33
 * kube-apiserver reports them in discovery (`kubectl api-resources`) and lays them out in storage.
 * Checked against upstream's committed discovery documents (api/discovery/*.json), the REST storage
 * of each resource (ShortNames, Categories) and the etcd storage-path integration test data.
 *
 * - shortNames and categories: what discovery lists; absent means none.
 * - storagePrefix: the key prefix under /registry. Most are the resource name; upstream keeps a few
 *   historical names (nodes → minions, services → services/specs, endpoints → services/endpoints,
 *   replicationcontrollers → controllers, ingresses → ingress). APIServices and
 *   CustomResourceDefinitions are stored by their own servers under a group segment. Both Event
 *   groups share one prefix. Absent means the resource is not persisted (reviews, bindings,
 *   componentstatuses).
 * - singularName: discovery's singular name; absent means the kind in lower case, which holds for
 *   every built-in resource in v1.33.
 */
export interface ResourceFacts {
  readonly shortNames?: readonly string[];
  readonly categories?: readonly string[];
  readonly storagePrefix?: string;
  readonly singularName?: string;
}

const ALL = ['all'] as const;
const API_EXTENSIONS = ['api-extensions'] as const;

/** Facts per API group (core is ''), then per resource name. Same for every version of a group. */
export const RESOURCE_FACTS: Readonly<Record<string, Readonly<Record<string, ResourceFacts>>>> = {
  '': {
    bindings: {},
    componentstatuses: { shortNames: ['cs'] },
    configmaps: { shortNames: ['cm'], storagePrefix: 'configmaps' },
    endpoints: { shortNames: ['ep'], storagePrefix: 'services/endpoints' },
    events: { shortNames: ['ev'], storagePrefix: 'events' },
    limitranges: { shortNames: ['limits'], storagePrefix: 'limitranges' },
    namespaces: { shortNames: ['ns'], storagePrefix: 'namespaces' },
    nodes: { shortNames: ['no'], storagePrefix: 'minions' },
    persistentvolumeclaims: { shortNames: ['pvc'], storagePrefix: 'persistentvolumeclaims' },
    persistentvolumes: { shortNames: ['pv'], storagePrefix: 'persistentvolumes' },
    pods: { shortNames: ['po'], categories: ALL, storagePrefix: 'pods' },
    podtemplates: { storagePrefix: 'podtemplates' },
    replicationcontrollers: { shortNames: ['rc'], categories: ALL, storagePrefix: 'controllers' },
    resourcequotas: { shortNames: ['quota'], storagePrefix: 'resourcequotas' },
    secrets: { storagePrefix: 'secrets' },
    serviceaccounts: { shortNames: ['sa'], storagePrefix: 'serviceaccounts' },
    services: { shortNames: ['svc'], categories: ALL, storagePrefix: 'services/specs' },
  },
  'apiregistration.k8s.io': {
    apiservices: { categories: API_EXTENSIONS, storagePrefix: 'apiregistration.k8s.io/apiservices' },
  },
  apps: {
    controllerrevisions: { storagePrefix: 'controllerrevisions' },
    daemonsets: { shortNames: ['ds'], categories: ALL, storagePrefix: 'daemonsets' },
    deployments: { shortNames: ['deploy'], categories: ALL, storagePrefix: 'deployments' },
    replicasets: { shortNames: ['rs'], categories: ALL, storagePrefix: 'replicasets' },
    statefulsets: { shortNames: ['sts'], categories: ALL, storagePrefix: 'statefulsets' },
  },
  'events.k8s.io': {
    events: { shortNames: ['ev'], storagePrefix: 'events' },
  },
  'authentication.k8s.io': {
    selfsubjectreviews: {},
    tokenreviews: {},
  },
  'authorization.k8s.io': {
    localsubjectaccessreviews: {},
    selfsubjectaccessreviews: {},
    selfsubjectrulesreviews: {},
    subjectaccessreviews: {},
  },
  autoscaling: {
    horizontalpodautoscalers: { shortNames: ['hpa'], categories: ALL, storagePrefix: 'horizontalpodautoscalers' },
  },
  batch: {
    cronjobs: { shortNames: ['cj'], categories: ALL, storagePrefix: 'cronjobs' },
    jobs: { categories: ALL, storagePrefix: 'jobs' },
  },
  'certificates.k8s.io': {
    certificatesigningrequests: { shortNames: ['csr'], storagePrefix: 'certificatesigningrequests' },
  },
  'networking.k8s.io': {
    ingressclasses: { storagePrefix: 'ingressclasses' },
    ingresses: { shortNames: ['ing'], storagePrefix: 'ingress' },
    ipaddresses: { shortNames: ['ip'], storagePrefix: 'ipaddresses' },
    networkpolicies: { shortNames: ['netpol'], storagePrefix: 'networkpolicies' },
    servicecidrs: { storagePrefix: 'servicecidrs' },
  },
  policy: {
    poddisruptionbudgets: { shortNames: ['pdb'], storagePrefix: 'poddisruptionbudgets' },
  },
  'rbac.authorization.k8s.io': {
    clusterrolebindings: { storagePrefix: 'clusterrolebindings' },
    clusterroles: { storagePrefix: 'clusterroles' },
    rolebindings: { storagePrefix: 'rolebindings' },
    roles: { storagePrefix: 'roles' },
  },
  'storage.k8s.io': {
    csidrivers: { storagePrefix: 'csidrivers' },
    csinodes: { storagePrefix: 'csinodes' },
    csistoragecapacities: { storagePrefix: 'csistoragecapacities' },
    storageclasses: { shortNames: ['sc'], storagePrefix: 'storageclasses' },
    volumeattachments: { storagePrefix: 'volumeattachments' },
  },
  'admissionregistration.k8s.io': {
    mutatingwebhookconfigurations: { categories: API_EXTENSIONS, storagePrefix: 'mutatingwebhookconfigurations' },
    validatingadmissionpolicies: { categories: API_EXTENSIONS, storagePrefix: 'validatingadmissionpolicies' },
    validatingadmissionpolicybindings: {
      categories: API_EXTENSIONS,
      storagePrefix: 'validatingadmissionpolicybindings',
    },
    validatingwebhookconfigurations: { categories: API_EXTENSIONS, storagePrefix: 'validatingwebhookconfigurations' },
  },
  'apiextensions.k8s.io': {
    customresourcedefinitions: {
      shortNames: ['crd', 'crds'],
      categories: API_EXTENSIONS,
      storagePrefix: 'apiextensions.k8s.io/customresourcedefinitions',
    },
  },
  'scheduling.k8s.io': {
    priorityclasses: { shortNames: ['pc'], storagePrefix: 'priorityclasses' },
  },
  'coordination.k8s.io': {
    leases: { storagePrefix: 'leases' },
  },
  'node.k8s.io': {
    runtimeclasses: { storagePrefix: 'runtimeclasses' },
  },
  'discovery.k8s.io': {
    endpointslices: { storagePrefix: 'endpointslices' },
  },
  'flowcontrol.apiserver.k8s.io': {
    flowschemas: { storagePrefix: 'flowschemas' },
    prioritylevelconfigurations: { storagePrefix: 'prioritylevelconfigurations' },
  },
};

/** The facts for one resource, or undefined when the table does not know it. */
export function resourceFacts(group: string, resource: string): ResourceFacts | undefined {
  const byResource = Object.hasOwn(RESOURCE_FACTS, group) ? RESOURCE_FACTS[group] : undefined;
  return byResource !== undefined && Object.hasOwn(byResource, resource) ? byResource[resource] : undefined;
}
