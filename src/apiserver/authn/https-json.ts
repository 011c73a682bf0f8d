/**
 * JSON over HTTPS for the apiserver's own outgoing calls (an OIDC issuer's discovery document and keys, token and
 * authorization webhooks): one request, the server verified against the given CA (or the system roots), an
 * optional client certificate or bearer token, a timeout, and the answer parsed as JSON.
 */
import { Agent, request } from 'node:https';
import { goQuote } from '../../api/validation/go-format.js';
import { clientGoHttpFailure, goMethod, goNetworkError } from '../go-net-errors.js';

export interface TLSClientConfig {
  /** PEM CA bundle the server's certificate must chain to; the system roots when absent. */
  ca?: string | Buffer;
  /** PEM client certificate and key (the apiserver's credentials at a webhook). */
  cert?: string | Buffer;
  key?: string | Buffer;
  /** The name the server's certificate must carry, when not the URL's host. */
  serverName?: string;
  insecureSkipVerify?: boolean;
}

export interface JSONClientOptions {
  tls?: TLSClientConfig;
  /** Authorization: Bearer <token> on every request. */
  bearerToken?: string;
  /** Basic authentication, as a kubeconfig's username and password give it. */
  basicAuth?: { username: string; password: string };
  timeoutMs?: number;
  /** Retries of transient failures (connection resets, 429, 500, 504), as client-go's webhooks back off. */
  retry?: RetryBackoff;
}

export interface RetryBackoff {
  initialMs: number;
  factor: number;
  jitter: number;
  /** Attempts in all, the first included. */
  steps: number;
}

/** Upstream's DefaultAuthWebhookRetryBackoff: 500 ms, ×1.5, 20% jitter, 5 attempts. */
export const DEFAULT_WEBHOOK_RETRY_BACKOFF: RetryBackoff = { initialMs: 500, factor: 1.5, jitter: 0.2, steps: 5 };

/** A JSON call that failed: the server could not be reached, timed out, or answered other than 2xx JSON. */
export class HTTPSJSONError extends Error {
  constructor(
    message: string,
    readonly statusCode?: number,
    /** A failure worth another attempt (webhook.DefaultShouldRetry): a reset connection, 429, 500, 504. */
    readonly transient = false,
  ) {
    super(message);
    this.name = 'HTTPSJSONError';
  }
}

const TRANSIENT_STATUS = new Set([429, 500, 504]);

export const DEFAULT_TIMEOUT_MS = 30_000;
const MAX_BODY_BYTES = 4 << 20;

/** A keep-alive client for one configuration of TLS and credentials. */
export class HTTPSJSONClient {
  private readonly agent: Agent;

  constructor(private readonly opts: JSONClientOptions = {}) {
    const tls = opts.tls ?? {};
    this.agent = new Agent({
      keepAlive: true,
      ...(tls.ca ? { ca: tls.ca } : {}),
      ...(tls.cert ? { cert: tls.cert } : {}),
      ...(tls.key ? { key: tls.key } : {}),
      ...(tls.serverName ? { servername: tls.serverName } : {}),
      rejectUnauthorized: !tls.insecureSkipVerify,
    });
  }

  get(url: string): Promise<unknown> {
    return this.send('GET', url, undefined);
  }

  async post(url: string, body: unknown): Promise<unknown> {
    const text = JSON.stringify(body);
    const retry = this.opts.retry;
    let delay = retry?.initialMs ?? 0;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.send('POST', url, text);
      } catch (err) {
        if (!retry || attempt >= retry.steps || !(err instanceof HTTPSJSONError) || !err.transient) throw err;
        await new Promise((resolve) => setTimeout(resolve, delay * (1 + Math.random() * retry.jitter)));
        delay *= retry.factor;
      }
    }
  }

  close(): void {
    this.agent.destroy();
  }

  private send(method: string, url: string, body: string | undefined): Promise<unknown> {
    const target = new URL(url);
    if (target.protocol !== 'https:') return Promise.reject(new HTTPSJSONError(`${url}: only https is supported`));
    const headers: Record<string, string> = { accept: 'application/json' };
    if (body !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(Buffer.byteLength(body));
    }
    if (this.opts.bearerToken) headers.authorization = `Bearer ${this.opts.bearerToken}`;
    else if (this.opts.basicAuth) {
      const { username, password } = this.opts.basicAuth;
      headers.authorization = `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
    }
    const timeoutMs = this.opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    return new Promise((resolve, reject) => {
      const req = request(target, { method, headers, agent: this.agent, timeout: timeoutMs }, (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_BODY_BYTES) {
            req.destroy(new HTTPSJSONError(`${method} ${url}: response larger than ${MAX_BODY_BYTES} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const code = res.statusCode ?? 0;
          if (code < 200 || code > 299) {
            reject(new HTTPSJSONError(clientGoHttpFailure(code, text), code, TRANSIENT_STATUS.has(code)));
            return;
          }
          try {
            resolve(JSON.parse(text));
          } catch (err) {
            reject(new HTTPSJSONError(`${method} ${url}: the response is not JSON: ${(err as Error).message}`));
          }
        });
      });
      req.on('timeout', () => req.destroy(new HTTPSJSONError(`${method} ${url}: timed out after ${timeoutMs} ms`)));
      req.on('error', (err: NodeJS.ErrnoException) => {
        if (err instanceof HTTPSJSONError) return reject(err);
        // In Go's words, as client-go's error reaches upstream's callers: `Post "<url>": dial tcp …`.
        const host = target.hostname.replace(/^\[(.*)\]$/, '$1');
        const port = Number(target.port) || 443;
        const why = goNetworkError(err, { host, port, servername: this.opts.tls?.serverName ?? host });
        reject(new HTTPSJSONError(`${goMethod(method)} ${goQuote(url)}: ${why}`, undefined, err.code === 'ECONNRESET'));
      });
      req.end(body);
    });
  }
}
