/**
 * Validation of admissionregistration.k8s.io/v1 Mutating- and ValidatingWebhookConfigurations, as kube-apiserver
 * 1.33 checks them: fully qualified, unique webhook names; rules (operations, groups, versions, resources with
 * their wildcard overlaps, scope); failurePolicy, matchPolicy, sideEffects (None or NoneOnDryRun for new objects),
 * timeoutSeconds 1–30, reinvocationPolicy; label selectors; exactly one of url (https, no user, query or fragment)
 * or service (name, namespace, port, path segments); admissionReviewVersions including v1 or v1beta1; at most 64
 * matchConditions with qualified, unique names and expressions that compile. An update relaxes the rules the stored
 * object already breaks (side effects, review versions, duplicate names, label values, unchanged matchConditions),
 * so an object stored by an older server can still be changed.
 */
import {
  duplicate,
  type FieldError,
  type FieldPath,
  invalid,
  notSupported,
  path,
  required,
  tooMany,
} from '../../../api/field-errors.js';
import type { LabelSelectorObject } from '../../../api/labels.js';
import { GoValue, goQuote } from '../../../api/validation/go-format.js';
import { labelSelectorHasInvalidLabelValue, validateLabelSelector } from '../../../api/validation/labels.js';
import { isDNS1035Label, isDNS1123Subdomain, isQualifiedName } from '../../../api/validation/names.js';
import type { KubeObject } from '../object.js';
import { type Rec, rec, records, str, unset } from './groups-fields.js';

/** The AdmissionReview versions this server speaks (upstream's AcceptedAdmissionReviewVersions). */
export const ACCEPTED_ADMISSION_REVIEW_VERSIONS = ['v1', 'v1beta1'];
export const MAX_MATCH_CONDITIONS = 64;

const FAILURE_POLICIES = ['Fail', 'Ignore'];
const MATCH_POLICIES = ['Equivalent', 'Exact'];
const ALL_SIDE_EFFECTS = ['None', 'NoneOnDryRun', 'Some', 'Unknown'];
const NO_SIDE_EFFECTS = ['None', 'NoneOnDryRun'];
const OPERATIONS = ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'];
const REINVOCATION_POLICIES = ['IfNeeded', 'Never'];
const SCOPES = ['*', 'Cluster', 'Namespaced'];

/**
 * Compiles a matchCondition expression; returns the field error for one that does not compile (or does not give a
 * bool), undefined when it is fine. Set by the webhook admission code, which owns the CEL environment for webhooks;
 * until then expressions are only checked for being present.
 */
export type MatchConditionCompiler = (expression: string, fieldPath: FieldPath) => FieldError | undefined;
let matchConditionCompiler: MatchConditionCompiler | undefined;

export function setMatchConditionCompiler(compile: MatchConditionCompiler): void {
  matchConditionCompiler = compile;
}

interface Options {
  requireNoSideEffects: boolean;
  requireRecognizedReviewVersion: boolean;
  requireUniqueNames: boolean;
  allowInvalidLabelValueInSelector: boolean;
  ignoreMatchConditions: boolean;
}

const CREATE_OPTIONS: Options = {
  requireNoSideEffects: true,
  requireRecognizedReviewVersion: true,
  requireUniqueNames: true,
  allowInvalidLabelValueInSelector: false,
  ignoreMatchConditions: false,
};

/** Go's %#v of a slice of a named string type. */
function goTypedSlice(type: string, values: readonly string[]): GoValue {
  return new GoValue(`[]${type}{${values.map(goQuote).join(', ')}}`);
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.map((s) => (typeof s === 'string' ? s : String(s))) : [];
}

/** utilvalidation.IsFullyQualifiedName: a DNS subdomain with at least three dot-separated segments. */
function fullyQualifiedName(p: FieldPath, name: string): FieldError[] {
  if (name === '') return [required(p)];
  const errs = isDNS1123Subdomain(name);
  if (errs.length > 0) return [invalid(p, name, errs.join(','))];
  if (name.split('.').length < 3) {
    return [invalid(p, name, 'should be a domain with at least three segments separated by dots')];
  }
  return [];
}

