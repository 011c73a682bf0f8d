/**
 * The restricted checks against upstream's golden cases (pod-security-admission's policy/check_*_test.go, v1.33),
 * including the versions they start at and the Windows exemption of v1.25.
 */
import { describe, it } from 'node:test';
import assert from '../../../../testing/assert.js';
import { expectAllowed, expectForbidden } from '../../../../testing/pod-security.js';
import { runCheck } from '../evaluator.js';
import type { Obj } from './check.js';

const LATEST = 32;

function spec(s: Obj) {
  return { metadata: {}, spec: s };
}

const sc = (name: string, securityContext: Obj) => ({ name, securityContext });
const windows = { os: { name: 'windows' } };

describe('allowPrivilegeEscalation', () => {
  const pod = spec({
    containers: [
      { name: 'a' },
      sc('b', {}),
      sc('c', { allowPrivilegeEscalation: true }),
      sc('d', { allowPrivilegeEscalation: false }),
    ],
  });

  it('requires false on every container, from v1.8', () => {
    assert.equal(runCheck('allowPrivilegeEscalation', 7, pod), undefined);
    for (const v of [8, 24, LATEST]) {
      expectForbidden(
        runCheck('allowPrivilegeEscalation', v, pod),
        'allowPrivilegeEscalation != false',
        'containers "a", "b", "c" must set securityContext.allowPrivilegeEscalation=false',
      );
    }
  });

  it('lets Windows pods through from v1.25', () => {
    const win = spec({ ...windows, containers: [{ name: 'a' }] });
    expectForbidden(
      runCheck('allowPrivilegeEscalation', 24, win),
      'allowPrivilegeEscalation != false',
      'container "a" must set securityContext.allowPrivilegeEscalation=false',
    );
    expectAllowed(runCheck('allowPrivilegeEscalation', 25, win));
    expectForbidden(
      runCheck('allowPrivilegeEscalation', 25, spec({ os: { name: 'linux' }, containers: [{ name: 'a' }] })),
      'allowPrivilegeEscalation != false',
      'container "a" must set securityContext.allowPrivilegeEscalation=false',
    );
  });
});

describe('capabilities_restricted', () => {
  const pod = spec({
    containers: [
      sc('a', { capabilities: { add: ['FOO', 'BAR'] } }),
      sc('b', { capabilities: { add: ['BAR', 'BAZ'] } }),
      sc('c', { capabilities: { add: ['NET_BIND_SERVICE', 'CHOWN'], drop: ['ALL', 'FOO'] } }),
    ],
  });

  it('must drop ALL and may add only NET_BIND_SERVICE, from v1.22', () => {
    assert.equal(runCheck('capabilities_restricted', 21, pod), undefined);
    expectForbidden(
      runCheck('capabilities_restricted', 22, pod),
      'unrestricted capabilities',
      'containers "a", "b" must set securityContext.capabilities.drop=["ALL"]; containers "a", "b", "c" must not include "BAR", "BAZ", "CHOWN", "FOO" in securityContext.capabilities.add',
    );
  });

  it('lets Windows pods through from v1.25, not Linux ones', () => {
    expectAllowed(runCheck('capabilities_restricted', 25, spec({ ...windows, containers: [{ name: 'a' }] })));
    expectForbidden(
      runCheck('capabilities_restricted', 25, spec({ os: { name: 'linux' }, containers: [{ name: 'a' }] })),
      'unrestricted capabilities',
      'container "a" must set securityContext.capabilities.drop=["ALL"]',
    );
  });
});

describe('runAsNonRoot', () => {
  it('requires true on the pod or every container', () => {
    expectForbidden(
      runCheck('runAsNonRoot', 0, spec({ containers: [{ name: 'a' }] })),
      'runAsNonRoot != true',
      'pod or container "a" must set securityContext.runAsNonRoot=true',
    );
    expectForbidden(
      runCheck('runAsNonRoot', 0, spec({ securityContext: { runAsNonRoot: false }, containers: [{ name: 'a' }] })),
      'runAsNonRoot != true',
      'pod must not set securityContext.runAsNonRoot=false',
    );
    expectForbidden(
      runCheck(
        'runAsNonRoot',
        0,
        spec({
          securityContext: { runAsNonRoot: true },
          containers: [
            { name: 'a' },
            sc('b', {}),
            sc('c', { runAsNonRoot: false }),
            sc('d', { runAsNonRoot: false }),
            sc('e', { runAsNonRoot: true }),
          ],
        }),
      ),
      'runAsNonRoot != true',
      'containers "c", "d" must not set securityContext.runAsNonRoot=false',
    );
    expectForbidden(
      runCheck('runAsNonRoot', 0, spec({ containers: [{ name: 'a' }, sc('b', {}), sc('d', { runAsNonRoot: true })] })),
      'runAsNonRoot != true',
      'pod or containers "a", "b" must set securityContext.runAsNonRoot=true',
    );
  });

  it('is not relaxed for user-namespaced pods (the feature gate is off in 1.33)', () => {
    expectForbidden(
      runCheck('runAsNonRoot', LATEST, spec({ hostUsers: false, containers: [{ name: 'a' }] })),
      'runAsNonRoot != true',
      'pod or container "a" must set securityContext.runAsNonRoot=true',
    );
  });
});

