/**
 * Which form of an OpenAPI document a client's Accept header asks for. kube-openapi serves /openapi/v2 as JSON or
 * as protobuf (application/com.github.proto-openapi.spec.v2.v1.0+protobuf, or its older spelling with `@v1.0` —
 * the one kubectl asks for), and /openapi/v3/… as JSON here (its protobuf form is not served): a client that accepts
 * none of the forms offered gets what upstream answers then, 406 with an empty body.
 */

export const V2_PROTOBUF_SUBTYPE = 'com.github.proto-openapi.spec.v2.v1.0+protobuf';
const V2_PROTOBUF_SUBTYPE_DEPRECATED = 'com.github.proto-openapi.spec.v2@v1.0+protobuf';

export type DocumentForm = 'json' | 'protobuf';

interface Clause {
  type: string;
  subtype: string;
  q: number;
}

/** The media ranges of an Accept header, best first: by quality, then the more specific (as goautoneg sorts). */
function clauses(accept: string | undefined): Clause[] {
  const header = accept === undefined || accept.trim() === '' ? '*/*' : accept;
  const out: Clause[] = [];
  for (const range of header.split(',')) {
    const [mediaType = '', ...params] = range.split(';').map((s) => s.trim().toLowerCase());
    const qParam = params.find((p) => p.startsWith('q='));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    const [type = '', subtype = ''] = mediaType.split('/');
    if (type !== '' && q > 0) out.push({ type, subtype, q });
  }
  const wildcards = (c: Clause) => (c.type === '*' ? 1 : 0) + (c.subtype === '*' ? 1 : 0);
  return out.sort((a, b) => b.q - a.q || wildcards(a) - wildcards(b));
}

/**
 * The form to serve: the first of `offered` (JSON first, as kube-openapi lists it) that the best-ranked matching
 * media range takes; undefined when none does.
 */
export function negotiateForm(accept: string | undefined, offered: readonly DocumentForm[]): DocumentForm | undefined {
  const subtypes: [DocumentForm, string][] = [];
  for (const form of offered) {
    if (form === 'json') subtypes.push(['json', 'json']);
    else subtypes.push(['protobuf', V2_PROTOBUF_SUBTYPE_DEPRECATED], ['protobuf', V2_PROTOBUF_SUBTYPE]);
  }
  for (const clause of clauses(accept)) {
    if (clause.type !== 'application' && clause.type !== '*') continue;
    for (const [form, subtype] of subtypes) if (clause.subtype === subtype || clause.subtype === '*') return form;
  }
  return undefined;
}

/** True when some media range with a non-zero quality matches application/json; an absent header means any. */
export function acceptsJson(accept: string | undefined): boolean {
  return negotiateForm(accept, ['json']) === 'json';
}