function validateResources(resources: string[], p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (resources.length === 0) errs.push(required(p));
  const withWildcardSub = new Set<string>();
  const subWithWildcardRes = new Set<string>();
  let doubleWildcard = false;
  let singleWildcard = false;
  let withoutSub = false;
  resources.forEach((resSub, i) => {
    if (resSub === '') {
      errs.push(required(p.index(i)));
      return;
    }
    if (resSub === '*/*') doubleWildcard = true;
    if (resSub === '*') singleWildcard = true;
    const slash = resSub.indexOf('/');
    if (slash < 0) {
      withoutSub = resSub !== '*';
      return;
    }
    const res = resSub.slice(0, slash);
    const sub = resSub.slice(slash + 1);
    if (withWildcardSub.has(res)) {
      errs.push(invalid(p.index(i), resSub, `if '${res}/*' is present, must not specify ${resSub}`));
    }
    if (subWithWildcardRes.has(sub)) {
      errs.push(invalid(p.index(i), resSub, `if '*/${sub}' is present, must not specify ${resSub}`));
    }
    if (sub === '*') withWildcardSub.add(res);
    if (res === '*') subWithWildcardRes.add(sub);
  });
  const value = goTypedSlice('string', resources);
  if (resources.length > 1 && doubleWildcard) {
    errs.push(invalid(p, value, "if '*/*' is present, must not specify other resources"));
  }
  if (singleWildcard && withoutSub) {
    errs.push(invalid(p, value, "if '*' is present, must not specify other resources without subresources"));
  }
  return errs;
}

/** `*` must stand alone in a list of operations, groups or versions. */
function wildcardAlone(values: string[], p: FieldPath, goType: string, what: string): FieldError[] {
  if (values.length <= 1 || !values.includes('*')) return [];
  return [invalid(p, goTypedSlice(goType, values), `if '*' is present, must not specify other ${what}`)];
}

/** A rule's operations, groups, versions, resources and scope (shared with ValidatingAdmissionPolicy's rules). */
export function validateRuleWithOperations(rule: Rec, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const operations = strings(rule.operations);
  if (operations.length === 0) errs.push(required(p.child('operations')));
  errs.push(...wildcardAlone(operations, p.child('operations'), 'admissionregistration.OperationType', 'operations'));
  operations.forEach((op, i) => {
    if (!OPERATIONS.includes(op)) errs.push(notSupported(p.child('operations').index(i), op, OPERATIONS));
  });
  const groups = strings(rule.apiGroups);
  if (groups.length === 0) errs.push(required(p.child('apiGroups')));
  errs.push(...wildcardAlone(groups, p.child('apiGroups'), 'string', 'API groups'));
  const versions = strings(rule.apiVersions);
  if (versions.length === 0) errs.push(required(p.child('apiVersions')));
  errs.push(...wildcardAlone(versions, p.child('apiVersions'), 'string', 'API versions'));
  versions.forEach((v, i) => {
    if (v === '') errs.push(required(p.child('apiVersions').index(i)));
  });
  errs.push(...validateResources(strings(rule.resources), p.child('resources')));
  if (!unset(rule.scope) && !SCOPES.includes(str(rule.scope))) {
    errs.push(notSupported(p.child('scope'), rule.scope, SCOPES));
  }
  return errs;
}

/** A Go url.Parse-like split of a URL into the parts upstream's checks look at. */
export interface ParsedWebhookURL {
  scheme: string;
  user: string | undefined;
  host: string;
  path: string;
  query: string;
  fragment: string;
}

export function parseWebhookURL(raw: string): ParsedWebhookURL | string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: Go refuses control characters in a URL
  if (/[\x00-\x1f\x7f]/.test(raw)) return `parse ${goQuote(raw)}: net/url: invalid control character in URL`;
  let rest = raw;
  let fragment = '';
  const hash = rest.indexOf('#');
  if (hash >= 0) {
    fragment = rest.slice(hash + 1);
    rest = rest.slice(0, hash);
  }
  let scheme = '';
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(rest);
  if (m) {
    scheme = (m[1] as string).toLowerCase();
    rest = rest.slice(m[0].length);
  } else if (rest.startsWith(':')) {
    return `parse ${goQuote(raw)}: missing protocol scheme`;
  }
  let query = '';
  const q = rest.indexOf('?');
  if (q >= 0) {
    query = rest.slice(q + 1);
    rest = rest.slice(0, q);
  }
  let host = '';
  let user: string | undefined;
  if (rest.startsWith('//')) {
    const slash = rest.indexOf('/', 2);
    let authority = slash < 0 ? rest.slice(2) : rest.slice(2, slash);
    rest = slash < 0 ? '' : rest.slice(slash);
    const at = authority.lastIndexOf('@');
    if (at >= 0) {
      user = authority.slice(0, at);
      authority = authority.slice(at + 1);
    }
    host = authority;
  }
  return { scheme, user, host, path: rest, query, fragment };
}

/** webhook.ValidateWebhookURL with https forced. */
function validateWebhookURL(p: FieldPath, raw: string): FieldError[] {
  const form = '; desired format: https://host[/path]';
  const u = parseWebhookURL(raw);
  if (typeof u === 'string') return [required(p, `url must be a valid URL: ${u}${form}`)];
  const errs: FieldError[] = [];
  if (u.scheme !== 'https') errs.push(invalid(p, u.scheme, `'https' is the only allowed URL scheme${form}`));
  if (u.host === '') errs.push(invalid(p, u.host, `host must be provided${form}`));
  if (u.user !== undefined) errs.push(invalid(p, u.user, 'user information is not permitted in the URL'));
  if (u.fragment !== '') errs.push(invalid(p, u.fragment, 'fragments are not permitted in the URL'));
  if (u.query !== '') errs.push(invalid(p, u.query, 'query parameters are not permitted in the URL'));
  return errs;
}

