/**
 * Whether a client accepts the JSON form of an OpenAPI document. kube-openapi also serves a protobuf form
 * (application/com.github.proto-openapi.spec.v2@v1.0+protobuf for v2 — the only form kubectl asks /openapi/v2
 * for — and …spec.v3@v1.0+protobuf for v3); this server does not, so a client that accepts nothing but protobuf
 * gets what upstream answers when no media range matches: 406 with an empty body.
 */

/** True when some media range with a non-zero quality matches application/json; an absent header means any. */
export function acceptsJson(accept: string | undefined): boolean {
  if (accept === undefined || accept.trim() === '') return true;
  for (const range of accept.split(',')) {
    const [mediaType = '', ...params] = range.split(';').map((s) => s.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    if (q !== undefined && !(Number(q.slice(2)) > 0)) continue;
    const [type, subtype] = mediaType.split('/');
    if ((type === 'application' || type === '*') && (subtype === 'json' || subtype === '*')) return true;
  }
  return false;
}
