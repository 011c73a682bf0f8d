import { describe, it } from 'node:test';
import assert from '../../../testing/assert.js';
import type { KubeObject } from '../object.js';
import { defaultLimitRange, validateLimitRange } from './core-limitranges.js';
import { resourceQuotaPrinter, validateResourceQuota, validateResourceQuotaUpdate } from './core-resourcequotas.js';

describe('limit ranges', () => {
  it('derive container defaults from max and min', () => {
    const lr: KubeObject = {
      metadata: { name: 'l' },
      spec: {
        limits: [{ type: 'Container', max: { cpu: '2' }, min: { memory: '64Mi' }, default: { memory: '1024Mi' } }],
      },
    };
    defaultLimitRange(lr);
    const [item] = (lr.spec as { limits: Array<Record<string, unknown>> }).limits;
    assert.deepEqual(item?.default, { memory: '1Gi', cpu: '2' });
    assert.deepEqual(item?.defaultRequest, { memory: '1Gi', cpu: '2' });
    assert.deepEqual(validateLimitRange(lr), []);
  });

  it('refuse inconsistent bounds and unknown types', () => {
    const lr: KubeObject = {
      metadata: { name: 'l' },
      spec: { limits: [{ type: 'Container', min: { cpu: '2' }, max: { cpu: '1' } }, { type: 'Volume' }] },
    };
    defaultLimitRange(lr);
    assert.deepEqual(
      validateLimitRange(lr).map((e) => e.message),
      [
        'spec.limits[0].min[cpu]: Invalid value: "2": min value 2 is greater than max value 1',
        'spec.limits[0].defaultRequest[cpu]: Invalid value: "1": min value 2 is greater than default request value 1',
        'spec.limits[0].default[cpu]: Invalid value: "2": min value 2 is greater than default value 1',
        'spec.limits[1].type: Invalid value: "Volume": must be a standard limit type or fully qualified',
      ],
    );
  });
});

describe('resource quotas', () => {
  it('validate resource names and scopes', () => {
    const q: KubeObject = {
      metadata: { name: 'q' },
      spec: { hard: { pods: '1.5', bogus: '1' }, scopes: ['BestEffort', 'Sometimes'] },
    };
    assert.deepEqual(
      validateResourceQuota(q).map((e) => e.message),
      [
        'spec.hard[pods]: Invalid value: "1500m": must be an integer',
        'spec.hard[bogus]: Invalid value: "bogus": must be a standard resource type or fully qualified',
        'spec.hard[bogus]: Invalid value: "bogus": must be a standard resource for quota',
        'spec.scopes: Invalid value: []core.ResourceQuotaScope{"BestEffort", "Sometimes"}: unsupported scope',
      ],
    );
  });

  it('validate a scope selector as upstream does', () => {
    const q: KubeObject = {
      metadata: { name: 'q' },
      spec: {
        hard: { pods: '1', 'requests.cpu': '1' },
        scopeSelector: {
          matchExpressions: [
            { scopeName: 'PriorityClass', operator: 'Exists', values: ['high'] },
            { scopeName: 'BestEffort', operator: 'In', values: ['x'] },
            { scopeName: 'NotBestEffort', operator: 'Exists' },
            { scopeName: 'Sometimes', operator: 'Near' },
            { scopeName: 'PriorityClass', operator: 'NotIn', values: [] },
          ],
        },
      },
    };
    const selector =
      'core.ScopeSelector{MatchExpressions:[]core.ScopedResourceSelectorRequirement{' +
      'core.ScopedResourceSelectorRequirement{ScopeName:"PriorityClass", Operator:"Exists", Values:[]string{"high"}}, ' +
      'core.ScopedResourceSelectorRequirement{ScopeName:"BestEffort", Operator:"In", Values:[]string{"x"}}, ' +
      'core.ScopedResourceSelectorRequirement{ScopeName:"NotBestEffort", Operator:"Exists", Values:[]string(nil)}, ' +
      'core.ScopedResourceSelectorRequirement{ScopeName:"Sometimes", Operator:"Near", Values:[]string(nil)}, ' +
      'core.ScopedResourceSelectorRequirement{ScopeName:"PriorityClass", Operator:"NotIn", Values:[]string{}}}}';
    const at = 'spec.scopeSelector.matchExpressions';
    assert.deepEqual(
      validateResourceQuota(q).map((e) => e.message),
      [
        `${at}.values: Invalid value: []string{"high"}: must be no value when \`operator\` is 'Exist' or 'DoesNotExist' for scope selector`,
        `${at}: Invalid value: ${selector}: unsupported scope applied to resource`,
        `${at}.operator: Invalid value: "In": must be 'Exist' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity`,
        `${at}.scopeName: Invalid value: "Sometimes": unsupported scope`,
        `${at}.operator: Invalid value: "Near": not a valid selector operator`,
        `${at}.values: Required value: must be at least one value when \`operator\` is 'In' or 'NotIn' for scope selector`,
        `${at}: Invalid value: []core.ResourceQuotaScope(nil): conflicting scopes`,
      ],
    );
  });

  it('let CrossNamespacePodAffinity limit compute, and keep scopes unchanged on update', () => {
    const q: KubeObject = {
      metadata: { name: 'q' },
      spec: { hard: { pods: '1', 'requests.cpu': '1' }, scopes: ['CrossNamespacePodAffinity'] },
    };
    assert.deepEqual(validateResourceQuota(q), []);
    const next: KubeObject = { metadata: { name: 'q' }, spec: { hard: { pods: '1' }, scopes: ['Terminating'] } };
    assert.deepEqual(
      validateResourceQuotaUpdate(next, q).map((e) => e.message),
      ['spec.scopes: Invalid value: []core.ResourceQuotaScope{"Terminating"}: field is immutable'],
    );
  });

  it('print used and hard amounts', () => {
    const q: KubeObject = {
      metadata: { name: 'compute', creationTimestamp: '2025-01-01T00:00:00Z' },
      status: {
        hard: { pods: '10', 'requests.cpu': '4', 'limits.memory': '8Gi' },
        used: { pods: '3', 'requests.cpu': '1500m' },
      },
    };
    assert.deepEqual(resourceQuotaPrinter.cells(q, Date.parse('2025-01-01T00:01:00Z')), [
      'compute',
      '60s',
      'pods: 3/10, requests.cpu: 1500m/4',
      'limits.memory: 0/8Gi',
    ]);
  });
});
