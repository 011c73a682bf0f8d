/**
 * Audit in the request pipeline (ARCHITECTURE.md "Filters"). Two filters share one auditor: `failedAuthentication`
 * sits before authentication and records the requests it refuses (401, one ResponseStarted event, as upstream's
 * failed-authentication audit); `audit` sits after authentication, before impersonation, and records the
 * RequestReceived, ResponseStarted (long-running requests only, as upstream's BasicLongRunningRequestCheck names
 * them; 101 for a connection taken over by exec, attach or port-forward) and ResponseComplete (or Panic) stages at
 * the level the policy gives the requester.
 */
import { PlainTextStatusError, StatusError, toStatus } from '../../api/status-error.js';
import type { Auditor } from '../audit/auditor.js';
import {
  type AuditEvent,
  auditUser,
  microTime,
  nowMicros,
  objectRef,
  sourceIPs,
  truncatedUserAgent,
  withoutManagedFields,
} from '../audit/event.js';
import { type AuditDecision, LEVEL_RANK, type Stage } from '../audit/policy.js';
import { type AuditedObjectMeta, RequestAudit } from '../audit/request-audit.js';
import type { Filter, RequestContext } from '../context.js';
import { contentTypeOf, decodeBody } from '../handlers/body.js';
import type { RequestInfo } from '../request-info.js';

/** When each request arrived, in microseconds (set by the outer filter, read by the inner one). */
const received = new WeakMap<RequestContext, number>();
/** Requests the inner filter took charge of. */
const audited = new WeakSet<RequestContext>();

function baseEvent(ctx: RequestContext, decision: AuditDecision, stage: Stage): AuditEvent {
  const ua = ctx.req.headers['user-agent'];
  const receivedAt = microTime(received.get(ctx) ?? nowMicros());
  return {
    kind: 'Event',
    apiVersion: 'audit.k8s.io/v1',
    level: decision.level,
    auditID: ctx.auditId,
    stage,
    requestURI: ctx.req.url ?? ctx.url.pathname,
    verb: ctx.info.verb,
    user: auditUser(ctx.user),
    sourceIPs: sourceIPs(ctx.req),
    ...(ua ? { userAgent: truncatedUserAgent(String(ua)) } : {}),
    ...(ctx.info.isResourceRequest ? { objectRef: objectRef(ctx.info) } : {}),
    requestReceivedTimestamp: receivedAt,
    // As upstream's processAuditEvent: the RequestReceived stage is stamped with the time the request was received.
    stageTimestamp: stage === 'RequestReceived' ? receivedAt : microTime(nowMicros()),
  };
}

function authMethods(ctx: RequestContext): string {
  const methods: string[] = [];
  const auth = String(ctx.req.headers.authorization ?? '').trim();
  const scheme = auth.split(' ');
  if (scheme.length > 1 && scheme[0]?.toLowerCase() === 'basic') methods.push('basic');
  if (scheme.length > 1 && scheme[0]?.toLowerCase() === 'bearer') methods.push('bearer');
  if ((ctx.url.searchParams.get('access_token') ?? '').trim()) methods.push('access_token');
  const socket = ctx.req.socket as { getPeerCertificate?: () => { subject?: unknown } } | undefined;
  if (typeof socket?.getPeerCertificate === 'function' && socket.getPeerCertificate()?.subject) methods.push('x509');
  return methods.length > 0
    ? `Authentication failed, attempted: ${methods.join(', ')}`
    : 'Authentication failed, no credentials provided';
}

function parseJson(buf: Buffer | undefined): unknown {
  if (!buf || buf.length === 0) return undefined;
  try {
    return JSON.parse(buf.toString('utf8'));
  } catch {
    return undefined;
  }
}

function decodedRequestBody(ctx: RequestContext): unknown {
  if (!ctx.requestBody || ctx.requestBody.length === 0) return undefined;
  try {
    return decodeBody(ctx.requestBody, contentTypeOf(ctx));
  } catch {
    return undefined;
  }
}

/** Fills what the request path did not say (name, namespace, uid, resourceVersion) from the decoded object's. */
function completeObjectRef(ref: NonNullable<AuditEvent['objectRef']>, meta: AuditedObjectMeta): void {
  const fields = ['namespace', 'name', 'uid', 'resourceVersion'] as const;
  for (const field of fields) {
    const value = meta[field];
    if (!ref[field] && value) ref[field] = value;
  }
}

