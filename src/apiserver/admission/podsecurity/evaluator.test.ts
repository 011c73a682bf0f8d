/** Which checks a level and version run, in which order, and how results read (upstream's policy/registry). */
import { describe, it } from 'node:test';
import assert from '../../../testing/assert.js';
import type { Check, Obj } from './checks/check.js';
import { aggregate, Evaluator, forbiddenDetail, forbiddenReason } from './evaluator.js';
import { LATEST, type LevelVersion, minorVersion } from './levels.js';

const evaluator = new Evaluator();
const at = (level: LevelVersion['level'], minor?: number): LevelVersion => ({
  level,
  version: minor === undefined ? LATEST : minorVersion(minor),
});
const pod = (spec: Obj, metadata: Obj = {}) => ({ metadata, spec });
const reasons = (lv: LevelVersion, p: ReturnType<typeof pod>) => aggregate(evaluator.evaluate(lv, p)).reasons;

/** The restricted pod of upstream's fixtures (test/testdata/restricted/…/pass/base.yaml). */
const BASE = pod({
  securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
  initContainers: [
    {
      name: 'initcontainer1',
      image: 'registry.k8s.io/pause',
      securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
    },
  ],
  containers: [
    {
      name: 'container1',
      image: 'registry.k8s.io/pause',
      securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
    },
  ],
});

