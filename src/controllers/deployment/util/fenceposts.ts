/**
 * maxSurge and maxUnavailable of a rolling update, resolved against spec.replicas as upstream does: percentages
 * of the surge round up, of the unavailable budget down, and when both come out 0 one pod may be unavailable
 * (so that a rollout can still move when surge is impossible).
 */
import { type Deployment, type IntOrString, replicasOf } from './types.js';

/** intstr.GetScaledValueFromIntOrPercent: an int as is, "N%" of total rounded up or down. */
export function valueFromIntOrPercent(value: IntOrString | undefined, total: number, roundUp: boolean): number {
  if (value === undefined) return 0;
  if (typeof value === 'number') return value;
  const m = /^(-?\d+)%$/.exec(value);
  if (!m) throw new Error(`invalid value for IntOrString: invalid type: string is not a percentage`);
  const scaled = (Number(m[1]) * total) / 100;
  return roundUp ? Math.ceil(scaled) : Math.floor(scaled);
}

/** ResolveFenceposts: [surge, unavailable] for `desired` replicas. */
export function resolveFenceposts(
  maxSurge: IntOrString | undefined,
  maxUnavailable: IntOrString | undefined,
  desired: number,
): [surge: number, unavailable: number] {
  const surge = valueFromIntOrPercent(maxSurge ?? 0, desired, true);
  let unavailable = valueFromIntOrPercent(maxUnavailable ?? 0, desired, false);
  if (surge === 0 && unavailable === 0) unavailable = 1;
  return [surge, unavailable];
}

export function isRollingUpdate(d: Deployment): boolean {
  return d.spec.strategy?.type === 'RollingUpdate';
}

/** The pods a rolling update may run above spec.replicas (0 for Recreate). */
export function maxSurge(d: Deployment): number {
  if (!isRollingUpdate(d)) return 0;
  const ru = d.spec.strategy?.rollingUpdate;
  return resolveFenceposts(ru?.maxSurge, ru?.maxUnavailable, replicasOf(d))[0];
}

/** The pods a rolling update may have unavailable (0 for Recreate or 0 replicas; never above spec.replicas). */
export function maxUnavailable(d: Deployment): number {
  const replicas = replicasOf(d);
  if (!isRollingUpdate(d) || replicas === 0) return 0;
  const ru = d.spec.strategy?.rollingUpdate;
  const unavailable = resolveFenceposts(ru?.maxSurge, ru?.maxUnavailable, replicas)[1];
  return Math.min(unavailable, replicas);
}

/** MinAvailable: spec.replicas - maxUnavailable for a rolling update, 0 otherwise. */
export function minAvailable(d: Deployment): number {
  return isRollingUpdate(d) ? replicasOf(d) - maxUnavailable(d) : 0;
}