/**
 * webhook.ValidateWebhookService. Upstream's caller passes the service's name where the function expects the
 * namespace and the other way round, so a missing name is reported on `namespace` and the reverse; kept as is.
 */
function validateWebhookService(p: FieldPath, service: Rec): FieldError[] {
  const errs: FieldError[] = [];
  const name = str(service.name);
  const namespace = str(service.namespace);
  if (namespace === '') errs.push(required(p.child('name'), 'service name is required'));
  if (name === '') errs.push(required(p.child('namespace'), 'service namespace is required'));
  const port = service.port;
  if (typeof port === 'number' && (!Number.isInteger(port) || port < 1 || port > 65535)) {
    errs.push(invalid(p.child('port'), port, 'port is not valid: must be between 1 and 65535, inclusive'));
  }
  if (unset(service.path)) return errs;
  const urlPath = str(service.path);
  if (urlPath === '/' || urlPath === '') return errs;
  if (urlPath === '//') return [...errs, invalid(p.child('path'), urlPath, 'segment[0] may not be empty')];
  if (!urlPath.startsWith('/')) errs.push(invalid(p.child('path'), urlPath, "must start with a '/'"));
  let check = urlPath.slice(1);
  if (check.endsWith('/')) check = check.slice(0, -1);
  check.split('/').forEach((step, i) => {
    if (step === '') {
      errs.push(invalid(p.child('path'), urlPath, `segment[${i}] may not be empty`));
      return;
    }
    for (const msg of isDNS1123Subdomain(step)) {
      errs.push(invalid(p.child('path'), urlPath, `segment[${i}]: ${msg}`));
    }
  });
  return errs;
}

/**
 * A list of matchConditions (webhooks' and ValidatingAdmissionPolicies'): at most 64, each with an expression that
 * `checkExpression` accepts (given trimmed) and a qualified name, the names unique.
 */
export function validateMatchConditionList(
  conditions: Rec[],
  p: FieldPath,
  checkExpression: (expression: string, fieldPath: FieldPath) => FieldError[],
): FieldError[] {
  const errs: FieldError[] = [];
  if (conditions.length > MAX_MATCH_CONDITIONS) errs.push(tooMany(p, conditions.length, MAX_MATCH_CONDITIONS));
  const names = new Set<string>();
  conditions.forEach((c, i) => {
    const cp = p.index(i);
    const expression = str(c.expression).trim();
    if (expression === '') errs.push(required(cp.child('expression')));
    else errs.push(...checkExpression(expression, cp.child('expression')));
    const name = str(c.name);
    if (name === '') errs.push(required(cp.child('name')));
    else for (const msg of isQualifiedName(name)) errs.push(invalid(cp.child('name'), name, msg));
    if (name !== '') {
      if (names.has(name)) errs.push(duplicate(cp.child('name'), name));
      else names.add(name);
    }
  });
  return errs;
}

function validateReviewVersions(versions: string[], requireRecognized: boolean, p: FieldPath): FieldError[] {
  const accepted = ACCEPTED_ADMISSION_REVIEW_VERSIONS.join(', ');
  if (versions.length === 0) return [required(p, `must specify one of ${accepted}`)];
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  versions.forEach((v, i) => {
    if (seen.has(v)) {
      errs.push(invalid(p.index(i), v, 'duplicate version'));
      return;
    }
    seen.add(v);
    for (const msg of isDNS1035Label(v)) errs.push(invalid(p.index(i), v, msg));
  });
  if (requireRecognized && !versions.some((v) => ACCEPTED_ADMISSION_REVIEW_VERSIONS.includes(v))) {
    errs.push(invalid(p, goTypedSlice('string', versions), `must include at least one of ${accepted}`));
  }
  return errs;
}

