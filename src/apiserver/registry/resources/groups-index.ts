import { customresourcedefinitions } from '../../crd/crd-resource.js';
import { validatingadmissionpolicies, validatingadmissionpolicybindings } from './admissionregistration-policies.js';
import { mutatingwebhookconfigurations, validatingwebhookconfigurations } from './admissionregistration-webhooks.js';
import { apiservices } from './apiregistration-apiservices.js';
import { controllerrevisions } from './apps-controllerrevisions.js';
import { daemonsets } from './apps-daemonsets.js';
import { deployments } from './apps-deployments.js';
import { replicasets } from './apps-replicasets.js';
import { statefulsets } from './apps-statefulsets.js';
import { cronjobs } from './batch-cronjobs.js';
import { jobs } from './batch-jobs.js';
import { certificatesigningrequests } from './certificates-csr.js';
import type { Builtin } from './common.js';
import { leases } from './coordination-leases.js';
import { endpointslices } from './discovery-endpointslices.js';
import { ingressclasses } from './networking-ingressclasses.js';
import { ingresses } from './networking-ingresses.js';
import { networkpolicies } from './networking-networkpolicies.js';
import { ipaddresses, servicecidrs } from './networking-servicecidrs.js';
import { runtimeclasses } from './node-runtimeclasses.js';
import { poddisruptionbudgets } from './policy-poddisruptionbudgets.js';
import { clusterrolebindings, rolebindings } from './rbac-bindings.js';
import { clusterroles, roles } from './rbac-roles.js';
import { priorityclasses } from './scheduling-priorityclasses.js';
import { csidrivers } from './storage-csidrivers.js';
import { csinodes } from './storage-csinodes.js';
import { csistoragecapacities } from './storage-csistoragecapacities.js';
import { storageclasses } from './storage-storageclasses.js';
import { volumeattachments } from './storage-volumeattachments.js';

export { kubernetesServiceCIDR } from './networking-servicecidrs.js';
export { SYSTEM_PRIORITY_CLASS_NAMES, systemPriorityClasses } from './scheduling-priorityclasses.js';

/** The built-in resources of the named API groups (apps, batch, networking.k8s.io, …). */
export function appsAndOtherGroupResources(): Builtin[] {
  return [
    deployments,
    replicasets,
    statefulsets,
    daemonsets,
    controllerrevisions,
    jobs,
    cronjobs,
    leases,
    endpointslices,
    poddisruptionbudgets,
    priorityclasses,
    ingresses,
    ingressclasses,
    networkpolicies,
    runtimeclasses,
    servicecidrs,
    ipaddresses,
    storageclasses,
    volumeattachments,
    csidrivers,
    csinodes,
    csistoragecapacities,
    certificatesigningrequests,
    roles,
    rolebindings,
    clusterroles,
    clusterrolebindings,
    mutatingwebhookconfigurations,
    validatingwebhookconfigurations,
    validatingadmissionpolicies,
    validatingadmissionpolicybindings,
    customresourcedefinitions,
    apiservices,
  ];
}
