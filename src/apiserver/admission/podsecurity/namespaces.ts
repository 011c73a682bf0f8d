/**
 * PodSecurity for namespaces: invalid `pod-security.kubernetes.io/*` labels are refused (422, unless an update
 * leaves the same errors as before), labels on an exempt namespace get a warning that they are ignored, and an
 * update that makes enforce stricter checks the namespace's existing pods against the new level and answers with
 * warnings naming the pods that would now be refused — the pods themselves are left as they are.
 */
import { type FieldError, fieldErrorsMessage, statusCauses } from '../../../api/field-errors.js';
import { statusErrors } from '../../../api/status-error.js';
import type { KubeObject } from '../../registry/object.js';
import type { AdmissionAttributes } from '../types.js';
import { isObj } from './checks/check.js';
import {
  allow,
  type Decision,
  exemptNamespace,
  exemptRuntimeClass,
  type PodSecurityState,
  refuse,
} from './decision.js';
import { aggregate, forbiddenReason } from './evaluator.js';
import {
  AUDIT_LEVEL_LABEL,
  AUDIT_VERSION_LABEL,
  compareLevels,
  ENFORCE_LEVEL_LABEL,
  ENFORCE_VERSION_LABEL,
  equivalentPolicies,
  fullyPrivileged,
  type LevelVersion,
  levelVersionString,
  type Policy,
  policyToEvaluate,
  sameLevelVersion,
  sameVersion,
  WARN_LEVEL_LABEL,
  WARN_VERSION_LABEL,
} from './levels.js';
import { podView } from './pods.js';

function labelsOf(obj: KubeObject | undefined): Record<string, string> | undefined {
  const labels = obj?.metadata?.labels;
  return isObj(labels) ? (labels as Record<string, string>) : undefined;
}

function nameOf(attrs: AdmissionAttributes): string {
  return attrs.name || (typeof attrs.object?.metadata?.name === 'string' ? attrs.object.metadata.name : '');
}

function invalidLabels(attrs: AdmissionAttributes, errors: FieldError[]): Decision {
  return refuse(
    statusErrors.invalid(
      { group: '', kind: 'Namespace' },
      nameOf(attrs),
      statusCauses(errors),
      fieldErrorsMessage(errors),
    ),
  );
}

/** The warning for PodSecurity labels on an exempt namespace ('' when they ask nothing beyond the defaults). */
function exemptNamespaceWarning(
  state: PodSecurityState,
  name: string,
  policy: Policy,
  labels: Record<string, string> | undefined,
): string {
  if (fullyPrivileged(policy) || equivalentPolicies(policy, state.settings.defaults)) return '';
  const has = (key: string) => !!labels && Object.hasOwn(labels, key);
  const parts: string[] = [];
  const mode = (label: string, lv: LevelVersion, levelKey: string, versionKey: string) => {
    if (lv.level !== 'privileged' && (has(levelKey) || has(versionKey)))
      parts.push(`${label}=${levelVersionString(lv)}`);
  };
  mode('enforce', policy.enforce, ENFORCE_LEVEL_LABEL, ENFORCE_VERSION_LABEL);
  mode('audit', policy.audit, AUDIT_LEVEL_LABEL, AUDIT_VERSION_LABEL);
  mode('warn', policy.warn, WARN_LEVEL_LABEL, WARN_VERSION_LABEL);
  return `namespace ${JSON.stringify(name)} is exempt from Pod Security, and the policy (${parts.join(', ')}) will be ignored`;
}

