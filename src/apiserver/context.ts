import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Http2ServerRequest, Http2ServerResponse } from 'node:http2';
import type { Level } from './audit/policy.js';
import type { RequestAudit } from './audit/request-audit.js';
import type { RequestInfo } from './request-info.js';

/** Who made a request, as authentication found out. */
export interface UserInfo {
  name: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

export type HttpRequest = IncomingMessage | Http2ServerRequest;
/**
 * The response. HTTP/2 requests get an Http2ServerResponse, whose compatibility API matches ServerResponse for
 * everything handlers use; handlers see one type.
 */
export type HttpResponse = ServerResponse;
export type AnyHttpResponse = ServerResponse | Http2ServerResponse;

/** Everything a handler knows about one request; filters fill it in as the request passes through them. */
export interface RequestContext {
  req: HttpRequest;
  res: HttpResponse;
  method: string;
  url: URL;
  info: RequestInfo;
  user: UserInfo | undefined;
  auditId: string;
  startedAt: number;
  /** Set when the request may last indefinitely (watch, log follow…): excluded from latency metrics. */
  longRunning: boolean;
  /**
   * Annotations of the request's audit event (upstream's audit annotations: admission plugins, webhooks and
   * policies add them, authorization its decision).
   */
  auditAnnotations: Record<string, string>;
  /**
   * The level the audit policy gives this request (set by the audit filter; unset when nothing is audited).
   * Annotations meant for Request level and above (a mutating webhook's patch) are kept only when it is that high.
   */
  auditLevel?: Level;
  /** What the handler tells the request's audit event (set by the audit filter when the request is audited). */
  audit?: RequestAudit;
  /** The request body as read (a patch's requestObject at level Request and above). */
  requestBody?: Buffer;
}

export type Handler = (ctx: RequestContext) => Promise<void>;

/** A step of the request pipeline: it may answer the request itself or pass it on to next. */
export type Filter = (next: Handler) => Handler;
