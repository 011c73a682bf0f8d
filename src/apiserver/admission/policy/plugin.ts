/**
 * The ValidatingAdmissionPolicy admission plugin (validating phase), as upstream's dispatcher: for every policy
 * whose matchConstraints cover the request, every binding of it whose matchResources do, and every param the
 * binding's paramRef finds, the policy is evaluated; each failed validation is acted on by the binding's
 * validationActions — Deny refuses the request (`ValidatingAdmissionPolicy 'p' with binding 'b' denied request:
 * …`, reason Invalid (422) unless the validation names another), Warn adds a Warning header, Audit records the
 * `validation.policy.admission.k8s.io/validation_failure` audit annotation. Audit annotations of the policy are
 * recorded as `<policy>/<key>`. Configuration problems deny under failurePolicy Fail and are skipped under Ignore:
 * a paramKind no served resource has is the policy's (`failed to configure policy: …`, checked once the policy
 * matches, before any binding, whatever the bindings say), a param not found with parameterNotFoundAction Deny or a
 * broken selector the binding's (`failed to configure binding: …`). Writes of the policies and their bindings
 * (validating and mutating) are never subject to policies, as upstream's plugin excludes them; the webhook
 * configurations are.
 */
import { goJsonMarshal } from '../../../api/go-json.js';
import { LabelSelector, type LabelSelectorObject } from '../../../api/labels.js';
import { StatusError } from '../../../api/status-error.js';
import type { APIRegistry, ServedResource } from '../../api-registry.js';
import type { KubeObject } from '../../registry/object.js';
import { type AdmissionAttributes, type AdmissionPlugin, admissionForbidden } from '../types.js';
import { type PolicyDecision, validatePolicy } from './evaluate.js';
import { matchResourcesCover, type NamespaceReader, namespaceReaderFrom } from './matching.js';
import { POLICY_GROUP, PolicySource } from './source.js';

export const VALIDATING_ADMISSION_POLICY = 'ValidatingAdmissionPolicy';
export const VALIDATION_FAILURE_ANNOTATION = 'validation.policy.admission.k8s.io/validation_failure';
const MAX_AUDIT_ANNOTATION_VALUE_LENGTH = 10 * 1024;

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : {});
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const strs = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []);

const REASON_CODES: Record<string, number> = {
  Unauthorized: 401,
  Forbidden: 403,
  Invalid: 422,
  RequestEntityTooLarge: 413,
};

export interface Denial {
  policy: string;
  binding?: string;
  message: string;
  reason?: string;
}

/**
 * The resources whose writes no policy sees (upstream's admissionResources, by group and resource: every version
 * and subresource of them).
 */
const EXEMPT_RESOURCES = new Set([
  'validatingadmissionpolicies',
  'validatingadmissionpolicybindings',
  'mutatingadmissionpolicies',
  'mutatingadmissionpolicybindings',
]);

export function isExemptFromPolicies(attrs: AdmissionAttributes): boolean {
  return attrs.resource.group === POLICY_GROUP && EXEMPT_RESOURCES.has(attrs.resource.resource);
}

class ConfigurationError extends Error {}

/**
 * The served resource a policy's paramKind names, undefined when it has none. Throws when no served resource has
 * that group, version and kind, with upstream's text (the kind printed as Go's GroupVersionKind, `/v1, Kind=X` for
 * the core group).
 */
function paramResource(registry: APIRegistry, policy: KubeObject): ServedResource | undefined {
  const paramKind = rec(policy.spec).paramKind;
  if (paramKind == null) return undefined;
  const pk = rec(paramKind);
  const apiVersion = str(pk.apiVersion);
  const slash = apiVersion.indexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
  const kind = str(pk.kind);
  const served = registry.all().find((s) => s.def.group === group && s.def.version === version && s.def.kind === kind);
  if (!served) {
    throw new ConfigurationError(
      `failed to find resource referenced by paramKind: '${group}/${version}, Kind=${kind}'`,
    );
  }
  return served;
}

/** The params a binding's paramRef selects ([null] when the policy or binding has none). */
async function collectParams(
  served: ServedResource | undefined,
  policy: KubeObject,
  binding: KubeObject,
  namespace: string,
): Promise<Array<KubeObject | null>> {
  const paramRef = rec(binding.spec).paramRef;
  if (served === undefined || paramRef == null) return [null];
  const pk = rec(rec(policy.spec).paramKind);
  const ref = rec(paramRef);
  let ns = '';
  if (served.def.namespaced) {
    ns = str(ref.namespace) || namespace;
    if (ns === '') {
      throw new ConfigurationError(
        'cannot use namespaced paramRef in policy binding that matches cluster-scoped resources',
      );
    }
  } else if (str(ref.namespace) !== '') {
    throw new ConfigurationError('paramRef.namespace must not be provided for a cluster-scoped `paramKind`');
  }
  const store = served.store;
  await store.cacher.start();
  let params: KubeObject[];
  if (str(ref.name) !== '') {
    const found = await store.cacher.get(store.key(ns, str(ref.name)));
    params = found ? [found] : [];
  } else {
    let selector: LabelSelector;
    try {
      selector = LabelSelector.fromObject(rec(ref.selector) as LabelSelectorObject);
    } catch (err) {
      throw new ConfigurationError((err as Error).message);
    }
    const prefix = ns ? `${served.def.storagePrefix}/${ns}/` : `${served.def.storagePrefix}/`;
    const { items } = await store.cacher.list(prefix, (o) => selector.matches(o.metadata.labels ?? {}));
    params = items;
  }
  if (params.length === 0 && ref.parameterNotFoundAction === 'Deny') {
    throw new ConfigurationError('no params found for policy binding with `Deny` parameterNotFoundAction');
  }
  return params.map((p) => ({ ...p, apiVersion: str(pk.apiVersion), kind: str(pk.kind) }));
}