export interface AuditFilters {
  failedAuthentication: Filter;
  audit: Filter;
}

export function auditFilters(auditor: Auditor): AuditFilters {
  const failedAuthentication: Filter = (next) => async (ctx) => {
    received.set(ctx, nowMicros());
    try {
      await next(ctx);
    } catch (err) {
      if (!audited.has(ctx) && err instanceof StatusError && err.status.code === 401) {
        const decision = auditor.evaluator.evaluate({ user: undefined, info: ctx.info });
        if (decision.level !== 'None' && !decision.omitStages.has('ResponseStarted')) {
          const ev = baseEvent(ctx, decision, 'ResponseStarted');
          ev.responseStatus = { metadata: {}, message: authMethods(ctx), code: 401 };
          auditor.process(ev);
        }
      }
      throw err;
    }
  };

  const audit: Filter = (next) => async (ctx) => {
    audited.add(ctx);
    const decision = auditor.evaluator.evaluate({ user: ctx.user, info: ctx.info });
    ctx.auditLevel = decision.level;
    if (decision.level === 'None') return next(ctx);
    const audit = new RequestAudit(decision.level, decision.omitManagedFields);
    ctx.audit = audit;
    const requester = ctx.user;
    const emit = (ev: AuditEvent) => {
      if (!decision.omitStages.has(ev.stage)) auditor.process(ev);
    };
    emit(baseEvent(ctx, decision, 'RequestReceived'));

    // Upstream emits ResponseStarted for the requests its long-running check names, when the response starts: the
    // first header or body write, or the connection's hijacking (101, before the protocol switch).
    const longRunning = isLongRunning(ctx.info);
    let code = 0;
    const processCode = (status: number) => {
      if (code !== 0) return;
      code = status;
      if (longRunning) emit(finish(code, 'ResponseStarted'));
    };
    const res = ctx.res;
    const writeHead = res.writeHead;
    res.writeHead = function (this: typeof res, ...args: Parameters<typeof res.writeHead>) {
      processCode(args[0]);
      return writeHead.apply(this, args);
    } as typeof res.writeHead;
    const detachSocket = res.detachSocket;
    if (typeof detachSocket === 'function') {
      res.detachSocket = function (this: typeof res, socket: Parameters<typeof res.detachSocket>[0]) {
        processCode(101);
        return detachSocket.call(this, socket);
      } as typeof res.detachSocket;
    }
    const wantsResponse = LEVEL_RANK[decision.level] >= LEVEL_RANK.RequestResponse;
    const chunks: Buffer[] = [];
    {
      const write = res.write;
      const end = res.end;
      const keep = (chunk: unknown) => {
        processCode(res.statusCode);
        // Only an API object written already encoded is read back (a streamed one never: upstream logs none).
        if (!audit.encodedResponse || longRunning || chunk === undefined || typeof chunk === 'function') return;
        chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
      };
      // HTTP/2's response writes end's chunk through write: kept once, by end.
      let ending = false;
      res.write = function (this: typeof res, chunk: unknown, ...rest: unknown[]) {
        if (!ending) keep(chunk);
        return (write as (...a: unknown[]) => boolean).call(this, chunk, ...rest);
      } as typeof res.write;
      res.end = function (this: typeof res, chunk?: unknown, ...rest: unknown[]) {
        keep(chunk);
        ending = true;
        try {
          return (end as (...a: unknown[]) => typeof res).call(this, chunk, ...rest);
        } finally {
          ending = false;
        }
      } as typeof res.end;
    }

    // A patch is logged as sent (upstream's LogRequestPatch), decoded once and only when an event needs it.
    let parsedPatch: { value: unknown } | undefined;
    const requestPatch = (): unknown => {
      parsedPatch ??= { value: decodedRequestBody(ctx) };
      return parsedPatch.value;
    };
    const finish = (
      status: number,
      stage: Stage,
      failure?: Record<string, unknown>,
      errorResponse?: Record<string, unknown>,
    ): AuditEvent => {
      const ev = baseEvent(ctx, decision, stage);
      ev.user = auditUser(requester);
      if (ctx.user !== requester) ev.impersonatedUser = auditUser(ctx.user);
      ev.verb = ctx.info.verb;
      ev.responseStatus = failure ?? { metadata: {}, code: status };
      // As upstream's LogRequestObject, at every level: the decoded object completes the reference.
      if (ev.objectRef && audit.objectMeta) completeObjectRef(ev.objectRef, audit.objectMeta);
      if (audit.requestObject !== undefined) ev.requestObject = audit.requestObject;
      else if (ctx.info.verb === 'patch' && LEVEL_RANK[decision.level] >= LEVEL_RANK.Request) {
        const patch = requestPatch();
        if (patch !== undefined) ev.requestObject = patch;
      }
      if (wantsResponse && (errorResponse || stage === 'ResponseComplete')) {
        // A request that failed answers its Status: that is its response object, as upstream logs it. Otherwise the
        // API object the handler answered, if it answered one.
        const body =
          errorResponse ??
          (audit.responseObject !== undefined
            ? audit.responseObject
            : audit.encodedResponse
              ? parseJson(Buffer.concat(chunks))
              : undefined);
        if (body !== undefined) ev.responseObject = decision.omitManagedFields ? withoutManagedFields(body) : body;
      }
      if (Object.keys(ctx.auditAnnotations).length > 0) ev.annotations = { ...ctx.auditAnnotations };
      return ev;
    };

    try {
      await next(ctx);
    } catch (err) {
      if (!(err instanceof StatusError)) {
        const message = `APIServer panic'd: ${err instanceof Error ? err.message : String(err)}`;
        emit(finish(500, 'Panic', { metadata: {}, status: 'Failure', message, reason: 'InternalError', code: 500 }));
        throw err;
      }
      const s = toStatus(err);
      // Plain text answers no Status: the event records only the code, as upstream's does.
      const failure: Record<string, unknown> =
        err instanceof PlainTextStatusError
          ? { metadata: {}, code: s.code }
          : {
              metadata: {},
              status: 'Failure',
              ...(s.message ? { message: s.message } : {}),
              ...(s.reason ? { reason: s.reason } : {}),
              ...(s.details ? { details: s.details } : {}),
              code: s.code,
            };
      const errorResponse = err instanceof PlainTextStatusError ? undefined : (s as unknown as Record<string, unknown>);
      // Upstream writes the error inside this filter: a long-running request's response starts with it.
      if (longRunning && code === 0) {
        code = s.code;
        emit(finish(s.code, 'ResponseStarted', failure, errorResponse));
      }
      emit(finish(s.code, 'ResponseComplete', failure, errorResponse));
      throw err;
    }
    if (code === 0) {
      // Nothing was written (the client went away first): upstream fakes a success.
      const closedEarly = { metadata: {}, status: 'Success', message: 'Connection closed early', code: 200 };
      if (longRunning) emit(finish(200, 'ResponseStarted', closedEarly));
      emit(finish(200, 'ResponseComplete', closedEarly));
      return;
    }
    // A watch (or another long-running request) is complete when its response ends, not when it has started.
    if (longRunning) await responseEnded(ctx);
    // An answer that is a Status — a failure, or the Success of a DELETE — lends the event its fields, as upstream's
    // LogResponseObject copies them; the code is the one written.
    const status = audit.responseStatus ? { ...audit.responseStatus, code } : undefined;
    emit(finish(code, 'ResponseComplete', status));
  };

  return { failedAuthentication, audit };
}

