/**
 * Checks the documents against upstream's own v1.33 OpenAPI v2 document, when the workspace has a copy of it
 * (../shared/k8s-openapi). The registry here serves every resource of the catalog, with status and scale where
 * upstream has them, so every operation we would publish for any built-in resource is compared: ids, actions,
 * group/version/kinds, parameters, answers, tags and request media types, and every definition (descriptions
 * and defaults aside). Media types we do not serve (protobuf, CBOR) are left out of the comparison.
 */
import { existsSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { resourcesOf, servedGroupVersions } from '../../api/catalog.js';
import assert from '../../testing/assert.js';
import { APIRegistry } from '../api-registry.js';
import { buildV2Document } from './document-v2.js';
import { servedByGroupVersion } from './served.js';
import { addSample } from './test-registry.js';

const file = new URL('../../../../shared/k8s-openapi/swagger-v1.33.json', import.meta.url);
const skip = !existsSync(file) && 'upstream v1.33 OpenAPI document is not in the workspace';

// biome-ignore lint/suspicious/noExplicitAny: tests walk arbitrary JSON
type Json = any;
const METHODS = ['get', 'put', 'post', 'patch', 'delete'];
const unserved = (m: string) => m.includes('protobuf') || m.includes('cbor');

function describeOperation(doc: Json, item: Json, method: string) {
  const resolve = (p: Json) => (p.$ref ? doc.parameters[p.$ref.split('/').pop()] : p);
  const op = item[method];
  const params = (list: Json[] | undefined) =>
    (list ?? []).map(resolve).map((p: Json) => `${p.in}:${p.name}:${p.type ?? ''}:${p.required === true}`);
  const gvk = op['x-kubernetes-group-version-kind'];
  return {
    id: op.operationId,
    action: op['x-kubernetes-action'],
    gvk: gvk && `${gvk.group}/${gvk.version}/${gvk.kind}`,
    pathParameters: params(item.parameters).sort(),
    parameters: params(op.parameters).sort(),
    responses: Object.entries<Json>(op.responses).map(([code, r]) => `${code}:${r.schema?.$ref ?? ''}`),
    tags: op.tags,
    consumes: op.consumes.filter((m: string) => !unserved(m)),
    produces: op.produces.filter((m: string) => !unserved(m) && m !== 'application/json;stream=watch').sort(),
  };
}

function everyResource(upstream: Json): APIRegistry {
  const registry = new APIRegistry();
  for (const g of servedGroupVersions()) {
    for (const version of g.versions) {
      for (const r of resourcesOf(g.group, version)) {
        const prefix = g.group ? `/apis/${g.group}/${version}` : `/api/${version}`;
        const item = r.namespaced
          ? `${prefix}/namespaces/{namespace}/${r.resource}/{name}`
          : `${prefix}/${r.resource}/{name}`;
        const deleted = upstream.paths[item]?.delete?.responses?.[200]?.schema?.$ref ?? '';
        const subs = new Set(r.subresources.map((s) => s.name));
        addSample(registry, {
          group: g.group,
          version,
          resource: r.resource,
          kind: r.kind,
          namespaced: r.namespaced,
          strategy: { returnDeletedObject: !deleted.endsWith('.Status') },
          ...(subs.has('status') ? { status: { prepareForUpdate() {} } } : {}),
          ...((subs.has('scale') ? { scale: true } : {}) as object),
        });
      }
    }
  }
  return registry;
}

test('operations and definitions match upstream v1.33 for every built-in resource', { skip }, () => {
  const upstream = JSON.parse(readFileSync(file, 'utf8'));
  const ours: Json = buildV2Document(servedByGroupVersion(everyResource(upstream)), 'v1.33.0');
  let compared = 0;
  for (const [path, item] of Object.entries<Json>(ours.paths)) {
    const theirs = upstream.paths[path];
    assert.ok(theirs, `upstream has ${path}`);
    for (const method of METHODS) {
      if (!item[method]) continue;
      assert.ok(theirs[method], `upstream has ${method.toUpperCase()} ${path}`);
      const a = describeOperation(ours, item, method);
      const b = describeOperation(upstream, theirs, method);
      // Upstream lists the same parameters either on the path or on the operation; compare where they end up too.
      assert.deepEqual(a, b, `${method.toUpperCase()} ${path}`);
      compared++;
    }
  }
  assert.ok(compared > 500, `compared ${compared} operations`);
  const strip = (v: Json): Json =>
    Array.isArray(v)
      ? v.map(strip)
      : v && typeof v === 'object'
        ? Object.fromEntries(
            Object.keys(v)
              .filter((k) => k !== 'description' && k !== 'default')
              .sort()
              .map((k) => [k, strip(v[k])]),
          )
        : v;
  for (const [name, schema] of Object.entries<Json>(ours.definitions)) {
    assert.deepEqual(strip(schema), strip(upstream.definitions[name]), name);
  }
});
