/**
 * Sorts strings in place in UTF-16 code unit order, as Array.prototype.sort() without a comparator does for them.
 * Short arrays (an object's keys, nearly always) are sorted by insertion, which allocates nothing; V8's sort makes
 * a work area on every call, and the managed fields of one pod write sort dozens of key lists.
 */
export function sortStrings<T extends string>(items: T[]): T[] {
  const n = items.length;
  if (n > SHORT) return items.sort();
  for (let i = 1; i < n; i++) {
    const v = items[i] as T;
    let j = i - 1;
    if ((items[j] as T) <= v) continue;
    while (j >= 0 && (items[j] as T) > v) {
      items[j + 1] = items[j] as T;
      j--;
    }
    items[j + 1] = v;
  }
  return items;
}

/** sortStrings for pairs whose first item is the string to sort by; the sort is stable, as V8's. */
export function sortByFirst<P extends readonly [string, ...unknown[]]>(items: P[]): P[] {
  const n = items.length;
  if (n > SHORT) return items.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (let i = 1; i < n; i++) {
    const v = items[i] as P;
    let j = i - 1;
    while (j >= 0 && (items[j] as P)[0] > v[0]) {
      items[j + 1] = items[j] as P;
      j--;
    }
    items[j + 1] = v;
  }
  return items;
}

/** Up to this length the insertion sorts run; longer arrays go to V8's sort. */
const SHORT = 24;
