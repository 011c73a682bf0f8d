/** The audit.k8s.io/v1 Event, as kube-apiserver writes it to its log backend, and its JSON line. */
import { goJsonMarshal, withSortedKeys } from '../../api/go-json.js';
import { formatIP, parseIP } from '../../api/validation/ip.js';
import type { HttpRequest, UserInfo } from '../context.js';
import { headerLines } from '../header-lines.js';
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

/** A UserInfo in authentication/v1's field order (username, uid, groups, extra), extra's keys sorted as Go's map. */
function orderedUser(user: AuditUser): AuditUser {
  return {
    ...(user.username ? { username: user.username } : {}),
    ...(user.uid ? { uid: user.uid } : {}),
    ...(user.groups ? { groups: user.groups } : {}),
    ...(user.extra && Object.keys(user.extra).length > 0 ? { extra: withSortedKeys(user.extra) } : {}),
  };
}

const OBJECT_REFERENCE_FIELDS = [
  'resource',
  'namespace',
  'name',
  'uid',
  'apiGroup',
  'apiVersion',
  'resourceVersion',
  'subresource',
] as const;

/**
 * The event with its fields in audit/v1 Event's order, as Go writes the struct (omitempty fields left out when
 * empty, the annotations map with its keys sorted).
 */
export function orderedEvent(ev: AuditEvent): AuditEvent {
  const ref = ev.objectRef;
  const objectRef: ObjectReference = {};
  if (ref) for (const f of OBJECT_REFERENCE_FIELDS) if (ref[f]) objectRef[f] = ref[f];
  return {
    kind: ev.kind,
    apiVersion: ev.apiVersion,
    level: ev.level,
    auditID: ev.auditID,
    stage: ev.stage,
    requestURI: ev.requestURI,
    verb: ev.verb,
    user: orderedUser(ev.user),
    ...(ev.impersonatedUser ? { impersonatedUser: orderedUser(ev.impersonatedUser) } : {}),
    ...(ev.sourceIPs && ev.sourceIPs.length > 0 ? { sourceIPs: ev.sourceIPs } : {}),
    ...(ev.userAgent ? { userAgent: ev.userAgent } : {}),
    ...(ref ? { objectRef } : {}),
    ...(ev.responseStatus ? { responseStatus: ev.responseStatus } : {}),
    ...(ev.requestObject !== undefined ? { requestObject: ev.requestObject } : {}),
    ...(ev.responseObject !== undefined ? { responseObject: ev.responseObject } : {}),
    requestReceivedTimestamp: ev.requestReceivedTimestamp,
    stageTimestamp: ev.stageTimestamp,
    ...(ev.annotations && Object.keys(ev.annotations).length > 0
      ? { annotations: withSortedKeys(ev.annotations) }
      : {}),
  };
}

/** An event's line in the JSON log: Go's encoding of the struct (its field order, HTML-safe escapes) and a newline. */
export function eventJsonLine(ev: AuditEvent): string {
  return `${goJsonMarshal(orderedEvent(ev))}\n`;
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

/** The first value of a request header, as Go's Header.Get reads it (Node joins some repeated headers). */
function firstHeader(req: HttpRequest, name: string): string {
  const line = headerLines(req, name)[0];
  if (line !== undefined) return line;
  const value = req.headers[name];
  return Array.isArray(value) ? (value[0] ?? '') : (value ?? '');
}

/** An address as Go's net.IP prints it, when text parses as one (netutils.ParseIPSloppy). */
function sloppyIP(text: string): string | undefined {
  const ip = parseIP(text);
  return ip ? formatIP(ip) : undefined;
}

/**
 * The client's addresses as upstream's utilnet.SourceIPs lists them: the X-Forwarded-For entries that parse as
 * addresses, then X-Real-Ip unless the chain has it already, then the connection's peer unless it is the chain's
 * last address; each as Go prints it (an IPv4-mapped IPv6 address dotted).
 */
export function sourceIPs(req: HttpRequest): string[] {
  const ips: string[] = [];
  const forwarded = firstHeader(req, 'x-forwarded-for');
  if (forwarded !== '') {
    for (const part of forwarded.split(',')) {
      const ip = sloppyIP(part.trim());
      if (ip) ips.push(ip);
    }
  }
  const real = firstHeader(req, 'x-real-ip');
  if (real !== '') {
    const ip = sloppyIP(real);
    if (ip && !ips.includes(ip)) ips.push(ip);
  }
  const remote = sloppyIP(req.socket?.remoteAddress ?? '');
  if (remote && ips.at(-1) !== remote) ips.push(remote);
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
