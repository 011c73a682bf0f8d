/**
 * The baseline checks against upstream's golden cases (pod-security-admission's policy/check_*_test.go, v1.33):
 * the reason and detail each check gives, and the versions each revision applies from.
 */
import { describe, it } from 'node:test';
import { expectAllowed, expectForbidden } from '../../../../testing/pod-security.js';
import { runCheck } from '../evaluator.js';
import type { Obj } from './check.js';

const LATEST = 32;

function spec(s: Obj, metadata: Obj = {}) {
  return { metadata, spec: s };
}

const sc = (name: string, securityContext: Obj) => ({ name, securityContext });

describe('privileged', () => {
  it('names every privileged container, init and ephemeral ones included', () => {
    const pod = spec({
      initContainers: [sc('d', { privileged: true })],
      containers: [{ name: 'a' }, sc('b', {}), sc('c', { privileged: false }), sc('e', { privileged: true })],
    });
    expectForbidden(
      runCheck('privileged', 0, pod),
      'privileged',
      'containers "d", "e" must not set securityContext.privileged=true',
    );
    expectForbidden(
      runCheck('privileged', LATEST, spec({ ephemeralContainers: [sc('x', { privileged: true })] })),
      'privileged',
      'container "x" must not set securityContext.privileged=true',
    );
  });
});

describe('hostNamespaces, hostPathVolumes, hostPorts, windowsHostProcess', () => {
  it('host namespaces', () => {
    expectForbidden(
      runCheck('hostNamespaces', 0, spec({ hostNetwork: true, hostPID: true, hostIPC: true })),
      'host namespaces',
      'hostNetwork=true, hostPID=true, hostIPC=true',
    );
    expectAllowed(runCheck('hostNamespaces', 0, spec({ hostNetwork: false })));
  });

  it('hostPath volumes', () => {
    const pod = spec({
      volumes: [
        { name: 'a', hostPath: {} },
        { name: 'b', hostPath: { path: '/' } },
        { name: 'c', emptyDir: {} },
      ],
    });
    expectForbidden(runCheck('hostPathVolumes', 0, pod), 'hostPath volumes', 'volumes "a", "b"');
  });

  it('host ports, sorted as strings and deduplicated', () => {
    expectForbidden(
      runCheck(
        'hostPorts',
        0,
        spec({
          containers: [
            { name: 'a', ports: [{ hostPort: 0 }] },
            { name: 'b', ports: [{ hostPort: 0 }, { hostPort: 20 }] },
          ],
        }),
      ),
      'hostPort',
      'container "b" uses hostPort 20',
    );
    expectForbidden(
      runCheck(
        'hostPorts',
        0,
        spec({
          containers: [
            { name: 'a', ports: [{ hostPort: 0 }] },
            { name: 'b', ports: [{ hostPort: 0 }, { hostPort: 10 }, { hostPort: 20 }] },
            { name: 'c', ports: [{ hostPort: 0 }, { hostPort: 10 }, { hostPort: 30 }] },
          ],
        }),
      ),
      'hostPort',
      'containers "b", "c" use hostPorts 10, 20, 30',
    );
  });

  it('Windows HostProcess, on the pod and on containers', () => {
    const hp = { windowsOptions: { hostProcess: true } };
    const pod = spec({
      securityContext: hp,
      containers: [
        { name: 'a' },
        sc('b', {}),
        sc('c', { windowsOptions: {} }),
        sc('d', { windowsOptions: { hostProcess: false } }),
        sc('e', hp),
        sc('f', hp),
      ],
    });
    expectForbidden(
      runCheck('windowsHostProcess', 0, pod),
      'hostProcess',
      'pod and containers "e", "f" must not set securityContext.windowsOptions.hostProcess=true',
    );
  });
});

