/**
 * Upstream's helper.DefaultNormalizeScore: scales raw scores so the highest becomes `maxPriority` (integer
 * arithmetic, truncating as Go does); with `reverse`, a high raw score becomes a low final one. All zero: every
 * node gets 0, or `maxPriority` when reversed.
 */

import { type NodeScore, Status } from './types.js';

export function defaultNormalizeScore(maxPriority: number, reverse: boolean, scores: NodeScore[]): Status {
  let maxCount = 0;
  for (const s of scores) if (s.score > maxCount) maxCount = s.score;
  if (maxCount === 0) {
    if (reverse) for (const s of scores) s.score = maxPriority;
    return Status.success();
  }
  for (const s of scores) {
    let score = Math.trunc((maxPriority * s.score) / maxCount);
    if (reverse) score = maxPriority - score;
    s.score = score;
  }
  return Status.success();
}
