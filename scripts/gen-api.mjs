#!/usr/bin/env node
// Derives wheelhouse's API tables from the Kubernetes v1.33 OpenAPI (swagger v2) document in
// ../shared/k8s-openapi/ and writes them to src/api/generated/:
//
//   definitions.json  the schema of every definition the served resources reach, plus every
//                     io.k8s.apimachinery.pkg.* definition: types, formats, references, required
//                     fields and the x-kubernetes-* extensions. Descriptions are left out on purpose.
//   resources.json    the served groups in discovery order and, per served group/version, its
//                     resources and subresources with kind, scope and verbs.
//
// Run with `npm run gen:api`. The output is deterministic: same input, same bytes.

import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';

const repoRoot = new URL('..', import.meta.url);
const swaggerFile = new URL('../shared/k8s-openapi/swagger-v1.33.json', repoRoot);
const outDir = new URL('src/api/generated/', repoRoot);

// Group/versions a default v1.33 kube-apiserver serves: the GA versions enabled by default
// (pkg/controlplane instance.go stable list, plus apiextensions and apiregistration served by
// their own servers in the chain). Every beta version in the v1.33 document was introduced after
// v1.24, so by KEP-3136 none is on by default; alpha versions never are.
//
// group/version priorities come from upstream's APIService priority table
// (cmd/kube-apiserver/app/aggregator.go merged with pkg/controlplane/apiserver/aggregator.go):
// /apis lists apiregistration.k8s.io first (the aggregator's own group), then the other groups
// by descending group priority, ties broken by APIService name ("<version>.<group>"). Within a
// group the version with the highest version priority is preferred.
const SERVED = [
  { group: '', version: 'v1', groupPriority: 18000, versionPriority: 1 },
  { group: 'apiregistration.k8s.io', version: 'v1', groupPriority: Number.POSITIVE_INFINITY, versionPriority: 15 },
  { group: 'apps', version: 'v1', groupPriority: 17800, versionPriority: 15 },
  { group: 'events.k8s.io', version: 'v1', groupPriority: 17750, versionPriority: 15 },
  { group: 'authentication.k8s.io', version: 'v1', groupPriority: 17700, versionPriority: 15 },
  { group: 'authorization.k8s.io', version: 'v1', groupPriority: 17600, versionPriority: 15 },
  { group: 'autoscaling', version: 'v2', groupPriority: 17500, versionPriority: 30 },
  { group: 'autoscaling', version: 'v1', groupPriority: 17500, versionPriority: 15 },
  { group: 'batch', version: 'v1', groupPriority: 17400, versionPriority: 15 },
  { group: 'certificates.k8s.io', version: 'v1', groupPriority: 17300, versionPriority: 15 },
  { group: 'networking.k8s.io', version: 'v1', groupPriority: 17200, versionPriority: 15 },
  { group: 'policy', version: 'v1', groupPriority: 17100, versionPriority: 15 },
  { group: 'rbac.authorization.k8s.io', version: 'v1', groupPriority: 17000, versionPriority: 15 },
  { group: 'storage.k8s.io', version: 'v1', groupPriority: 16800, versionPriority: 15 },
  { group: 'admissionregistration.k8s.io', version: 'v1', groupPriority: 16700, versionPriority: 15 },
  { group: 'apiextensions.k8s.io', version: 'v1', groupPriority: 16700, versionPriority: 15 },
  { group: 'scheduling.k8s.io', version: 'v1', groupPriority: 16600, versionPriority: 15 },
  { group: 'coordination.k8s.io', version: 'v1', groupPriority: 16500, versionPriority: 15 },
  { group: 'node.k8s.io', version: 'v1', groupPriority: 16300, versionPriority: 15 },
  { group: 'discovery.k8s.io', version: 'v1', groupPriority: 16200, versionPriority: 15 },
  { group: 'flowcontrol.apiserver.k8s.io', version: 'v1', groupPriority: 16100, versionPriority: 21 },
];

const DEF_PREFIX = '#/definitions/';
const ALWAYS_KEPT = 'io.k8s.apimachinery.pkg.';
const EXTENSIONS = {
  'x-kubernetes-patch-strategy': 'ps',
  'x-kubernetes-patch-merge-key': 'pk',
  'x-kubernetes-list-type': 'lt',
  'x-kubernetes-list-map-keys': 'lk',
  'x-kubernetes-map-type': 'mt',
  'x-kubernetes-preserve-unknown-fields': 'pu',
  'x-kubernetes-int-or-string': 'ios',
  'x-kubernetes-embedded-resource': 'er',
  'x-kubernetes-unions': 'un',
};
// x-kubernetes-action → discovery verb. `connect` depends on the HTTP method (see connectVerb).
const ACTION_VERBS = {
  get: 'get',
  list: 'list',
  watch: 'watch',
  watchlist: 'watch',
  post: 'create',
  put: 'update',
  patch: 'patch',
  delete: 'delete',
  deletecollection: 'deletecollection',
};
const CONNECT_VERBS = { get: 'get', post: 'create', put: 'update', patch: 'patch', delete: 'delete' };
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'];

