/**
 * Kubernetes' URL library: url(string) for absolute URIs and absolute paths (as Go's url.ParseRequestURI takes),
 * isURL, and a URL's getScheme, getHost, getHostname, getPort, getEscapedPath, getQuery.
 */
import type { Environment } from '@marcbachmann/cel-js';
import { CelEvaluationError } from '../errors.js';

export class CelURL {
  constructor(
    readonly scheme: string,
    readonly host: string,
    readonly hostname: string,
    readonly port: string,
    readonly escapedPath: string,
    readonly rawQuery: string,
    private readonly text: string,
  ) {}
  toString(): string {
    return this.text;
  }
}

function parseURL(s: string): CelURL | undefined {
  if (s.startsWith('/')) {
    if (/\s/.test(s)) return undefined;
    const q = s.indexOf('?');
    const path = q < 0 ? s : s.slice(0, q);
    return new CelURL('', '', '', '', path, q < 0 ? '' : s.slice(q + 1), s);
  }
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(s)?.[1];
  if (!scheme || /\s/.test(s)) return undefined;
  if (!URL.canParse(s)) return undefined;
  const rest = s.slice(scheme.length + 1);
  let host = '';
  let path = rest;
  if (rest.startsWith('//')) {
    const end = rest.slice(2).search(/[/?#]/);
    host = end < 0 ? rest.slice(2) : rest.slice(2, 2 + end);
    path = end < 0 ? '' : rest.slice(2 + end);
  }
  const at = host.lastIndexOf('@');
  if (at >= 0) host = host.slice(at + 1);
  const q = path.indexOf('?');
  const hash = path.indexOf('#');
  const pathEnd = q >= 0 ? q : hash >= 0 ? hash : path.length;
  const rawQuery = q < 0 ? '' : path.slice(q + 1, hash > q ? hash : undefined);
  const port = /:(\d*)$/.exec(host.replace(/^\[.*\]/, ''))?.[1] ?? '';
  const hostname = (port || host.endsWith(':') ? host.slice(0, host.lastIndexOf(':')) : host).replace(
    /^\[(.*)\]$/,
    '$1',
  );
  return new CelURL(scheme, host, hostname, port, path.slice(0, pathEnd), rawQuery, s);
}

function query(raw: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [k, v] of new URLSearchParams(raw)) {
    if (!Object.hasOwn(out, k)) out[k] = [];
    out[k]?.push(v);
  }
  return out;
}

export function registerURLLibrary(env: Environment): void {
  const U = 'kubernetes.URL';
  env
    .registerType(U, CelURL)
    .registerFunction(`url(string): ${U}`, (s: string) => {
      const u = parseURL(s);
      if (!u) throw new CelEvaluationError(`URL parse error during conversion from string: parse "${s}": invalid URI`);
      return u;
    })
    .registerFunction('isURL(string): bool', (s: string) => parseURL(s) !== undefined)
    .registerFunction(`${U}.getScheme(): string`, (u: CelURL) => u.scheme)
    .registerFunction(`${U}.getHost(): string`, (u: CelURL) => u.host)
    .registerFunction(`${U}.getHostname(): string`, (u: CelURL) => u.hostname)
    .registerFunction(`${U}.getPort(): string`, (u: CelURL) => u.port)
    .registerFunction(`${U}.getEscapedPath(): string`, (u: CelURL) => u.escapedPath)
    .registerFunction(`${U}.getQuery(): map<string, list<string>>`, (u: CelURL) => query(u.rawQuery));
}
