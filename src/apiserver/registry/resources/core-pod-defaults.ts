/**
 * Pod defaulting as upstream's SetObjectDefaults_Pod does it: the pod-only defaults of SetDefaults_Pod (requests
 * copied from limits, enableServiceLinks, host ports under hostNetwork), then the PodSpec defaults every pod
 * template gets too (shared with the workload resources), then resource quantities in canonical form. The pre-1.8
 * init-container annotations go too, as upstream's v1 conversion drops them.
 */
import type { KubeObject } from '../object.js';
import { defaultPodSpec, dropInitContainerAnnotations } from './apps-pod-template-defaults.js';
import { child, type Rec, recs } from './core-json.js';
import { defaultPodSpecQuantities } from './core-resource-lists.js';

/** Containers that set limits but not requests get requests equal to their limits. */
function requestsFromLimits(containers: Rec[]): void {
  for (const c of containers) {
    const resources = c.resources;
    if (!resources || typeof resources !== 'object') continue;
    const r = resources as Rec;
    if (!r.limits || typeof r.limits !== 'object') continue;
    const requests = child(r, 'requests');
    for (const [name, value] of Object.entries(r.limits as Rec)) if (!(name in requests)) requests[name] = value;
  }
}

/** Under hostNetwork every container port is a host port. */
function hostNetworkPorts(containers: Rec[]): void {
  for (const c of containers) {
    for (const port of recs(c.ports)) {
      if (port.hostPort === undefined || port.hostPort === null || port.hostPort === 0)
        port.hostPort = port.containerPort;
    }
  }
}

export function defaultPod(pod: KubeObject): void {
  dropInitContainerAnnotations(pod.metadata);
  const spec = child(pod, 'spec');
  const containers = recs(spec.containers);
  const initContainers = recs(spec.initContainers);
  requestsFromLimits(containers);
  requestsFromLimits(initContainers);
  if (spec.enableServiceLinks === undefined || spec.enableServiceLinks === null) spec.enableServiceLinks = true;
  if (spec.hostNetwork === true) {
    hostNetworkPorts(containers);
    hostNetworkPorts(initContainers);
  }
  defaultPodSpec(spec);
  defaultPodSpecQuantities(spec, 'Pod');
}