const swagger = JSON.parse(readFileSync(swaggerFile, 'utf8'));
const gvKey = (group, version) => (group ? `${group}/${version}` : version);
const served = new Map(SERVED.map((s) => [gvKey(s.group, s.version), s]));

/** Splits a path into its group/version and the part after it, or undefined for other paths. */
function splitPath(path) {
  const core = /^\/api\/(v1)\/(.*)$/.exec(path);
  if (core) return { group: '', version: core[1], rest: core[2] };
  const named = /^\/apis\/([^/]+)\/([^/]+)\/(.*)$/.exec(path);
  if (named) return { group: named[1], version: named[2], rest: named[3] };
  return undefined;
}

/** Parses the part of a path after the group/version into resource, subresource and scope. */
function parseRest(rest) {
  let segments = rest.split('/').filter((s) => s !== '');
  let watchForm = false;
  if (segments[0] === 'watch') {
    watchForm = true;
    segments = segments.slice(1);
  }
  let namespaced = false;
  if (segments[0] === 'namespaces' && segments[1] === '{namespace}' && segments.length > 2) {
    namespaced = true;
    segments = segments.slice(2);
  }
  const [resource, name, subresource] = segments;
  if (!resource || resource.startsWith('{')) return undefined;
  if (name !== undefined && name !== '{name}') return undefined;
  return { resource, subresource, namespaced, watchForm };
}

function refName(ref) {
  if (!ref.startsWith(DEF_PREFIX)) throw new Error(`unexpected $ref ${ref}`);
  return ref.slice(DEF_PREFIX.length);
}

function connectVerb(method) {
  return CONNECT_VERBS[method];
}

/** Collects definition names referenced anywhere inside a schema. */
function collectRefs(schema, into) {
  if (!schema || typeof schema !== 'object') return;
  if (Array.isArray(schema)) {
    for (const s of schema) collectRefs(s, into);
    return;
  }
  for (const [key, value] of Object.entries(schema)) {
    if (key === '$ref' && typeof value === 'string') into.add(refName(value));
    else if (typeof value === 'object') collectRefs(value, into);
  }
}

function resolveParameter(param) {
  return param.$ref ? swagger.parameters[param.$ref.replace('#/parameters/', '')] : param;
}

// ---- resources -------------------------------------------------------------------------------

const catalog = new Map(); // gv -> Map(resource -> entry)
const roots = new Set();

for (const path of Object.keys(swagger.paths).sort()) {
  const where = splitPath(path);
  if (!where) continue;
  const gv = gvKey(where.group, where.version);
  if (!served.has(gv)) continue;
  const parsed = parseRest(where.rest);
  if (!parsed) continue;
  const item = swagger.paths[path];
  const resources = catalog.get(gv) ?? new Map();
  catalog.set(gv, resources);
  const entry = resources.get(parsed.resource) ?? {
    name: parsed.resource,
    kind: undefined,
    namespaced: false,
    verbs: new Set(),
    subresources: new Map(),
  };
  resources.set(parsed.resource, entry);
  if (parsed.namespaced) entry.namespaced = true;
  let target = entry;
  if (parsed.subresource) {
    target = entry.subresources.get(parsed.subresource) ?? {
      name: parsed.subresource,
      gvk: undefined,
      verbs: new Set(),
    };
    entry.subresources.set(parsed.subresource, target);
  }
  for (const param of item.parameters ?? []) {
    const p = resolveParameter(param);
    if (p?.in === 'body') collectRefs(p.schema, roots);
  }
  for (const method of HTTP_METHODS) {
    const op = item[method];
    if (!op) continue;
    const action = op['x-kubernetes-action'];
    const verb = action === 'connect' ? connectVerb(method) : ACTION_VERBS[action];
    if (verb) target.verbs.add(verb);
    const gvk = op['x-kubernetes-group-version-kind'];
    if (gvk && !parsed.watchForm) {
      if (target === entry) entry.kind ??= gvk.kind;
      else target.gvk ??= gvk;
    }
    if (parsed.watchForm) continue;
    for (const param of op.parameters ?? []) {
      const p = resolveParameter(param);
      if (p?.in === 'body') collectRefs(p.schema, roots);
    }
    for (const response of Object.values(op.responses ?? {})) collectRefs(response.schema, roots);
  }
}

const groups = [];
for (const s of SERVED) {
  let g = groups.find((x) => x.name === s.group);
  if (!g) {
    g = { name: s.group, priority: s.groupPriority, versions: [] };
    groups.push(g);
  }
  g.versions.push(s);
}
groups.sort((a, b) => {
  if (a.name === '' || b.name === '') return a.name === '' ? -1 : 1;
  if (a.priority !== b.priority) return b.priority - a.priority;
  const an = `${a.versions[0].version}.${a.name}`;
  const bn = `${b.versions[0].version}.${b.name}`;
  return an < bn ? -1 : an > bn ? 1 : 0;
});

