import { describe, it } from 'node:test';
import { path } from '../../../api/field-errors.js';
import assert from '../../../testing/assert.js';
import { nameWarnings, podSpecWarnings, templateWarnings } from './pod-warnings.js';

describe('pod warnings', () => {
  it('words each warning as upstream, at the pod or template path', () => {
    const spec = {
      nodeSelector: { 'beta.kubernetes.io/arch': 'amd64', 'kubernetes.io/os': 'linux' },
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [
              { matchExpressions: [{ key: 'failure-domain.beta.kubernetes.io/zone', operator: 'Exists' }] },
            ],
          },
        },
      },
      topologySpreadConstraints: [
        { topologyKey: 'kubernetes.io/hostname', maxSkew: 1, whenUnsatisfiable: 'DoNotSchedule' },
      ],
      volumes: [{ name: 'repo', gitRepo: { repository: 'x' } }],
      imagePullSecrets: [{ name: 'a' }, { name: 'a' }, { name: '' }],
      terminationGracePeriodSeconds: -5,
      containers: [
        {
          name: 'c',
          image: 'x',
          resources: { requests: { memory: '100m' } },
          env: [
            { name: 'A', value: '1' },
            { name: 'A', value: '2' },
          ],
          ports: [
            { containerPort: 80, protocol: 'TCP' },
            { containerPort: 80, protocol: 'TCP' },
          ],
        },
      ],
    };
    const meta = { annotations: { 'scheduler.alpha.kubernetes.io/critical-pod': '' } };
    assert.deepEqual(podSpecWarnings(null, spec, meta), [
      'spec.nodeSelector[beta.kubernetes.io/arch]: deprecated since v1.14; use "kubernetes.io/arch" instead',
      'spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].key: failure-domain.beta.kubernetes.io/zone is deprecated since v1.17; use "topology.kubernetes.io/zone" instead',
      'spec.topologySpreadConstraints[0].labelSelector: a null labelSelector results in matching no pod',
      'metadata.annotations[scheduler.alpha.kubernetes.io/critical-pod]: non-functional in v1.16+; use the "priorityClassName" field instead',
      'spec.volumes[0].gitRepo: deprecated in v1.11',
      'spec.imagePullSecrets[1].name: duplicate name "a"',
      'spec.imagePullSecrets[2].name: invalid empty name ""',
      'spec.containers[0].resources.requests[memory]: fractional byte value "100m" is invalid, must be an integer',
      'spec.containers[0].env[1]: hides previous definition of "A", which may be dropped when using apply',
      'spec.containers[0].ports[1]: duplicate port definition with spec.containers[0].ports[0]',
      'spec.terminationGracePeriodSeconds: must be >= 0; negative values are invalid and will be treated as 1',
    ]);
    assert.deepEqual(
      templateWarnings(
        { spec: { nodeSelector: { 'beta.kubernetes.io/os': 'linux' }, containers: [] } },
        path('spec', 'jobTemplate', 'spec', 'template'),
      ),
      [
        'spec.jobTemplate.spec.template.spec.nodeSelector[beta.kubernetes.io/os]: deprecated since v1.14; use "kubernetes.io/os" instead',
      ],
    );
    // An env var that refers to its earlier value is fine.
    assert.deepEqual(
      podSpecWarnings(
        null,
        {
          containers: [
            {
              name: 'c',
              env: [
                { name: 'P', value: '/a' },
                { name: 'P', value: '$(P):/b' },
              ],
            },
          ],
        },
        {},
      ),
      [],
    );
  });

  it('warns about seccomp and (in templates) AppArmor annotations without their fields', () => {
    const meta = {
      annotations: {
        'seccomp.security.alpha.kubernetes.io/pod': 'runtime/default',
        'container.seccomp.security.alpha.kubernetes.io/c': 'runtime/default',
        'container.apparmor.security.beta.kubernetes.io/c': 'runtime/default',
      },
    };
    const spec = { containers: [{ name: 'c', image: 'x' }] };
    const fixed = 'non-functional in v1.27+; use the "seccompProfile" field instead';
    assert.deepEqual(podSpecWarnings(null, spec, meta), [
      `metadata.annotations[seccomp.security.alpha.kubernetes.io/pod]: ${fixed}`,
      `metadata.annotations[container.seccomp.security.alpha.kubernetes.io/c]: ${fixed}`,
    ]);
    assert.deepEqual(templateWarnings({ metadata: meta, spec }), [
      `spec.template.metadata.annotations[seccomp.security.alpha.kubernetes.io/pod]: ${fixed}`,
      `spec.template.metadata.annotations[container.seccomp.security.alpha.kubernetes.io/c]: ${fixed}`,
      'spec.template.metadata.annotations[container.apparmor.security.beta.kubernetes.io/c]: deprecated since v1.30; use the "appArmorProfile" field instead',
    ]);
  });

  it('warns about a name that is not a DNS label', () => {
    assert.deepEqual(nameWarnings('x.y'), [
      'metadata.name: this is used in Pod names and hostnames, which can result in surprising behavior; a DNS label is recommended: [must not contain dots]',
    ]);
    assert.deepEqual(nameWarnings('ok'), []);
  });
});
