/**
 * Reading the apiserver's answers: bodies by content type, Retry-After, and the ApiError of an error answer (the
 * server's Status, or one made up as client-go does when the body is not a Status).
 */
import type { TransportResponse } from './transport.js';
import { ApiError, type StatusObject } from './types.js';

/** What a request is about, for the message of an error the server answers without a Status. */
export interface RequestTarget {
  group: string;
  resource: string;
  name?: string;
}

export function encodeBody(body: unknown): Buffer | undefined {
  if (body === undefined) return undefined;
  if (Buffer.isBuffer(body)) return body;
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  return Buffer.from(JSON.stringify(body), 'utf8');
}

export function isJson(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  // The apiserver's answers nearly all say exactly this.
  if (contentType === 'application/json') return true;
  return /[/+]json\b/i.test(contentType.split(';')[0] ?? '');
}

export function parseBody(contentType: string | undefined, text: string): unknown {
  if (text === '') return undefined;
  if (!isJson(contentType)) return text;
  return JSON.parse(text);
}

const RESOURCE_VERSION_KEY = Buffer.from('"resourceVersion":"');
const STATUS_KIND = Buffer.from('"kind":"Status"');

/**
 * The metadata.resourceVersion of a write's JSON answer, without decoding it when its text names one
 * resourceVersion only and is not a Status: every written object has metadata.resourceVersion, and a key inside a
 * string has its quotes escaped, so that one is it. Otherwise the answer is decoded (and a Failure Status thrown).
 */
export function answerResourceVersion(body: Buffer, status: number): string {
  const at = body.indexOf(RESOURCE_VERSION_KEY);
  if (at >= 0 && body.indexOf(RESOURCE_VERSION_KEY, at + 1) < 0 && !body.includes(STATUS_KIND)) {
    const start = at + RESOURCE_VERSION_KEY.length;
    const end = body.indexOf(0x22, start);
    const value = end < 0 ? undefined : body.toString('latin1', start, end);
    if (value !== undefined && /^[0-9]*$/.test(value)) return value;
  }
  const parsed: unknown = body.length === 0 ? undefined : JSON.parse(body.toString('utf8'));
  if (isFailureStatus(parsed)) throw ApiError.fromStatus({ code: status, ...parsed });
  const meta = (parsed as { metadata?: { resourceVersion?: unknown } } | undefined)?.metadata;
  return typeof meta?.resourceVersion === 'string' ? meta.resourceVersion : '';
}

export function isStatus(value: unknown): value is Partial<StatusObject> {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'Status';
}

export function isFailureStatus(value: unknown): value is Partial<StatusObject> {
  return isStatus(value) && value.status === 'Failure';
}

/** The Retry-After header as a whole number of seconds, as client-go reads it. */
export function retryAfterSeconds(response: TransportResponse): number | undefined {
  const header = response.headers['retry-after'];
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || !/^\d+$/.test(value.trim())) return undefined;
  return Number(value.trim());
}

/**
 * The texts of the response's Warning headers (`299 - "text"`, RFC 7234), as client-go's warning handler shows
 * them.
 */
export function warnings(response: TransportResponse): string[] {
  const header = response.headers.warning;
  if (header === undefined) return [];
  const out: string[] = [];
  for (const value of Array.isArray(header) ? header : [header]) {
    for (const match of value.matchAll(/\d{3}\s+\S+\s+"((?:[^"\\]|\\.)*)"/g)) {
      out.push((match[1] ?? '').replace(/\\(.)/g, '$1'));
    }
  }
  return out;
}

/** client-go's cap on the server text quoted in a synthesized error. */
const MAX_UNSTRUCTURED_BYTES = 2048;

/**
 * The ApiError of an error answer: the server's Status when it sent one, else one made up as client-go does
 * (apimachinery's NewGenericServerResponse), with the reason that goes with the HTTP code.
 */
export function errorFromResponse(
  response: TransportResponse,
  body: Buffer,
  method: string,
  target: RequestTarget | undefined,
): ApiError {
  const contentType = response.headers['content-type'];
  if (isJson(contentType)) {
    try {
      const parsed: unknown = JSON.parse(body.toString('utf8'));
      if (isStatus(parsed)) return ApiError.fromStatus({ ...parsed, code: parsed.code || response.status });
    } catch {
      // not a Status; made up below
    }
  }
  const isText = contentType !== undefined && /^text\//i.test(contentType);
  const serverMessage = isText ? body.subarray(0, MAX_UNSTRUCTURED_BYTES).toString('utf8').trim() : 'unknown';
  return genericServerError(response.status, method, target, serverMessage, retryAfterSeconds(response));
}

export function genericServerError(
  code: number,
  method: string,
  target: RequestTarget | undefined,
  serverMessage: string,
  retryAfter?: number,
): ApiError {
  let reason = 'Unknown';
  let message = `the server responded with the status code ${code} but did not return more information`;
  switch (code) {
    case 409:
      reason = method === 'POST' ? 'AlreadyExists' : 'Conflict';
      message = 'the server reported a conflict';
      break;
    case 404:
      reason = 'NotFound';
      message = 'the server could not find the requested resource';
      break;
    case 400:
      reason = 'BadRequest';
      message = 'the server rejected our request for an unknown reason';
      break;
    case 401:
      reason = 'Unauthorized';
      message = 'the server has asked for the client to provide credentials';
      break;
    case 403:
      reason = 'Forbidden';
      message = serverMessage;
      break;
    case 406:
      reason = 'NotAcceptable';
      message =
        serverMessage === '' || serverMessage === 'unknown'
          ? 'the server was unable to respond with a content type that the client supports'
          : serverMessage;
      break;
    case 415:
      reason = 'UnsupportedMediaType';
      message = serverMessage;
      break;
    case 405:
      reason = 'MethodNotAllowed';
      message = 'the server does not allow this method on the requested resource';
      break;
    case 422:
      reason = 'Invalid';
      message = 'the server rejected our request due to an error in our request';
      break;
    case 503:
      reason = 'ServiceUnavailable';
      message = 'the server is currently unable to handle the request';
      break;
    case 504:
      reason = 'Timeout';
      message =
        'the server was unable to return a response in the time allotted, but may still be processing the request';
      break;
    case 429:
      reason = 'TooManyRequests';
      message = 'the server has received too many requests and has asked us to try again later';
      break;
    default:
      if (code >= 500) {
        reason = 'InternalError';
        message = `an error on the server (${JSON.stringify(serverMessage)}) has prevented the request from succeeding`;
      }
  }
  const resource =
    target === undefined ? '' : target.group === '' ? target.resource : `${target.resource}.${target.group}`;
  if (resource !== '') {
    message = `${message} (${method.toLowerCase()} ${resource}${target?.name ? ` ${target.name}` : ''})`;
  }
  const details: NonNullable<StatusObject['details']> = {
    causes: [{ type: 'UnexpectedServerResponse', message: serverMessage }],
  };
  if (target !== undefined && resource !== '') {
    details.group = target.group;
    details.kind = target.resource;
    if (target.name) details.name = target.name;
  }
  if (retryAfter !== undefined && retryAfter > 0) details.retryAfterSeconds = retryAfter;
  return new ApiError({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    code,
    reason,
    message,
    details,
  });
}