export async function validateNamespace(state: PodSecurityState, attrs: AdmissionAttributes): Promise<Decision> {
  if (attrs.subresource !== '') return allow();
  const ns = attrs.object;
  if (!ns || !isObj(ns)) return refuse(statusErrors.badRequest('failed to decode namespace'));
  const name = nameOf(attrs);
  const labels = labelsOf(ns);
  const { policy, errors } = policyToEvaluate(labels, state.settings.defaults);
  const exemptWarning = () => {
    const warning = exemptNamespaceWarning(state, name, policy, labels);
    return allow({}, warning ? [warning] : []);
  };
  if (attrs.operation === 'CREATE') {
    if (errors.length > 0) return invalidLabels(attrs, errors);
    return exemptNamespace(state, name) ? exemptWarning() : allow();
  }
  if (attrs.operation !== 'UPDATE') return allow();
  const old = attrs.oldObject;
  if (!old || !isObj(old)) return refuse(statusErrors.badRequest('failed to decode old namespace'));
  const before = policyToEvaluate(labelsOf(old), state.settings.defaults);
  // Errors the namespace already had do not block other changes to it; new ones do.
  const sameErrors =
    before.errors.length === errors.length && before.errors.every((e, i) => e.message === errors[i]?.message);
  if (errors.length > 0 && (before.errors.length === 0 || !sameErrors)) return invalidLabels(attrs, errors);
  const next = policy.enforce;
  const prev = before.policy.enforce;
  if (sameLevelVersion(next, prev)) return allow();
  if (next.level === 'privileged') return allow();
  if (sameVersion(next.version, prev.version) && compareLevels(next.level, prev.level) <= 0) return allow();
  if (exemptNamespace(state, name)) return exemptWarning();
  return allow({}, await existingPodWarnings(state, name, next));
}

interface Seen {
  /** The first pod by name with this warning. */
  podName: string;
  count: number;
}

/** Pods not owned by a controller, then one pod per controller, then the controllers' other pods. */
function prioritize(state: PodSecurityState, pods: readonly KubeObject[]): KubeObject[] {
  const first: KubeObject[] = [];
  const later: KubeObject[] = [];
  const controllers = new Set<string>();
  for (const pod of pods) {
    if (exemptRuntimeClass(state, podView(pod).spec.runtimeClassName)) continue;
    const owners = Array.isArray(pod.metadata.ownerReferences) ? pod.metadata.ownerReferences : [];
    const controller = owners.find((o) => isObj(o) && o.controller === true);
    if (!controller) {
      first.push(pod);
      continue;
    }
    const uid = String(controller.uid ?? '');
    if (controllers.has(uid)) later.push(pod);
    else {
      controllers.add(uid);
      first.push(pod);
    }
  }
  return [...first, ...later];
}

/** Upstream's EvaluatePodsInNamespace: the warnings a stricter enforce level answers with. */
export async function existingPodWarnings(
  state: PodSecurityState,
  namespace: string,
  enforce: LevelVersion,
): Promise<string[]> {
  const deadline = state.now() + state.podCheckTimeoutMs;
  let pods: KubeObject[];
  try {
    pods = await state.sources.pods(namespace);
  } catch {
    return ['failed to list pods while checking new PodSecurity enforce level'];
  }
  const ordered = prioritize(state, pods);
  const total = ordered.length;
  const toCheck = ordered.slice(0, state.maxPodsToCheck);
  let checked = toCheck.length;
  const order: string[] = [];
  const seen = new Map<string, Seen>();
  for (const [i, pod] of toCheck.entries()) {
    const r = aggregate(state.evaluator.evaluate(enforce, podView(pod)));
    if (!r.allowed) {
      const warning = forbiddenReason(r);
      const podName = pod.metadata.name ?? '';
      const s = seen.get(warning);
      if (!s) {
        seen.set(warning, { podName, count: 1 });
        order.push(warning);
      } else {
        s.count++;
        if (podName < s.podName) s.podName = podName;
      }
    }
    if (state.now() >= deadline) {
      checked = i + 1;
      break;
    }
  }
  const warnings: string[] = [];
  if (checked < total) {
    warnings.push(`new PodSecurity enforce level only checked against the first ${checked} of ${total} existing pods`);
  }
  if (order.length > 0) {
    warnings.push(
      `existing pods in namespace ${JSON.stringify(namespace)} violate the new PodSecurity enforce level ${JSON.stringify(levelVersionString(enforce))}`,
    );
  }
  const podWarnings = order.map((warning) => {
    const { podName, count } = seen.get(warning) as Seen;
    if (count === 1) return `${podName}: ${warning}`;
    if (count === 2) return `${podName} (and 1 other pod): ${warning}`;
    return `${podName} (and ${count - 1} other pods): ${warning}`;
  });
  podWarnings.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return [...warnings, ...podWarnings];
}
