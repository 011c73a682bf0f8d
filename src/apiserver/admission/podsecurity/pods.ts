/**
 * PodSecurity for pods and for the workloads that make them. A pod is checked against its namespace's enforce
 * level (refused when it fails), audit level (an audit annotation) and warn level (a Warning, when not refused).
 * Workloads with a pod template — ReplicationControllers, PodTemplates, ReplicaSets, Deployments, StatefulSets,
 * DaemonSets, Jobs, CronJobs — get audit and warn only: their pods are refused when they are made. Updates of a
 * pod are checked only when they change what the checks could see differently (container images, containers
 * added or removed, ephemeral containers added), and subresources that carry no pod spec are not checked at all.
 */
import { fieldErrorsMessage } from '../../../api/field-errors.js';
import { type StatusError, statusErrors } from '../../../api/status-error.js';
import type { KubeObject } from '../../registry/object.js';
import { type AdmissionAttributes, admissionForbidden } from '../types.js';
import { isObj, nameOf, type Obj, objAt, objList, type PodView, stringAt } from './checks/check.js';
import {
  AUDIT_VIOLATIONS_ANNOTATION,
  allow,
  type Decision,
  ENFORCE_POLICY_ANNOTATION,
  ERROR_ANNOTATION,
  EXEMPT_ANNOTATION,
  exemptNamespace,
  exemptRuntimeClass,
  exemptUser,
  type PodSecurityState,
  refuse,
} from './decision.js';
import { aggregate, forbiddenDetail } from './evaluator.js';
import { fullyPrivileged, type LevelVersion, levelVersionString, type Policy, policyToEvaluate } from './levels.js';

/** Pod subresources whose writes carry no pod spec to check. */
const IGNORED_POD_SUBRESOURCES = new Set([
  'exec',
  'attach',
  'binding',
  'eviction',
  'log',
  'portforward',
  'proxy',
  'status',
]);

/** Where each workload keeps its pod template. */
const TEMPLATE_PATHS: ReadonlyMap<string, readonly string[]> = new Map([
  ['/replicationcontrollers', ['spec', 'template']],
  ['/podtemplates', ['template']],
  ['apps/replicasets', ['spec', 'template']],
  ['apps/deployments', ['spec', 'template']],
  ['apps/statefulsets', ['spec', 'template']],
  ['apps/daemonsets', ['spec', 'template']],
  ['batch/jobs', ['spec', 'template']],
  ['batch/cronjobs', ['spec', 'jobTemplate', 'spec', 'template']],
]);

/** Whether the resource is a workload with a pod template. */
export function hasPodTemplate(group: string, resource: string): boolean {
  return TEMPLATE_PATHS.has(`${group}/${resource}`);
}

/**
 * The pod template of a workload; undefined when it has none (only a ReplicationController's template may be
 * absent — the other kinds' templates always exist, if empty).
 */
function podTemplateOf(group: string, resource: string, obj: KubeObject): PodView | undefined {
  const keys = TEMPLATE_PATHS.get(`${group}/${resource}`) ?? [];
  let at: unknown = obj;
  for (const key of keys) at = isObj(at) ? at[key] : undefined;
  if (!isObj(at)) return resource === 'replicationcontrollers' ? undefined : { metadata: {}, spec: {} };
  return { metadata: objAt(at, 'metadata') ?? {}, spec: objAt(at, 'spec') ?? {} };
}

/** A stored or submitted pod as the checks see it. */
export function podView(pod: KubeObject): PodView {
  return { metadata: isObj(pod.metadata) ? pod.metadata : {}, spec: objAt(pod, 'spec') ?? {} };
}

function image(c: Obj): string {
  return stringAt(c, 'image') ?? '';
}

/** Upstream's isSignificantPodUpdate: only images and the set of containers matter. */
export function isSignificantPodUpdate(pod: KubeObject, old: KubeObject): boolean {
  const spec = podView(pod).spec;
  const oldSpec = podView(old).spec;
  for (const key of ['containers', 'initContainers']) {
    const now = objList(spec, key);
    const before = objList(oldSpec, key);
    if (now.length !== before.length) return true;
    if (now.some((c, i) => image(c) !== image(before[i] as Obj))) return true;
  }
  const oldEphemeral = objList(oldSpec, 'ephemeralContainers');
  for (const c of objList(spec, 'ephemeralContainers')) {
    const was = oldEphemeral.find((o) => nameOf(o) === nameOf(c));
    if (!was || image(was) !== image(c)) return true;
  }
  return false;
}

