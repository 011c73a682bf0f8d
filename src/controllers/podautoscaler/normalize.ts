/**
 * What upstream's HPA controller does with a metric-based recommendation before it scales (normalizeDesiredReplicas
 * and normalizeDesiredReplicasWithBehaviors): it remembers each HPA's recent recommendations and scale changes, in
 * memory, and
 * - without spec.behavior: takes the highest recommendation of the downscale stabilization window
 *   (--horizontal-pod-autoscaler-downscale-stabilization, 5m), then bounds it by minReplicas, maxReplicas and the
 *   scale-up limit max(2 × current, 4);
 * - with spec.behavior: stabilizes within each direction's window (scale-down's defaulting to the flag's value),
 *   then bounds the change by the direction's policies (Pods / Percent per period, selectPolicy Max, Min or
 *   Disabled) over the changes made within their periods.
 * Each step's outcome is the AbleToScale and ScalingLimited conditions' reason and message.
 */
import { rec, recs } from '../../api/json-readers.js';

interface Timestamped {
  value: number;
  at: number;
  outdated?: boolean;
}

export interface ConditionUpdate {
  type: 'AbleToScale' | 'ScalingLimited';
  status: 'True' | 'False';
  reason: string;
  message: string;
}

export interface Normalized {
  replicas: number;
  conditions: ConditionUpdate[];
}

const INT32_MAX = 2 ** 31 - 1;
const INT32_MIN = -(2 ** 31);

/** A scaling direction's rules with upstream's defaults filled in (GenerateHPAScaleUp/DownRules). */
interface Rules {
  windowSeconds: number;
  selectPolicy: string;
  policies: { type: string; value: number; periodSeconds: number }[];
}

function rulesOf(raw: unknown, up: boolean, downscaleWindowSeconds: number): Rules {
  const r = rec(raw);
  const policies = recs(r.policies).map((p) => ({
    type: String(p.type ?? ''),
    value: Number(p.value ?? 0),
    periodSeconds: Number(p.periodSeconds ?? 0),
  }));
  return {
    windowSeconds:
      typeof r.stabilizationWindowSeconds === 'number' ? r.stabilizationWindowSeconds : up ? 0 : downscaleWindowSeconds,
    selectPolicy: typeof r.selectPolicy === 'string' ? r.selectPolicy : 'Max',
    policies:
      policies.length > 0
        ? policies
        : up
          ? [
              { type: 'Pods', value: 4, periodSeconds: 15 },
              { type: 'Percent', value: 100, periodSeconds: 15 },
            ]
          : [{ type: 'Percent', value: 100, periodSeconds: 15 }],
  };
}

/** Replicas added (or removed) within the last period, by the changes remembered. */
function changedWithin(periodSeconds: number, events: readonly Timestamped[], now: number): number {
  const cutoff = now - periodSeconds * 1000;
  return events.filter((e) => e.at > cutoff).reduce((sum, e) => sum + e.value, 0);
}

/**
 * The furthest the policies let the count go from current in one direction (calculateScaleUpLimitWithScalingRules
 * and calculateScaleDownLimitWithBehaviors): each policy's step from the count at the start of its period, the
 * largest change taken for selectPolicy Max, the smallest for Min; Disabled allows none.
 */
function policyLimit(
  up: boolean,
  current: number,
  ups: readonly Timestamped[],
  downs: readonly Timestamped[],
  rules: Rules,
  now: number,
): number {
  if (rules.selectPolicy === 'Disabled') return current;
  // The lowest count is the smallest change up and the largest change down.
  const lowest = (rules.selectPolicy === 'Min') === up;
  let result = lowest ? INT32_MAX : INT32_MIN;
  for (const p of rules.policies) {
    const start = current - changedWithin(p.periodSeconds, ups, now) + changedWithin(p.periodSeconds, downs, now);
    let proposed: number;
    if (up) proposed = p.type === 'Pods' ? start + p.value : Math.ceil(start * (1 + p.value / 100));
    else proposed = p.type === 'Pods' ? start - p.value : Math.trunc(start * (1 - p.value / 100));
    result = lowest ? Math.min(result, proposed) : Math.max(result, proposed);
  }
  return result;
}

function limited(replicas: number, desired: number, reason: string, message: string): ConditionUpdate {
  return { type: 'ScalingLimited', status: replicas === desired ? 'False' : 'True', reason, message };
}

const READY: ConditionUpdate = {
  type: 'AbleToScale',
  status: 'True',
  reason: 'ReadyForNewScale',
  message: 'recommended size matches current size',
};

export class ScaleHistory {
  private readonly recommendations = new Map<string, Timestamped[]>();
  private readonly ups = new Map<string, Timestamped[]>();
  private readonly downs = new Map<string, Timestamped[]>();

  constructor(private readonly downscaleWindowMs: number) {}

  /** recordInitialRecommendation: the current count, the first time an HPA is seen. */
  recordInitial(key: string, current: number, now: number): void {
    if (!this.recommendations.has(key)) this.recommendations.set(key, [{ value: current, at: now }]);
  }

  forget(key: string): void {
    this.recommendations.delete(key);
    this.ups.delete(key);
    this.downs.delete(key);
  }

  /** Replaces the first old entry of the list (or appends), as upstream reuses slots. */
  private record(list: Timestamped[], entry: Timestamped, old: (e: Timestamped) => boolean): void {
    let index = -1;
    list.forEach((e, i) => {
      if (old(e)) index = i;
    });
    if (index >= 0) list[index] = entry;
    else list.push(entry);
  }

