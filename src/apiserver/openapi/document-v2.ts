/**
 * The Swagger 2.0 document of everything served, as /openapi/v2 serves it in JSON: every served group/version's
 * discovery path and operations, and every definition they reach. Parameters are written inline (upstream also
 * shares some through `#/parameters/…`; clients read both forms).
 */

import { customDefinitions } from '../crd/openapi.js';
import { rawDefinition, reachableDefinitions } from './definitions.js';
import { builtinRoots, groupVersionRoutes, operationDefinitions, RESPONSE_TEXT } from './document-v3.js';
import type { Operation, Route } from './operations.js';
import type { Parameter } from './parameters.js';
import { pathItem } from './path-item.js';
import { convertDefinition, refTo, type SchemaObject } from './schema-convert.js';
import type { ServedGroupVersion } from './served.js';

function parameter(p: Parameter): SchemaObject {
  return { uniqueItems: true, type: p.type, name: p.name, in: p.in, ...(p.required ? { required: true } : {}) };
}

function operation(op: Operation, own: readonly Parameter[]): SchemaObject {
  const parameters: SchemaObject[] = [];
  if (op.body) {
    parameters.push({
      name: 'body',
      in: 'body',
      ...(op.body.required ? { required: true } : {}),
      schema: refTo(op.body.definition, 'v2'),
    });
  }
  parameters.push(...own.map(parameter));
  const responses: SchemaObject = {};
  for (const [code, definition] of Object.entries(op.responses)) {
    responses[code] = { description: RESPONSE_TEXT[code] ?? '', schema: refTo(definition, 'v2') };
  }
  responses[401] = { description: RESPONSE_TEXT[401] };
  return {
    consumes: [...(op.body?.media ?? op.consumes ?? ['*/*'])],
    produces: [...op.produces],
    schemes: ['https'],
    tags: [op.tag],
    operationId: op.operationId,
    ...(parameters.length > 0 ? { parameters } : {}),
    responses,
    ...(op.action ? { 'x-kubernetes-action': op.action } : {}),
    ...(op.gvk
      ? { 'x-kubernetes-group-version-kind': { group: op.gvk.group, kind: op.gvk.kind, version: op.gvk.version } }
      : {}),
  };
}

export function buildV2Document(served: readonly ServedGroupVersion[], infoVersion: string): SchemaObject {
  const routes: Route[] = served.flatMap(groupVersionRoutes);
  routes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const paths: SchemaObject = {};
  for (const route of routes) paths[route.path] = pathItem(route, operation, parameter);
  const definitions: SchemaObject = {};
  const custom = customDefinitions(
    served.flatMap((gv) => gv.resources),
    'v2',
  );
  for (const name of reachableDefinitions(builtinRoots(operationDefinitions(routes), custom))) {
    const raw = rawDefinition(name);
    if (raw !== undefined) definitions[name] = convertDefinition(name, raw, 'v2');
  }
  Object.assign(definitions, custom);
  return {
    swagger: '2.0',
    info: { title: 'Kubernetes', version: infoVersion },
    paths,
    definitions,
    securityDefinitions: { BearerToken: { type: 'apiKey', name: 'authorization', in: 'header' } },
    security: [{ BearerToken: [] }],
  };
}