describe('runAsUser', () => {
  it('forbids 0 on the pod and containers, from v1.23', () => {
    const pod = spec({
      securityContext: { runAsUser: 0 },
      containers: [{ name: 'a' }, sc('b', { runAsUser: 1000 }), sc('c', { runAsUser: 0 }), sc('d', { runAsUser: 0 })],
    });
    assert.equal(runCheck('runAsUser', 22, pod), undefined);
    expectForbidden(
      runCheck('runAsUser', 23, pod),
      'runAsUser=0',
      'pod and containers "c", "d" must not set runAsUser=0',
    );
    expectForbidden(
      runCheck('runAsUser', 23, spec({ securityContext: { runAsUser: 0 }, containers: [{ name: 'a' }] })),
      'runAsUser=0',
      'pod must not set runAsUser=0',
    );
  });
});

describe('seccompProfile_restricted', () => {
  it('requires RuntimeDefault or Localhost on the pod or every container, from v1.19', () => {
    const none = spec({ containers: [{ name: 'a' }] });
    assert.equal(runCheck('seccompProfile_restricted', 18, none), undefined);
    expectForbidden(
      runCheck('seccompProfile_restricted', 19, none),
      'seccompProfile',
      'pod or container "a" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"',
    );
    expectForbidden(
      runCheck(
        'seccompProfile_restricted',
        19,
        spec({ containers: [{ name: 'a' }, sc('b', {}), sc('c', { seccompProfile: { type: 'Localhost' } })] }),
      ),
      'seccompProfile',
      'pod or containers "a", "b" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"',
    );
    const unconfined = { seccompProfile: { type: 'Unconfined' } };
    expectForbidden(
      runCheck(
        'seccompProfile_restricted',
        LATEST,
        spec({ securityContext: unconfined, containers: [{ name: 'a' }, sc('c', unconfined), sc('d', unconfined)] }),
      ),
      'seccompProfile',
      'pod and containers "c", "d" must not set securityContext.seccompProfile.type to "Unconfined"',
    );
    expectAllowed(
      runCheck(
        'seccompProfile_restricted',
        LATEST,
        spec({ securityContext: { seccompProfile: { type: 'RuntimeDefault' } }, containers: [{ name: 'a' }] }),
      ),
    );
  });

  it('lets Windows pods through from v1.25', () => {
    const win = spec({ ...windows, containers: [{ name: 'a' }] });
    assert.equal(runCheck('seccompProfile_restricted', 24, win)?.allowed, false);
    expectAllowed(runCheck('seccompProfile_restricted', 25, win));
  });
});

describe('restrictedVolumes', () => {
  it('names every volume of a restricted or unknown type, and the types sorted', () => {
    const allowed = ['emptyDir', 'secret', 'persistentVolumeClaim', 'downwardAPI', 'configMap', 'projected', 'csi']
      .concat(['ephemeral', 'image'])
      .map((type, i) => ({ name: `a${i + 1}`, [type]: {} }));
    const restricted = [
      'hostPath',
      'gcePersistentDisk',
      'awsElasticBlockStore',
      'gitRepo',
      'nfs',
      'iscsi',
      'glusterfs',
      'rbd',
      'flexVolume',
      'cinder',
      'cephfs',
      'flocker',
      'fc',
      'azureFile',
      'vsphereVolume',
      'quobyte',
      'azureDisk',
      'photonPersistentDisk',
      'portworxVolume',
      'scaleIO',
      'storageos',
    ].map((type, i) => ({ name: `b${i + 1}`, [type]: {} }));
    const pod = spec({ volumes: [...allowed, ...restricted, { name: 'c1' }] });
    expectForbidden(
      runCheck('restrictedVolumes', 0, pod),
      'restricted volume types',
      'volumes ' +
        '"b1", "b2", "b3", "b4", "b5", "b6", "b7", "b8", "b9", "b10", "b11", "b12", "b13", "b14", "b15", "b16", "b17", "b18", "b19", "b20", "b21", "c1"' +
        ' use restricted volume types ' +
        '"awsElasticBlockStore", "azureDisk", "azureFile", "cephfs", "cinder", "fc", "flexVolume", "flocker", "gcePersistentDisk", "gitRepo", "glusterfs", ' +
        '"hostPath", "iscsi", "nfs", "photonPersistentDisk", "portworxVolume", "quobyte", "rbd", "scaleIO", "storageos", "unknown", "vsphereVolume"',
    );
    expectForbidden(
      runCheck('restrictedVolumes', 0, spec({ volumes: [{ name: 'h', hostPath: { path: '/' } }] })),
      'restricted volume types',
      'volume "h" uses restricted volume type "hostPath"',
    );
  });
});
