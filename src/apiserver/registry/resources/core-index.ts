import type { Builtin } from './common.js';
import { endpoints } from './core-endpoints.js';
import { limitranges } from './core-limitranges.js';
import { nodes } from './core-nodes.js';
import { persistentvolumeclaims } from './core-persistentvolumeclaims.js';
import { persistentvolumes } from './core-persistentvolumes.js';
import { bindPod, validateBinding } from './core-pod-binding.js';
import { pods } from './core-pods.js';
import { podtemplates } from './core-podtemplates.js';
import { replicationcontrollers } from './core-replicationcontrollers.js';
import { resourcequotas } from './core-resourcequotas.js';
import type { ServiceAllocationOptions } from './core-service-allocation.js';
import { services } from './core-services.js';

/**
 * The core/v1 resources beyond namespaces, configmaps, secrets, serviceaccounts and events. Each call builds fresh
 * resources: Services carry ClusterIP and node-port allocators, and every registry (control plane) needs its own.
 */
export function coreResources(options: ServiceAllocationOptions = {}): Builtin[] {
  const pod = pods();
  pod.def.binding = { validate: validateBinding, bind: bindPod };
  return [
    pod,
    services(options),
    endpoints(),
    nodes(),
    limitranges(),
    resourcequotas(),
    podtemplates(),
    replicationcontrollers(),
    persistentvolumes(),
    persistentvolumeclaims(),
  ];
}
