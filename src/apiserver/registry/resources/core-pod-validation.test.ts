import { describe, it } from 'node:test';
import assert from '../../../testing/assert.js';
import type { KubeObject } from '../object.js';
import { defaultPod } from './core-pod-defaults.js';
import { validatePodCreate, validatePodUpdate } from './core-pod-validation.js';

function pod(spec: Record<string, unknown>): KubeObject {
  const p: KubeObject = { metadata: { name: 'p', namespace: 'default' }, spec };
  defaultPod(p);
  return p;
}

const messages = (p: KubeObject) => validatePodCreate(p).map((e) => e.message);

describe('pod validation', () => {
  it('accepts a minimal defaulted pod', () => {
    assert.deepEqual(messages(pod({ containers: [{ name: 'web', image: 'nginx' }] })), []);
  });

  it('takes DNS search domains with underscores and a lone dot (RelaxedDNSSearchValidation, on in v1.33)', () => {
    const containers = [{ name: 'web', image: 'nginx' }];
    const withSearches = (searches: string[]) => pod({ containers, dnsConfig: { searches } });
    assert.deepEqual(messages(withSearches(['_sip._tcp.example.com', 'svc.cluster.local.', '.'])), []);
    assert.deepEqual(messages(withSearches(['Bad_.example'])), [
      'spec.dnsConfig.searches[0]: Invalid value: "Bad_.example": a lowercase RFC 1123 subdomain must consist of ' +
        "lower case alphanumeric characters, '_', '-' or '.', and must start and end with an alphanumeric " +
        "character (e.g. 'example.com', regex used for validation is " +
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    ]);
  });

  it('requires containers, names and images', () => {
    assert.deepEqual(messages(pod({})), ['spec.containers: Required value']);
    assert.deepEqual(messages(pod({ containers: [{ image: 'nginx' }] })), ['spec.containers[0].name: Required value']);
    assert.deepEqual(messages(pod({ containers: [{ name: 'a' }] })), ['spec.containers[0].image: Required value']);
  });

  it('refuses bad and duplicate container names', () => {
    const p = pod({
      containers: [
        { name: 'a', image: 'x' },
        { name: 'a', image: 'x' },
      ],
      initContainers: [{ name: 'a', image: 'x' }],
    });
    assert.deepEqual(messages(p), [
      'spec.containers[1].name: Duplicate value: "a"',
      'spec.initContainers[0].name: Duplicate value: "a"',
    ]);
    assert.match(
      messages(pod({ containers: [{ name: 'Web', image: 'x' }] }))[0] ?? '',
      /^spec\.containers\[0\]\.name: Invalid value: "Web": a lowercase RFC 1123 label must consist of/,
    );
  });

  it('lists supported values for restartPolicy, dnsPolicy, imagePullPolicy and protocols', () => {
    const p = pod({
      restartPolicy: 'Sometimes',
      dnsPolicy: 'Public',
      containers: [
        { name: 'a', image: 'x', imagePullPolicy: 'Maybe', ports: [{ containerPort: 80, protocol: 'HTTP' }] },
      ],
    });
    assert.deepEqual(messages(p), [
      'spec.containers[0].ports[0].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"',
      'spec.containers[0].imagePullPolicy: Unsupported value: "Maybe": supported values: "Always", "IfNotPresent", "Never"',
      'spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"',
      'spec.dnsPolicy: Unsupported value: "Public": supported values: "ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"',
    ]);
  });

  it('checks ports, env names and volume references', () => {
    const p = pod({
      volumes: [
        { name: 'Data', emptyDir: {} },
        { name: 'cfg', configMap: {} },
      ],
      containers: [
        {
          name: 'a',
          image: 'x',
          ports: [{ containerPort: 70000 }, { containerPort: 80, name: 'web_port' }],
          env: [{ name: 'A=B', value: '1' }, { value: 'x' }],
          volumeMounts: [{ name: 'missing', mountPath: '/m' }],
        },
      ],
    });
    assert.deepEqual(messages(p), [
      "spec.volumes[0].name: Invalid value: \"Data\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
      'spec.volumes[1].configMap.name: Required value',
      'spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive',
      'spec.containers[0].ports[1].name: Invalid value: "web_port": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)',
      'spec.containers[0].env[0].name: Invalid value: "A=B": a valid environment variable name must consist only of printable ASCII characters other than \'=\'',
      'spec.containers[0].env[1].name: Required value',
      'spec.containers[0].volumeMounts[0].name: Not found: "missing"',
    ]);
  });

  it('refuses requests above limits', () => {
    const p = pod({
      containers: [{ name: 'a', image: 'x', resources: { requests: { cpu: '2' }, limits: { cpu: '500m' } } }],
    });
    assert.deepEqual(messages(p), [
      'spec.containers[0].resources.requests: Invalid value: "2": must be less than or equal to cpu limit of 500m',
    ]);
  });

  it('refuses ephemeral containers and a node name with scheduling gates on create', () => {
    const p = pod({
      nodeName: 'n1',
      schedulingGates: [{ name: 'example.com/wait' }],
      containers: [{ name: 'a', image: 'x' }],
      ephemeralContainers: [{ name: 'debug', image: 'busybox' }],
    });
    assert.deepEqual(messages(p), [
      'spec.ephemeralContainers: Forbidden: cannot be set on create',
      'spec.nodeName: Forbidden: cannot be set until all schedulingGates have been cleared',
    ]);
  });
});

describe('pod update validation', () => {
  const old = pod({
    containers: [{ name: 'a', image: 'nginx:1.25' }],
    tolerations: [{ key: 'k', operator: 'Exists' }],
  });

  it('lets images change and tolerations be added', () => {
    const next = structuredClone(old);
    (next.spec as { containers: Array<{ image: string }> }).containers[0]!.image = 'nginx:1.26';
    (next.spec as { tolerations: unknown[] }).tolerations.push({ key: 'other', operator: 'Exists' });
    assert.deepEqual(validatePodUpdate(next, old), []);
  });

  it("refuses other spec changes with upstream's message", () => {
    const next = structuredClone(old);
    (next.spec as Record<string, unknown>).restartPolicy = 'Never';
    const errs = validatePodUpdate(next, old);
    assert.equal(errs.length, 1);
    const message = errs[0]?.message ?? '';
    assert.ok(
      message.startsWith(
        'spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)\n',
      ),
      message,
    );
    assert.match(message, /- spec\.restartPolicy: "Always"\n\+ spec\.restartPolicy: "Never"/);
  });

  it('refuses adding containers and removing tolerations', () => {
    const more = structuredClone(old);
    (more.spec as { containers: unknown[] }).containers.push({ name: 'b', image: 'x' });
    defaultPod(more);
    assert.deepEqual(
      validatePodUpdate(more, old).map((e) => e.message),
      ['spec.containers: Forbidden: pod updates may not add or remove containers'],
    );
    const fewer = structuredClone(old);
    (fewer.spec as Record<string, unknown>).tolerations = [];
    assert.deepEqual(
      validatePodUpdate(fewer, old).map((e) => e.message),
      ['spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds'],
    );
  });
});