/** The exemption by namespace or user that lets the request through unchecked, if any. */
function exemption(state: PodSecurityState, attrs: AdmissionAttributes): Decision | undefined {
  const by = exemptNamespace(state, attrs.namespace)
    ? 'namespace'
    : exemptUser(state, attrs.userInfo?.name)
      ? 'user'
      : undefined;
  if (!by) return undefined;
  state.metrics.exemption(attrs);
  return allow({ [EXEMPT_ANNOTATION]: by });
}

/**
 * The policy read from a namespace object the sources share (frozen, the same object until the namespace changes),
 * so that its labels are parsed once per change rather than on every pod create.
 */
const policyOfShared = new WeakMap<object, { policy: Policy; errors: string; defaults: unknown }>();

type FoundPolicy = { policy: Policy; errors: string } | { lookupError: unknown };

/** A namespace's policy, read from its labels (once per change of a namespace the sources share). */
function policyOf(state: PodSecurityState, ns: KubeObject): { policy: Policy; errors: string } {
  const shared = Object.isFrozen(ns);
  const known = shared ? policyOfShared.get(ns) : undefined;
  if (known && known.defaults === state.settings.defaults) return known;
  const labels = isObj(ns.metadata?.labels) ? (ns.metadata.labels as Record<string, string>) : undefined;
  const { policy, errors } = policyToEvaluate(labels, state.settings.defaults);
  const found = { policy, errors: errors.length > 0 ? fieldErrorsMessage(errors) : '' };
  if (shared) policyOfShared.set(ns, { ...found, defaults: state.settings.defaults });
  return found;
}

async function namespacePolicy(state: PodSecurityState, namespace: string): Promise<FoundPolicy> {
  let ns: KubeObject | undefined;
  try {
    ns = await state.sources.namespace(namespace);
  } catch (err) {
    return { lookupError: err };
  }
  if (!ns) return { lookupError: statusErrors.notFound({ group: '', resource: 'namespaces' }, namespace) };
  return policyOf(state, ns);
}

