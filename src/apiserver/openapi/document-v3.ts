/**
 * The OpenAPI 3.0 document of one served group/version, as /openapi/v3/<api/v1 | apis/<group>/<version>> serves
 * it: the discovery path, every served operation, and in components.schemas every definition those operations
 * reach. kubectl reads it for `explain`, for the patch metadata of client-side `apply`/`diff`, and to learn that
 * the server validates fields itself (the `fieldValidation` parameter of the kind's PATCH operation).
 */
import { CUSTOM_DEFINITION_REFERENCES, customDefinitions } from '../crd/openapi.js';
import { rawDefinition, reachableDefinitions } from './definitions.js';
import { discoveryRoute, type Operation, type Route, resourceRoutes } from './operations.js';
import type { Parameter } from './parameters.js';
import { pathItem } from './path-item.js';
import { convertDefinition, refTo, type SchemaObject } from './schema-convert.js';
import type { ServedGroupVersion } from './served.js';

export const RESPONSE_TEXT: Readonly<Record<string, string>> = {
  200: 'OK',
  201: 'Created',
  202: 'Accepted',
  401: 'Unauthorized',
};

/** The routes of a group/version, discovery first, then by path. */
export function groupVersionRoutes(gv: ServedGroupVersion): Route[] {
  const routes = gv.resources.flatMap(resourceRoutes);
  routes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return [discoveryRoute(gv.group, gv.version), ...routes];
}

/** Every definition named by an operation's body or answers. */
export function operationDefinitions(routes: readonly Route[]): Set<string> {
  const names = new Set<string>();
  for (const route of routes) {
    for (const op of route.operations) {
      if (op.body) names.add(op.body.definition);
      for (const name of Object.values(op.responses)) names.add(name);
    }
  }
  return names;
}

/** The built-in definitions to publish: those named, less custom resources' own, plus what those refer to. */
export function builtinRoots(names: Set<string>, custom: Record<string, unknown>): string[] {
  const roots = [...names].filter((n) => !Object.hasOwn(custom, n));
  return Object.keys(custom).length > 0 ? [...roots, ...CUSTOM_DEFINITION_REFERENCES] : roots;
}

function parameter(p: Parameter): SchemaObject {
  return {
    name: p.name,
    in: p.in,
    ...(p.required ? { required: true } : {}),
    schema: { type: p.type, uniqueItems: true },
  };
}

function operation(op: Operation, own: readonly Parameter[]): SchemaObject {
  const out: SchemaObject = { operationId: op.operationId, tags: [op.tag] };
  if (own.length > 0) out.parameters = own.map(parameter);
  if (op.body) {
    const schema = refTo(op.body.definition, 'v3');
    out.requestBody = { content: Object.fromEntries(op.body.media.map((m) => [m, { schema }])) };
  }
  const responses: SchemaObject = {};
  for (const [code, definition] of Object.entries(op.responses)) {
    const schema = refTo(definition, 'v3');
    responses[code] = {
      description: RESPONSE_TEXT[code] ?? '',
      content: Object.fromEntries(op.produces.map((m) => [m, { schema }])),
    };
  }
  responses[401] = { description: RESPONSE_TEXT[401] };
  out.responses = responses;
  if (op.action) out['x-kubernetes-action'] = op.action;
  if (op.gvk)
    out['x-kubernetes-group-version-kind'] = { group: op.gvk.group, kind: op.gvk.kind, version: op.gvk.version };
  return out;
}

export function buildV3Document(gv: ServedGroupVersion, infoVersion: string): SchemaObject {
  const routes = groupVersionRoutes(gv);
  const paths: SchemaObject = {};
  for (const route of routes) {
    paths[route.path] = pathItem(route, operation, parameter);
  }
  const schemas: SchemaObject = {};
  const custom = customDefinitions(gv.resources, 'v3');
  for (const name of reachableDefinitions(builtinRoots(operationDefinitions(routes), custom))) {
    const raw = rawDefinition(name);
    if (raw !== undefined) schemas[name] = convertDefinition(name, raw, 'v3');
  }
  Object.assign(schemas, custom);
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: infoVersion },
    paths,
    components: {
      schemas,
      securitySchemes: { BearerToken: { type: 'apiKey', name: 'authorization', in: 'header' } },
    },
  };
}