/** Long-running requests as kube-apiserver's BasicLongRunningRequestCheck names them. */
const LONG_RUNNING_VERBS: ReadonlySet<string> = new Set(['watch', 'proxy']);
const LONG_RUNNING_SUBRESOURCES: ReadonlySet<string> = new Set(['attach', 'exec', 'proxy', 'log', 'portforward']);

export function isLongRunning(info: RequestInfo): boolean {
  if (LONG_RUNNING_VERBS.has(info.verb)) return true;
  if (info.isResourceRequest) return LONG_RUNNING_SUBRESOURCES.has(info.subresource);
  return info.path.startsWith('/debug/pprof/');
}

/**
 * Resolves once the response has ended or its stream has closed (at once when that already happened). An HTTP/1.1
 * connection taken over by a stream (exec, attach, port-forward) ends when its socket closes.
 */
function responseEnded(ctx: RequestContext): Promise<void> {
  const res = ctx.res;
  const stream = (res as unknown as { stream?: { closed?: boolean } }).stream;
  const socket = ctx.req.httpVersionMajor === 1 ? ctx.req.socket : undefined;
  if (res.writableFinished || res.destroyed || stream?.closed || socket?.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      res.off('finish', done);
      res.off('close', done);
      socket?.off('close', done);
      resolve();
    };
    res.once('finish', done);
    res.once('close', done);
    socket?.once('close', done);
  });
}
