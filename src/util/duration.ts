/**
 * Durations as Kubernetes components take them on the command line (Go's time.ParseDuration): "300ms", "5m",
 * "1h30m", "1.5s", "0".
 */
const UNITS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Milliseconds in a Go-style duration; throws on anything else. */
export function parseDuration(text: string): number {
  const s = text.trim();
  if (s === '0') return 0;
  const re = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/y;
  let total = 0;
  let pos = 0;
  const sign = s.startsWith('-') ? -1 : 1;
  if (s.startsWith('-') || s.startsWith('+')) pos = 1;
  if (pos >= s.length) throw new Error(`invalid duration ${JSON.stringify(text)}`);
  while (pos < s.length) {
    re.lastIndex = pos;
    const m = re.exec(s);
    if (!m) throw new Error(`invalid duration ${JSON.stringify(text)}`);
    total += Number(m[1]) * (UNITS[m[2] as string] as number);
    pos = re.lastIndex;
  }
  return sign * total;
}
