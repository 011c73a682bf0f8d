/**
 * Admission (upstream's k8s.io/apiserver/pkg/admission): what a plugin sees of a write, and the shape of a plugin.
 * Mutating plugins (`admit`) may change the object in place; validating plugins (`validate`) only accept or refuse.
 * A refusal is thrown, normally as admissionForbidden(attrs, message) — the `Forbidden` status upstream's
 * admission.NewForbidden builds.
 */
import type { Registry } from 'prom-client';
import { type StatusError, statusErrors } from '../../api/status-error.js';
import type { UserInfo } from '../context.js';
import type { KubeObject } from '../registry/object.js';

/** The operations admission sees (upstream's admission.Operation). */
export type Operation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

export interface GroupVersionResource {
  group: string;
  version: string;
  resource: string;
}

/** Upstream's admission.Attributes: everything a plugin knows about one write. */
export interface AdmissionAttributes {
  operation: Operation;
  /**
   * The object to be stored (CREATE, UPDATE), or the subresource's object (a Binding, an Eviction, a Scale);
   * mutating plugins change it in place. Absent for DELETE.
   */
  object: KubeObject | undefined;
  /** The stored object an UPDATE or DELETE replaces; absent for CREATE. */
  oldObject: KubeObject | undefined;
  /** The kind of `object` (autoscaling/v1 Scale for deployments/scale, policy/v1 Eviction for pods/eviction). */
  kind: GroupVersionKind;
  /** The resource the request names (pods for pods/eviction). */
  resource: GroupVersionResource;
  /** '' for the resource itself; status, scale, binding, eviction… */
  subresource: string;
  /** '' for cluster-scoped resources. */
  namespace: string;
  /** The object's name; '' when a create uses generateName (the name is made after admission). */
  name: string;
  /** Who asks; undefined for the apiserver's own writes. */
  userInfo: UserInfo | undefined;
  dryRun: boolean;
  /** Where the request's warnings and audit annotations go; absent for the apiserver's own writes. */
  sink?: AdmissionSink | undefined;
  /**
   * The request's options as upstream's CreateOptions / UpdateOptions / DeleteOptions object (what admission webhooks
   * receive as `request.options`); absent where the request has none (subresources with their own body).
   */
  options?: Record<string, unknown> | undefined;
  /** Set by the chain: the state of the mutating phase's rounds (upstream's ReinvocationContext). */
  reinvocation?: ReinvocationContext;
}

/**
 * Upstream's admission.ReinvocationContext: the mutating phase runs a second round when a plugin asks for one (a
 * mutating webhook changed the object); plugins keep their own state between rounds under their name.
 */
export interface ReinvocationContext {
  /** Whether the chain is running its second round. */
  isReinvoke: boolean;
  /** Set by a plugin during the first round to ask for a second one. */
  shouldReinvoke: boolean;
  readonly values: Map<string, unknown>;
}

/**
 * The audit level an admission annotation needs (upstream's AddAnnotationWithLevel takes Metadata or Request): it is
 * recorded only on events of that level or above.
 */
export type AnnotationLevel = 'Metadata' | 'Request';

/**
 * What a plugin may add to the request besides its verdict: warnings (answered as `Warning` headers, as upstream's
 * warning.AddWarning) and audit annotations (upstream's Attributes.AddAnnotation, or AddAnnotationWithLevel when a
 * level is given; Metadata when not). As upstream, a key keeps the first value it was given.
 */
export interface AdmissionSink {
  warn(text: string): void;
  annotate(key: string, value: string, level?: AnnotationLevel): void;
}

/** Adds a warning to the request's response, when the request has somewhere to put it. */
export function admissionWarning(attrs: AdmissionAttributes, text: string): void {
  attrs.sink?.warn(text);
}

/**
 * Adds an audit annotation to the request's audit event, when the request has one and its audit level is at least
 * `level` (Metadata by default).
 */
export function admissionAnnotation(
  attrs: AdmissionAttributes,
  key: string,
  value: string,
  level: AnnotationLevel = 'Metadata',
): void {
  attrs.sink?.annotate(key, value, level);
}

/**
 * One admission plugin (ARCHITECTURE.md: `{ name, handles(op), admit?, validate? }`). The chain calls admit of
 * every plugin (in upstream's order) before validate of any; `handles` says which operations a plugin wants (all
 * when absent), `resources` which resources.
 */
export interface AdmissionPlugin {
  readonly name: string;
  /** The plugin's own Prometheus metrics, served on the apiserver's /metrics with its own. */
  readonly metrics?: Registry;
  handles?(operation: Operation): boolean;
  /**
   * The only resources the plugin looks at, as `group/resource` (`/pods` for the core group): the chain does not
   * call it for others. Absent: every resource.
   */
  readonly resources?: readonly string[];
  admit?(attrs: AdmissionAttributes): void | Promise<void>;
  validate?(attrs: AdmissionAttributes): void | Promise<void>;
}

/**
 * The name upstream's admission errors print: the request's name, else the object's name or generateName (a
 * generated name is made only after admission), else "Unknown".
 */
export function admissionObjectName(attrs: AdmissionAttributes): string {
  if (attrs.name) return attrs.name;
  const meta = attrs.object?.metadata;
  if (meta && typeof meta === 'object') {
    if (meta.name) return meta.name;
    if (meta.generateName) return meta.generateName;
  }
  return 'Unknown';
}

/**
 * Upstream's admission.NewForbidden: `<resource> "<name>" is forbidden: <message>` (403), naming the resource the
 * request is about, without its subresource.
 */
export function admissionForbidden(attrs: AdmissionAttributes, message: string): StatusError {
  return statusErrors.forbidden(
    { group: attrs.resource.group, resource: attrs.resource.resource },
    admissionObjectName(attrs),
    message,
  );
}

/** Whether attrs is about the given group and resource itself (not one of its subresources). */
export function isResource(attrs: AdmissionAttributes, group: string, resource: string): boolean {
  return attrs.resource.group === group && attrs.resource.resource === resource && attrs.subresource === '';
}
