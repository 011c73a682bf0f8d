import { statusErrors } from '../api/status-error.js';
import { BoundedMemo } from '../util/bounded-memo.js';

/** The shape a client asked the server to answer in (Accept header). */
export type OutputForm =
  | { as: 'object'; yaml: boolean }
  | { as: 'Table'; version: 'v1' | 'v1beta1' }
  | { as: 'PartialObjectMetadata'; version: 'v1' | 'v1beta1' };

interface MediaRange {
  type: string;
  params: Record<string, string>;
}

function parseAccept(header: string): MediaRange[] {
  return header
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => {
      const [type = '', ...rest] = part.split(';').map((s) => s.trim());
      const params: Record<string, string> = {};
      for (const p of rest) {
        const eq = p.indexOf('=');
        if (eq > 0) params[p.slice(0, eq).toLowerCase()] = p.slice(eq + 1).replace(/^"|"$/g, '');
      }
      return { type: type.toLowerCase(), params };
    });
}

const JSON_TYPES = new Set(['application/json', 'application/*', '*/*']);
export const SUPPORTED_MEDIA_TYPES = [
  'application/json',
  'application/yaml',
  'application/json;as=Table;v=v1;g=meta.k8s.io',
];

/**
 * Picks the first acceptable form in the client's order, as kube-apiserver does: Table and PartialObjectMetadata
 * (meta.k8s.io v1 or v1beta1) for JSON, plain JSON, or YAML. Protobuf is not served: a client that accepts only
 * protobuf gets 406.
 */
export function negotiateOutput(accept: string | undefined): OutputForm {
  if (!accept) return PLAIN_JSON;
  // Clients send the same few Accept headers on every request: each is worked out once (bounded).
  return formsByAccept.get(accept) ?? formsByAccept.remember(accept, Object.freeze(pickOutput(accept)));
}

const PLAIN_JSON: OutputForm = Object.freeze({ as: 'object', yaml: false });
const formsByAccept = new BoundedMemo<string, OutputForm>(256);

function pickOutput(accept: string): OutputForm {
  for (const m of parseAccept(accept)) {
    if (m.type === 'application/yaml' && !m.params.as) return { as: 'object', yaml: true };
    if (!JSON_TYPES.has(m.type)) continue;
    const as = m.params.as;
    if (!as) return { as: 'object', yaml: false };
    if (m.params.g !== 'meta.k8s.io') continue;
    const version = m.params.v;
    if (version !== 'v1' && version !== 'v1beta1') continue;
    if (as === 'Table') return { as: 'Table', version };
    if (as === 'PartialObjectMetadata' || as === 'PartialObjectMetadataList')
      return { as: 'PartialObjectMetadata', version };
  }
  throw statusErrors.notAcceptable(SUPPORTED_MEDIA_TYPES);
}

export function contentTypeFor(form: OutputForm): string {
  if (form.as === 'object') return form.yaml ? 'application/yaml' : 'application/json';
  return `application/json;as=${form.as};v=${form.version};g=meta.k8s.io`;
}
