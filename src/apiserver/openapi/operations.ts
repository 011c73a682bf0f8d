/**
 * The REST operations a served resource offers, as kube-apiserver's installer lays them out and names them:
 * collection (list, watch through ?watch, create, deletecollection), item (read, replace, patch, delete), the
 * served subresources (status, scale: read, replace, patch), the cross-namespace list of namespaced resources,
 * and the older /watch/ paths. Which of them exist follows the catalog's verbs for the resource. The model is
 * neutral; document-v2.ts and document-v3.ts write it out.
 */
import { lookupResource } from '../../api/catalog.js';
import type { ServedResource } from '../api-registry.js';
import { customDefinitionNames } from '../crd/openapi.js';
import { STATUS_LIKE_SUBRESOURCES, statusLikeStrategy } from '../registry/resource.js';
import { definitionOfKind, type GroupVersionKind, META } from './definitions.js';
import {
  DELETE_COLLECTION_PARAMETERS,
  DELETE_PARAMETERS,
  LIST_PARAMETERS,
  PATCH_PARAMETERS,
  type Parameter,
  PRETTY,
  pathParameter,
  WRITE_PARAMETERS,
} from './parameters.js';

export type Method = 'get' | 'put' | 'post' | 'delete' | 'patch';
export type Action = 'get' | 'list' | 'watch' | 'watchlist' | 'post' | 'put' | 'patch' | 'delete' | 'deletecollection';

/** Request body media types: any for objects; one per patch format for PATCH. */
export const ANY_BODY = ['*/*'];
const STRATEGIC_MERGE_PATCH = 'application/strategic-merge-patch+json';
export const PATCH_BODY = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
];
/** What the server answers in: JSON or YAML; list and watch also stream watch events. */
export const OBJECT_MEDIA = ['application/json', 'application/yaml'];
export const STREAM_MEDIA = [...OBJECT_MEDIA, 'application/json;stream=watch'];

export interface Operation {
  readonly method: Method;
  /** Absent on the group/version's discovery document operation. */
  readonly action?: Action;
  readonly operationId: string;
  readonly tag: string;
  readonly gvk?: GroupVersionKind;
  readonly parameters: readonly Parameter[];
  readonly body?: { readonly definition: string; readonly required: boolean; readonly media: readonly string[] };
  /** What a bodiless operation says it consumes, when not any type. */
  readonly consumes?: readonly string[];
  /** Status code → definition of the answer. */
  readonly responses: Readonly<Record<string, string>>;
  readonly produces: readonly string[];
}

export interface Route {
  readonly path: string;
  readonly operations: readonly Operation[];
}

/** Upstream's ToValidOperationID: drops what is not a letter or digit and capitalizes the letter after it. */
export function operationIdPart(s: string, capitalizeFirst: boolean): string {
  let out = '';
  let capitalize = capitalizeFirst;
  let first = true;
  for (const ch of s) {
    if (/\p{L}|_/u.test(ch) || (!first && /\p{Nd}/u.test(ch))) {
      out += capitalize ? ch.toUpperCase() : ch;
      capitalize = false;
    } else {
      capitalize = true;
    }
    first = false;
  }
  return out;
}

/** `core_v1`, `apps_v1`, `rbacAuthorization_v1`. */
export function groupVersionTag(group: string, version: string): string {
  const name = group === '' ? 'core' : group.replace(/\.k8s\.io$/, '');
  return `${operationIdPart(name, false)}_${operationIdPart(version, false)}`;
}

/** `CoreV1`, `AppsV1`, `RbacAuthorizationV1`: what follows the verb in an operationId. */
export function groupVersionId(group: string, version: string): string {
  const name = group === '' ? 'core' : group.replace(/\.k8s\.io$/, '');
  return operationIdPart(name, true) + operationIdPart(version, true);
}

/** The path a group/version is served under: /api/v1 or /apis/<group>/<version>. */
export function groupVersionPrefix(group: string, version: string): string {
  return group === '' ? `/api/${version}` : `/apis/${group}/${version}`;
}

const ALL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
const SUBRESOURCE_VERBS = ['get', 'update', 'patch'];

type Answer = 'kind' | 'list' | 'status' | 'deleted' | 'event';
type Body = 'object' | 'patch' | 'delete';

