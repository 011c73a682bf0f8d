/**
 * How upstream picks a free slot in a range it splits in two: a low band kept for values users ask for by hand
 * (a static ClusterIP like 10.96.0.10, a fixed nodePort) and the rest for automatic allocation. Automatic
 * allocation starts at a random place in the high band, scans forward and wraps; only when that band is full does
 * it scan the low band the same way.
 */

/** upstream's min(max(lower, span/step), upper), or 0 for spans smaller than `lower`. */
export function rangeOffset(span: number, lower: number, upper: number, step: number): number {
  if (span < lower) return 0;
  return Math.min(Math.max(lower, Math.floor(span / step)), upper);
}

/** The first index in [0, size) for which `taken` is false, scanning as described above; undefined when full. */
export function pickFree(
  size: number,
  offset: number,
  taken: (index: number) => boolean,
  random: () => number,
): number | undefined {
  const split = Math.min(offset, size);
  const bands: Array<[number, number]> = [
    [split, size],
    [0, split],
  ];
  for (const [start, end] of bands) {
    const length = end - start;
    if (length <= 0) continue;
    const from = Math.floor(random() * length);
    for (let i = 0; i < length; i++) {
      const index = start + ((from + i) % length);
      if (!taken(index)) return index;
    }
  }
  return undefined;
}
