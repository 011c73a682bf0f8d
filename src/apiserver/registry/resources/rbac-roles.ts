/**
 * rbac.authorization.k8s.io/v1 Roles and ClusterRoles, stored and served with upstream's validation (names are
 * path segments; every rule needs verbs, and resource rules need apiGroups and resources; namespaced rules cannot
 * name non-resource URLs; aggregation rules need valid selectors). Enforcement is the authorizer's job.
 */
import { type FieldError, type FieldPath, invalid, path, required } from '../../../api/field-errors.js';
import { GoValue } from '../../../api/validation/go-format.js';
import { validateLabelSelector } from '../../../api/validation/labels.js';
import { validatePathSegmentName } from '../../../api/validation/name-validators.js';
import type { KubeObject } from '../object.js';
import { type Builtin, builtin } from './common.js';
import { list, rec, records, unset } from './groups-fields.js';
import { goStrings } from './groups-go-format.js';
import { parseSelector } from './groups-validation.js';

function validatePolicyRule(rule: Record<string, unknown>, namespaced: boolean, at: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (list(rule.verbs).length === 0) errs.push(required(at.child('verbs'), 'verbs must contain at least one value'));
  const urls = list(rule.nonResourceURLs);
  if (urls.length > 0) {
    const shown = new GoValue(goStrings(rule.nonResourceURLs));
    if (namespaced)
      errs.push(invalid(at.child('nonResourceURLs'), shown, 'namespaced rules cannot apply to non-resource URLs'));
    if (list(rule.apiGroups).length > 0 || list(rule.resources).length > 0 || list(rule.resourceNames).length > 0) {
      errs.push(
        invalid(
          at.child('nonResourceURLs'),
          shown,
          'rules cannot apply to both regular resources and non-resource URLs',
        ),
      );
    }
    return errs;
  }
  if (list(rule.apiGroups).length === 0) {
    errs.push(required(at.child('apiGroups'), 'resource rules must supply at least one api group'));
  }
  if (list(rule.resources).length === 0) {
    errs.push(required(at.child('resources'), 'resource rules must supply at least one resource'));
  }
  return errs;
}

function validateRules(obj: KubeObject, namespaced: boolean): FieldError[] {
  return records(obj.rules).flatMap((rule, i) => validatePolicyRule(rule, namespaced, path('rules').index(i)));
}

function validateAggregationRule(obj: KubeObject): FieldError[] {
  if (unset(obj.aggregationRule)) return [];
  const selectors = records(rec(obj.aggregationRule).clusterRoleSelectors);
  const at = path('aggregationRule', 'clusterRoleSelectors');
  const errs: FieldError[] = [];
  if (selectors.length === 0) {
    errs.push(required(at, 'at least one clusterRoleSelector required if aggregationRule is non-nil'));
  }
  selectors.forEach((selector, i) => {
    errs.push(...validateLabelSelector(selector, {}, at.index(i)));
    if (!parseSelector(selector)) errs.push(invalid(at.index(i), null, 'invalid label selector.'));
  });
  return errs;
}

export const roles: Builtin = builtin({
  group: 'rbac.authorization.k8s.io',
  version: 'v1',
  resource: 'roles',
  nameValidator: validatePathSegmentName,
  strategy: { tracksGeneration: false, validate: (obj) => validateRules(obj, true) },
});

export const clusterroles: Builtin = builtin({
  group: 'rbac.authorization.k8s.io',
  version: 'v1',
  resource: 'clusterroles',
  nameValidator: validatePathSegmentName,
  strategy: {
    tracksGeneration: false,
    validate: (obj) => [...validateRules(obj, false), ...validateAggregationRule(obj)],
  },
});