/** One kind of operation: method, action, the verb its operationId starts with, its own parameters, answers. */
interface Spec {
  readonly method: Method;
  readonly action: Action;
  readonly verb: string;
  readonly parameters: readonly Parameter[];
  readonly codes: readonly string[];
  readonly answer: Answer;
  readonly body?: Body;
  readonly stream?: boolean;
}

const SPECS = {
  list: {
    method: 'get',
    action: 'list',
    verb: 'list',
    parameters: LIST_PARAMETERS,
    codes: ['200'],
    answer: 'list',
    stream: true,
  },
  create: {
    method: 'post',
    action: 'post',
    verb: 'create',
    parameters: WRITE_PARAMETERS,
    codes: ['200', '201', '202'],
    answer: 'kind',
    body: 'object',
  },
  deletecollection: {
    method: 'delete',
    action: 'deletecollection',
    verb: 'delete',
    parameters: DELETE_COLLECTION_PARAMETERS,
    codes: ['200'],
    answer: 'status',
    body: 'delete',
  },
  get: { method: 'get', action: 'get', verb: 'read', parameters: [], codes: ['200'], answer: 'kind' },
  update: {
    method: 'put',
    action: 'put',
    verb: 'replace',
    parameters: WRITE_PARAMETERS,
    codes: ['200', '201'],
    answer: 'kind',
    body: 'object',
  },
  patch: {
    method: 'patch',
    action: 'patch',
    verb: 'patch',
    parameters: PATCH_PARAMETERS,
    codes: ['200', '201'],
    answer: 'kind',
    body: 'patch',
  },
  delete: {
    method: 'delete',
    action: 'delete',
    verb: 'delete',
    parameters: DELETE_PARAMETERS,
    codes: ['200', '202'],
    answer: 'deleted',
    body: 'delete',
  },
  watch: {
    method: 'get',
    action: 'watch',
    verb: 'watch',
    parameters: LIST_PARAMETERS,
    codes: ['200'],
    answer: 'event',
    stream: true,
  },
  watchlist: {
    method: 'get',
    action: 'watchlist',
    verb: 'watch',
    parameters: LIST_PARAMETERS,
    codes: ['200'],
    answer: 'event',
    stream: true,
  },
} satisfies Record<string, Spec>;

/** What the operations of one path speak about: their kind and the definitions of their bodies and answers. */
interface Target {
  readonly gvk: GroupVersionKind;
  readonly answers: Readonly<Record<Answer, string>>;
}

const BODIES: Readonly<Record<Body, (kindDef: string) => NonNullable<Operation['body']>>> = {
  object: (definition) => ({ definition, required: true, media: ANY_BODY }),
  patch: () => ({ definition: META.patch, required: true, media: PATCH_BODY }),
  delete: () => ({ definition: META.deleteOptions, required: false, media: ANY_BODY }),
};

/** The subresources this server serves for a resource (the catalog says which kind each one speaks). */
function servedSubresources(served: ServedResource): string[] {
  const names: string[] = [...STATUS_LIKE_SUBRESOURCES]
    .sort()
    .filter((name) => statusLikeStrategy(served.def, name) !== undefined);
  if (served.def.scale === true) names.push('scale');
  return names;
}

