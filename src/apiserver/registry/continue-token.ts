import { statusErrors } from '../../api/status-error.js';

/**
 * The continue token of a paginated list, in upstream's form: unpadded URL-safe base64 of
 * {"v":"meta.k8s.io/v1","rv":N,"start":K}, K being the next key relative to the list's prefix. Clients treat it
 * as opaque.
 */
export function encodeContinue(revision: number, nextKey: string, prefix: string): string {
  const start = nextKey.startsWith(prefix) ? nextKey.slice(prefix.length) : nextKey;
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: revision, start })).toString('base64url');
}

const invalid = (why: string) => statusErrors.badRequest(`invalid continue token: continue key is not valid${why}`);

export function decodeContinue(token: string, prefix: string): { revision: number; startKey: string } {
  let parsed: { v?: unknown; rv?: unknown; start?: unknown };
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch (err) {
    throw invalid(`: ${(err as Error).message}`);
  }
  // JSON null (or any non-object) decodes as Go's zero token.
  if (parsed === null || typeof parsed !== 'object') parsed = {};
  if (parsed.v !== 'meta.k8s.io/v1') throw invalid('');
  if (typeof parsed.rv !== 'number' || !Number.isInteger(parsed.rv) || parsed.rv <= 0) {
    throw invalid(': incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  }
  if (typeof parsed.start !== 'string' || parsed.start.length === 0) {
    throw invalid(': encoded start key empty (version meta.k8s.io/v1)');
  }
  if (parsed.start.split('/').includes('..')) throw invalid('');
  return { revision: parsed.rv, startKey: prefix + parsed.start };
}

/** What upstream answers when a continue token's revision has been compacted away. */
export const CONTINUE_EXPIRED =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';