describe('capabilities_baseline and procMount', () => {
  it('capabilities beyond the default set', () => {
    const pod = spec({
      containers: [
        sc('a', { capabilities: { add: ['FOO', 'BAR'] } }),
        sc('b', { capabilities: { add: ['BAR', 'BAZ'] } }),
        sc('c', { capabilities: { add: ['CHOWN'] } }),
      ],
    });
    expectForbidden(
      runCheck('capabilities_baseline', 0, pod),
      'non-default capabilities',
      'containers "a", "b" must not include "BAR", "BAZ", "FOO" in securityContext.capabilities.add',
    );
  });

  it('/proc mount types other than Default', () => {
    const pod = spec({
      containers: [
        { name: 'a' },
        sc('b', {}),
        sc('c', { procMount: 'Default' }),
        sc('d', { procMount: 'Unmasked' }),
        sc('e', { procMount: 'other' }),
      ],
    });
    expectForbidden(
      runCheck('procMount', 0, pod),
      'procMount',
      'containers "d", "e" must not set securityContext.procMount to "Unmasked", "other"',
    );
  });
});

describe('seccompProfile_baseline', () => {
  it('v1.0–v1.18 check the alpha annotations', () => {
    const pod = spec(
      { containers: [{ name: 'a' }, { name: 'b' }, { name: 'c' }, { name: 'd' }] },
      {
        annotations: {
          'seccomp.security.alpha.kubernetes.io/pod': 'unconfined',
          'container.seccomp.security.alpha.kubernetes.io/a': 'unconfined',
          'container.seccomp.security.alpha.kubernetes.io/b': 'unknown',
          'container.seccomp.security.alpha.kubernetes.io/c': 'localhost/foo',
          'container.seccomp.security.alpha.kubernetes.io/d': 'docker/default',
        },
      },
    );
    expectForbidden(
      runCheck('seccompProfile_baseline', 18, pod),
      'seccompProfile',
      'forbidden annotations container.seccomp.security.alpha.kubernetes.io/a="unconfined", container.seccomp.security.alpha.kubernetes.io/b="unknown", seccomp.security.alpha.kubernetes.io/pod="unconfined"',
    );
    // From v1.19 the annotations are not looked at.
    expectAllowed(runCheck('seccompProfile_baseline', 19, pod));
  });

  it('v1.19+ check the fields: only RuntimeDefault and Localhost, none required', () => {
    const unconfined = { seccompProfile: { type: 'Unconfined' } };
    const pod = spec({
      securityContext: unconfined,
      containers: [
        { name: 'a' },
        sc('b', { seccompProfile: { type: 'RuntimeDefault' } }),
        sc('c', unconfined),
        sc('d', unconfined),
      ],
    });
    expectForbidden(
      runCheck('seccompProfile_baseline', 19, pod),
      'seccompProfile',
      'pod and containers "c", "d" must not set securityContext.seccompProfile.type to "Unconfined"',
    );
    expectAllowed(runCheck('seccompProfile_baseline', LATEST, spec({ containers: [{ name: 'a' }] })));
  });
});

describe('appArmorProfile', () => {
  it('allows the default and localhost profiles, by field or annotation', () => {
    expectAllowed(
      runCheck(
        'appArmorProfile',
        0,
        spec(
          {},
          { annotations: { 'container.apparmor.security.beta.kubernetes.io/test': 'runtime/default', env: 'prod' } },
        ),
      ),
    );
    expectAllowed(
      runCheck('appArmorProfile', 0, spec({ containers: [sc('foo', { appArmorProfile: { type: 'Localhost' } })] })),
    );
  });

  it('refuses Unconfined on the pod and on (init) containers', () => {
    expectForbidden(
      runCheck('appArmorProfile', 0, spec({ securityContext: { appArmorProfile: { type: 'Unconfined' } } })),
      'forbidden AppArmor profile',
      'pod must not set AppArmor profile type to "Unconfined"',
    );
    expectForbidden(
      runCheck(
        'appArmorProfile',
        0,
        spec({
          securityContext: { appArmorProfile: { type: 'RuntimeDefault' } },
          containers: [{ name: 'foo' }],
          initContainers: [sc('bar', { appArmorProfile: { type: 'Unconfined' } })],
        }),
      ),
      'forbidden AppArmor profile',
      'container "bar" must not set AppArmor profile type to "Unconfined"',
    );
  });

  it('refuses bad annotations, each quoted as upstream does', () => {
    const prefix = 'container.apparmor.security.beta.kubernetes.io/';
    const pod = spec(
      {},
      {
        annotations: {
          [prefix]: 'bogus',
          [`${prefix}a`]: '',
          [`${prefix}b`]: 'runtime/default',
          [`${prefix}c`]: 'localhost/',
          [`${prefix}d`]: 'localhost/foo',
          [`${prefix}e`]: 'unconfined',
          [`${prefix}f`]: 'unknown',
        },
      },
    );
    expectForbidden(
      runCheck('appArmorProfile', 0, pod),
      'forbidden AppArmor profiles',
      `annotations must not set AppArmor profile type to "${prefix}="bogus"", "${prefix}e="unconfined"", "${prefix}f="unknown""`,
    );
  });
});

