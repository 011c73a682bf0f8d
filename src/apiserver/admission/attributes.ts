/**
 * Building admission attributes for a request on a served resource, and running a chain over them. The registry
 * does this for writes of the resource itself (create, update, patch, status, delete); handlers of subresources
 * whose body is another kind (pods/binding, pods/eviction, the scale subresources) do it with that kind's object,
 * and the connect handler with the request's options object (pods/exec, attach, portforward).
 */
import type { UserInfo } from '../context.js';
import type { KubeObject } from '../registry/object.js';
import type { AdmissionChain } from './chain.js';
import type { AdmissionAttributes, AdmissionSink, GroupVersionKind, Operation } from './types.js';

/** The resource a request is about, as its definition describes it. */
export interface AdmittedResource {
  group: string;
  version: string;
  resource: string;
  kind: string;
  namespaced: boolean;
}

export interface AttributeFields {
  operation: Operation;
  object?: KubeObject | undefined;
  oldObject?: KubeObject | undefined;
  /** The kind of object when it is not the resource's own (Binding, Eviction, Scale). */
  kind?: GroupVersionKind;
  subresource?: string;
  namespace: string;
  name: string;
  user?: UserInfo | undefined;
  dryRun?: boolean;
  sink?: AdmissionSink | undefined;
  options?: Record<string, unknown> | undefined;
}

/** What a write's options say, as far as upstream's Create/Update/DeleteOptions carry them. */
export interface RequestOptionFields {
  dryRun?: boolean | undefined;
  /** The request's ?fieldManager (not the User-Agent default that only names the managedFields entry). */
  fieldManager?: string | undefined;
  /** The request's ?fieldValidation, as given. */
  fieldValidation?: string | undefined;
  gracePeriodSeconds?: number | undefined;
  propagationPolicy?: string | undefined;
  preconditions?: { uid?: string; resourceVersion?: string } | undefined;
}

/**
 * The request's options object as admission webhooks see it (`request.options`), for the operation's kind: a
 * PATCH is admitted as an UPDATE (or a CREATE) with its PatchOptions carried over, as upstream's patch handler does;
 * a CONNECT has none.
 */
export function requestOptions(operation: Operation, fields: RequestOptionFields): Record<string, unknown> | undefined {
  const kind =
    operation === 'CREATE'
      ? 'CreateOptions'
      : operation === 'UPDATE'
        ? 'UpdateOptions'
        : operation === 'DELETE'
          ? 'DeleteOptions'
          : undefined;
  if (!kind) return undefined;
  const options: Record<string, unknown> = { kind, apiVersion: 'meta.k8s.io/v1' };
  if (operation === 'DELETE') {
    if (fields.gracePeriodSeconds !== undefined) options.gracePeriodSeconds = fields.gracePeriodSeconds;
    if (fields.preconditions) options.preconditions = fields.preconditions;
    if (fields.propagationPolicy) options.propagationPolicy = fields.propagationPolicy;
  }
  if (fields.dryRun) options.dryRun = ['All'];
  if (operation !== 'DELETE' && fields.fieldManager) options.fieldManager = fields.fieldManager;
  if (operation !== 'DELETE' && fields.fieldValidation) options.fieldValidation = fields.fieldValidation;
  return options;
}

export function attributesFor(def: AdmittedResource, fields: AttributeFields): AdmissionAttributes {
  return {
    operation: fields.operation,
    object: fields.object,
    oldObject: fields.oldObject,
    kind: fields.kind ?? { group: def.group, version: def.version, kind: def.kind },
    resource: { group: def.group, version: def.version, resource: def.resource },
    subresource: fields.subresource ?? '',
    namespace: def.namespaced ? fields.namespace : '',
    name: fields.name,
    userInfo: fields.user,
    dryRun: fields.dryRun === true,
    ...(fields.sink ? { sink: fields.sink } : {}),
    ...(fields.options ? { options: fields.options } : {}),
  };
}

/**
 * Runs the mutating phase over an object and returns it as the plugins left it (a plugin may replace
 * attrs.object rather than change it in place).
 */
export async function admitObject(chain: AdmissionChain | undefined, attrs: AdmissionAttributes): Promise<KubeObject> {
  if (chain) await chain.admit(attrs);
  return attrs.object as KubeObject;
}