/** The operations of one served resource, grouped by path; empty when our tables do not describe its kind. */
export function resourceRoutes(served: ServedResource): Route[] {
  const { def } = served;
  const gvk = { group: def.group, version: def.version, kind: def.kind };
  // A custom resource's definitions are its own (crd/openapi.ts), not in our tables.
  const custom = served.openapi ? customDefinitionNames(def) : undefined;
  const kindDef = custom?.kind ?? definitionOfKind(gvk);
  const listDef = custom?.list ?? definitionOfKind({ ...gvk, kind: def.listKind });
  if (kindDef === undefined || listDef === undefined) return [];
  const info = served.discovery ?? lookupResource(def.group, def.version, def.resource);
  const verbs = new Set(info?.verbs ?? ALL_VERBS);
  const tag = groupVersionTag(def.group, def.version);
  const gv = groupVersionId(def.group, def.version);
  const prefix = groupVersionPrefix(def.group, def.version);
  const scope = def.namespaced ? 'Namespaced' : '';
  const named = `${scope}${def.kind}`;
  const base = def.namespaced ? `${prefix}/namespaces/{namespace}/${def.resource}` : `${prefix}/${def.resource}`;
  const scopeParams = def.namespaced ? [pathParameter('namespace'), PRETTY] : [PRETTY];
  const itemParams = [pathParameter('name'), ...scopeParams];
  const resource: Target = {
    gvk,
    answers: {
      kind: kindDef,
      list: listDef,
      status: META.status,
      deleted: def.strategy.returnDeletedObject ? kindDef : META.status,
      event: META.watchEvent,
    },
  };

  // Custom resources take no strategic merge patch: kubectl reads that here and sends them merge patches.
  const bodyOf = (body: Body, kind: string) => {
    const b = BODIES[body](kind);
    return custom && body === 'patch' ? { ...b, media: b.media.filter((m) => m !== STRATEGIC_MERGE_PATCH) } : b;
  };
  const make = (spec: Spec, name: string, pathParams: readonly Parameter[], target = resource): Operation => ({
    method: spec.method,
    action: spec.action,
    operationId: `${spec.verb}${gv}${name}`,
    tag,
    gvk: target.gvk,
    parameters: [...pathParams, ...spec.parameters],
    responses: Object.fromEntries(spec.codes.map((code) => [code, target.answers[spec.answer]])),
    produces: spec.stream ? STREAM_MEDIA : OBJECT_MEDIA,
    ...(spec.body ? { body: bodyOf(spec.body, target.answers.kind) } : {}),
  });
  const routes: Route[] = [];
  const add = (path: string, operations: (Operation | undefined)[]) => {
    const present = operations.filter((o) => o !== undefined);
    if (present.length > 0) routes.push({ path, operations: present });
  };
  const when = (verb: string, build: () => Operation) => (verbs.has(verb) ? build() : undefined);

  add(base, [
    when('list', () => make(SPECS.list, named, scopeParams)),
    when('create', () => make(SPECS.create, named, scopeParams)),
    when('deletecollection', () => make(SPECS.deletecollection, `Collection${named}`, scopeParams)),
  ]);
  add(
    `${base}/{name}`,
    (['get', 'update', 'patch', 'delete'] as const).map((v) => when(v, () => make(SPECS[v], named, itemParams))),
  );
  for (const name of servedSubresources(served)) {
    const sub = info?.subresources.find((s) => s.name === name);
    const subGvk = sub ? { group: sub.group, version: sub.version, kind: sub.kind } : gvk;
    const subDef = custom && subGvk.kind === def.kind ? custom.kind : definitionOfKind(subGvk);
    if (subDef === undefined) continue;
    const target: Target = { gvk: subGvk, answers: { ...resource.answers, kind: subDef } };
    const subVerbs = new Set(sub?.verbs ?? SUBRESOURCE_VERBS);
    const opName = `${named}${name.charAt(0).toUpperCase()}${name.slice(1)}`;
    add(
      `${base}/{name}/${name}`,
      (['get', 'update', 'patch'] as const).map((v) =>
        subVerbs.has(v) ? make(SPECS[v], opName, itemParams, target) : undefined,
      ),
    );
  }
  if (def.namespaced)
    add(`${prefix}/${def.resource}`, [when('list', () => make(SPECS.list, `${def.kind}ForAllNamespaces`, [PRETTY]))]);
  if (verbs.has('watch')) {
    const watchBase = def.namespaced
      ? `${prefix}/watch/namespaces/{namespace}/${def.resource}`
      : `${prefix}/watch/${def.resource}`;
    add(watchBase, [make(SPECS.watchlist, `${named}List`, scopeParams)]);
    add(`${watchBase}/{name}`, [make(SPECS.watch, named, itemParams)]);
    if (def.namespaced)
      add(`${prefix}/watch/${def.resource}`, [make(SPECS.watchlist, `${def.kind}ListForAllNamespaces`, [PRETTY])]);
  }
  return routes;
}

/** GET /api/v1/ or /apis/<group>/<version>/: the group/version's APIResourceList. */
export function discoveryRoute(group: string, version: string): Route {
  return {
    path: `${groupVersionPrefix(group, version)}/`,
    operations: [
      {
        method: 'get',
        operationId: `get${groupVersionId(group, version)}APIResources`,
        tag: groupVersionTag(group, version),
        parameters: [],
        responses: { 200: META.resourceList },
        consumes: OBJECT_MEDIA,
        produces: OBJECT_MEDIA,
      },
    ],
  };
}
