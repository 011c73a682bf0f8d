/**
 * The audit policy (audit.k8s.io/v1 Policy, --audit-policy-file): rules tried in order, the first that matches a
 * request decides its level and the stages left out. Validation follows upstream's, message for message.
 */
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import {
  type FieldError,
  FieldPath,
  fieldErrorsMessage,
  invalid,
  notSupported,
  required,
} from '../../api/field-errors.js';
import type { UserInfo } from '../context.js';
import type { RequestInfo } from '../request-info.js';

export const LEVELS = ['None', 'Metadata', 'Request', 'RequestResponse'] as const;
export type Level = (typeof LEVELS)[number];
export const STAGES = ['RequestReceived', 'ResponseStarted', 'ResponseComplete', 'Panic'] as const;
export type Stage = (typeof STAGES)[number];

export interface GroupResources {
  group?: string;
  resources?: string[];
  resourceNames?: string[];
}

export interface PolicyRule {
  level: Level;
  users?: string[];
  userGroups?: string[];
  verbs?: string[];
  resources?: GroupResources[];
  namespaces?: string[];
  nonResourceURLs?: string[];
  omitStages?: Stage[];
  omitManagedFields?: boolean;
}

export interface Policy {
  apiVersion?: string;
  kind?: string;
  rules: PolicyRule[];
  omitStages?: Stage[];
  omitManagedFields?: boolean;
}

/** What the policy decides for one request. */
export interface AuditDecision {
  level: Level;
  omitStages: ReadonlySet<Stage>;
  omitManagedFields: boolean;
}

export const LEVEL_RANK: Record<Level, number> = { None: 0, Metadata: 1, Request: 2, RequestResponse: 3 };

const API_VERSIONS = ['audit.k8s.io/v1'];
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function strings(v: unknown): string[] | undefined {
  return Array.isArray(v) ? v.map(String) : undefined;
}

function validateOmitStages(stages: unknown, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  (strings(stages) ?? []).forEach((s, i) => {
    if (!(STAGES as readonly string[]).includes(s))
      errs.push(invalid(p.index(i), s, `allowed stages are ${STAGES.join(',')}`));
  });
  return errs;
}

function validateRule(rule: Record<string, unknown>, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const level = rule.level === undefined ? '' : String(rule.level);
  if (level === '') errs.push(required(p.child('level')));
  else if (!(LEVELS as readonly string[]).includes(level)) errs.push(notSupported(p.child('level'), level, LEVELS));
  const urls = strings(rule.nonResourceURLs) ?? [];
  urls.forEach((url, i) => {
    if (url === '*') return;
    const up = p.child('nonResourceURLs').index(i);
    if (!url.startsWith('/')) errs.push(invalid(up, url, "non-resource URL rules must begin with a '/' character"));
    if (url !== '' && url.slice(0, -1).includes('*'))
      errs.push(invalid(up, url, "non-resource URL wildcards '*' must be the final character of the rule"));
  });
  const resources = Array.isArray(rule.resources) ? (rule.resources as Record<string, unknown>[]) : [];
  for (const gr of resources) {
    const group = gr?.group === undefined ? '' : String(gr.group);
    if (group !== '' && (group.length > 253 || !DNS1123_SUBDOMAIN.test(group))) {
      errs.push(
        invalid(
          p.child('resources').child('group'),
          group,
          "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
        ),
      );
    }
    const names = strings(gr?.resourceNames) ?? [];
    if (names.length > 0 && (strings(gr?.resources) ?? []).length === 0)
      errs.push(
        invalid(
          p.child('resources').child('resourceNames'),
          names,
          'using resourceNames requires at least one resource',
        ),
      );
  }
  errs.push(...validateOmitStages(rule.omitStages, p.child('omitStages')));
  if (urls.length > 0 && (resources.length > 0 || (strings(rule.namespaces) ?? []).length > 0))
    errs.push(
      invalid(p.child('nonResourceURLs'), urls, 'rules cannot apply to both regular resources and non-resource URLs'),
    );
  return errs;
}

/** Checks a decoded Policy document; throws with upstream's field errors. */
export function validatePolicy(doc: unknown): Policy {
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) throw new Error('audit policy: not an object');
  const obj = doc as Record<string, unknown>;
  if (obj.kind !== undefined && obj.kind !== 'Policy')
    throw new Error(`audit policy: kind ${JSON.stringify(obj.kind)} is not Policy`);
  if (obj.apiVersion !== undefined && !API_VERSIONS.includes(String(obj.apiVersion)))
    throw new Error(`audit policy: apiVersion ${JSON.stringify(obj.apiVersion)} is not audit.k8s.io/v1`);
  const errs = validateOmitStages(obj.omitStages, FieldPath.root('omitStages'));
  const rules = Array.isArray(obj.rules) ? (obj.rules as Record<string, unknown>[]) : [];
  rules.forEach((r, i) => {
    errs.push(...validateRule(r && typeof r === 'object' ? r : {}, FieldPath.root('rules').index(i)));
  });
  if (errs.length > 0) throw new Error(`invalid audit policy: ${fieldErrorsMessage(errs)}`);
  // A policy must have rules: with none it would log nothing, and upstream refuses to start on it.
  if (rules.length === 0) throw new Error('loaded illegal policy with 0 rules');
  return obj as unknown as Policy;
}

