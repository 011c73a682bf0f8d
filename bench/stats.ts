/** Small helpers shared by the benchmarks. */
import { readFileSync } from 'node:fs';

export function percentile(samples: number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[idx] as number;
}

export const round = (n: number, digits = 3) => Number(n.toFixed(digits));

export function median(samples: number[]): number {
  return percentile(samples, 50);
}

/** utime + stime of a process, in seconds (Linux /proc). */
export function procCpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}
