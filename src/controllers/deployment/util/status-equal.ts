/**
 * Whether two Deployment statuses are the same (upstream compares them with reflect.DeepEqual before writing):
 * counts absent from the JSON are 0, as in the Go struct.
 */
import { semanticEqual } from '../../../api/semantic-equal.js';
import type { DeploymentStatus } from './types.js';

/** The counts of a DeploymentStatus (all omitempty in upstream's type: absent means 0). */
export const COUNTS = [
  'observedGeneration',
  'replicas',
  'updatedReplicas',
  'readyReplicas',
  'availableReplicas',
  'unavailableReplicas',
] as const;

export function statusEqual(a: DeploymentStatus | undefined, b: DeploymentStatus | undefined): boolean {
  for (const k of COUNTS) if ((a?.[k] ?? 0) !== (b?.[k] ?? 0)) return false;
  if ((a?.collisionCount ?? null) !== (b?.collisionCount ?? null)) return false;
  return semanticEqual(a?.conditions ?? [], b?.conditions ?? []);
}
