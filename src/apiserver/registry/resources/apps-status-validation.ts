/**
 * Status checks shared by the apps workloads: counters that may not be negative, counters that may not exceed
 * status.replicas, and a collisionCount that may not go down.
 */
import { type FieldError, type FieldPath, invalid } from '../../../api/field-errors.js';
import { num, type Rec } from './groups-fields.js';
import { nonNegative } from './groups-validation.js';

export interface StatusCountRules {
  /** Counters that must not be negative, in upstream's order. */
  counts: readonly string[];
  /** Counters that must not exceed status.replicas. */
  notAboveReplicas?: readonly string[];
  /** The message when availableReplicas exceeds readyReplicas (each kind words it its own way). */
  availableNotAboveReady?: string;
  /** Whether status.collisionCount exists for the kind. */
  collisionCount?: boolean;
}

export function validateAppsStatusCounts(status: Rec, old: Rec, at: FieldPath, rules: StatusCountRules): FieldError[] {
  const errs: FieldError[] = [];
  for (const key of rules.counts) errs.push(...nonNegative(status[key] ?? 0, at.child(key)));
  if (rules.collisionCount !== false) errs.push(...nonNegative(status.collisionCount, at.child('collisionCount')));
  const replicas = num(status.replicas);
  for (const key of rules.notAboveReplicas ?? []) {
    if (num(status[key]) > replicas)
      errs.push(invalid(at.child(key), num(status[key]), 'cannot be greater than status.replicas'));
  }
  if (rules.availableNotAboveReady && num(status.availableReplicas) > num(status.readyReplicas)) {
    errs.push(invalid(at.child('availableReplicas'), num(status.availableReplicas), rules.availableNotAboveReady));
  }
  if (rules.collisionCount !== false) errs.push(...collisionCountNotDecremented(status, old, at));
  return errs;
}

/** IsDecremented(new, old): a set collisionCount may only grow. */
export function collisionCountNotDecremented(status: Rec, old: Rec, at: FieldPath): FieldError[] {
  if (typeof old.collisionCount !== 'number') return [];
  const next = typeof status.collisionCount === 'number' ? status.collisionCount : undefined;
  if (next !== undefined && next >= old.collisionCount) return [];
  return [invalid(at.child('collisionCount'), next ?? 0, 'cannot be decremented')];
}
