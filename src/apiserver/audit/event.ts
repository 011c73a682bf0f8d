/** The audit.k8s.io/v1 Event, as kube-apiserver writes it to its log backend, and its JSON line. */
import type { HttpRequest, UserInfo } from '../context.js';
import type { RequestInfo } from '../request-info.js';
import type { Level, Stage } from './policy.js';

export interface AuditUser {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

export interface ObjectReference {
  resource?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  apiGroup?: string;
  apiVersion?: string;
  resourceVersion?: string;
  subresource?: string;
}

export interface AuditEvent {
  kind: 'Event';
  apiVersion: 'audit.k8s.io/v1';
  level: Level;
  auditID: string;
  stage: Stage;
  requestURI: string;
  verb: string;
  user: AuditUser;
  impersonatedUser?: AuditUser;
  sourceIPs?: string[];
  userAgent?: string;
  objectRef?: ObjectReference;
  responseStatus?: Record<string, unknown>;
  requestObject?: unknown;
  responseObject?: unknown;
  requestReceivedTimestamp: string;
  stageTimestamp: string;
  annotations?: Record<string, string>;
}

export function auditUser(user: UserInfo | undefined): AuditUser {
  if (!user) return {};
  return {
    username: user.name,
    ...(user.uid ? { uid: user.uid } : {}),
    ...(user.groups.length > 0 ? { groups: user.groups } : {}),
    ...(user.extra && Object.keys(user.extra).length > 0 ? { extra: user.extra } : {}),
  };
}

export function objectRef(info: RequestInfo): ObjectReference | undefined {
  if (!info.isResourceRequest) return undefined;
  return {
    ...(info.resource ? { resource: info.resource } : {}),
    ...(info.namespace ? { namespace: info.namespace } : {}),
    ...(info.name ? { name: info.name } : {}),
    ...(info.apiGroup ? { apiGroup: info.apiGroup } : {}),
    ...(info.apiVersion ? { apiVersion: info.apiVersion } : {}),
    ...(info.subresource ? { subresource: info.subresource } : {}),
  };
}

const MAX_USER_AGENT_LENGTH = 1024;
const USER_AGENT_TRUNCATE_SUFFIX = '...TRUNCATED';

/**
 * The User-Agent as upstream's event records it (maybeTruncateUserAgent): past 1024 bytes cut there, with a suffix.
 * Node reads header values as Latin-1, one character a byte, so the cut falls where Go's does.
 */
export function truncatedUserAgent(ua: string): string {
  return ua.length > MAX_USER_AGENT_LENGTH ? ua.slice(0, MAX_USER_AGENT_LENGTH) + USER_AGENT_TRUNCATE_SUFFIX : ua;
}

/** The client's addresses as upstream lists them: X-Forwarded-For, then X-Real-Ip, then the connection's peer. */
export function sourceIPs(req: HttpRequest): string[] {
  const ips: string[] = [];
  const forwarded = req.headers['x-forwarded-for'];
  for (const part of String(forwarded ?? '').split(',')) {
    const ip = part.trim();
    if (ip) ips.push(ip);
  }
  const real = String(req.headers['x-real-ip'] ?? '').trim();
  if (real && !ips.includes(real)) ips.push(real);
  let remote = req.socket?.remoteAddress ?? '';
  if (remote.startsWith('::ffff:')) remote = remote.slice(7);
  if (remote && !ips.includes(remote)) ips.push(remote);
  return ips;
}

/** Now, in microseconds since the epoch (kube-apiserver's events carry metav1.MicroTime). */
export function nowMicros(): number {
  return Math.floor((performance.timeOrigin + performance.now()) * 1000);
}

/** RFC 3339 with six fractional digits, as metav1.MicroTime marshals. */
export function microTime(micros: number): string {
  const ms = Math.floor(micros / 1000);
  const iso = new Date(ms).toISOString();
  return `${iso.slice(0, 23)}${String(micros % 1000).padStart(3, '0')}Z`;
}

/** Removes metadata.managedFields from an object or the items of a list (omitManagedFields). */
export function withoutManagedFields(obj: unknown): unknown {
  if (!obj || typeof obj !== 'object') return obj;
  const o = obj as Record<string, unknown>;
  const strip = (x: unknown): unknown => {
    const meta = (x as { metadata?: Record<string, unknown> })?.metadata;
    if (!meta || !('managedFields' in meta)) return x;
    const { managedFields: _, ...rest } = meta;
    return { ...(x as object), metadata: rest };
  };
  if (Array.isArray(o.items)) return { ...o, items: o.items.map(strip) };
  return strip(o);
}
