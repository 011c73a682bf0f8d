import { stringify as toYaml } from 'yaml';
import { invalid, notSupported, path } from '../../api/field-errors.js';
import { goStructEncoder } from '../../api/protobuf/go-struct-json.js';
import { schemaForDefinition, schemaForKind } from '../../api/schema.js';
import type { SchemaNode } from '../../api/schema-node.js';
import { StatusError, statusErrors, successStatus } from '../../api/status-error.js';
import { GoValue, goQuote } from '../../api/validation/go-format.js';
import { admitObject, attributesFor, type RequestOptionFields, requestOptions } from '../admission/attributes.js';
import type { AdmissionSink } from '../admission/types.js';
import type { APIRegistry, ServedResource } from '../api-registry.js';
import { LEVEL_RANK } from '../audit/policy.js';
import { logRequestObject, logResponseObject } from '../audit/request-audit.js';
import type { WatchEventType } from '../cacher/cacher.js';
import type { RequestContext } from '../context.js';
import { CUSTOM_RESOURCE_PATCH_TYPES, customMetadataTypeError, pruneCustomResource } from '../crd/request.js';
import { contentTypeFor, negotiateOutput, type OutputForm } from '../negotiate.js';
import { type Printer, parseIncludeObject, partialObjectMetadata, type Table, toTable } from '../printers/table.js';
import { invalidError, storedJsonWithRevision } from '../registry/codec.js';
import {
  addWarnings,
  cleanJsonBody,
  convertTypeError,
  decodesUnchanged,
  decodeTypeError,
  dropUnknownFields,
  duplicateFieldErrors,
  fieldValidationDirective,
  patchBodyStrictErrors,
  patchMayAddUnknownFields,
  patchStrictDecodingError,
  patchStrictErrors,
  patchTypeError,
  requestBodyStrictErrors,
  strictDecodingError,
} from '../registry/field-validation.js';
import { bookmarkObject, listObjects, validateWatchRequest, watchObjects } from '../registry/list.js';
import { fieldManagerErrors, fieldManagerOf } from '../registry/managed-fields.js';
import { deepClone, isObject, type KubeObject } from '../registry/object.js';
import {
  apiVersionOf,
  groupResource,
  type ResourceDefinition,
  type StatusLikeSubresource,
  statusLikeStrategy,
} from '../registry/resource.js';
import { evictPod } from '../registry/resources/core-pods-eviction.js';
import { undecodable } from '../registry/resources/core-resource-lists.js';
import { applyScale, type Scale, scaleOf } from '../registry/scale.js';
import { selectionFromQuery } from '../registry/selection.js';
import type { DeleteOptions } from '../registry/store.js';
import { writeEncodedJson, writeJson } from '../respond.js';
import { contentTypeOf, decodeBody, PROTOBUF, readBody } from './body.js';
import { applyPatchBody, PATCH_TYPES } from './patch.js';
import { WatchStream } from './watch.js';
import { writeJsonList } from './write-list.js';

/** Upstream's --min-request-timeout: watches without timeoutSeconds last between this and twice this. */
const MIN_REQUEST_TIMEOUT_S = 1800;
const BOOKMARK_EVERY_MS = 60_000;