describe('seLinuxOptions', () => {
  const containers = [
    sc('a', { seLinuxOptions: { type: 'container_t' } }),
    sc('b', { seLinuxOptions: { type: 'container_init_t' } }),
    sc('c', { seLinuxOptions: { type: 'container_kvm_t' } }),
    sc('d', { seLinuxOptions: { type: 'container_engine_t' } }),
    sc('e', { seLinuxOptions: { type: 'bar' } }),
    sc('f', { seLinuxOptions: { user: 'bar' } }),
    sc('g', { seLinuxOptions: { role: 'baz' } }),
  ];

  it('types, users and roles on the pod and containers', () => {
    expectForbidden(
      runCheck(
        'seLinuxOptions',
        31,
        spec({ securityContext: { seLinuxOptions: { type: 'foo', user: 'bar', role: 'baz' } }, containers }),
      ),
      'seLinuxOptions',
      'pod and containers "e", "f", "g" set forbidden securityContext.seLinuxOptions: types "bar", "foo"; user may not be set; role may not be set',
    );
    expectForbidden(
      runCheck('seLinuxOptions', 31, spec({ securityContext: { seLinuxOptions: {} }, containers })),
      'seLinuxOptions',
      'containers "e", "f", "g" set forbidden securityContext.seLinuxOptions: type "bar"; user may not be set; role may not be set',
    );
    expectForbidden(
      runCheck('seLinuxOptions', 31, spec({ securityContext: { seLinuxOptions: { role: 'bad' } } })),
      'seLinuxOptions',
      'pod set forbidden securityContext.seLinuxOptions: role may not be set',
    );
  });

  it('container_engine_t is allowed from v1.31 only', () => {
    const pod = spec({ containers: [sc('d', { seLinuxOptions: { type: 'container_engine_t' } })] });
    expectForbidden(
      runCheck('seLinuxOptions', 30, pod),
      'seLinuxOptions',
      'container "d" set forbidden securityContext.seLinuxOptions: type "container_engine_t"',
    );
    expectAllowed(runCheck('seLinuxOptions', 31, pod));
  });
});

describe('sysctls', () => {
  const pod = (...names: string[]) =>
    spec({ securityContext: { sysctls: names.map((name) => ({ name, value: '1' })) } });

  it('lists forbidden sysctls in order', () => {
    expectForbidden(runCheck('sysctls', 0, pod('a', 'b')), 'forbidden sysctls', 'a, b');
    expectAllowed(runCheck('sysctls', 0, pod('kernel.shm_rmid_forced', 'net.ipv4.ip_unprivileged_port_start')));
  });

  it('allows more sysctls as versions go on (v1.27, v1.29, v1.32)', () => {
    const steps: Array<[string, number]> = [
      ['net.ipv4.ip_local_reserved_ports', 27],
      ['net.ipv4.tcp_keepalive_time', 29],
      ['net.ipv4.tcp_fin_timeout', 29],
      ['net.ipv4.tcp_keepalive_intvl', 29],
      ['net.ipv4.tcp_keepalive_probes', 29],
      ['net.ipv4.tcp_rmem', 32],
      ['net.ipv4.tcp_wmem', 32],
    ];
    for (const [name, from] of steps) {
      expectForbidden(runCheck('sysctls', from - 1, pod(name)), 'forbidden sysctls', name);
      expectAllowed(runCheck('sysctls', from, pod(name)));
    }
  });
});