/** Runs decide over the namespace's policy: at once when the sources have the namespace at hand. */
function withPolicy(
  state: PodSecurityState,
  namespace: string,
  decide: (found: FoundPolicy) => Decision,
): Decision | Promise<Decision> {
  const cached = state.sources.namespaceNow?.(namespace);
  if (cached) return decide(policyOf(state, cached));
  return namespacePolicy(state, namespace).then(decide);
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** A pod (CREATE, or an UPDATE that matters) against its namespace's policy. */
export function validatePod(state: PodSecurityState, attrs: AdmissionAttributes): Decision | Promise<Decision> {
  if (IGNORED_POD_SUBRESOURCES.has(attrs.subresource)) return allow();
  const exempt = exemption(state, attrs);
  if (exempt) return exempt;
  return withPolicy(state, attrs.namespace, (found) => podAgainst(state, attrs, found));
}

/** The decision on every pod in a privileged namespace (most pods): made once, and only read. */
const PRIVILEGED_ALLOWED: Decision = Object.freeze({
  warnings: Object.freeze([]) as unknown as string[],
  annotations: Object.freeze({ [ENFORCE_POLICY_ANNOTATION]: 'privileged:latest' }),
});

function podAgainst(state: PodSecurityState, attrs: AdmissionAttributes, found: FoundPolicy): Decision {
  if ('lookupError' in found) {
    state.metrics.error(true, attrs);
    const error = statusErrors.internal(`failed to lookup namespace ${JSON.stringify(attrs.namespace)}`);
    return refuse(error, { [ERROR_ANNOTATION]: `${error.message}: ${errorText(found.lookupError)}` });
  }
  if (found.errors === '' && fullyPrivileged(found.policy)) {
    state.metrics.evaluation('allow', found.policy.enforce, 'enforce', attrs);
    return PRIVILEGED_ALLOWED;
  }
  const pod = attrs.object;
  if (!pod || !isObj(pod)) {
    state.metrics.error(true, attrs);
    const error = statusErrors.badRequest('failed to decode pod');
    return refuse(error, { [ERROR_ANNOTATION]: error.message });
  }
  if (attrs.operation === 'UPDATE') {
    const old = attrs.oldObject;
    if (!old || !isObj(old)) {
      state.metrics.error(true, attrs);
      const error = statusErrors.badRequest('failed to decode old pod');
      return refuse(error, { [ERROR_ANNOTATION]: error.message });
    }
    if (!isSignificantPodUpdate(pod, old)) return allow();
  }
  return evaluatePod(state, attrs, found.policy, found.errors, podView(pod), true);
}

/** A workload's pod template against its namespace's audit and warn levels; never refused. */
export function validatePodController(
  state: PodSecurityState,
  attrs: AdmissionAttributes,
): Decision | Promise<Decision> {
  if (attrs.subresource !== '') return allow();
  const exempt = exemption(state, attrs);
  if (exempt) return exempt;
  return withPolicy(state, attrs.namespace, (found) => templateAgainst(state, attrs, found));
}

function templateAgainst(state: PodSecurityState, attrs: AdmissionAttributes, found: FoundPolicy): Decision {
  if ('lookupError' in found) {
    state.metrics.error(true, attrs);
    return allow({
      [ERROR_ANNOTATION]: `failed to lookup namespace ${JSON.stringify(attrs.namespace)}: ${errorText(found.lookupError)}`,
    });
  }
  if (found.errors === '' && found.policy.warn.level === 'privileged' && found.policy.audit.level === 'privileged') {
    return allow();
  }
  const obj = attrs.object;
  if (!obj || !isObj(obj)) {
    state.metrics.error(true, attrs);
    return allow({ [ERROR_ANNOTATION]: 'failed to decode object' });
  }
  const template = podTemplateOf(attrs.resource.group, attrs.resource.resource, obj);
  if (!template) return allow();
  return evaluatePod(state, attrs, found.policy, found.errors, template, false);
}

/**
 * Upstream's EvaluatePod: enforce (when asked), audit and warn, each level:version evaluated once however many
 * modes share it.
 */
function evaluatePod(
  state: PodSecurityState,
  attrs: AdmissionAttributes,
  policy: Policy,
  policyErrors: string,
  pod: PodView,
  enforce: boolean,
): Decision {
  if (exemptRuntimeClass(state, pod.spec.runtimeClassName)) {
    state.metrics.exemption(attrs);
    return allow({ [EXEMPT_ANNOTATION]: 'runtimeClass' });
  }
  const annotations: Record<string, string> = {};
  if (policyErrors !== '') {
    annotations[ERROR_ANNOTATION] = `Failed to parse policy: ${policyErrors}`;
    state.metrics.error(false, attrs);
  }
  const results = new Map<string, ReturnType<typeof aggregate>>();
  const resultFor = (lv: LevelVersion) => {
    const key = levelVersionString(lv);
    let r = results.get(key);
    if (!r) {
      r = aggregate(state.evaluator.evaluate(lv, pod));
      results.set(key, r);
    }
    return r;
  };
  let error: StatusError | undefined;
  if (enforce) {
    annotations[ENFORCE_POLICY_ANNOTATION] = levelVersionString(policy.enforce);
    const r = resultFor(policy.enforce);
    state.metrics.evaluation(r.allowed ? 'allow' : 'deny', policy.enforce, 'enforce', attrs);
    if (!r.allowed) {
      error = admissionForbidden(
        attrs,
        `violates PodSecurity ${JSON.stringify(levelVersionString(policy.enforce))}: ${forbiddenDetail(r)}`,
      );
    }
  }
  const audit = resultFor(policy.audit);
  if (!audit.allowed) {
    state.metrics.evaluation('deny', policy.audit, 'audit', attrs);
    annotations[AUDIT_VIOLATIONS_ANNOTATION] =
      `would violate PodSecurity ${JSON.stringify(levelVersionString(policy.audit))}: ${forbiddenDetail(audit)}`;
  }
  if (error) return { error, warnings: [], annotations };
  const warnings: string[] = [];
  const warn = resultFor(policy.warn);
  if (!warn.allowed) {
    state.metrics.evaluation('deny', policy.warn, 'warn', attrs);
    warnings.push(
      `would violate PodSecurity ${JSON.stringify(levelVersionString(policy.warn))}: ${forbiddenDetail(warn)}`,
    );
  }
  return { warnings, annotations };
}
