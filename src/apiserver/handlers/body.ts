import { parse as parseYaml, type Tags } from 'yaml';
import { goJsonSyntaxError } from '../../api/go-json.js';
import { decodeKubernetesProtobuf } from '../../api/protobuf/decode.js';
import { ProtobufError } from '../../api/protobuf/protobuf-error.js';
import { statusErrors } from '../../api/status-error.js';
import type { RequestContext } from '../context.js';

export const PROTOBUF = 'application/vnd.kubernetes.protobuf';

/** kube-apiserver refuses request bodies over 3 MiB. */
export const MAX_BODY_BYTES = 3 * 1024 * 1024;

/** Reads the whole request body, refusing more than MAX_BODY_BYTES with 413. */
export function readBody(ctx: RequestContext, limit = MAX_BODY_BYTES): Promise<Buffer> {
  const declared = Number(ctx.req.headers['content-length'] ?? '0');
  if (declared > limit) return Promise.reject(statusErrors.requestEntityTooLarge(`limit is ${limit}`));
  // Read with the stream's events rather than its async iterator, which costs more than the rest of a small
  // request's reading.
  const req = ctx.req;
  // A stream that ended or was destroyed before it was read (the client went away meanwhile) emits nothing more.
  if (req.destroyed || req.readableEnded) {
    return Promise.reject(new Error('the request was closed before its body was read'));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (err?: unknown) => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', done);
      req.off('close', onClose);
      if (err === undefined) return;
      // Whatever else the client sends is read and dropped.
      req.resume();
      reject(err);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) done(statusErrors.requestEntityTooLarge(`limit is ${limit}`));
      else chunks.push(chunk);
    };
    const onEnd = () => {
      done();
      const body = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
      ctx.requestBody = body;
      resolve(body);
    };
    // A stream closed before its end: the client went away.
    const onClose = () => done(new Error('the request was closed before its body was read'));
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', done);
    req.on('close', onClose);
  });
}

/** The media type of the request body without parameters, lower case. */
export function contentTypeOf(ctx: RequestContext): string {
  const raw = String(ctx.req.headers['content-type'] ?? '');
  return (raw.split(';')[0] ?? '').trim().toLowerCase();
}

/**
 * YAML as sigs.k8s.io/yaml reads a body (YAML 1.1 into JSON): a plain timestamp stays the string it is written as,
 * and `!!binary` data becomes a string (of its UTF-8 decoding; in decodeBody).
 */
const YAML_BODY = {
  version: '1.1',
  customTags: (tags: Tags) =>
    tags.filter((t) => t !== 'timestamp' && (typeof t === 'string' || t.tag !== 'tag:yaml.org,2002:timestamp')),
} as const;

/**
 * Decodes a JSON or YAML body into a value. YAML is read as YAML 1.1, as Kubernetes reads it. Malformed input is
 * a 400 BadRequest with the parser's complaint; for an object of a known kind (a create or update), malformed JSON
 * gets upstream's words for a body whose kind could not be read.
 */
export function decodeBody(body: Buffer, contentType: string, kind?: string): unknown {
  if (contentType === PROTOBUF) {
    // kubectl's typed clients (create configmap|secret|deployment|…) send Kubernetes protobuf.
    try {
      return decodeKubernetesProtobuf(body).object;
    } catch (err) {
      if (err instanceof ProtobufError) throw statusErrors.badRequest(err.message);
      throw err;
    }
  }
  const text = body.toString('utf8');
  if (contentType === 'application/yaml' || contentType.endsWith('+yaml')) {
    let value: unknown;
    try {
      value = parseYaml(text, (_key, v) => (v instanceof Uint8Array ? Buffer.from(v).toString('utf8') : v), YAML_BODY);
    } catch (err) {
      throw statusErrors.badRequest(`error converting YAML to JSON: ${(err as Error).message}`);
    }
    // Through JSON, as upstream converts YAML: aliases become copies, and one that contains itself is refused.
    try {
      return JSON.parse(JSON.stringify(value) ?? 'null');
    } catch {
      throw statusErrors.badRequest('error converting YAML to JSON: yaml: an alias contains its own anchor');
    }
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    if (kind !== undefined) {
      // Upstream's decoder could not even find the body's kind: its words, with the start of what was sent.
      throw statusErrors.badRequest(
        `the object provided is unrecognized (must be of type ${kind}): couldn't get version/kind; json parse error: ${goJsonSyntaxError(text)} (${summarizeBody(body)})`,
      );
    }
    throw statusErrors.badRequest(`the body of the request could not be decoded: ${(err as Error).message}`);
  }
}

/** Upstream's summarizeData: the first 30 bytes of a body that starts as an object, else their hex. */
function summarizeBody(body: Buffer): string {
  const max = 30;
  if (body.length === 0) return '<empty>';
  const head = body.subarray(0, max);
  const text = body[0] === 0x7b ? head.toString('utf8') : head.toString('hex');
  return body.length > max ? `${text} ...` : text;
}