/** The name kube-apiserver's audit scheme has in its decoding errors (the file that made it, as Go records it). */
const AUDIT_SCHEME = 'pkg/audit/scheme.go:30';

/**
 * What upstream's LoadPolicyFromBytes makes of a file's apiVersion and kind: it decodes into the internal Policy,
 * so a missing apiVersion (or kind) takes the internal type's and the file is then refused for not naming
 * audit.k8s.io/v1; an apiVersion and kind the audit scheme does not know fail the decoding.
 */
function checkPolicyTypeMeta(doc: unknown): void {
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) return;
  const { apiVersion, kind } = doc as Record<string, unknown>;
  const typeKind = typeof kind === 'string' && kind !== '' ? kind : 'Policy';
  const gv = typeof apiVersion === 'string' && apiVersion.split('/').length <= 2 ? apiVersion : '';
  if (gv === API_VERSIONS[0] && typeKind === 'Policy') return;
  if (gv === '' || gv === 'audit.k8s.io/__internal') {
    if (typeKind === 'Policy')
      throw new Error('unknown group version field audit.k8s.io/__internal, Kind=Policy in policy');
    throw new Error(
      `failed decoding: no kind "${typeKind}" is registered for the internal version of group "audit.k8s.io" in scheme "${AUDIT_SCHEME}"`,
    );
  }
  throw new Error(
    `failed decoding: no kind "${typeKind}" is registered for version "${gv}" in scheme "${AUDIT_SCHEME}"`,
  );
}

/** Reads --audit-policy-file (YAML or JSON). */
export function loadPolicyFile(path: string): Policy {
  const docs = parseAllDocuments(readFileSync(path, 'utf8'));
  const first = docs.find((d) => d.contents !== null);
  if (!first) throw new Error(`audit policy file ${path} is empty`);
  if (first.errors.length > 0) throw new Error(`audit policy file ${path}: ${first.errors[0]?.message}`);
  try {
    const doc = first.toJS();
    checkPolicyTypeMeta(doc);
    return validatePolicy(doc);
  } catch (err) {
    // As upstream's LoadPolicyFromFile names the file.
    throw new Error(`${(err as Error).message}: from file ${path}`);
  }
}

export interface RequestAttributes {
  user: UserInfo | undefined;
  info: RequestInfo;
}

function matchesNonResource(patterns: string[], path: string): boolean {
  return patterns.some((p) => p === '*' || p === path || (p.endsWith('*') && path.startsWith(p.slice(0, -1))));
}

function matchesResource(rule: PolicyRule, info: RequestInfo): boolean {
  if (rule.namespaces && rule.namespaces.length > 0 && !rule.namespaces.includes(info.namespace)) return false;
  if (!rule.resources || rule.resources.length === 0) return true;
  const full = info.subresource ? `${info.resource}/${info.subresource}` : info.resource;
  // Groups match exactly (no wildcard, as upstream); '*' is every resource and subresource, '*/scale' one
  // subresource of any resource, 'pods/*' pods and all of their subresources.
  return rule.resources.some((gr) => {
    if ((gr.group ?? '') !== info.apiGroup) return false;
    const resources = gr.resources ?? [];
    if (resources.length === 0) return true;
    const names = gr.resourceNames ?? [];
    if (names.length > 0 && !names.includes(info.name)) return false;
    return resources.some(
      (r) =>
        r === '*' ||
        r === full ||
        (info.subresource !== '' && r.startsWith('*/') && info.subresource === r.slice(2)) ||
        (r.endsWith('/*') && info.resource === r.slice(0, -2)),
    );
  });
}

function ruleMatches(rule: PolicyRule, attrs: RequestAttributes): boolean {
  const user = attrs.user;
  if (rule.users && rule.users.length > 0 && !(user && rule.users.includes(user.name))) return false;
  if (rule.userGroups && rule.userGroups.length > 0 && !user?.groups.some((g) => rule.userGroups?.includes(g)))
    return false;
  if (rule.verbs && rule.verbs.length > 0 && !rule.verbs.includes(attrs.info.verb)) return false;
  if (attrs.info.isResourceRequest) {
    if (rule.nonResourceURLs && rule.nonResourceURLs.length > 0) return false;
    return matchesResource(rule, attrs.info);
  }
  // A non-resource request matches only rules without resources or namespaces.
  if ((rule.resources?.length ?? 0) > 0 || (rule.namespaces?.length ?? 0) > 0) return false;
  if (!rule.nonResourceURLs || rule.nonResourceURLs.length === 0) return true;
  return matchesNonResource(rule.nonResourceURLs, attrs.info.path);
}

const NONE: AuditDecision = { level: 'None', omitStages: new Set(), omitManagedFields: false };

/** Evaluates a policy: the first matching rule wins; no match is level None. */
export class PolicyEvaluator {
  private readonly policyOmit: Stage[];
  constructor(private readonly policy: Policy) {
    this.policyOmit = policy.omitStages ?? [];
  }

  evaluate(attrs: RequestAttributes): AuditDecision {
    for (const rule of this.policy.rules) {
      if (!ruleMatches(rule, attrs)) continue;
      return {
        level: rule.level,
        omitStages: new Set([...this.policyOmit, ...(rule.omitStages ?? [])]),
        omitManagedFields: rule.omitManagedFields ?? this.policy.omitManagedFields ?? false,
      };
    }
    return NONE;
  }
}