function validateWebhook(hook: Rec, mutating: boolean, opts: Options, p: FieldPath): FieldError[] {
  const errs = fullyQualifiedName(p.child('name'), str(hook.name));
  records(hook.rules).forEach((rule, i) => {
    errs.push(...validateRuleWithOperations(rule, p.child('rules').index(i)));
  });
  if (!unset(hook.failurePolicy) && !FAILURE_POLICIES.includes(str(hook.failurePolicy))) {
    errs.push(notSupported(p.child('failurePolicy'), hook.failurePolicy, FAILURE_POLICIES));
  }
  if (!unset(hook.matchPolicy) && !MATCH_POLICIES.includes(str(hook.matchPolicy))) {
    errs.push(notSupported(p.child('matchPolicy'), hook.matchPolicy, MATCH_POLICIES));
  }
  const allowedSideEffects = opts.requireNoSideEffects ? NO_SIDE_EFFECTS : ALL_SIDE_EFFECTS;
  if (unset(hook.sideEffects)) {
    errs.push(required(p.child('sideEffects'), `must specify one of ${allowedSideEffects.join(', ')}`));
  } else if (!allowedSideEffects.includes(str(hook.sideEffects))) {
    errs.push(notSupported(p.child('sideEffects'), hook.sideEffects, allowedSideEffects));
  }
  const timeout = hook.timeoutSeconds;
  if (typeof timeout === 'number' && (timeout > 30 || timeout < 1)) {
    errs.push(invalid(p.child('timeoutSeconds'), timeout, 'the timeout value must be between 1 and 30 seconds'));
  }
  const selectorOptions = { allowInvalidLabelValueInSelector: opts.allowInvalidLabelValueInSelector };
  for (const field of ['namespaceSelector', 'objectSelector']) {
    if (!unset(hook[field])) {
      errs.push(...validateLabelSelector(rec(hook[field]) as LabelSelectorObject, selectorOptions, p.child(field)));
    }
  }
  if (mutating && !unset(hook.reinvocationPolicy) && !REINVOCATION_POLICIES.includes(str(hook.reinvocationPolicy))) {
    errs.push(notSupported(p.child('reinvocationPolicy'), hook.reinvocationPolicy, REINVOCATION_POLICIES));
  }
  const cc = rec(hook.clientConfig);
  const hasURL = !unset(cc.url);
  const hasService = !unset(cc.service);
  if (hasURL === hasService) {
    errs.push(required(p.child('clientConfig'), 'exactly one of url or service is required'));
  } else if (hasURL) {
    errs.push(...validateWebhookURL(p.child('clientConfig', 'url'), str(cc.url)));
  } else {
    errs.push(...validateWebhookService(p.child('clientConfig', 'service'), rec(cc.service)));
  }
  if (!opts.ignoreMatchConditions) {
    errs.push(
      ...validateMatchConditionList(records(hook.matchConditions), p.child('matchConditions'), (expression, fp) => {
        const err = matchConditionCompiler?.(expression, fp);
        return err ? [err] : [];
      }),
    );
  }
  return errs;
}

function validateConfiguration(obj: KubeObject, mutating: boolean, opts: Options): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  records(obj.webhooks).forEach((hook, i) => {
    const p = path('webhooks').index(i);
    errs.push(...validateWebhook(hook, mutating, opts, p));
    errs.push(
      ...validateReviewVersions(
        strings(hook.admissionReviewVersions),
        opts.requireRecognizedReviewVersion,
        p.child('admissionReviewVersions'),
      ),
    );
    const name = str(hook.name);
    if (opts.requireUniqueNames && name !== '') {
      if (names.has(name)) errs.push(duplicate(p.child('name'), name));
      else names.add(name);
    }
  });
  return errs;
}

/** Validation of a new configuration (metadata is checked by the generic builtin strategy). */
export function validateWebhookConfiguration(obj: KubeObject, mutating: boolean): FieldError[] {
  return validateConfiguration(obj, mutating, CREATE_OPTIONS);
}

/** Validation of an update: what the stored object already breaks stays allowed. */
export function validateWebhookConfigurationUpdate(obj: KubeObject, old: KubeObject, mutating: boolean): FieldError[] {
  const oldHooks = records(old.webhooks);
  const newHooks = records(obj.webhooks);
  const oldNames = oldHooks.map((h) => str(h.name));
  const selectorsInvalid = oldHooks.some(
    (h) =>
      labelSelectorHasInvalidLabelValue(rec(h.namespaceSelector) as LabelSelectorObject) ||
      labelSelectorHasInvalidLabelValue(rec(h.objectSelector) as LabelSelectorObject),
  );
  return validateConfiguration(obj, mutating, {
    requireNoSideEffects: oldHooks.every((h) => NO_SIDE_EFFECTS.includes(str(h.sideEffects))),
    requireRecognizedReviewVersion: oldHooks.every((h) => {
      const versions = strings(h.admissionReviewVersions);
      return versions.length === 0 || versions.some((v) => ACCEPTED_ADMISSION_REVIEW_VERSIONS.includes(v));
    }),
    requireUniqueNames: new Set(oldNames).size === oldNames.length,
    allowInvalidLabelValueInSelector: selectorsInvalid,
    ignoreMatchConditions:
      newHooks.length === oldHooks.length &&
      newHooks.every(
        (h, i) => JSON.stringify(h.matchConditions ?? null) === JSON.stringify(oldHooks[i]?.matchConditions ?? null),
      ),
  });
}