/** Serves /api/v1/... and /apis/<group>/<version>/... resource requests. */
export async function serveResource(ctx: RequestContext, registry: APIRegistry): Promise<void> {
  const info = ctx.info;
  const served = registry.lookup(info.apiGroup, info.apiVersion, info.resource);
  if (!served) {
    const virtual = registry.lookupVirtual(info.apiGroup, info.apiVersion, info.resource);
    if (virtual) return virtual.serve(ctx);
    if (info.apiGroup !== '' && !registry.servesGroup(info.apiGroup)) throw statusErrors.noHandler();
    throw statusErrors.pathNotFound();
  }
  const { def } = served;
  if (def.custom) addWarnings(ctx.res, def.custom.warnings);
  if (def.deprecationWarning) addWarnings(ctx.res, [def.deprecationWarning]);
  if (!def.namespaced && info.namespace && info.resource !== 'namespaces') throw statusErrors.pathNotFound();
  const q = ctx.url.searchParams;
  const dryRun = parseDryRun(q);
  const ns = def.namespaced ? info.namespace : '';
  // The write's options are validated before any subresource's handler runs (scale writes record managers too).
  const optionsKind = OPTIONS_KIND[info.verb];
  const explicitManager = q.get('fieldManager');
  if (optionsKind && explicitManager) {
    const errors = fieldManagerErrors(explicitManager);
    if (errors.length > 0) {
      const message = errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`;
      throw new StatusError(422, 'Invalid', `${optionsKind}.meta.k8s.io "" is invalid: ${message}`, {
        group: 'meta.k8s.io',
        kind: optionsKind,
      });
    }
  }
  if (info.subresource === 'scale' && def.scale) return serveScale(ctx, served, ns, dryRun);
  if (info.subresource === 'finalize' && def.finalize) return serveFinalize(ctx, served, dryRun);
  if (info.subresource === 'binding' && def.binding) return serveBinding(ctx, served, ns, dryRun);
  if (info.subresource === 'eviction' && def.eviction) {
    return serveEviction(ctx, registry, served, ns, dryRun);
  }
  // status, a CSR's approval, a pod's ephemeral containers: the object is read and written whole, with the
  // subresource's strategy.
  const status = statusLikeStrategy(def, info.subresource) !== undefined;
  if (info.subresource && !status) throw statusErrors.pathNotFound();
  const statusSubresource = info.subresource as StatusLikeSubresource;
  const manager = fieldManagerOf(q, header(ctx, 'user-agent'));
  const user = ctx.user;
  const sink = admissionSinkOf(ctx);
  // A create or update of the request's body: the body is the store's to change, and the object written is only
  // read afterwards (to answer), so the watch cache may share it.
  const options = requestOptionFieldsOf(ctx, dryRun);
  const bodyWrite = {
    dryRun,
    fieldManager: manager,
    user,
    sink,
    requestOptions: options,
    ownsInput: true,
    shareResult: true,
  };
  switch (info.verb) {
    case 'get':
      return serveGet(ctx, served, ns, info.name);
    case 'list':
      return serveList(ctx, served, ns);
    case 'watch':
      // Only a resource is watched: upstream registers no watch route under a subresource.
      if (info.subresource) throw statusErrors.pathNotFound();
      return serveWatch(ctx, served, ns);
    case 'create': {
      if (status || (info.name && info.resource !== 'namespaces')) {
        throw statusErrors.methodNotSupported(groupResource(def), 'create');
      }
      const obj = await readObject(ctx, served, 'CreateOptions');
      auditRequestObject(ctx, def, obj);
      const created = await served.store.create(ns, obj, bodyWrite);
      return respondWritten(ctx, served, created, 201);
    }
    case 'update': {
      const obj = await readObject(ctx, served);
      auditRequestObject(ctx, def, obj);
      const { object, created } = await served.store.update(ns, info.name, obj, {
        ...bodyWrite,
        ...(status ? { subresource: statusSubresource } : {}),
      });
      return respondWritten(ctx, served, object, created ? 201 : 200);
    }
    case 'patch': {
      const type = contentTypeOf(ctx);
      const patchTypes = def.custom ? CUSTOM_RESOURCE_PATCH_TYPES : PATCH_TYPES;
      if (!patchTypes.includes(type)) throw statusErrors.unsupportedMediaType(patchTypes);
      const directive = fieldValidationDirective(q, 'PatchOptions');
      const raw = await readBody(ctx);
      const body = decodeBody(raw, type);
      const schema = schemaForKind({ group: def.group, version: def.version, kind: def.kind });
      // A custom resource's patch body is checked once, not on every try of the update.
      const customPatchErrors =
        def.custom && directive !== 'Ignore' ? patchBodyStrictErrors(type, raw.toString('utf8'), body) : [];
      // The patched object is decoded (JSON and merge patches) or converted (strategic merge) into the kind's Go
      // type, which refuses values of the wrong type before anything else and rewrites times as their type writes
      // them. A stored object holds neither, so a merge or strategic merge patch whose own values all fit their
      // fields as they are (directives aside) brings none in, and the patched object needs no walk of its own; a JSON
      // patch's values are not in the object's shape, so its result is walked. (The patch itself is never rewritten:
      // a zero time would become null, which a patch reads as a deletion.)
      const patchHasNull = raw.includes('null');
      const smp = type === 'application/strategic-merge-patch+json';
      const typeErrorOf = smp ? convertTypeError : decodeTypeError;
      const patchFits =
        schema !== undefined &&
        !def.custom &&
        type !== 'application/json-patch+json' &&
        decodesUnchanged(body, schema, smp);
      const patched = await served.store.guaranteedUpdate(
        ns,
        info.name,
        (current) => {
          // The store gives this function a copy of its own: the patch changes it rather than copying it again (so
          // what is read of the current object is read first).
          const currentRV = current.metadata.resourceVersion;
          const next = applyPatchBody(type, current, body, def, true);
          if (def.custom) {
            const metadataError = customMetadataTypeError(next);
            if (metadataError) throw patchTypeError(type, body, next, metadataError);
            pruneCustomResource(
              def.custom,
              next,
              directive,
              ctx.res,
              (errors) => patchStrictDecodingError(type, body, next, errors),
              customPatchErrors,
            );
          }
          if (schema && !def.custom && !patchFits) {
            const typeError = typeErrorOf(next, schema);
            if (typeError) throw patchTypeError(type, body, next, typeError);
          }
          if (schema) {
            if (directive !== 'Ignore') {
              const errors = patchStrictErrors(type, raw.toString('utf8'), next, schema, body);
              if (errors.length > 0) {
                if (directive === 'Strict') throw patchStrictDecodingError(type, body, next, errors);
                addWarnings(ctx.res, errors);
              }
            }
            // Only the patch can have brought unknown fields in (the stored object has none), or nulls.
            if (patchMayAddUnknownFields(type, body, schema)) dropUnknownFields(next, schema);
            if (!def.custom && patchHasNull) {
              // A JSON patch may put a value anywhere; a merge patch's values go where its keys say.
              if (type === 'application/json-patch+json')
                goStructEncoder().dropNulls(next, apiVersionOf(def), def.kind);
              else goStructEncoder().dropPatchedNulls(next, apiVersionOf(def), def.kind, body);
            }
          }
          if (!isObject(next.metadata)) next.metadata = {};
          const wantRV = next.metadata.resourceVersion;
          if (wantRV && wantRV !== currentRV) {
            throw statusErrors.modified(groupResource(def), info.name);
          }
          if (next.metadata.name !== undefined && next.metadata.name !== info.name) {
            throw statusErrors.badRequest(
              'metadata.name: Invalid value: the name of the object cannot be changed by a patch',
            );
          }
          next.metadata.name = info.name;
          const patchedNamespace = next.metadata.namespace;
          if (def.namespaced && patchedNamespace && patchedNamespace !== ns) {
            throw statusErrors.badRequest(
              'the namespace of the provided object does not match the namespace sent on the request',
            );
          }
          // Upstream decodes the patched object, which applies defaulting again.
          if (!status) def.strategy.default?.(next);
          return next;
        },
        {
          dryRun,
          fieldManager: manager,
          user,
          sink,
          // Admitted as an UPDATE with the PatchOptions carried over into UpdateOptions.
          requestOptions: options,
          shareResult: true,
          prepare: { status },
          ...(status ? { subresource: statusSubresource } : {}),
          validate: (next, old) => served.store.validateUpdate(next, old, status, statusSubresource),
        },
      );
      return respondWritten(ctx, served, patched, 200);
    }
    case 'delete': {
      // A status-like subresource is read and written, never deleted (its route has no DELETE upstream).
      if (status) throw new StatusError(405, 'MethodNotAllowed', METHOD_NOT_ALLOWED);
      const opts = await readDeleteOptions(ctx, dryRun);
      const { object, deleted } = await served.store.delete(ns, info.name, { ...opts, user, sink });
      if (deleted && !def.strategy.returnDeletedObject) {
        return writeJson(
          ctx,
          200,
          successStatus({
            name: info.name,
            ...(def.group ? { group: def.group } : {}),
            kind: def.resource,
            uid: object.metadata.uid ?? '',
          }),
        );
      }
      return respondObject(ctx, served, object, 200);
    }
    case 'deletecollection': {
      const opts = await readDeleteOptions(ctx, dryRun);
      const list = await listObjects(served.store, ns, { selection: selectionFromQuery(def, q) });
      const gone: KubeObject[] = [];
      for (const item of list.items) {
        try {
          gone.push((await served.store.delete(ns, item.metadata.name ?? '', { ...opts, user, sink })).object);
        } catch (err) {
          if (!(err instanceof StatusError && err.code === 404)) throw err;
        }
      }
      return writeJson(ctx, 200, {
        kind: def.listKind,
        apiVersion: apiVersionOf(def),
        metadata: { resourceVersion: list.resourceVersion },
        items: gone,
      });
    }
    default:
      throw statusErrors.methodNotSupported(groupResource(def), info.verb || ctx.method.toLowerCase());
  }
}

/** What a custom resource's Scale carries as spec.replicas while its object has none (upstream's mark). */
const MISSING_REPLICAS = -2147483648;

/** GET, PUT and PATCH of the scale subresource: an autoscaling/v1 Scale view of spec.replicas. */
async function serveScale(ctx: RequestContext, served: ServedResource, ns: string, dryRun: boolean): Promise<void> {
  const { def } = served;
  const name = ctx.info.name;
  const scaleResource: ResourceDefinition = { ...def, group: 'autoscaling', version: 'v1', kind: 'Scale' };
  const custom = def.custom?.scale;
  const view = (obj: KubeObject): Scale => (custom ? (custom.of(obj) as Scale) : scaleOf(obj));
  if (ctx.info.verb === 'get') {
    const current = await served.store.get(ns, name);
    // A custom resource without spec replicas has no Scale to read: upstream's ScaleREST answers an internal error.
    const missing = custom?.missingReplicas(current);
    if (missing !== undefined) {
      throw statusErrors.internal(new Error(`the spec replicas field ${JSON.stringify(missing)} does not exist`));
    }
    return writeJson(ctx, 200, view(current));
  }
  if (ctx.info.verb !== 'update' && ctx.info.verb !== 'patch') {
    throw statusErrors.methodNotSupported(groupResource(def), ctx.info.verb);
  }
  let input: Scale | undefined;
  let patch: { type: string; body: unknown } | undefined;
  if (ctx.info.verb === 'update') {
    const body = decodeBody(await readBody(ctx), contentTypeOf(ctx));
    if (!isObject(body)) throw statusErrors.badRequest('the body of the request must be a JSON or YAML object');
    const typeError = decodeTypeError(body, scaleSchema());
    if (typeError) throw undecodable('Scale', typeError);
    input = body as Scale;
    logRequestObject(ctx, body, { apiVersion: 'autoscaling/v1', kind: 'Scale' });
  } else {
    const type = contentTypeOf(ctx);
    if (!PATCH_TYPES.includes(type)) throw statusErrors.unsupportedMediaType(PATCH_TYPES);
    patch = { type, body: decodeBody(await readBody(ctx), type) };
  }
  const updated = await served.store.guaranteedUpdate(
    ns,
    name,
    async (current) => {
      const currentScale = view(current);
      // Upstream marks a custom resource's absent spec replicas with the smallest int32, and refuses a write that
      // leaves the mark in place (a patch that does not set spec.replicas).
      const missing = custom?.missingReplicas(current);
      if (missing !== undefined) currentScale.spec = { replicas: MISSING_REPLICAS };
      let wanted = patch
        ? (applyPatchBody(patch.type, currentScale, patch.body, scaleResource) as Scale)
        : (deepClone(input) as Scale);
      // The patched Scale is decoded into its Go type as a patched object is.
      const patchedError = patch && decodeTypeError(wanted, scaleSchema());
      if (patch && patchedError) throw patchTypeError(patch.type, patch.body, wanted, patchedError);
      if (missing !== undefined && wanted.spec?.replicas === MISSING_REPLICAS) {
        throw statusErrors.badRequest(`the spec replicas field ${JSON.stringify(missing)} cannot be empty`);
      }
      const wantRV = wanted.metadata?.resourceVersion;
      if (wantRV && wantRV !== current.metadata.resourceVersion) throw statusErrors.modified(groupResource(def), name);
      // Admission of a scale update sees autoscaling/v1 Scale objects, as upstream's ScaleREST does.
      const attrs = attributesFor(def, {
        operation: 'UPDATE',
        object: wanted as unknown as KubeObject,
        oldObject: currentScale as unknown as KubeObject,
        kind: { group: 'autoscaling', version: 'v1', kind: 'Scale' },
        subresource: 'scale',
        namespace: ns,
        name,
        user: ctx.user,
        sink: admissionSinkOf(ctx),
        dryRun,
        options: requestOptions('UPDATE', requestOptionFieldsOf(ctx, dryRun)),
      });
      wanted = (await admitObject(served.store.admission, attrs)) as unknown as Scale;
      const replicas = wanted.spec?.replicas ?? 0;
      if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0) {
        throw invalidError(scaleResource, name, [
          invalid(path('spec', 'replicas'), replicas, 'must be greater than or equal to 0'),
        ]);
      }
      await served.store.admission?.validate(attrs);
      const next = custom ? custom.apply(deepClone(current), replicas) : applyScale(deepClone(current), wanted);
      return served.store.prepareUpdate(next, current, false);
    },
    {
      dryRun,
      fieldManager: fieldManagerOf(ctx.url.searchParams, header(ctx, 'user-agent')),
      subresource: 'scale',
      skipAdmission: true,
      validate: (next, old) => served.store.validateUpdate(next, old, false),
    },
  );
  return writeJson(ctx, 200, view(updated));
}

/**
 * PUT of a namespace's finalize subresource: replaces spec.finalizers only (what the namespace controller does when
 * a namespace is empty); a terminating namespace left with no finalizers is deleted.
 */
async function serveFinalize(ctx: RequestContext, served: ServedResource, dryRun: boolean): Promise<void> {
  if (ctx.info.verb !== 'update') throw statusErrors.methodNotSupported(groupResource(served.def), ctx.info.verb);
  const body = await readObject(ctx, served);
  auditRequestObject(ctx, served.def, body);
  const finalizers = isObject(body.spec) ? body.spec.finalizers : undefined;
  const updated = await served.store.guaranteedUpdate(
    '',
    ctx.info.name,
    (current) => {
      const wantRV = body.metadata.resourceVersion;
      if (wantRV && wantRV !== current.metadata.resourceVersion) {
        throw statusErrors.modified(groupResource(served.def), ctx.info.name);
      }
      current.spec = {
        ...(isObject(current.spec) ? current.spec : {}),
        finalizers: Array.isArray(finalizers) ? finalizers : [],
      };
      return current;
    },
    {
      dryRun,
      user: ctx.user,
      sink: admissionSinkOf(ctx),
      requestOptions: requestOptionFieldsOf(ctx, dryRun),
      subresource: 'finalize',
    },
  );
  return respondObject(ctx, served, updated);
}

/**
 * POST of a pod's binding subresource: the scheduler's way of assigning a pod to a node. Answers 201 with a
 * Success status, as upstream's BindingREST does.
 */
async function serveBinding(
  ctx: RequestContext,
  served: ServedResource,
  ns: string,
  dryRun: boolean,
  legacy?: ResourceDefinition,
): Promise<void> {
  const binding = served.def.binding;
  if (!binding || ctx.info.verb !== 'create') {
    throw statusErrors.methodNotSupported(groupResource(legacy ?? served.def), ctx.info.verb);
  }
  const body = decodeBody(await readBody(ctx), contentTypeOf(ctx));
  if (!isObject(body)) throw statusErrors.badRequest('the body of the request must be a JSON or YAML object');
  const obj = { ...body, metadata: isObject(body.metadata) ? body.metadata : {} } as KubeObject;
  logRequestObject(ctx, obj, { apiVersion: 'v1', kind: 'Binding' });
  // The legacy bindings collection takes the pod's name from the Binding, as upstream's LegacyBindingREST does.
  const name = legacy ? (obj.metadata.name ?? '') : ctx.info.name;
  if (obj.metadata.name && obj.metadata.name !== name) {
    throw statusErrors.badRequest(`name in URL does not match name in Binding object`);
  }
  // Admission sees the Binding (a CREATE of pods/binding, or of bindings); the pod's own update then runs none.
  const admission = subresourceCreateAdmission(
    ctx,
    legacy ? { ...served, def: legacy } : served,
    { group: '', version: 'v1', kind: 'Binding' },
    dryRun,
    name,
  );
  const admitted = await admission.admit(obj);
  binding.validate(admitted);
  await admission.validate(admitted);
  await served.store.guaranteedUpdate(ns, name, (current) => binding.bind(current, admitted, Date.now()), {
    dryRun,
    skipAdmission: true,
  });
  writeJson(ctx, 201, { ...successStatus(), code: 201 });
}

/**
 * The legacy `bindings` collection of core/v1 (POST /api/v1/namespaces/<ns>/bindings): the Binding names the pod to
 * bind, as upstream still serves it beside pods/<name>/binding. Admission sees a CREATE of bindings.
 */
export function addLegacyBindings(registry: APIRegistry): void {
  registry.addVirtual({
    group: '',
    version: 'v1',
    resource: 'bindings',
    serve: async (ctx) => {
      const pods = registry.lookup('', 'v1', 'pods');
      const info = ctx.info;
      if (!pods || !info.namespace || info.name || info.subresource) throw statusErrors.pathNotFound();
      const legacy: ResourceDefinition = {
        ...pods.def,
        resource: 'bindings',
        kind: 'Binding',
        listKind: 'BindingList',
      };
      return serveBinding(ctx, pods, info.namespace, parseDryRun(ctx.url.searchParams), legacy);
    },
  });
}

function parseDryRun(q: URLSearchParams): boolean {
  const values = q.getAll('dryRun');
  for (const v of values) {
    if (v !== 'All') throw statusErrors.badRequest(`Invalid dry run value: ${v}`);
  }
  return values.length > 0;
}

const EVICTION_VERSIONS = ['policy/v1', 'policy/v1beta1'];

/**
 * POST of a pod's eviction subresource (what `kubectl drain` sends for every pod): a policy/v1 (or v1beta1)
 * Eviction whose deleteOptions apply to the pod. Admission sees the Eviction; the budget check and the deletion
 * are upstream's EvictionREST (core-pods-eviction.ts). Answers 201 with a Success status.
 */
async function serveEviction(
  ctx: RequestContext,
  registry: APIRegistry,
  served: ServedResource,
  ns: string,
  dryRun: boolean,
): Promise<void> {
  if (ctx.info.verb !== 'create') throw statusErrors.methodNotSupported(groupResource(served.def), ctx.info.verb);
  const body = decodeBody(await readBody(ctx), contentTypeOf(ctx));
  if (!isObject(body)) throw statusErrors.badRequest('the body of the request must be a JSON or YAML object');
  if (body.apiVersion !== undefined && !EVICTION_VERSIONS.includes(String(body.apiVersion))) {
    throw statusErrors.badRequest(
      `the API version in the data (${String(body.apiVersion)}) does not match the expected API version (policy/v1)`,
    );
  }
  if (body.kind !== undefined && body.kind !== 'Eviction') {
    throw statusErrors.badRequest(
      `the kind in the data (${String(body.kind)}) does not match the expected kind (Eviction)`,
    );
  }
  logRequestObject(ctx, body, {
    apiVersion: typeof body.apiVersion === 'string' ? body.apiVersion : 'policy/v1',
    kind: 'Eviction',
  });
  const metadata = isObject(body.metadata) ? body.metadata : {};
  const name = ctx.info.name;
  if (metadata.name !== name) throw statusErrors.badRequest('name in URL does not match name in Eviction object');
  if (metadata.namespace !== undefined && metadata.namespace !== ns) {
    throw statusErrors.badRequest(
      'the namespace of the provided object does not match the namespace sent on the request',
    );
  }
  const eviction = { ...body, metadata: { ...metadata, namespace: ns } } as KubeObject;
  // The request's dryRun and the body's deleteOptions.dryRun are one setting (upstream's propagateDryRun).
  const options = deleteOptionsOf(
    isObject(body.deleteOptions) ? body.deleteOptions : {},
    new URLSearchParams(),
    dryRun,
  );
  const kind = { group: 'policy', version: 'v1', kind: 'Eviction' };
  const admission = subresourceCreateAdmission(ctx, served, kind, options.dryRun === true);
  await admission.validate(await admission.admit(eviction));
  const status = await evictPod(
    { pods: served.store, pdbs: registry.lookup('policy', 'v1', 'poddisruptionbudgets')?.store },
    ns,
    name,
    options,
  );
  writeJson(ctx, status.code, status);
}

/** The media types a create or update body may have: the serializers of built-in kinds, and of custom ones. */
const BODY_TYPES: readonly string[] = ['application/json', 'application/yaml', PROTOBUF];
const CUSTOM_BODY_TYPES: readonly string[] = ['application/json', 'application/yaml'];

/**
 * Reads and decodes a create/update body, with server-side field validation as upstream does it
 * (fieldValidation=Strict refuses unknown and duplicate fields, Warn — the default — answers with Warning headers,
 * Ignore is silent); unknown fields are dropped in every case, as decoding into Go types drops them upstream.
 */
async function readObject(
  ctx: RequestContext,
  served: ServedResource,
  options: 'CreateOptions' | 'UpdateOptions' = 'UpdateOptions',
): Promise<KubeObject> {
  const raw = await readBody(ctx);
  // No Content-Type reads as JSON; anything but the kind's serializers is refused, as upstream's negotiation does.
  const type = contentTypeOf(ctx) || 'application/json';
  const accepted = served.def.custom ? CUSTOM_BODY_TYPES : BODY_TYPES;
  if (!accepted.includes(type)) throw statusErrors.unsupportedMediaType([...accepted]);
  const directive = fieldValidationDirective(ctx.url.searchParams, options);
  const body = decodeBody(raw, type, served.def.kind);
  if (!isObject(body)) throw statusErrors.badRequest('the body of the request must be a JSON or YAML object');
  const { def } = served;
  const schema = schemaForKind({ group: def.group, version: def.version, kind: def.kind });
  // Decoding into the kind's Go type (a custom resource's metadata into ObjectMeta) stops at a value of the wrong
  // type, before any field validation.
  const typeError = def.custom ? customMetadataTypeError(body) : schema && decodeTypeError(body, schema);
  if (typeError) {
    throw statusErrors.badRequest(
      `${def.kind} in version ${JSON.stringify(def.version)} cannot be handled as a ${def.kind}: ${typeError}`,
    );
  }
  if (def.custom) {
    // A custom resource decodes into interface{}: the decoder finds keys given twice, pruning the unknown fields.
    const duplicates =
      directive !== 'Ignore' && type === 'application/json' ? duplicateFieldErrors(raw.toString('utf8'), body) : [];
    const strict = (e: string[]) => strictDecodingError(body, def, e);
    pruneCustomResource(def.custom, body as KubeObject, directive, ctx.res, strict, duplicates);
  }
  // Most bodies have nothing to report or drop, which a count of their keys shows without scanning the text.
  const text = schema ? raw.toString('utf8') : '';
  if (schema && !(type === 'application/json' && cleanJsonBody(text, body, schema))) {
    if (directive !== 'Ignore') {
      const errors = requestBodyStrictErrors(text, type, body, schema);
      if (errors.length > 0) {
        if (directive === 'Strict') throw strictDecodingError(body, def, errors);
        addWarnings(ctx.res, errors);
      }
    }
    dropUnknownFields(body, schema);
  }
  const apiVersion = apiVersionOf(def);
  // Decoding into the Go struct also turns nulls into what the struct encodes again (a JSON text without the word
  // has none; YAML may spell null otherwise). Protobuf bodies were decoded by the struct's rules already.
  if (schema && !def.custom && type !== PROTOBUF && (type !== 'application/json' || text.includes('null'))) {
    goStructEncoder().dropNulls(body, apiVersion, def.kind);
  }
  if (body.apiVersion !== undefined && body.apiVersion !== apiVersion) {
    throw statusErrors.badRequest(
      `the API version in the data (${String(body.apiVersion)}) does not match the expected API version (${apiVersion})`,
    );
  }
  if (body.kind !== undefined && body.kind !== def.kind) {
    throw statusErrors.badRequest(
      `the kind in the data (${String(body.kind)}) does not match the expected kind (${def.kind})`,
    );
  }
  if (body.metadata !== undefined && !isObject(body.metadata)) {
    throw statusErrors.badRequest('metadata must be an object');
  }
  return { ...body, metadata: (body.metadata as KubeObject['metadata']) ?? {} } as KubeObject;
}

const DELETE_OPTIONS = 'k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions';

/** The decoded body of a create or update in the audit event (upstream's LogRequestObject), with its defaults. */
function auditRequestObject(ctx: RequestContext, def: ResourceDefinition, obj: KubeObject): void {
  logRequestObject(ctx, obj, {
    apiVersion: apiVersionOf(def),
    kind: def.kind,
    ...(def.custom ? { unstructured: true } : {}),
    defaults: (copy) => def.strategy.default?.(copy),
  });
}

async function readDeleteOptions(ctx: RequestContext, dryRun: boolean): Promise<DeleteOptions> {
  const raw = await readBody(ctx);
  let body: Record<string, unknown> = {};
  if (raw.length > 0) {
    const decoded = decodeBody(raw, contentTypeOf(ctx) || 'application/json');
    // Decoded into DeleteOptions: a body of another shape, or a field of the wrong type, stops the request.
    const typeError = decodeTypeError(decoded, deleteOptionsSchema());
    if (typeError) throw statusErrors.badRequest(typeError);
    if (isObject(decoded)) body = decoded;
    // Decoded into the meta scheme's unversioned DeleteOptions (no metadata), which Go encodes with its internal
    // apiVersion.
    const { metadata: _metadata, ...options } = body;
    logRequestObject(ctx, options, {
      apiVersion: 'meta.k8s.io/__internal',
      kind: 'DeleteOptions',
      typeName: DELETE_OPTIONS,
    });
  }
  return deleteOptionsOf(body, ctx.url.searchParams, dryRun);
}

/**
 * A query parameter of an int64 field, as upstream's parameter codec reads it (strconv.ParseInt); its errors are
 * 400s. A value past 2^53 is kept as the largest exact number, which no list reaches.
 */
function int64Parameter(text: string): number {
  const s = text.trim();
  if (s === '') return 0;
  if (!/^[+-]?\d+$/.test(s)) throw statusErrors.badRequest(`strconv.ParseInt: parsing ${goQuote(s)}: invalid syntax`);
  const n = BigInt(s);
  if (n > 9223372036854775807n || n < -9223372036854775808n) {
    throw statusErrors.badRequest(`strconv.ParseInt: parsing ${goQuote(s)}: value out of range`);
  }
  return Number(n > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : n);
}

/** The options kind whose validation checks ?fieldManager, by verb. */
const OPTIONS_KIND: Record<string, string> = {
  create: 'CreateOptions',
  update: 'UpdateOptions',
  patch: 'PatchOptions',
};

const METHOD_NOT_ALLOWED = 'the server does not allow this method on the requested resource';

const scaleSchema = (): SchemaNode => schemaForDefinition('io.k8s.api.autoscaling.v1.Scale') as SchemaNode;

const deleteOptionsSchema = (): SchemaNode =>
  schemaForDefinition('io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions') as SchemaNode;

/** DeleteOptions from a body (a DeleteOptions, or an Eviction's deleteOptions) and the query, which wins. */
function deleteOptionsOf(body: Record<string, unknown>, q: URLSearchParams, dryRun: boolean): DeleteOptions {
  const opts: DeleteOptions = {};
  const queryGrace = q.get('gracePeriodSeconds');
  const grace = queryGrace !== null ? int64Parameter(queryGrace) : body.gracePeriodSeconds;
  if (grace !== undefined && grace !== null) opts.gracePeriodSeconds = Number(grace);
  const policy = (q.get('propagationPolicy') ?? body.propagationPolicy) as string | undefined;
  if (policy !== undefined && policy !== null) {
    if (policy !== 'Orphan' && policy !== 'Background' && policy !== 'Foreground') {
      throw statusErrors.badRequest(
        `propagationPolicy: Unsupported value: "${policy}": supported values: "Foreground", "Background", "Orphan"`,
      );
    }
    opts.propagationPolicy = policy;
  }
  const orphan = q.get('orphanDependents') ?? body.orphanDependents;
  // The deprecated orphanDependents: true orphans, false lets the garbage collector delete in the background.
  if (opts.propagationPolicy === undefined && (orphan === true || orphan === 'true')) opts.propagationPolicy = 'Orphan';
  if (opts.propagationPolicy === undefined && (orphan === false || orphan === 'false')) {
    opts.propagationPolicy = 'Background';
  }
  if (isObject(body.preconditions)) opts.preconditions = body.preconditions as DeleteOptions['preconditions'];
  const bodyDryRun = Array.isArray(body.dryRun) && body.dryRun.length > 0;
  if (bodyDryRun && (body.dryRun as unknown[]).some((v) => v !== 'All')) {
    // Upstream's ValidateDeleteOptions: the list, formatted as Go's %#v, is not among the supported values.
    const list = `[]string{${(body.dryRun as unknown[]).map((v) => goQuote(String(v))).join(', ')}}`;
    const err = notSupported(path('dryRun'), new GoValue(list), ['All']);
    throw new StatusError(422, 'Invalid', `DeleteOptions.meta.k8s.io "" is invalid: ${err.message}`, {
      group: 'meta.k8s.io',
      kind: 'DeleteOptions',
      causes: [err.toCause()],
    });
  }
  if (dryRun || bodyDryRun) opts.dryRun = true;
  return opts;
}

function render(printer: Printer, obj: KubeObject, form: OutputForm, includeObject: string | null): unknown {
  if (form.as === 'Table') {
    return toTable(printer, [obj], { includeObject: parseIncludeObject(includeObject), version: form.version });
  }
  if (form.as === 'PartialObjectMetadata') return partialObjectMetadata(obj, form.version);
  return obj;
}

/** The output form when it is plain JSON of a version stored as served: stored bytes may then be sent as they are. */
function storedJsonForm(ctx: RequestContext, served: ServedResource): OutputForm | undefined {
  const form = negotiateOutput(header(ctx, 'accept'));
  return form.as === 'object' && !form.yaml && !served.def.conversion ? form : undefined;
}

/**
 * GET of one object. Plain JSON of a version stored as served is the stored bytes with the resourceVersion spliced
 * in, as a LIST from the watch cache serves them: no decoding, no encoding.
 */
async function serveGet(ctx: RequestContext, served: ServedResource, ns: string, name: string): Promise<void> {
  const form = storedJsonForm(ctx, served);
  if (form) {
    const kv = await served.store.getStored(ns, name);
    const raw = storedJsonWithRevision(kv.value, kv.modRevision);
    if (raw) return writeEncodedJson(ctx, 200, raw.parts, contentTypeFor(form));
    return respondObject(ctx, served, served.store.decode(kv.value, kv.modRevision));
  }
  return respondObject(ctx, served, await served.store.get(ns, name));
}

/** The answer to a create or update: in plain JSON, the JSON just stored with its resourceVersion, as a GET's. */
function respondWritten(ctx: RequestContext, served: ServedResource, obj: KubeObject, code: number): void {
  const form = storedJsonForm(ctx, served);
  // Taken whatever the form: the object may live on in the watch cache, its stored bytes must not.
  const stored = served.store.storedJsonOf(obj);
  const raw = form && stored && storedJsonWithRevision(stored, Number(obj.metadata.resourceVersion));
  if (form && raw) writeEncodedJson(ctx, code, raw.parts, contentTypeFor(form));
  else respondObject(ctx, served, obj, code);
}

function respondObject(ctx: RequestContext, served: ServedResource, obj: KubeObject, code = 200): void {
  respondPrinted(ctx, served.printer, obj, code);
}

/** Answers with one object in the form the client asked for: JSON, YAML, a Table row by printer, or its metadata. */
export function respondPrinted(ctx: RequestContext, printer: Printer, obj: KubeObject, code = 200): void {
  const form = negotiateOutput(header(ctx, 'accept'));
  const body = render(printer, obj, form, ctx.url.searchParams.get('includeObject'));
  if (form.as === 'object' && form.yaml) {
    logResponseObject(ctx, body);
    ctx.res.writeHead(code, { 'content-type': 'application/yaml', 'audit-id': ctx.auditId });
    ctx.res.end(toYaml(body));
    return;
  }
  writeJson(ctx, code, body, contentTypeFor(form));
}

async function serveList(ctx: RequestContext, served: ServedResource, ns: string): Promise<void> {
  const q = ctx.url.searchParams;
  const form = negotiateOutput(header(ctx, 'accept'));
  const limit = q.get('limit');
  const request = {
    selection: selectionFromQuery(served.def, q, ctx.info.name),
    ...(limit ? { limit: int64Parameter(limit) } : {}),
    ...(q.get('continue') ? { continue: q.get('continue') as string } : {}),
    ...(q.has('resourceVersion') ? { resourceVersion: q.get('resourceVersion') as string } : {}),
    ...(q.get('resourceVersionMatch') ? { resourceVersionMatch: q.get('resourceVersionMatch') as string } : {}),
  };
  if (form.as === 'object') {
    // Plain JSON may take objects straight from the watch cache's stored bytes.
    const result = await listObjects(served.store, ns, { ...request, raw: true });
    return writeJsonList(
      ctx,
      { kind: served.def.listKind, apiVersion: apiVersionOf(served.def), metadata: listMetaOf(result) },
      result.items,
      'application/json',
    );
  }
  const result = await listObjects(served.store, ns, request);
  return writeMetaList(ctx, served.printer, form, result.items, listMetaOf(result));
}

/** A list in a meta.k8s.io form the client asked for: a Table of the printer's rows, or PartialObjectMetadataList. */
export function writeMetaList(
  ctx: RequestContext,
  printer: Printer,
  form: Exclude<OutputForm, { as: 'object' }>,
  items: KubeObject[],
  listMeta: Table['metadata'] = {},
): Promise<void> {
  if (form.as === 'Table') {
    const { rows, ...head } = toTable(printer, items, {
      includeObject: parseIncludeObject(ctx.url.searchParams.get('includeObject')),
      version: form.version,
      listMeta,
    });
    return writeJsonList(ctx, head, rows, contentTypeFor(form), 'rows');
  }
  return writeJsonList(
    ctx,
    { kind: 'PartialObjectMetadataList', apiVersion: `meta.k8s.io/${form.version}`, metadata: listMeta },
    items.map((o) => partialObjectMetadata(o, form.version)),
    contentTypeFor(form),
  );
}

function listMetaOf(result: { resourceVersion: string; continue?: string; remainingItemCount?: number }) {
  return {
    resourceVersion: result.resourceVersion,
    ...(result.continue ? { continue: result.continue } : {}),
    ...(result.remainingItemCount !== undefined ? { remainingItemCount: result.remainingItemCount } : {}),
  };
}

async function serveWatch(ctx: RequestContext, served: ServedResource, ns: string): Promise<void> {
  ctx.longRunning = true;
  const q = ctx.url.searchParams;
  const form = negotiateOutput(header(ctx, 'accept'));
  const includeObject = q.get('includeObject');
  const timeoutSeconds = q.get('timeoutSeconds');
  // Within what a Node timer holds (longer ones fire at once), ~24 days.
  const timeoutMs = timeoutSeconds
    ? Math.min(int64Parameter(timeoutSeconds) * 1000, 2 ** 31 - 1)
    : (MIN_REQUEST_TIMEOUT_S + Math.random() * MIN_REQUEST_TIMEOUT_S) * 1000;
  const allowBookmarks = q.get('allowWatchBookmarks') === 'true';
  const sendInitial = q.get('sendInitialEvents');
  const selection = selectionFromQuery(served.def, q, ctx.info.name);
  const watchReq = {
    selection,
    ...(q.has('resourceVersion') ? { resourceVersion: q.get('resourceVersion') as string } : {}),
    ...(q.get('resourceVersionMatch') ? { resourceVersionMatch: q.get('resourceVersionMatch') as string } : {}),
    ...(sendInitial !== null ? { sendInitialEvents: sendInitial === 'true' } : {}),
    allowWatchBookmarks: allowBookmarks,
  };
  // Refuse bad parameters with a Status before the stream's 200 goes out, and a watch of a cache that cannot load
  // (upstream's 429 `storage is (re)initializing: …`).
  validateWatchRequest(watchReq);
  await served.store.cacher.start();
  let lastRV = '';
  const stream = new WatchStream(ctx, {
    form,
    timeoutMs,
    render: (obj) => {
      lastRV = obj.metadata.resourceVersion ?? lastRV;
      return render(served.printer, obj, form, includeObject);
    },
    ...(allowBookmarks
      ? {
          bookmark: {
            everyMs: BOOKMARK_EVERY_MS,
            object: () => bookmarkObject(served.store, lastRV || String(served.store.cacher.revision)),
          },
        }
      : {}),
  });
  // The plain object form is the stored JSON as it is: events after the start are written from the watch cache's
  // bytes, without decoding and encoding each object again.
  const plain = form.as === 'object' && !form.yaml;
  const watch = await watchObjects(served.store, ns, watchReq, {
    event: (type, object) => stream.send(type, object),
    ...(plain
      ? {
          encodedEvent: (type: WatchEventType, json: Buffer, revision: number) => {
            lastRV = String(revision);
            stream.sendEncoded(type, json);
          },
        }
      : {}),
    end: (error) => stream.end(error),
  });
  stream.attach(watch);
}

function header(ctx: RequestContext, name: string): string | undefined {
  const v = ctx.req.headers[name];
  return Array.isArray(v) ? v.join(',') : v;
}

/** Both phases of admission, one after the other. */
export interface CreateAdmission {
  /** The mutating phase: the object as the plugins left it. */
  admit(object: KubeObject): Promise<KubeObject>;
  /** The validating phase. */
  validate(object: KubeObject): Promise<void>;
}

/**
 * Admission of a CREATE of the request's subresource (ctx.info.subresource) of the object it names, whose body is
 * an object of its own kind (a Binding, an Eviction, a TokenRequest): as upstream, the plugins see that object, and
 * the write it leads to runs no admission of its own.
 */
export function subresourceCreateAdmission(
  ctx: RequestContext,
  served: ServedResource,
  kind: { group: string; version: string; kind: string },
  dryRun: boolean,
  name = ctx.info.name,
): CreateAdmission {
  const sink = admissionSinkOf(ctx);
  const options = requestOptions('CREATE', requestOptionFieldsOf(ctx, dryRun));
  const attrs = (object: KubeObject) =>
    attributesFor(served.def, {
      operation: 'CREATE',
      object,
      kind,
      subresource: ctx.info.subresource,
      namespace: ctx.info.namespace,
      name,
      user: ctx.user,
      sink,
      dryRun,
      options,
    });
  return {
    admit: (object) => admitObject(served.store.admission, attrs(object)),
    validate: async (object) => {
      await served.store.admission?.validate(attrs(object));
    },
  };
}

/**
 * What the request's query says of its Create/Update/PatchOptions, as admission sees them (`request.options`): the
 * fieldManager and fieldValidation as given, and the dry run.
 */
export function requestOptionFieldsOf(ctx: RequestContext, dryRun: boolean): RequestOptionFields {
  const q = ctx.url.searchParams;
  return {
    dryRun,
    fieldManager: q.get('fieldManager') || undefined,
    fieldValidation: q.get('fieldValidation') || undefined,
  };
}

/**
 * Admission's warnings go to the response's Warning headers, its annotations to the request's audit event. As
 * upstream's admission attributes and audit context, an annotation that needs the Request level is dropped from an
 * event of a lower level, and a key already set keeps its first value.
 */
export function admissionSinkOf(ctx: RequestContext): AdmissionSink {
  return {
    warn: (text) => addWarnings(ctx.res, [text]),
    annotate: (key, value, level = 'Metadata') => {
      if (LEVEL_RANK[ctx.auditLevel ?? 'None'] < LEVEL_RANK[level]) return;
      if (Object.hasOwn(ctx.auditAnnotations, key)) return;
      ctx.auditAnnotations[key] = value;
    },
  };
}
