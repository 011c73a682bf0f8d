/**
 * The OpenAPI endpoints of kube-apiserver, built from our schema tables and from what the server serves:
 *
 * - /openapi/v3: `{"paths": {"api/v1": {"serverRelativeURL": "/openapi/v3/api/v1?hash=<HASH>"}, …}}`, one entry
 *   per served group/version; HASH is the upper-case hex SHA-512 of that group/version's document.
 * - /openapi/v3/<api/v1 | apis/<group>/<version>>: the OpenAPI 3.0 document. Asked for with the current `hash`
 *   it is served with `Cache-Control: public, immutable` and an Expires a year ahead; a stale `hash` is
 *   redirected (301) to the current URL; without `hash` it is served uncached. A path that names no served
 *   group/version gets an empty 200, as kube-openapi's handler answers.
 * - /openapi/v2: the Swagger 2.0 document of everything, as JSON or in kube-openapi's protobuf form (the only form
 *   kubectl asks for, to check the items of a List), gzip-compressed for clients that accept it.
 *
 * Documents are built on first request and kept until the set of served resources changes. The v3 documents are
 * served as JSON only; see accept.ts.
 */
import type { APIRegistry } from '../api-registry.js';
import type { RequestContext } from '../context.js';
import { versionInfo } from '../handlers/version.js';
import { acceptsJson, negotiateForm, V2_PROTOBUF_SUBTYPE } from './accept.js';
import { buildV2Document } from './document-v2.js';
import { buildV3Document } from './document-v3.js';
import { encodeV2Document } from './protobuf-v2.js';
import { type Document, serveDocument, serveEmpty, toDocument } from './serve-document.js';
import { openAPIV3Key, type ServedGroupVersion, servedByGroupVersion, servedSignature } from './served.js';

const V2_PATH = '/openapi/v2';
const V3_PATH = '/openapi/v3';
const YEAR_MS = 365 * 24 * 3600 * 1000;

export interface OpenAPIServiceOptions {
  /** info.version of the documents; the server's gitVersion by default. */
  infoVersion?: string;
  now?: () => Date;
}

interface Generation {
  readonly signature: string;
  readonly served: readonly ServedGroupVersion[];
  readonly v3: Map<string, Document>;
  discovery?: Document;
  v2?: Document;
  v2Protobuf?: Document;
}

export function serverRelativeURL(key: string, hash: string): string {
  return `${V3_PATH}/${key}?hash=${hash}`;
}

export class OpenAPIService {
  private generation: Generation | undefined;
  private readonly infoVersion: string;
  private readonly now: () => Date;

  constructor(
    private readonly registry: APIRegistry,
    opts: OpenAPIServiceOptions = {},
  ) {
    this.infoVersion = opts.infoVersion ?? versionInfo().gitVersion;
    this.now = opts.now ?? (() => new Date());
  }

  /** Answers /openapi/v2, /openapi/v3 and /openapi/v3/…; false for any other path. */
  serve(ctx: RequestContext): boolean {
    const path = ctx.url.pathname;
    if (path === V2_PATH) this.serveV2(ctx);
    else if (path === V3_PATH) this.serveDiscovery(ctx);
    else if (path.startsWith(`${V3_PATH}/`)) this.serveGroupVersion(ctx, path.slice(V3_PATH.length + 1));
    else return false;
    return true;
  }

  /** The v3 document of one group/version (`api/v1`, `apis/apps/v1`), or undefined when it is not served. */
  groupVersionDocument(key: string): Document | undefined {
    const gen = this.current();
    let doc = gen.v3.get(key);
    if (doc === undefined) {
      const gv = gen.served.find((g) => openAPIV3Key(g.group, g.version) === key);
      if (gv === undefined) return undefined;
      doc = toDocument(buildV3Document(gv, this.infoVersion), this.now());
      gen.v3.set(key, doc);
    }
    return doc;
  }

  discoveryDocument(): Document {
    const gen = this.current();
    if (gen.discovery === undefined) {
      const paths: Record<string, { serverRelativeURL: string }> = {};
      const keys = gen.served.map((g) => openAPIV3Key(g.group, g.version)).sort();
      for (const key of keys) {
        const doc = this.groupVersionDocument(key);
        if (doc !== undefined) paths[key] = { serverRelativeURL: serverRelativeURL(key, doc.hash) };
      }
      gen.discovery = toDocument({ paths }, this.now());
    }
    return gen.discovery;
  }

  v2Document(): Document {
    const gen = this.current();
    gen.v2 ??= toDocument(buildV2Document(gen.served, this.infoVersion), this.now());
    return gen.v2;
  }

  private current(): Generation {
    const signature = servedSignature(this.registry);
    if (this.generation?.signature !== signature) {
      this.generation = { signature, served: servedByGroupVersion(this.registry), v3: new Map() };
    }
    return this.generation;
  }

  private serveDiscovery(ctx: RequestContext): void {
    serveDocument(ctx, this.discoveryDocument(), { contentType: 'application/json' });
  }

  private serveGroupVersion(ctx: RequestContext, key: string): void {
    const vary = { vary: 'Accept' };
    if (!acceptsJson(header(ctx, 'accept'))) {
      serveEmpty(ctx, 406, vary);
      return;
    }
    const doc = this.groupVersionDocument(key);
    if (doc === undefined) {
      serveEmpty(ctx, 200, vary);
      return;
    }
    const hash = ctx.url.searchParams.get('hash');
    if (hash !== null && hash !== '' && hash !== doc.hash) {
      serveEmpty(ctx, 301, {
        ...vary,
        'content-type': 'application/json',
        etag: `"${doc.hash}"`,
        location: serverRelativeURL(key, doc.hash),
      });
      return;
    }
    const cached: Record<string, string> =
      hash === doc.hash
        ? { 'cache-control': 'public, immutable', expires: new Date(this.now().getTime() + YEAR_MS).toUTCString() }
        : {};
    serveDocument(ctx, doc, { contentType: 'application/json', headers: { ...vary, ...cached } });
  }

  /** The v2 document in kube-openapi's protobuf form; its ETag and Last-Modified are the JSON document's. */
  v2ProtobufDocument(): Document {
    const gen = this.current();
    const json = this.v2Document();
    gen.v2Protobuf ??= { ...json, body: encodeV2Document(JSON.parse(json.body.toString('utf8'))), gzipped: undefined };
    return gen.v2Protobuf;
  }

  private serveV2(ctx: RequestContext): void {
    const form = negotiateForm(header(ctx, 'accept'), ['json', 'protobuf']);
    if (form === undefined) {
      serveEmpty(ctx, 406, { vary: 'Accept' });
      return;
    }
    const [doc, contentType] =
      form === 'protobuf'
        ? [this.v2ProtobufDocument(), `application/${V2_PROTOBUF_SUBTYPE}`]
        : [this.v2Document(), 'application/json'];
    serveDocument(ctx, doc, { contentType, headers: { vary: 'Accept' }, gzip: true });
  }
}

function header(ctx: RequestContext, name: string): string | undefined {
  const v = ctx.req.headers[name];
  return Array.isArray(v) ? v.join(', ') : v;
}