describe('Evaluator', () => {
  it('the newest revision is v1.32; newer versions and latest evaluate as it', () => {
    assert.equal(evaluator.maxMinor, 32);
    const sysctl = pod({ securityContext: { sysctls: [{ name: 'net.ipv4.tcp_rmem', value: '1' }] } });
    assert.deepEqual(reasons(at('baseline', 31), sysctl), ['forbidden sysctls']);
    for (const lv of [at('baseline', 32), at('baseline', 33), at('baseline', 99), at('baseline')]) {
      assert.deepEqual(reasons(lv, sysctl), []);
    }
  });

  it('privileged runs nothing', () => {
    assert.deepEqual(evaluator.evaluate(at('privileged'), pod({ hostNetwork: true })), []);
  });

  it('the restricted fixture passes restricted at every version', () => {
    for (let minor = 0; minor <= 33; minor++)
      assert.deepEqual(reasons(at('restricted', minor), BASE), [], `v1.${minor}`);
    assert.deepEqual(reasons(at('restricted'), BASE), []);
  });

  it('reports baseline checks by ID, then restricted ones by ID', () => {
    const bad = pod({
      hostPID: true,
      securityContext: { sysctls: [{ name: 'kernel.msgmax', value: '1' }], seLinuxOptions: { user: 'u' } },
      volumes: [{ name: 'nfs', nfs: { server: 's', path: '/' } }],
      containers: [
        {
          name: 'c',
          ports: [{ containerPort: 80, hostPort: 80 }],
          securityContext: {
            privileged: true,
            procMount: 'Unmasked',
            runAsUser: 0,
            capabilities: { add: ['SYS_ADMIN'] },
            appArmorProfile: { type: 'Unconfined' },
            windowsOptions: { hostProcess: true },
          },
        },
      ],
    });
    assert.deepEqual(reasons(at('baseline'), bad), [
      'forbidden AppArmor profile',
      'non-default capabilities',
      'host namespaces',
      'hostPort',
      'privileged',
      'procMount',
      'seLinuxOptions',
      'forbidden sysctls',
      'hostProcess',
    ]);
    assert.deepEqual(reasons(at('restricted'), bad), [
      'forbidden AppArmor profile',
      'host namespaces',
      'hostPort',
      'privileged',
      'procMount',
      'seLinuxOptions',
      'forbidden sysctls',
      'hostProcess',
      'allowPrivilegeEscalation != false',
      'unrestricted capabilities',
      'restricted volume types',
      'runAsNonRoot != true',
      'runAsUser=0',
      'seccompProfile',
    ]);
  });

  it('restricted replaces baseline checks only from the version its replacement starts', () => {
    const capable = pod({
      securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
      containers: [
        {
          name: 'c',
          securityContext: { allowPrivilegeEscalation: false, capabilities: { add: ['SYS_ADMIN'], drop: ['ALL'] } },
        },
      ],
    });
    assert.deepEqual(reasons(at('restricted', 21), capable), ['non-default capabilities']);
    assert.deepEqual(reasons(at('restricted', 22), capable), ['unrestricted capabilities']);
    const annotated = pod(
      {
        securityContext: { runAsNonRoot: true },
        containers: [{ name: 'c', securityContext: { allowPrivilegeEscalation: false } }],
      },
      { annotations: { 'seccomp.security.alpha.kubernetes.io/pod': 'unconfined' } },
    );
    assert.deepEqual(reasons(at('restricted', 18), annotated), ['seccompProfile']);
    assert.equal(
      forbiddenDetail(aggregate(evaluator.evaluate(at('restricted', 18), annotated))),
      'seccompProfile (forbidden annotation seccomp.security.alpha.kubernetes.io/pod="unconfined")',
    );
    // v1.19: the annotation is no longer looked at; a profile is required instead.
    assert.equal(
      forbiddenDetail(aggregate(evaluator.evaluate(at('restricted', 19), annotated))),
      'seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")',
    );
    // hostPath volumes are reported by restrictedVolumes under restricted, by hostPathVolumes under baseline.
    const hostPath = pod({ ...BASE.spec, volumes: [{ name: 'h', hostPath: { path: '/' } }] });
    assert.deepEqual(reasons(at('baseline'), hostPath), ['hostPath volumes']);
    assert.deepEqual(reasons(at('restricted'), hostPath), ['restricted volume types']);
  });

  it('restricted refuses whatever baseline refuses, at every version (as upstream fixtures require)', () => {
    const c = (securityContext: Obj) => ({
      ...BASE.spec,
      containers: [
        {
          name: 'c',
          image: 'i',
          securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] }, ...securityContext },
        },
      ],
    });
    const baselineFailures = [
      pod({ ...BASE.spec, hostNetwork: true }),
      pod({ ...BASE.spec, volumes: [{ name: 'h', hostPath: { path: '/' } }] }),
      pod(c({ privileged: true })),
      pod(c({ procMount: 'Unmasked' })),
      pod(c({ capabilities: { add: ['SYS_ADMIN'], drop: ['ALL'] } })),
      pod(c({ seLinuxOptions: { type: 'spc_t' } })),
      pod(c({ appArmorProfile: { type: 'Unconfined' } })),
      pod(c({ windowsOptions: { hostProcess: true } })),
      pod(c({ seccompProfile: { type: 'Unconfined' } })),
      pod({
        ...c({}),
        securityContext: { ...(BASE.spec.securityContext as Obj), sysctls: [{ name: 'kernel.msgmax', value: '1' }] },
      }),
      pod(BASE.spec, { annotations: { 'seccomp.security.alpha.kubernetes.io/pod': 'unconfined' } }),
    ];
    for (const p of baselineFailures) {
      let failedSomewhere = false;
      for (let minor = 0; minor <= 33; minor++) {
        const baseline = reasons(at('baseline', minor), p);
        if (baseline.length > 0) failedSomewhere = true;
        if (baseline.length > 0)
          assert.notDeepEqual(reasons(at('restricted', minor), p), [], `v1.${minor}: ${baseline}`);
      }
      assert.ok(failedSomewhere, JSON.stringify(p));
    }
  });

  it('joins reasons, with details in parentheses where there are some', () => {
    const r = aggregate([
      { allowed: false, reason: 'a', detail: 'x' },
      { allowed: true },
      { allowed: false, reason: 'b', detail: '' },
      { allowed: false },
    ]);
    assert.equal(r.allowed, false);
    assert.equal(forbiddenReason(r), 'a, b, unknown forbidden reason');
    assert.equal(forbiddenDetail(r), 'a (x), b, unknown forbidden reason');
  });

  it('refuses check lists upstream refuses', () => {
    const fn = () => ({ allowed: true });
    const v = (minor: number) => ({ minimumVersion: minorVersion(minor), check: fn });
    const bad: Array<[Check[], string]> = [
      [
        [
          { id: 'a', level: 'baseline', versions: [v(0)] },
          { id: 'a', level: 'baseline', versions: [v(1)] },
        ],
        'multiple checks registered for ID a',
      ],
      [[{ id: 'a', level: 'baseline', versions: [] }], 'check a: empty'],
      [[{ id: 'a', level: 'baseline', versions: [v(2), v(2)] }], 'check a: versions must be strictly increasing'],
      [
        [{ id: 'a', level: 'baseline', versions: [{ ...v(0), overrides: ['b'] }] }],
        'check a: only restricted checks may set overrides',
      ],
      [
        [
          { id: 'a', level: 'restricted', versions: [{ ...v(0), overrides: ['b'] }] },
          { id: 'b', level: 'restricted', versions: [v(0)] },
        ],
        'check a: overrides restricted check b',
      ],
    ];
    for (const [checks, message] of bad) assert.throws(() => new Evaluator(checks), { message });
  });
});
