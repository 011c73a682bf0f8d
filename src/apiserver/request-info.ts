import { FieldSelector } from '../api/fields.js';

/**
 * What a request is about, read from its method, path and query as kube-apiserver's RequestInfo does: the verb in
 * Kubernetes' vocabulary (get, list, watch, create, update, patch, delete, deletecollection) and the group,
 * version, namespace, resource, subresource and name it names.
 */
export interface RequestInfo {
  /** True for /api/... and /apis/... paths that name a resource; false for /version, /healthz, discovery, … */
  isResourceRequest: boolean;
  path: string;
  /** For resource requests a Kubernetes verb; otherwise the lower-case HTTP method. */
  verb: string;
  apiPrefix: string;
  apiGroup: string;
  apiVersion: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
  /** The path segments after the group/version (and after /namespaces/<ns> when that scopes the request). */
  parts: string[];
}

const API_PREFIXES = new Set(['api', 'apis']);
const LEGACY_PREFIX = 'api';
/** Subresources of a namespace that are not "resources inside the namespace". */
const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

export function parseRequestInfo(method: string, path: string, query: URLSearchParams): RequestInfo {
  const httpVerb = method.toLowerCase();
  const info: RequestInfo = {
    isResourceRequest: false,
    path,
    verb: httpVerb,
    apiPrefix: '',
    apiGroup: '',
    apiVersion: '',
    namespace: '',
    resource: '',
    subresource: '',
    name: '',
    parts: [],
  };
  // Percent-escapes are undone, as Go's URL.Path is decoded before upstream reads it (a client may send
  // `system%3Amasters`); a segment with a broken escape is kept as sent.
  let segments = path
    .split('/')
    .filter((s) => s.length > 0)
    .map((s) => (s.includes('%') ? decodeSegment(s) : s));
  if (segments.length < 2 || !API_PREFIXES.has(segments[0] as string)) return info;
  info.apiPrefix = segments[0] as string;
  segments = segments.slice(1);
  if (info.apiPrefix !== LEGACY_PREFIX) {
    info.apiGroup = segments[0] as string;
    segments = segments.slice(1);
  }
  if (segments.length === 0) return info;
  info.apiVersion = segments[0] as string;
  segments = segments.slice(1);
  if (segments.length === 0) return info;
  info.isResourceRequest = true;

  switch (httpVerb) {
    case 'post':
      info.verb = 'create';
      break;
    case 'get':
    case 'head':
      info.verb = 'get';
      break;
    case 'put':
      info.verb = 'update';
      break;
    case 'patch':
      info.verb = 'patch';
      break;
    case 'delete':
      info.verb = 'delete';
      break;
    default:
      info.verb = '';
  }
  // The old /watch/ path form: /api/v1/watch/namespaces/ns/pods.
  if (segments[0] === 'watch') {
    info.verb = 'watch';
    segments = segments.slice(1);
  }
  if (segments[0] === 'namespaces') {
    if (segments.length > 1) {
      info.namespace = segments[1] as string;
      // /namespaces/<ns> itself, and its status/finalize subresources, are the namespace resource.
      if (segments.length > 2 && !NAMESPACE_SUBRESOURCES.has(segments[2] as string)) segments = segments.slice(2);
    }
  }
  info.parts = segments;
  if (segments.length >= 3) info.subresource = segments[2] as string;
  if (segments.length >= 2) info.name = segments[1] as string;
  if (segments.length >= 1) info.resource = segments[0] as string;

  // A namespace's own name is its name, not a namespace scope.
  if (info.resource === 'namespaces') info.namespace = info.name;

  if (info.verb === 'get' && !info.name) {
    info.verb = isWatch(query) ? 'watch' : 'list';
    info.name = nameFromFieldSelector(query.get('fieldSelector'));
  }
  if (info.verb === 'delete' && !info.name) info.verb = 'deletecollection';
  return info;
}

/**
 * The name a list or watch asks for by a field selector that requires `metadata.name` (how `kubectl get pod x -w`
 * watches one pod), as upstream's RequestInfo takes it, so that authorization and audit see the name: '' when the
 * selector does not parse, requires no name, or names what could not be a path segment.
 */
function nameFromFieldSelector(selector: string | null): string {
  if (!selector) return '';
  let name: string | undefined;
  try {
    name = FieldSelector.parse(selector).requiresExactMatch('metadata.name');
  } catch {
    return '';
  }
  if (!name || name === '.' || name === '..' || name.includes('/') || name.includes('%')) return '';
  return name;
}

function isWatch(query: URLSearchParams): boolean {
  const v = query.get('watch');
  return v !== null && v !== '' && v !== '0' && v.toLowerCase() !== 'false';
}
