/**
 * Go's sort.SliceStable, step for step (insertion sort over blocks of 20, then SymMerge of Kim and Kutzner).
 *
 * Strategic merge patch sorts list elements with a comparison that is not a consistent order for elements it cannot
 * place (it answers "less" for them both ways). The outcome then depends on the exact sequence of comparisons and
 * swaps, so reproducing upstream's element order means running the same algorithm, not any stable sort.
 */
export type LessByIndex = (i: number, j: number) => boolean;

/** Sorts `items` in place; `less(i, j)` compares the elements currently at positions i and j. */
export function sliceStable<T>(items: T[], less: LessByIndex): void {
  const swap = (i: number, j: number): void => {
    const t = items[i] as T;
    items[i] = items[j] as T;
    items[j] = t;
  };
  const n = items.length;
  let blockSize = 20;
  let a = 0;
  let b = blockSize;
  while (b <= n) {
    insertionSort(less, swap, a, b);
    a = b;
    b += blockSize;
  }
  insertionSort(less, swap, a, n);
  while (blockSize < n) {
    a = 0;
    b = 2 * blockSize;
    while (b <= n) {
      symMerge(less, swap, a, a + blockSize, b);
      a = b;
      b += 2 * blockSize;
    }
    const m = a + blockSize;
    if (m < n) symMerge(less, swap, a, m, n);
    blockSize *= 2;
  }
}

type Swap = (i: number, j: number) => void;

function insertionSort(less: LessByIndex, swap: Swap, a: number, b: number): void {
  for (let i = a + 1; i < b; i++) {
    for (let j = i; j > a && less(j, j - 1); j--) swap(j, j - 1);
  }
}

/** Merges the sorted runs [a, m) and [m, b). */
function symMerge(less: LessByIndex, swap: Swap, a: number, m: number, b: number): void {
  if (m - a === 1) {
    // Insert the single element at a into [m, b): find the first position not less than it.
    let lo = m;
    let hi = b;
    while (lo < hi) {
      const h = (lo + hi) >>> 1;
      if (less(h, a)) lo = h + 1;
      else hi = h;
    }
    for (let k = a; k < lo - 1; k++) swap(k, k + 1);
    return;
  }
  if (b - m === 1) {
    // Insert the single element at m into [a, m): find the first position greater than it.
    let lo = a;
    let hi = m;
    while (lo < hi) {
      const h = (lo + hi) >>> 1;
      if (!less(m, h)) lo = h + 1;
      else hi = h;
    }
    for (let k = m; k > lo; k--) swap(k, k - 1);
    return;
  }
  const mid = (a + b) >>> 1;
  const n = mid + m;
  let start: number;
  let r: number;
  if (m > mid) {
    start = n - b;
    r = mid;
  } else {
    start = a;
    r = m;
  }
  const p = n - 1;
  while (start < r) {
    const c = (start + r) >>> 1;
    if (!less(p - c, c)) start = c + 1;
    else r = c;
  }
  const end = n - start;
  if (start < m && m < end) rotate(swap, start, m, end);
  if (a < start && start < mid) symMerge(less, swap, a, start, mid);
  if (mid < end && end < b) symMerge(less, swap, mid, end, b);
}

/** Turns `x u v y` into `x v u y` for u = [a, m), v = [m, b), by block swaps. */
function rotate(swap: Swap, a: number, m: number, b: number): void {
  let i = m - a;
  let j = b - m;
  while (i !== j) {
    if (i > j) {
      swapRange(swap, m - i, m, j);
      i -= j;
    } else {
      swapRange(swap, m - i, m + j - i, i);
      j -= i;
    }
  }
  swapRange(swap, m - i, m, i);
}

function swapRange(swap: Swap, a: number, b: number, n: number): void {
  for (let i = 0; i < n; i++) swap(a + i, b + i);
}
