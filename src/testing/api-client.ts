import { execFile } from 'node:child_process';
import { request } from 'node:https';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { ControlPlane } from '../index.js';

const run = promisify(execFile);

export interface ApiResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON
  body: any;
}

function credentials(cp: ControlPlane) {
  const cluster = cp.kubeconfig.config.clusters[0]?.cluster;
  const user = cp.kubeconfig.config.users[0]?.user;
  const decode = (b64: string | undefined) => Buffer.from(b64 ?? '', 'base64');
  return {
    ca: decode(cluster?.['certificate-authority-data']),
    cert: decode(user?.['client-certificate-data']),
    key: decode(user?.['client-key-data']),
  };
}

/**
 * One HTTPS request to a control plane as its admin (or anonymously with `anonymous: true`), with the body
 * parsed as JSON when it is JSON.
 */
export function apiRequest(
  cp: ControlPlane,
  method: string,
  path: string,
  opts: {
    body?: unknown;
    contentType?: string;
    /** An array is sent as that header repeated, one line per value. */
    headers?: Record<string, string | string[]>;
    anonymous?: boolean;
    /** Send the path as written (a URL would resolve `.` and `..` segments, encoded or not). */
    rawPath?: boolean;
  } = {},
): Promise<ApiResponse> {
  const creds = credentials(cp);
  const payload =
    opts.body === undefined
      ? undefined
      : typeof opts.body === 'string' || Buffer.isBuffer(opts.body)
        ? opts.body
        : JSON.stringify(opts.body);
  return new Promise((resolve, reject) => {
    const req = request(
      new URL(path, cp.url),
      {
        method,
        ...(opts.rawPath ? { path } : {}),
        ca: creds.ca,
        ...(opts.anonymous ? {} : { cert: creds.cert, key: creds.key }),
        headers: {
          ...(payload !== undefined
            ? {
                'content-type': opts.contentType ?? 'application/json',
                'content-length': String(Buffer.byteLength(payload)),
              }
            : {}),
          ...opts.headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: unknown = text;
          try {
            body = JSON.parse(text);
          } catch {
            // not JSON
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body });
        });
      },
    );
    req.on('error', reject);
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}

/**
 * Opens a watch and collects its events (one JSON object per line) until stopped or the server ends it.
 */
export function openWatch(cp: ControlPlane, path: string, headers: Record<string, string> = {}) {
  const creds = credentials(cp);
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON
  const events: any[] = [];
  let buffer = '';
  let ended = false;
  let status = 0;
  const req = request(new URL(path, cp.url), { ca: creds.ca, cert: creds.cert, key: creds.key, headers }, (res) => {
    status = res.statusCode ?? 0;
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      buffer += chunk;
      for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        if (line.trim()) events.push(JSON.parse(line));
      }
    });
    res.on('end', () => {
      ended = true;
    });
  });
  req.on('error', () => {
    ended = true;
  });
  req.end();
  return {
    events,
    get ended() {
      return ended;
    },
    get status() {
      return status;
    },
    async waitFor(n: number, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (events.length < n && Date.now() < deadline && !ended) await new Promise((r) => setTimeout(r, 10));
      if (events.length < n)
        throw new Error(`watch got ${events.length} events, wanted ${n}: ${JSON.stringify(events)}`);
      return events.slice(0, n);
    },
    async waitForEnd(timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (!ended && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      return ended;
    },
    stop() {
      req.destroy();
    },
  };
}

/** Runs the real kubectl against a control plane, with its own discovery cache directory. Never throws. */
export async function kubectl(
  cp: ControlPlane,
  args: string[],
  opts: { input?: string; env?: Record<string, string> } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const full = ['--kubeconfig', cp.kubeconfig.path, '--cache-dir', join(cp.dataDir, 'kubectl-cache'), ...args];
  try {
    const child = run('kubectl', full, {
      encoding: 'utf8',
      env: { ...process.env, ...opts.env },
      maxBuffer: 64 * 1024 * 1024,
    });
    if (opts.input !== undefined) {
      child.child.stdin?.end(opts.input);
    }
    const { stdout, stderr } = await child;
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : 1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}