  /** normalizeDesiredReplicas (spec.behavior unset). */
  normalize(key: string, current: number, desired: number, min: number, max: number, now: number): Normalized {
    const list = this.recommendations.get(key) ?? [];
    this.recommendations.set(key, list);
    const cutoff = now - this.downscaleWindowMs;
    let stabilized = desired;
    for (const r of list) if (r.at >= cutoff && r.value > stabilized) stabilized = r.value;
    this.record(list, { value: desired, at: now }, (r) => r.at < cutoff);
    const able: ConditionUpdate =
      stabilized !== desired
        ? {
            type: 'AbleToScale',
            status: 'True',
            reason: 'ScaleDownStabilized',
            message: 'recent recommendations were higher than current one, applying the highest recent recommendation',
          }
        : READY;
    // convertDesiredReplicasWithRules
    const upLimit = Math.max(2 * current, 4);
    let reason: string;
    let message: string;
    let top: number;
    if (max > upLimit) {
      top = upLimit;
      reason = 'ScaleUpLimit';
      message = 'the desired replica count is increasing faster than the maximum scale rate';
    } else {
      top = max;
      reason = 'TooManyReplicas';
      message = 'the desired replica count is more than the maximum replica count';
    }
    let replicas = stabilized;
    if (stabilized < min) {
      replicas = min;
      reason = 'TooFewReplicas';
      message = 'the desired replica count is less than the minimum replica count';
    } else if (stabilized > top) replicas = top;
    else {
      reason = 'DesiredWithinRange';
      message = 'the desired count is within the acceptable range';
    }
    return { replicas, conditions: [able, limited(replicas, stabilized, reason, message)] };
  }

  /** normalizeDesiredReplicasWithBehaviors. */
  normalizeWithBehavior(
    key: string,
    behavior: unknown,
    current: number,
    desired: number,
    min: number,
    max: number,
    now: number,
  ): Normalized {
    const downWindow = Math.trunc(this.downscaleWindowMs / 1000);
    const upRules = rulesOf(rec(behavior).scaleUp, true, downWindow);
    const downRules = rulesOf(rec(behavior).scaleDown, false, downWindow);
    // stabilizeRecommendationWithBehaviors
    const list = this.recommendations.get(key) ?? [];
    this.recommendations.set(key, list);
    const upCutoff = now - upRules.windowSeconds * 1000;
    const downCutoff = now - downRules.windowSeconds * 1000;
    let upRecommendation = desired;
    let downRecommendation = desired;
    for (const r of list) {
      if (r.at > upCutoff) upRecommendation = Math.min(r.value, upRecommendation);
      if (r.at > downCutoff) downRecommendation = Math.max(r.value, downRecommendation);
    }
    let stabilized = Math.max(current, upRecommendation);
    stabilized = Math.min(stabilized, downRecommendation);
    this.record(list, { value: desired, at: now }, (r) => r.at < upCutoff && r.at < downCutoff);
    const able: ConditionUpdate =
      stabilized !== desired
        ? desired >= current
          ? {
              type: 'AbleToScale',
              status: 'True',
              reason: 'ScaleUpStabilized',
              message: 'recent recommendations were lower than current one, applying the lowest recent recommendation',
            }
          : {
              type: 'AbleToScale',
              status: 'True',
              reason: 'ScaleDownStabilized',
              message:
                'recent recommendations were higher than current one, applying the highest recent recommendation',
            }
        : READY;
    // convertDesiredReplicasWithBehaviorRate
    const ups = this.ups.get(key) ?? [];
    const downs = this.downs.get(key) ?? [];
    let replicas = stabilized;
    let reason = 'DesiredWithinRange';
    let message = 'the desired count is within the acceptable range';
    if (stabilized > current) {
      const limit = Math.max(policyLimit(true, current, ups, downs, upRules, now), current);
      let allowed = max;
      if (allowed > limit) {
        allowed = limit;
        reason = 'ScaleUpLimit';
        message = 'the desired replica count is increasing faster than the maximum scale rate';
      } else {
        reason = 'TooManyReplicas';
        message = 'the desired replica count is more than the maximum replica count';
      }
      if (stabilized > allowed) replicas = allowed;
      else {
        reason = 'DesiredWithinRange';
        message = 'the desired count is within the acceptable range';
      }
    } else if (stabilized < current) {
      const limit = Math.min(policyLimit(false, current, ups, downs, downRules, now), current);
      let allowed = min;
      if (allowed < limit) {
        allowed = limit;
        reason = 'ScaleDownLimit';
        message = 'the desired replica count is decreasing faster than the maximum scale rate';
      } else {
        reason = 'TooFewReplicas';
        message = 'the desired replica count is less than the minimum replica count';
      }
      if (stabilized < allowed) replicas = allowed;
      else {
        reason = 'DesiredWithinRange';
        message = 'the desired count is within the acceptable range';
      }
    }
    return { replicas, conditions: [able, limited(replicas, stabilized, reason, message)] };
  }

  /** storeScaleEvent: a change made, kept (in a slot past its direction's longest policy period) for the limits. */
  storeScaleEvent(key: string, behavior: unknown, previous: number, next: number, now: number): void {
    if (behavior === undefined || behavior === null) return;
    const up = next > previous;
    const rules = rulesOf(up ? rec(behavior).scaleUp : rec(behavior).scaleDown, up, 0);
    const longest = Math.max(0, ...rules.policies.map((p) => p.periodSeconds));
    const map = up ? this.ups : this.downs;
    const list = map.get(key) ?? [];
    map.set(key, list);
    for (const e of list) if (e.at < now - longest * 1000) e.outdated = true;
    this.record(list, { value: Math.abs(next - previous), at: now }, (e) => e.outdated === true);
  }
}
