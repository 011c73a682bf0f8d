import { hpaV1, hpaV2 } from './autoscaling.js';
import type { Builtin } from './common.js';
import { configmaps, namespaces, secrets, serviceaccounts } from './core-config.js';
import { coreResources } from './core-index.js';
import type { ServiceAllocationOptions } from './core-service-allocation.js';
import { events, eventsV1 } from './events.js';
import { appsAndOtherGroupResources } from './groups-index.js';

/** Every built-in resource this server serves. */
export function builtinResources(options: ServiceAllocationOptions = {}): Builtin[] {
  return [
    namespaces,
    configmaps,
    secrets,
    serviceaccounts,
    events,
    eventsV1,
    hpaV2,
    hpaV1,
    ...coreResources(options),
    ...appsAndOtherGroupResources(),
  ];
}