function denialError(attrs: AdmissionAttributes, d: Denial): StatusError {
  const message = d.binding
    ? `ValidatingAdmissionPolicy '${d.policy}' with binding '${d.binding}' denied request: ${d.message}`
    : `ValidatingAdmissionPolicy '${d.policy}' denied request: ${d.message}`;
  const base = admissionForbidden(attrs, message);
  const reason = d.reason || 'Invalid';
  const details = base.status.details ?? {};
  return new StatusError(REASON_CODES[reason] ?? 422, reason, base.message, {
    ...details,
    causes: [...(details.causes ?? []), { message }],
  });
}

export function validatingAdmissionPolicy(registry: APIRegistry, readNamespace?: NamespaceReader): AdmissionPlugin {
  const source = new PolicySource(registry);
  const namespaces = readNamespace ?? namespaceReaderFrom(registry);
  return {
    name: VALIDATING_ADMISSION_POLICY,
    validate(attrs) {
      // Nothing to wait for when no configuration has anything to say: the case of most clusters, most requests.
      if (isExemptFromPolicies(attrs) || source.policiesNow()?.length === 0) return;
      return validateWith(attrs);
    },
  };

  async function validateWith(attrs: AdmissionAttributes): Promise<void> {
    const hooks = await source.policies();
    if (hooks.length === 0) return;
    const denials: Denial[] = [];
    const configError = (policy: KubeObject, binding: KubeObject | undefined, err: Error) => {
      if (rec(policy.spec).failurePolicy === 'Ignore') return;
      const what = binding ? 'binding' : 'policy';
      denials.push({
        policy: policy.metadata.name ?? '',
        ...(binding ? { binding: binding.metadata.name ?? '' } : {}),
        message: `failed to configure ${what}: ${err.message}`,
      });
    };
    let namespaceObject: KubeObject | null | undefined;
    const namespaceOf = async () => {
      if (namespaceObject !== undefined) return namespaceObject;
      const isNamespace = attrs.kind.group === '' && attrs.kind.kind === 'Namespace';
      namespaceObject = attrs.namespace === '' || isNamespace ? null : ((await namespaces(attrs.namespace)) ?? null);
      return namespaceObject;
    };
    for (const { policy, bindings } of hooks) {
      const policyName = policy.metadata.name ?? '';
      let matches: boolean;
      try {
        matches = await matchResourcesCover(rec(policy.spec).matchConstraints, attrs, registry, namespaces);
      } catch (err) {
        configError(policy, undefined, err as Error);
        continue;
      }
      if (!matches) continue;
      let served: ServedResource | undefined;
      try {
        served = paramResource(registry, policy);
      } catch (err) {
        configError(policy, undefined, err as Error);
        continue;
      }
      const annotations = new Map<string, string[]>();
      for (const binding of bindings) {
        const bspec = rec(binding.spec);
        const bindingName = binding.metadata.name ?? '';
        try {
          if (bspec.matchResources != null) {
            if (!(await matchResourcesCover(bspec.matchResources, attrs, registry, namespaces))) continue;
          }
        } catch (err) {
          configError(policy, binding, err as Error);
          continue;
        }
        let params: Array<KubeObject | null>;
        try {
          params = await collectParams(served, policy, binding, attrs.namespace);
        } catch (err) {
          configError(policy, binding, err as Error);
          continue;
        }
        const ns = await namespaceOf();
        const actions = strs(bspec.validationActions);
        for (const param of params) {
          const result = validatePolicy({ policy, attrs, registry, param, namespaceObject: ns });
          for (const decision of result.decisions) {
            if (decision.action !== 'deny') continue;
            applyValidationActions(attrs, actions, policyName, bindingName, decision, denials);
          }
          // An auditAnnotation that failed denies whatever validationActions says, as upstream's dispatcher.
          for (const message of result.auditAnnotationErrors)
            denials.push({ policy: policyName, binding: bindingName, message });
          for (const a of result.auditAnnotations) {
            const list = annotations.get(a.key) ?? [];
            const value = a.value.slice(0, MAX_AUDIT_ANNOTATION_VALUE_LENGTH);
            if (!list.includes(value)) list.push(value);
            annotations.set(a.key, list);
          }
        }
      }
      for (const [key, values] of annotations) attrs.sink?.annotate(`${policyName}/${key}`, values.join(', '));
    }
    const first = denials[0];
    if (first) throw denialError(attrs, first);
  }
}

/** What a binding's validationActions do with one failed validation. */
export function applyValidationActions(
  attrs: AdmissionAttributes,
  actions: string[],
  policy: string,
  binding: string,
  decision: PolicyDecision,
  denials: Denial[],
): void {
  for (const action of actions) {
    if (action === 'Deny') {
      denials.push({
        policy,
        binding,
        message: decision.message,
        ...(decision.reason ? { reason: decision.reason } : {}),
      });
    } else if (action === 'Warn') {
      attrs.sink?.warn(
        `Validation failed for ValidatingAdmissionPolicy '${policy}' with binding '${binding}': ${decision.message}`,
      );
    } else if (action === 'Audit') {
      // Upstream's ValidationFailureValue list, written by json.Marshal (so `<=` in a message is `\u003c=`).
      const value = goJsonMarshal([
        { message: decision.message, policy, binding, expressionIndex: decision.index, validationActions: actions },
      ]);
      attrs.sink?.annotate(VALIDATION_FAILURE_ANNOTATION, value);
    }
  }
}
