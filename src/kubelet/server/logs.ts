/**
 * `GET /containerLogs/<ns>/<pod>/<container>`: which run's log to read (the kubelet's
 * validateContainerLogStatus, with its error messages) and how to write it (PodLogOptions: follow, previous,
 * timestamps, tailLines, sinceSeconds, sinceTime, limitBytes).
 */
import type { KubeObject } from '../../client/types.js';
import type { ContainerLogSource, LogLine } from './types.js';

export interface LogQuery {
  follow: boolean;
  previous: boolean;
  timestamps: boolean;
  tailLines?: number;
  sinceSeconds?: number;
  /** Milliseconds since the epoch. */
  sinceTime?: number;
  limitBytes?: number;
}

/** Go's strconv.ParseBool, as query parameters are decoded upstream. */
export function parseBool(v: string | null): boolean | undefined {
  if (v === null) return undefined;
  if (['1', 't', 'T', 'true', 'TRUE', 'True'].includes(v)) return true;
  if (['0', 'f', 'F', 'false', 'FALSE', 'False', ''].includes(v)) return false;
  return undefined;
}

/** Reads and validates PodLogOptions from a query; a string is the reason it is invalid. */
export function parseLogQuery(q: URLSearchParams): LogQuery | string {
  const int = (name: string): number | undefined | string => {
    const v = q.get(name);
    if (v === null || v === '') return undefined;
    const n = Number(v);
    return Number.isInteger(n) ? n : `${name}: Invalid value: "${v}": must be an integer`;
  };
  // The old "tail" parameter: a number, or "all".
  const tail = q.get('tail');
  const query: LogQuery = {
    follow: parseBool(q.get('follow')) ?? false,
    previous: parseBool(q.get('previous')) ?? false,
    timestamps: parseBool(q.get('timestamps')) ?? false,
  };
  const tailLines = tail !== null && tail !== '' && tail !== 'all' ? Number(tail) : int('tailLines');
  const sinceSeconds = int('sinceSeconds');
  const limitBytes = int('limitBytes');
  for (const v of [tailLines, sinceSeconds, limitBytes]) if (typeof v === 'string') return v;
  if (typeof tailLines === 'number') {
    if (Number.isNaN(tailLines) || tailLines < 0)
      return `tailLines: Invalid value: ${tailLines}: must be greater than or equal to 0`;
    query.tailLines = tailLines;
  }
  if (typeof sinceSeconds === 'number') {
    if (sinceSeconds < 1) return `sinceSeconds: Invalid value: ${sinceSeconds}: must be greater than 0`;
    query.sinceSeconds = sinceSeconds;
  }
  if (typeof limitBytes === 'number') {
    if (limitBytes < 1) return `limitBytes: Invalid value: ${limitBytes}: must be greater than 0`;
    query.limitBytes = limitBytes;
  }
  const sinceTime = q.get('sinceTime');
  if (sinceTime) {
    const t = Date.parse(sinceTime);
    if (Number.isNaN(t)) return `sinceTime: Invalid value: "${sinceTime}": must be an RFC3339 time`;
    query.sinceTime = t;
  }
  if (query.sinceSeconds !== undefined && query.sinceTime !== undefined) {
    return 'at most one of `sinceTime` or `sinceSeconds` may be specified';
  }
  return query;
}

// biome-ignore lint/suspicious/noExplicitAny: container statuses are read as plain JSON
type Json = any;

/**
 * Whether a container has a log to read, from the pod's status, as the kubelet decides it; a string is the
 * error (answered with 400).
 */
export function checkContainerLogStatus(pod: KubeObject, container: string, previous: boolean): string | undefined {
  const podName = pod.metadata.name ?? '';
  const status = pod.status ?? {};
  const all: Json[] = [
    ...(status.containerStatuses ?? []),
    ...(status.initContainerStatuses ?? []),
    ...(status.ephemeralContainerStatuses ?? []),
  ];
  const cs = all.find((s) => s?.name === container);
  const q = (s: string) => JSON.stringify(s);
  if (!cs) return `container ${q(container)} in pod ${q(podName)} is not available`;
  const last = cs.lastState?.terminated;
  const state = cs.state ?? {};
  if (previous) {
    if (!last) return `previous terminated container ${q(container)} in pod ${q(podName)} not found`;
    return undefined;
  }
  if (state.running || state.terminated || last) return undefined;
  if (state.waiting) {
    const reason = String(state.waiting.reason ?? '');
    if (reason === 'ErrImagePull') {
      return `container ${q(container)} in pod ${q(podName)} is waiting to start: image can't be pulled`;
    }
    if (reason === 'ImagePullBackOff') {
      return `container ${q(container)} in pod ${q(podName)} is waiting to start: trying and failing to pull image`;
    }
    return `container ${q(container)} in pod ${q(podName)} is waiting to start: ${reason}`;
  }
  return `container ${q(container)} in pod ${q(podName)} is waiting to start - no logs yet`;
}

/** RFC 3339 with nine fraction digits, as the kubelet prefixes lines with `timestamps=true`. */
export function formatLogTimestamp(ms: number): string {
  const iso = new Date(ms).toISOString(); // 2024-01-02T03:04:05.678Z
  return `${iso.slice(0, 23)}000000Z`;
}

/**
 * Writes a container's log with the query's options; with follow, keeps writing lines as they come until the
 * run ends. Calls `end` when done; returns a function that stops following.
 */
export function streamLog(
  source: ContainerLogSource | undefined,
  query: LogQuery,
  now: number,
  write: (chunk: string) => void,
  end: () => void,
): () => void {
  if (!source) {
    end();
    return () => {};
  }
  let remaining = query.limitBytes ?? Number.POSITIVE_INFINITY;
  let finished = false;
  let stop: () => void = () => {};
  const since =
    query.sinceTime ?? (query.sinceSeconds !== undefined ? now - query.sinceSeconds * 1000 : Number.NEGATIVE_INFINITY);
  const finish = () => {
    if (finished) return;
    finished = true;
    stop();
    end();
  };
  const emit = (line: LogLine) => {
    if (finished || line.time < since) return;
    let text = `${query.timestamps ? `${formatLogTimestamp(line.time)} ` : ''}${line.text}\n`;
    const bytes = Buffer.byteLength(text);
    if (bytes > remaining) text = Buffer.from(text).subarray(0, remaining).toString('utf8');
    remaining -= Math.min(bytes, remaining);
    write(text);
    if (remaining <= 0) finish();
  };
  let lines = source.lines().filter((l) => l.time >= since);
  if (query.tailLines !== undefined) lines = query.tailLines === 0 ? [] : lines.slice(-query.tailLines);
  for (const line of lines) emit(line);
  if (finished) return () => {};
  if (!query.follow || query.previous || source.ended) {
    finish();
    return () => {};
  }
  stop = source.follow({ onLine: emit, onEnd: finish });
  return () => {
    finished = true;
    stop();
  };
}
