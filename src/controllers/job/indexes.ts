/**
 * Completion indexes of Indexed Jobs as ordered, non-overlapping intervals (upstream's orderedIntervals), written
 * as in status.completedIndexes and status.failedIndexes: `1,3-5,7` (two neighbours are written `3,4`).
 */

export interface Interval {
  first: number;
  last: number;
}

export class OrderedIntervals {
  constructor(readonly intervals: readonly Interval[] = []) {}

  /** Parses an index list; intervals at or past completions are dropped or cut, unreadable parts skipped. */
  static parse(text: string | undefined, completions: number): OrderedIntervals {
    if (!text) return new OrderedIntervals();
    const out: Interval[] = [];
    for (const part of text.split(',')) {
      const [a, b] = part.split('-');
      if (a === undefined || !/^\d+$/.test(a)) continue;
      const first = Number(a);
      if (first >= completions) break;
      let last = first;
      if (b !== undefined) {
        if (!/^\d+$/.test(b)) continue;
        last = Math.min(Number(b), completions - 1);
      }
      const prev = out[out.length - 1];
      if (prev && prev.last === first - 1) prev.last = last;
      else out.push({ first, last });
    }
    return new OrderedIntervals(out);
  }

  /** A new list with these indexes (in any order) added. */
  withIndexes(indexes: Iterable<number>): OrderedIntervals {
    const sorted = [...new Set(indexes)].sort((x, y) => x - y);
    return this.merge(new OrderedIntervals(sorted.map((i) => ({ first: i, last: i }))));
  }

  merge(other: OrderedIntervals): OrderedIntervals {
    const all = [...this.intervals, ...other.intervals].sort((x, y) => x.first - y.first);
    const out: Interval[] = [];
    for (const iv of all) {
      const prev = out[out.length - 1];
      if (!prev || iv.first > prev.last + 1) out.push({ ...iv });
      else if (prev.last < iv.last) prev.last = iv.last;
    }
    return new OrderedIntervals(out);
  }

  total(): number {
    return this.intervals.reduce((n, iv) => n + iv.last - iv.first + 1, 0);
  }

  has(ix: number): boolean {
    let lo = 0;
    let hi = this.intervals.length;
    while (hi > lo) {
      const mid = (lo + hi) >> 1;
      if ((this.intervals[mid]?.last ?? 0) >= ix) hi = mid;
      else lo = mid + 1;
    }
    const iv = this.intervals[hi];
    return iv !== undefined && iv.first <= ix;
  }

  toString(): string {
    return this.intervals
      .map(({ first, last }) => {
        if (last === first) return `${first}`;
        return last === first + 1 ? `${first},${last}` : `${first}-${last}`;
      })
      .join(',');
  }

  /** How many of ruleIndexes are in this list. */
  overlapCount(rule: OrderedIntervals): number {
    let count = 0;
    for (const r of rule.intervals) {
      for (const s of this.intervals) {
        const overlap = Math.min(r.last, s.last) - Math.max(r.first, s.first) + 1;
        if (overlap > 0) count += overlap;
      }
    }
    return count;
  }
}

/**
 * The first `count` indexes below completions that are not in `taken` (succeeded, failed, active or — when
 * replacements wait for Failed — terminating).
 */
export function firstPendingIndexes(taken: OrderedIntervals, count: number, completions: number): number[] {
  const out: number[] = [];
  let candidate = 0;
  for (const iv of taken.intervals) {
    for (; candidate < completions && out.length < count && candidate < iv.first; candidate++) out.push(candidate);
    if (candidate < iv.last + 1) candidate = iv.last + 1;
  }
  for (; candidate < completions && out.length < count; candidate++) out.push(candidate);
  return out;
}

/** `<job>-<index>-` as the pods' generateName, the job name cut so the prefix fits a generated name (58). */
export function podGenerateNameWithIndex(jobName: string, index: number): string {
  const suffix = `-${index}-`;
  const prefix = `${jobName}${suffix}`;
  return prefix.length > 58 ? `${jobName.slice(0, 58 - suffix.length)}${suffix}` : prefix;
}