const resourcesOut = {};
for (const g of groups) {
  g.versions.sort((a, b) => b.versionPriority - a.versionPriority);
  for (const s of g.versions) {
    const gv = gvKey(s.group, s.version);
    const resources = catalog.get(gv);
    if (!resources || resources.size === 0) throw new Error(`served ${gv} has no paths in the document`);
    resourcesOut[gv] = [...resources.values()]
      .sort((a, b) => (a.name < b.name ? -1 : 1))
      .map((r) => {
        if (!r.kind) throw new Error(`${gv} ${r.name}: no kind`);
        const out = { name: r.name, kind: r.kind, namespaced: r.namespaced, verbs: [...r.verbs].sort() };
        const subs = [...r.subresources.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
        if (subs.length > 0) {
          out.subresources = subs.map((sub) => {
            if (!sub.gvk) throw new Error(`${gv} ${r.name}/${sub.name}: no kind`);
            const o = { name: sub.name, kind: sub.gvk.kind };
            if (sub.gvk.group !== s.group || sub.gvk.version !== s.version) {
              o.group = sub.gvk.group;
              o.version = sub.gvk.version;
            }
            o.verbs = [...sub.verbs].sort();
            return o;
          });
        }
        return out;
      });
  }
}
const groupsOut = groups.map((g) => ({
  name: g.name,
  preferredVersion: g.versions[0].version,
  versions: g.versions.map((v) => v.version),
}));

// ---- definitions -----------------------------------------------------------------------------

const gvkIndex = new Map();
for (const [name, def] of Object.entries(swagger.definitions)) {
  for (const g of def['x-kubernetes-group-version-kind'] ?? []) {
    const key = `${g.group}/${g.version}/${g.kind}`;
    if (!gvkIndex.has(key)) gvkIndex.set(key, name);
  }
}
for (const [gv, list] of Object.entries(resourcesOut)) {
  const [group, version] = gv.includes('/') ? gv.split('/') : ['', gv];
  for (const r of list) {
    const def = gvkIndex.get(`${group}/${version}/${r.kind}`);
    if (def) roots.add(def);
    for (const sub of r.subresources ?? []) {
      const subDef = gvkIndex.get(`${sub.group ?? group}/${sub.version ?? version}/${sub.kind}`);
      if (subDef) roots.add(subDef);
    }
  }
}
for (const name of Object.keys(swagger.definitions)) if (name.startsWith(ALWAYS_KEPT)) roots.add(name);

const keep = new Set();
const queue = [...roots];
while (queue.length > 0) {
  const name = queue.pop();
  if (keep.has(name)) continue;
  const def = swagger.definitions[name];
  if (!def) throw new Error(`missing definition ${name}`);
  keep.add(name);
  const refs = new Set();
  collectRefs(def, refs);
  for (const r of refs) if (!keep.has(r)) queue.push(r);
}

/** The compact form of a schema: short keys, no descriptions. */
function compact(schema) {
  const out = {};
  if (schema.$ref) out.r = refName(schema.$ref);
  if (schema.type) out.t = schema.type;
  if (schema.format) out.f = schema.format;
  if (schema.enum) out.e = schema.enum;
  if (schema.items) out.i = compact(schema.items);
  if (schema.additionalProperties !== undefined) {
    const ap = schema.additionalProperties;
    out.ap = typeof ap === 'boolean' ? ap : compact(ap);
  }
  if (schema.properties) {
    out.p = {};
    for (const name of Object.keys(schema.properties).sort()) out.p[name] = compact(schema.properties[name]);
  }
  if (schema.required) out.req = [...schema.required];
  for (const [ext, short] of Object.entries(EXTENSIONS)) {
    if (schema[ext] !== undefined) out[short] = schema[ext];
  }
  const gvks = schema['x-kubernetes-group-version-kind'];
  if (gvks) out.gvk = gvks.map((g) => [g.group, g.version, g.kind]);
  return out;
}

const definitionLines = [...keep]
  .sort()
  .map((name) => `${JSON.stringify(name)}:${JSON.stringify(compact(swagger.definitions[name]))}`);

mkdirSync(outDir, { recursive: true });
writeFileSync(new URL('definitions.json', outDir), `{\n${definitionLines.join(',\n')}\n}\n`);
const resourceLines = Object.entries(resourcesOut).map(
  ([gv, list]) => `${JSON.stringify(gv)}:[\n${list.map((r) => JSON.stringify(r)).join(',\n')}\n]`,
);
writeFileSync(
  new URL('resources.json', outDir),
  `{"groups":[\n${groupsOut.map((g) => JSON.stringify(g)).join(',\n')}\n],\n"resources":{\n${resourceLines.join(',\n')}\n}}\n`,
);
console.log(
  `wrote ${keep.size} definitions and ${Object.values(resourcesOut).reduce((n, l) => n + l.length, 0)} resources in ${groupsOut.length} groups`,
);
