import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Policy } from '../../src/apiserver/audit/policy.js';
import { type ControlPlane, startControlPlane } from '../../src/index.js';
import { apiRequest } from '../../src/testing/api-client.js';
import assert from '../../src/testing/assert.js';
import { eventually } from '../../src/testing/controllers.js';

const GROUP = '/apis/admissionregistration.k8s.io/v1';
const POLICIES = `${GROUP}/validatingadmissionpolicies`;
const BINDINGS = `${GROUP}/validatingadmissionpolicybindings`;
const CONFIGMAPS = (ns: string) => `/api/v1/namespaces/${ns}/configmaps`;

const VALIDATION_FAILURE = 'validation.policy.admission.k8s.io/validation_failure';

/**
 * Configmap writes and pod execs are audited (at Metadata, where admission annotations are recorded); nothing else
 * is.
 */
const AUDIT_POLICY: Policy = {
  apiVersion: 'audit.k8s.io/v1',
  kind: 'Policy',
  omitStages: ['RequestReceived'],
  rules: [
    { level: 'Metadata', verbs: ['create', 'update', 'patch'], resources: [{ group: '', resources: ['configmaps'] }] },
    { level: 'Metadata', resources: [{ group: '', resources: ['pods/exec'] }] },
  ],
};

describe('ValidatingAdmissionPolicy', () => {
  let cp: ControlPlane;
  let seq = 0;
  let auditDir: string;
  let auditLog: string;
  before(async () => {
    auditDir = mkdtempSync(join(tmpdir(), 'vap-audit-'));
    auditLog = join(auditDir, 'audit.log');
    cp = await startControlPlane({ audit: { policy: AUDIT_POLICY, logPath: auditLog } });
  });
  after(async () => {
    await cp?.stop();
    rmSync(auditDir, { recursive: true, force: true });
  });

  /** The annotations of a request's ResponseComplete event in the audit log file, found by its Audit-Id. */
  function auditedAnnotations(res: { headers: Record<string, unknown> }): Record<string, string> {
    const id = String(res.headers['audit-id']);
    const events = readFileSync(auditLog, 'utf8')
      .split('\n')
      .filter((l) => l.length > 0)
      .map((l) => JSON.parse(l) as { auditID: string; stage: string; annotations?: Record<string, string> })
      .filter((e) => e.auditID === id && e.stage === 'ResponseComplete');
    assert.equal(events.length, 1, `one ResponseComplete event for ${id}`);
    return events[0]?.annotations ?? {};
  }

  async function namespace(labels: Record<string, string> = {}): Promise<string> {
    const name = `vap-${++seq}`;
    const res = await apiRequest(cp, 'POST', '/api/v1/namespaces', { body: { metadata: { name, labels } } });
    assert.equal(res.status, 201, res.text);
    return name;
  }

  /** Configmaps in one namespace: each test's policies see only its own requests. */
  function onConfigMapsIn(ns: string) {
    return {
      resourceRules: [
        { operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] },
      ],
      namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } },
    };
  }

  async function waitCached(collection: string, name: string) {
    await eventually(async () => {
      const list = await apiRequest(cp, 'GET', `${collection}?resourceVersion=0`);
      assert.ok(list.body.items.some((i: { metadata: { name: string } }) => i.metadata.name === name));
    });
  }

  /** Creates a policy and a binding of it, and waits until admission (the watch caches) has both. */
  async function bind(name: string, policySpec: Record<string, unknown>, bindingSpec: Record<string, unknown> = {}) {
    const p = await apiRequest(cp, 'POST', POLICIES, { body: { metadata: { name }, spec: policySpec } });
    assert.equal(p.status, 201, p.text);
    const b = await apiRequest(cp, 'POST', BINDINGS, {
      body: {
        metadata: { name: `${name}-binding` },
        spec: { policyName: name, validationActions: ['Deny'], ...bindingSpec },
      },
    });
    assert.equal(b.status, 201, b.text);
    await waitCached(POLICIES, name);
    await waitCached(BINDINGS, `${name}-binding`);
  }

  const configMap = (name: string, data: Record<string, string> = {}, labels: Record<string, string> = {}) => ({
    metadata: { name, labels },
    data,
  });

  it('denies with its message (422 Invalid, upstream text), admits what passes', async () => {
    const ns = await namespace();
    await bind('replica-limit', {
      matchConstraints: {
        resourceRules: [
          { operations: ['CREATE', 'UPDATE'], apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'] },
        ],
        namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } },
      },
      validations: [{ expression: 'object.spec.replicas <= 5' }],
    });
    const deployment = (name: string, replicas: number) => ({
      metadata: { name },
      spec: {
        replicas,
        selector: { matchLabels: { app: name } },
        template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
      },
    });
    const denied = await apiRequest(cp, 'POST', `/apis/apps/v1/namespaces/${ns}/deployments`, {
      body: deployment('big', 6),
    });
    assert.equal(denied.status, 422, denied.text);
    assert.equal(denied.body.reason, 'Invalid');
    const message =
      "ValidatingAdmissionPolicy 'replica-limit' with binding 'replica-limit-binding' denied request: failed expression: object.spec.replicas <= 5";
    assert.equal(denied.body.message, `deployments.apps "big" is forbidden: ${message}`);
    assert.deepEqual(denied.body.details.causes, [{ message }]);
    const ok = await apiRequest(cp, 'POST', `/apis/apps/v1/namespaces/${ns}/deployments`, {
      body: deployment('small', 3),
    });
    assert.equal(ok.status, 201, ok.text);
  });

  it('is defaulted and validated as upstream: expressions compile at create', async () => {
    const created = await apiRequest(cp, 'POST', POLICIES, {
      body: {
        metadata: { name: 'defaults' },
        spec: {
          matchConstraints: {
            resourceRules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }],
          },
          validations: [{ expression: 'true' }],
        },
      },
    });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.body.spec.failurePolicy, 'Fail');
    assert.equal(created.body.spec.matchConstraints.matchPolicy, 'Equivalent');
    assert.deepEqual(created.body.spec.matchConstraints.namespaceSelector, {});
    assert.equal(created.body.spec.matchConstraints.resourceRules[0].scope, '*');

    const bad = await apiRequest(cp, 'POST', POLICIES, {
      body: {
        metadata: { name: 'bad' },
        spec: {
          matchConstraints: { resourceRules: [] },
          validations: [
            { expression: 'object.spec.replicas > x' },
            { expression: '1' },
            { expression: 'params.x' },
            // object is dyn, so is what is read from it: upstream wants the exact type, not dyn.
            { expression: 'object.spec.paused', messageExpression: 'object.metadata.name' },
            // request is typed: its username is a string.
            { expression: 'object.spec.replicas > 1', messageExpression: "'by ' + request.userInfo.username" },
            // Only three reasons are supported (a refusal may not claim Unauthorized).
            { expression: 'true', reason: 'Unauthorized' },
            { expression: 'true', reason: 'RequestEntityTooLarge' },
          ],
        },
      },
    });
    assert.equal(bad.status, 422, bad.text);
    const causes = bad.body.details.causes.map((c: { field: string; message: string }) => `${c.field}: ${c.message}`);
    assert.ok(causes.includes('spec.matchConstraints.resourceRules: Required value'), causes.join('\n'));
    assert.ok(
      causes.includes(
        "spec.validations[0].expression: Invalid value: \"object.spec.replicas > x\": compilation failed: ERROR: <input>:1:24: undeclared reference to 'x' (in container '')\n | object.spec.replicas > x\n | .......................^",
      ),
      causes.join('\n'),
    );
    assert.ok(
      causes.includes('spec.validations[1].expression: Invalid value: "1": must evaluate to bool but got int'),
      causes.join('\n'),
    );
    assert.ok(
      causes.some((c: string) =>
        c.startsWith(
          'spec.validations[2].expression: Invalid value: "params.x": compilation failed: ERROR: <input>:1:1: undeclared reference to \'params\'',
        ),
      ),
      causes.join('\n'),
    );

    assert.ok(
      causes.includes(
        'spec.validations[3].expression: Invalid value: "object.spec.paused": must evaluate to bool but got dyn',
      ),
      causes.join('\n'),
    );
    assert.ok(
      causes.includes(
        'spec.validations[3].messageExpression: Invalid value: "object.metadata.name": must evaluate to string but got dyn',
      ),
      causes.join('\n'),
    );
    assert.ok(!causes.some((c: string) => c.startsWith('spec.validations[4]')), causes.join('\n'));
    assert.ok(
      causes.includes(
        'spec.validations[5].reason: Unsupported value: "Unauthorized": supported values: "Forbidden", "Invalid", "RequestEntityTooLarge"',
      ),
      causes.join('\n'),
    );
    assert.ok(!causes.some((c: string) => c.startsWith('spec.validations[6]')), causes.join('\n'));

    const binding = await apiRequest(cp, 'POST', BINDINGS, {
      body: {
        metadata: { name: 'bad-binding' },
        spec: { policyName: 'defaults', validationActions: ['Deny', 'Warn'], paramRef: { name: 'x', selector: {} } },
      },
    });
    assert.equal(binding.status, 422, binding.text);
    const bcauses = binding.body.details.causes.map(
      (c: { field: string; message: string }) => `${c.field}: ${c.message}`,
    );
    assert.ok(
      bcauses.includes(
        'spec.validationActions: Invalid value: []admissionregistration.ValidationAction{"Deny", "Warn"}: must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)',
      ),
      bcauses.join('\n'),
    );
    assert.ok(
      bcauses.includes('spec.paramRef.name: Forbidden: name and selector are mutually exclusive'),
      bcauses.join('\n'),
    );
    assert.ok(bcauses.includes('spec.paramRef.parameterNotFoundAction: Required value'), bcauses.join('\n'));
  });

  it('answers malformed policies and bindings with Status errors, never a crash', async () => {
    const bodies = [
      { metadata: { name: 'm1' }, spec: 'x' },
      {
        metadata: { name: 'm2' },
        spec: { matchConstraints: 7, validations: [{ expression: 5 }, 'x'], variables: 'y' },
      },
      { metadata: { name: 'm3' }, spec: { paramKind: { apiVersion: 'a/b/c', kind: 'Bad_Kind' }, validations: 'nope' } },
    ];
    for (const body of bodies) {
      const res = await apiRequest(cp, 'POST', POLICIES, { body });
      assert.ok(res.status === 400 || res.status === 422, `${res.status} ${res.text}`);
      assert.equal(res.body.kind, 'Status');
    }
    const binding = await apiRequest(cp, 'POST', BINDINGS, {
      body: {
        metadata: { name: 'm4' },
        spec: { policyName: 'Not A Name', validationActions: ['Nope', 'Nope'], paramRef: 3 },
      },
    });
    assert.ok(binding.status === 400 || binding.status === 422, binding.text);
  });

  it('refuses variables that are not declared, or declared later', async () => {
    const res = await apiRequest(cp, 'POST', POLICIES, {
      body: {
        metadata: { name: 'bad-vars' },
        spec: {
          matchConstraints: {
            resourceRules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }],
          },
          variables: [
            { name: 'a', expression: 'variables.b' },
            { name: 'b', expression: '1' },
          ],
          validations: [{ expression: 'variables.a == variables.b && variables.c' }],
        },
      },
    });
    assert.equal(res.status, 422, res.text);
    const causes = res.body.details.causes.map((c: { field: string; message: string }) => `${c.field}: ${c.message}`);
    assert.deepEqual(causes, [
      'spec.variables[0].expression: Invalid value: "variables.b": compilation failed: ERROR: <input>:1:10: undefined field \'b\'\n | variables.b\n | .........^',
      'spec.validations[0].expression: Invalid value: "variables.a == variables.b && variables.c": compilation failed: ERROR: <input>:1:40: undefined field \'c\'\n | variables.a == variables.b && variables.c\n | .......................................^',
    ]);
  });

  it('reads params through paramKind and paramRef, with parameterNotFoundAction', async () => {
    const ns = await namespace();
    const limits = await apiRequest(cp, 'POST', CONFIGMAPS(ns), { body: configMap('limits', { maxKeys: '2' }) });
    assert.equal(limits.status, 201, limits.text);
    await bind(
      `params-${ns}`,
      {
        paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
        matchConstraints: {
          ...onConfigMapsIn(ns),
          excludeResourceRules: [
            {
              operations: ['*'],
              apiGroups: [''],
              apiVersions: ['v1'],
              resources: ['configmaps'],
              resourceNames: ['limits'],
            },
          ],
        },
        validations: [
          {
            expression: 'size(object.data) <= int(params.data.maxKeys)',
            messageExpression: '"at most " + params.data.maxKeys + " keys, got " + string(size(object.data))',
          },
        ],
      },
      { paramRef: { name: 'limits', namespace: ns, parameterNotFoundAction: 'Deny' } },
    );
    const denied = await apiRequest(cp, 'POST', CONFIGMAPS(ns), {
      body: configMap('three', { a: '1', b: '2', c: '3' }),
    });
    assert.equal(denied.status, 422, denied.text);
    assert.match(denied.body.message, /denied request: at most 2 keys, got 3$/);
    assert.equal(
      (await apiRequest(cp, 'POST', CONFIGMAPS(ns), { body: configMap('two', { a: '1', b: '2' }) })).status,
      201,
    );

    // The param goes away: Deny refuses everything, Allow lets everything through.
    assert.equal((await apiRequest(cp, 'DELETE', `${CONFIGMAPS(ns)}/limits`)).status, 200);
    await eventually(async () => {
      const res = await apiRequest(cp, 'POST', CONFIGMAPS(ns), { body: configMap(`x${Date.now()}`) });
      assert.equal(res.status, 422, res.text);
      assert.equal(
        res.body.message.replace(/^configmaps "[^"]+" is forbidden: /, ''),
        `ValidatingAdmissionPolicy 'params-${ns}' with binding 'params-${ns}-binding' denied request: failed to configure binding: no params found for policy binding with \`Deny\` parameterNotFoundAction`,
      );
    });
    const binding = await apiRequest(cp, 'GET', `${BINDINGS}/params-${ns}-binding`);
    binding.body.spec.paramRef.parameterNotFoundAction = 'Allow';
    assert.equal((await apiRequest(cp, 'PUT', `${BINDINGS}/params-${ns}-binding`, { body: binding.body })).status, 200);
    await eventually(async () => {
      const res = await apiRequest(cp, 'POST', CONFIGMAPS(ns), {
        body: configMap(`y${Date.now()}`, { a: '1', b: '2', c: '3' }),
      });
      assert.equal(res.status, 201, res.text);
    });
  });

  it('composes variables, and a validation reason sets the code', async () => {
    const ns = await namespace();
    await bind(`vars-${ns}`, {
      matchConstraints: onConfigMapsIn(ns),
      variables: [
        { name: 'owner', expression: "object.metadata.?labels.?owner.orValue('')" },
        { name: 'hasOwner', expression: "variables.owner != ''" },
      ],
      validations: [{ expression: 'variables.hasOwner', message: 'an owner label is required', reason: 'Forbidden' }],
    });
    const denied = await apiRequest(cp, 'POST', CONFIGMAPS(ns), { body: configMap('nobody') });
    assert.equal(denied.status, 403, denied.text);
    assert.equal(denied.body.reason, 'Forbidden');
    assert.match(denied.body.message, /denied request: an owner label is required$/);
    assert.equal(
      (await apiRequest(cp, 'POST', CONFIGMAPS(ns), { body: configMap('owned', {}, { owner: 'jane' }) })).status,
      201,
    );
  });

  it('Warn answers with a Warning header and lets the request through', async () => {
    const ns = await namespace();
    await bind(
      `warn-${ns}`,
      {
        matchConstraints: onConfigMapsIn(ns),
        validations: [{ expression: "has(object.data) && 'team' in object.data", message: 'set data.team' }],
      },
      { validationActions: ['Warn', 'Audit'] },
    );
    const res = await apiRequest(cp, 'POST', CONFIGMAPS(ns), { body: configMap('c') });
    assert.equal(res.status, 201, res.text);
    assert.equal(
      res.headers.warning,
      `299 - "Validation failed for ValidatingAdmissionPolicy 'warn-${ns}' with binding 'warn-${ns}-binding': set data.team"`,
    );
    // Audit beside Warn: the annotation lists the binding's actions as they are written.
    assert.equal(
      auditedAnnotations(res)[VALIDATION_FAILURE],
      `[{"message":"set data.team","policy":"warn-${ns}","binding":"warn-${ns}-binding","expressionIndex":0,"validationActions":["Warn","Audit"]}]`,
    );
  });

  it('Audit lets the request through and writes the validation_failure annotation to the audit log', async () => {
    const ns = await namespace();
    const policy = `audit-${ns}`;
    await bind(
      policy,
      {
        matchConstraints: onConfigMapsIn(ns),
        validations: [
          { expression: 'true' },
          { expression: "has(object.data) && 'team' in object.data", message: 'set data.team' },
          { expression: "object.metadata.name.startsWith('team-')" },
        ],
      },
      { validationActions: ['Audit'] },
    );
    // Validations 1 and 2 fail: upstream keeps the first annotation value it is given.
    const res = await apiRequest(cp, 'POST', CONFIGMAPS(ns), { body: configMap('loose') });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.headers.warning, undefined);
    const annotations = auditedAnnotations(res);
    assert.equal(
      annotations[VALIDATION_FAILURE],
      `[{"message":"set data.team","policy":"${policy}","binding":"${policy}-binding","expressionIndex":1,"validationActions":["Audit"]}]`,
    );
    assert.equal(annotations['authorization.k8s.io/decision'], 'allow');

    // Only validation 2 fails: its default message, with <, > and & escaped as Go's json.Marshal writes them.
    const second = await apiRequest(cp, 'POST', CONFIGMAPS(ns), { body: configMap('other', { team: 'a' }) });
    assert.equal(second.status, 201, second.text);
    assert.deepEqual(JSON.parse(auditedAnnotations(second)[VALIDATION_FAILURE] ?? 'null'), [
      {
        message: "failed expression: object.metadata.name.startsWith('team-')",
        policy,
        binding: `${policy}-binding`,
        expressionIndex: 2,
        validationActions: ['Audit'],
      },
    ]);

    const clean = await apiRequest(cp, 'POST', CONFIGMAPS(ns), { body: configMap('team-a', { team: 'a' }) });
    assert.equal(clean.status, 201, clean.text);
    assert.equal(auditedAnnotations(clean)[VALIDATION_FAILURE], undefined);
  });

  it('auditAnnotations reach the audit log as <policy>/<key>; one that fails denies even an Audit-only binding', async () => {
    const ns = await namespace();
    const policy = `annotate-${ns}`;
    await bind(
      policy,
      {
        matchConstraints: onConfigMapsIn(ns),
        auditAnnotations: [
          { key: 'owner', valueExpression: "'owner: ' + object.data.owner" },
          { key: 'empty', valueExpression: "' '" },
        ],
      },
      { validationActions: ['Audit'] },
    );
    const ok = await apiRequest(cp, 'POST', CONFIGMAPS(ns), { body: configMap('owned', { owner: 'jane' }) });
    assert.equal(ok.status, 201, ok.text);
    const annotations = auditedAnnotations(ok);
    assert.equal(annotations[`${policy}/owner`], 'owner: jane');
    assert.equal(`${policy}/empty` in annotations, false);
    assert.equal(annotations[VALIDATION_FAILURE], undefined);

    // No data.owner: the valueExpression fails under failurePolicy Fail, and that denies whatever the actions.
    const denied = await apiRequest(cp, 'POST', CONFIGMAPS(ns), { body: configMap('nobody') });
    assert.equal(denied.status, 422, denied.text);
    assert.equal(denied.body.reason, 'Invalid');
    assert.equal(
      denied.body.message,
      `configmaps "nobody" is forbidden: ValidatingAdmissionPolicy '${policy}' with binding '${policy}-binding' denied request: expression ''owner: ' + object.data.owner' resulted in error: no such key: owner`,
    );
  });

  it('a message with <, > or & is written to the annotation as Go escapes it', async () => {
    const ns = await namespace();
    const policy = `escape-${ns}`;
    await bind(
      policy,
      {
        matchConstraints: onConfigMapsIn(ns),
        validations: [{ expression: 'size(object.metadata.name) <= 3' }],
      },
      { validationActions: ['Audit'] },
    );
    const res = await apiRequest(cp, 'POST', CONFIGMAPS(ns), { body: configMap('long-name') });
    assert.equal(res.status, 201, res.text);
    assert.equal(
      auditedAnnotations(res)[VALIDATION_FAILURE],
      `[{"message":"failed expression: size(object.metadata.name) \\u003c= 3","policy":"${policy}","binding":"${policy}-binding","expressionIndex":0,"validationActions":["Audit"]}]`,
    );
  });

  it('oldObject: an UPDATE may not lower spec.replicas; oldObject is null on CREATE', async () => {
    const ns = await namespace();
    await bind(`no-scale-down-${ns}`, {
      matchConstraints: {
        resourceRules: [
          { operations: ['CREATE', 'UPDATE'], apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'] },
        ],
        namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } },
      },
      validations: [
        {
          expression:
            "request.operation == 'CREATE' ? oldObject == null : object.spec.replicas >= oldObject.spec.replicas",
          messageExpression:
            "request.operation == 'CREATE' ? 'oldObject on create' : 'replicas may not go down (from ' + string(oldObject.spec.replicas) + ' to ' + string(object.spec.replicas) + ')'",
        },
      ],
    });
    const path = `/apis/apps/v1/namespaces/${ns}/deployments`;
    const created = await apiRequest(cp, 'POST', path, {
      body: {
        metadata: { name: 'web' },
        spec: {
          replicas: 3,
          selector: { matchLabels: { app: 'web' } },
          template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
        },
      },
    });
    assert.equal(created.status, 201, created.text);
    const scale = (replicas: number) =>
      apiRequest(cp, 'PATCH', `${path}/web`, {
        body: { spec: { replicas } },
        contentType: 'application/merge-patch+json',
      });
    const down = await scale(2);
    assert.equal(down.status, 422, down.text);
    assert.equal(down.body.reason, 'Invalid');
    assert.equal(
      down.body.message,
      `deployments.apps "web" is forbidden: ValidatingAdmissionPolicy 'no-scale-down-${ns}' with binding 'no-scale-down-${ns}-binding' denied request: replicas may not go down (from 3 to 2)`,
    );
    const up = await scale(5);
    assert.equal(up.status, 200, up.text);
    assert.equal(up.body.spec.replicas, 5);
    const same = await scale(5);
    assert.equal(same.status, 200, same.text);
    const stored = await apiRequest(cp, 'GET', `${path}/web`);
    assert.equal(stored.body.spec.replicas, 5);
  });

  it('oldObject: an immutable field may be set on CREATE but never changed by an UPDATE', async () => {
    const ns = await namespace();
    await bind(`immutable-${ns}`, {
      matchConstraints: onConfigMapsIn(ns),
      validations: [
        {
          expression: "oldObject == null || object.data.?owner.orValue('') == oldObject.data.?owner.orValue('')",
          message: 'data.owner is immutable',
        },
      ],
    });
    const created = await apiRequest(cp, 'POST', CONFIGMAPS(ns), { body: configMap('owned', { owner: 'jane' }) });
    assert.equal(created.status, 201, created.text);
    const changed = { ...created.body, data: { owner: 'bob' } };
    const denied = await apiRequest(cp, 'PUT', `${CONFIGMAPS(ns)}/owned`, { body: changed });
    assert.equal(denied.status, 422, denied.text);
    assert.match(denied.body.message, /denied request: data\.owner is immutable$/);
    const other = { ...created.body, data: { owner: 'jane', color: 'green' } };
    const ok = await apiRequest(cp, 'PUT', `${CONFIGMAPS(ns)}/owned`, { body: other });
    assert.equal(ok.status, 200, ok.text);
    const removed = await apiRequest(cp, 'PATCH', `${CONFIGMAPS(ns)}/owned`, {
      body: [{ op: 'remove', path: '/data/owner' }],
      contentType: 'application/json-patch+json',
    });
    assert.equal(removed.status, 422, removed.text);
    assert.equal((await apiRequest(cp, 'GET', `${CONFIGMAPS(ns)}/owned`)).body.data.owner, 'jane');
  });

  it('sees the namespace as namespaceObject, and the request', async () => {
    const ns = await namespace({ env: 'prod' });
    await bind(`ns-${ns}`, {
      matchConstraints: onConfigMapsIn(ns),
      validations: [
        {
          expression: "namespaceObject.metadata.labels.env != 'prod' || object.metadata.name.startsWith('prod-')",
          messageExpression:
            "'in ' + namespaceObject.metadata.name + ' names start with prod- (' + request.operation + ' by ' + request.userInfo.username + ')'",
        },
      ],
    });
    const denied = await apiRequest(cp, 'POST', CONFIGMAPS(ns), { body: configMap('dev-x') });
    assert.equal(denied.status, 422, denied.text);
    assert.match(
      denied.body.message,
      new RegExp(`denied request: in ${ns} names start with prod- \\(CREATE by kubernetes-admin\\)$`),
    );
    assert.equal((await apiRequest(cp, 'POST', CONFIGMAPS(ns), { body: configMap('prod-x') })).status, 201);
  });

  it('failurePolicy: an evaluation error denies under Fail and is ignored under Ignore', async () => {
    const ns = await namespace();
    const spec = (failurePolicy: string) => ({
      failurePolicy,
      matchConstraints: onConfigMapsIn(ns),
      validations: [{ expression: "object.data.mode == 'on'" }],
    });
    await bind(`fail-${ns}`, spec('Fail'));
    const denied = await apiRequest(cp, 'POST', CONFIGMAPS(ns), { body: { metadata: { name: 'nodata' } } });
    assert.equal(denied.status, 422, denied.text);
    assert.match(
      denied.body.message,
      /denied request: expression 'object\.data\.mode == 'on'' resulted in error: no such key: data$/,
    );
    const policy = await apiRequest(cp, 'GET', `${POLICIES}/fail-${ns}`);
    policy.body.spec.failurePolicy = 'Ignore';
    assert.equal((await apiRequest(cp, 'PUT', `${POLICIES}/fail-${ns}`, { body: policy.body })).status, 200);
    await eventually(async () => {
      const res = await apiRequest(cp, 'POST', CONFIGMAPS(ns), { body: { metadata: { name: `n${Date.now()}` } } });
      assert.equal(res.status, 201, res.text);
    });
  });

  it('matchConditions and objectSelector narrow what a policy sees', async () => {
    const ns = await namespace();
    await bind(
      `mc-${ns}`,
      {
        matchConstraints: onConfigMapsIn(ns),
        matchConditions: [{ name: 'not-exempt', expression: "!('exempt' in object.metadata.?labels.orValue({}))" }],
        validations: [{ expression: 'false', message: 'no' }],
      },
      { matchResources: { objectSelector: { matchExpressions: [{ key: 'skip', operator: 'DoesNotExist' }] } } },
    );
    assert.equal((await apiRequest(cp, 'POST', CONFIGMAPS(ns), { body: configMap('a') })).status, 422);
    assert.equal(
      (await apiRequest(cp, 'POST', CONFIGMAPS(ns), { body: configMap('b', {}, { exempt: 'y' }) })).status,
      201,
    );
    assert.equal(
      (await apiRequest(cp, 'POST', CONFIGMAPS(ns), { body: configMap('c', {}, { skip: 'y' }) })).status,
      201,
    );
  });
  it('CONNECT: a policy on pods/exec sees the PodExecOptions as object; denials are audited as any other', async () => {
    const ns = await namespace();
    const pod = await apiRequest(cp, 'POST', `/api/v1/namespaces/${ns}/pods`, {
      body: { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } },
    });
    assert.equal(pod.status, 201, pod.text);
    const connects = {
      resourceRules: [
        { operations: ['CONNECT'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods/exec', 'pods/attach'] },
      ],
      namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } },
    };
    const policy = `exec-${ns}`;
    await bind(
      policy,
      {
        matchConstraints: connects,
        validations: [
          {
            expression: "object.kind == 'PodExecOptions' && !(object.command[0] in ['sh', 'bash'])",
            messageExpression:
              "'no shells in ' + request.name + ' (' + request.operation + ' ' + request.subResource + ')'",
          },
          { expression: 'oldObject == null && request.options == null && !request.dryRun' },
        ],
      },
      { validationActions: ['Deny', 'Audit'] },
    );
    // The options have no metadata: an objectSelector never matches them.
    await bind(
      `selected-${ns}`,
      { matchConstraints: connects, validations: [{ expression: 'false', message: 'objectSelector matched' }] },
      { matchResources: { objectSelector: { matchExpressions: [{ key: 'x', operator: 'DoesNotExist' }] } } },
    );
    const path = `/api/v1/namespaces/${ns}/pods/p`;
    const denied = await apiRequest(cp, 'POST', `${path}/exec?command=sh&stdin=true&stdout=true&tty=true`);
    assert.equal(denied.status, 422, denied.text);
    assert.equal(denied.body.reason, 'Invalid');
    const message = `ValidatingAdmissionPolicy '${policy}' with binding '${policy}-binding' denied request: no shells in p (CONNECT exec)`;
    assert.equal(denied.body.message, `pods "p" is forbidden: ${message}`);
    assert.deepEqual(JSON.parse(auditedAnnotations(denied)[VALIDATION_FAILURE] ?? 'null'), [
      {
        message: 'no shells in p (CONNECT exec)',
        policy,
        binding: `${policy}-binding`,
        expressionIndex: 0,
        validationActions: ['Deny', 'Audit'],
      },
    ]);
    const attach = await apiRequest(cp, 'POST', `${path}/attach?stdout=true`);
    assert.equal(attach.status, 422, attach.text);
    // Admitted: on to the pod, which has no node.
    const allowed = await apiRequest(cp, 'POST', `${path}/exec?command=ls&stdout=true`);
    assert.deepEqual([allowed.status, allowed.body.message], [400, 'pod p does not have a host assigned']);
    assert.equal(auditedAnnotations(allowed)[VALIDATION_FAILURE], undefined);
  });

  it('applies to writes of webhook configurations; never to those of policies and bindings', async () => {
    const name = `vap-guards-${++seq}`;
    await bind(name, {
      matchConstraints: {
        resourceRules: [
          {
            operations: ['CREATE'],
            apiGroups: ['admissionregistration.k8s.io'],
            apiVersions: ['v1'],
            resources: [
              'validatingwebhookconfigurations',
              'mutatingwebhookconfigurations',
              'validatingadmissionpolicies',
              'validatingadmissionpolicybindings',
            ],
          },
        ],
      },
      validations: [{ expression: `!object.metadata.name.startsWith('${name}-no')`, message: 'not that name' }],
    });
    const webhook = {
      name: 'guarded.example.com',
      clientConfig: { url: 'https://127.0.0.1:1/hook' },
      rules: [{ operations: ['CREATE'], apiGroups: ['example.com'], apiVersions: ['v1'], resources: ['nothing'] }],
      sideEffects: 'None',
      admissionReviewVersions: ['v1'],
    };
    for (const collection of ['validatingwebhookconfigurations', 'mutatingwebhookconfigurations']) {
      const denied = await apiRequest(cp, 'POST', `${GROUP}/${collection}`, {
        body: { metadata: { name: `${name}-no` }, webhooks: [webhook] },
      });
      assert.equal(denied.status, 422, denied.text);
      assert.match(
        denied.body.message,
        new RegExp(`ValidatingAdmissionPolicy '${name}' with binding '${name}-binding' denied request: not that name$`),
      );
      const allowed = await apiRequest(cp, 'POST', `${GROUP}/${collection}`, {
        body: { metadata: { name: `${name}-yes` }, webhooks: [webhook] },
      });
      assert.equal(allowed.status, 201, allowed.text);
      await apiRequest(cp, 'DELETE', `${GROUP}/${collection}/${name}-yes`);
    }
    const policy = await apiRequest(cp, 'POST', POLICIES, {
      body: {
        metadata: { name: `${name}-no-policy` },
        spec: { matchConstraints: onConfigMapsIn('none'), validations: [{ expression: 'true' }] },
      },
    });
    assert.equal(policy.status, 201, policy.text);
    const binding = await apiRequest(cp, 'POST', BINDINGS, {
      body: { metadata: { name: `${name}-no-binding` }, spec: { policyName: 'x', validationActions: ['Deny'] } },
    });
    assert.equal(binding.status, 201, binding.text);
  });

  it('an unknown paramKind denies every matching request, whatever the binding says; Ignore skips the policy', async () => {
    const ns = await namespace();
    const cases = [
      { apiVersion: 'example.com/v1', kind: 'Nope', printed: 'example.com/v1, Kind=Nope' },
      { apiVersion: 'v1', kind: 'Nope', printed: '/v1, Kind=Nope' },
    ];
    for (const [i, { apiVersion, kind, printed }] of cases.entries()) {
      const name = `unk${i}-${ns}`;
      await bind(name, {
        paramKind: { apiVersion, kind },
        matchConstraints: onConfigMapsIn(ns),
        validations: [{ expression: 'true' }],
      });
      const withRef = await apiRequest(cp, 'POST', BINDINGS, {
        body: {
          metadata: { name: `${name}-ref` },
          spec: {
            policyName: name,
            validationActions: ['Deny'],
            paramRef: { name: 'p', namespace: ns, parameterNotFoundAction: 'Allow' },
          },
        },
      });
      assert.equal(withRef.status, 201, withRef.text);
      await waitCached(BINDINGS, `${name}-ref`);
      const denied = await apiRequest(cp, 'POST', CONFIGMAPS(ns), { body: configMap(`c${i}`) });
      assert.equal(denied.status, 422, denied.text);
      assert.equal(
        denied.body.message,
        `configmaps "c${i}" is forbidden: ValidatingAdmissionPolicy '${name}' denied request: failed to configure policy: failed to find resource referenced by paramKind: '${printed}'`,
      );
      await apiRequest(cp, 'DELETE', `${POLICIES}/${name}`);
      await eventually(async () => {
        const res = await apiRequest(cp, 'POST', CONFIGMAPS(ns), { body: configMap(`d${i}`) });
        assert.equal(res.status, 201, res.text);
      });
    }
    // Under Ignore the whole policy is skipped: its validations are not evaluated.
    await bind(`unk-ignore-${ns}`, {
      failurePolicy: 'Ignore',
      paramKind: { apiVersion: 'example.com/v1', kind: 'Nope' },
      matchConstraints: onConfigMapsIn(ns),
      validations: [{ expression: 'false', message: 'never evaluated' }],
    });
    assert.equal((await apiRequest(cp, 'POST', CONFIGMAPS(ns), { body: configMap('e') })).status, 201);
  });
});
