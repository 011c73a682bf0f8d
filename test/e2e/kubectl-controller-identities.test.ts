/**
 * `wheelhouse up --authorization-mode=Node,RBAC` runs kube-controller-manager with --use-service-account-credentials,
 * as kubeadm does: the real kubectl sees each controller's ServiceAccount holding exactly upstream's bootstrap rules,
 * and a Deployment still rolls out.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import type { AuditEvent } from '../../src/apiserver/audit/event.js';
import { ensurePki } from '../../src/apiserver/bootstrap/pki.js';
import { buildKubeconfig, writeKubeconfig } from '../../src/client/kubeconfig.js';
import { type ControlPlane, startControlPlane } from '../../src/index.js';
import assert from '../../src/testing/assert.js';
import { eventually } from '../../src/testing/controllers.js';
import { startWheelhouse, type WheelhouseProcess } from '../../src/testing/wheelhouse-process.js';

const run = promisify(execFile);

/**
 * The resource rows of `kubectl auth can-i --list` for ServiceAccount kube-system/deployment-controller in upstream
 * v1.33: ClusterRole system:controller:deployment-controller (plugin/pkg/auth/authorizer/rbac/bootstrappolicy's
 * controller_policy.go) plus system:basic-user's self reviews, which every authenticated user has.
 */
const UPSTREAM_DEPLOYMENT_CONTROLLER: Record<string, string> = {
  'deployments.apps': '[get list update watch]',
  'deployments.extensions': '[get list update watch]',
  'deployments.apps/status': '[update]',
  'deployments.extensions/status': '[update]',
  'deployments.apps/finalizers': '[update]',
  'deployments.extensions/finalizers': '[update]',
  'replicasets.apps': '[create delete get list patch update watch]',
  'replicasets.extensions': '[create delete get list patch update watch]',
  pods: '[get list update watch]',
  events: '[create patch update]',
  'events.events.k8s.io': '[create patch update]',
  'selfsubjectreviews.authentication.k8s.io': '[create]',
  'selfsubjectaccessreviews.authorization.k8s.io': '[create]',
  'selfsubjectrulesreviews.authorization.k8s.io': '[create]',
};

describe('controller identities with the real kubectl against wheelhouse up', () => {
  let dir: string;
  let cluster: WheelhouseProcess;
  let kubeconfig: string;
  const kubectl = async (...args: string[]) =>
    (await run('kubectl', ['--kubeconfig', kubeconfig, '--cache-dir', join(dir, 'kcache'), ...args])).stdout;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'wheelhouse-cm-identities-'));
    cluster = await startWheelhouse('up', [
      '--authorization-mode=Node,RBAC',
      '--storage',
      'memory',
      '--data-dir',
      dir,
      '--nodes',
      '2',
    ]);
    kubeconfig = join(dir, 'kubeconfig');
  });
  after(async () => {
    await cluster?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('kubectl auth can-i --list shows upstream’s rules for the deployment-controller ServiceAccount', async () => {
    const out = await kubectl(
      'auth',
      'can-i',
      '--list',
      '--as=system:serviceaccount:kube-system:deployment-controller',
    );
    const [header, ...rows] = out.trimEnd().split('\n');
    assert.match(header ?? '', /^Resources\s+Non-Resource URLs\s+Resource Names\s+Verbs$/);
    const resources: Record<string, string> = {};
    for (const row of rows) {
      if (row.startsWith(' ')) continue; // non-resource URLs of the discovery roles
      const [resource, urls, names, ...verbs] = row.split(/\s+/);
      assert.equal(urls, '[]', row);
      assert.equal(names, '[]', row);
      resources[resource ?? ''] = verbs.join(' ');
    }
    assert.deepEqual(resources, UPSTREAM_DEPLOYMENT_CONTROLLER);
    assert.equal(
      (
        await kubectl(
          'auth',
          'can-i',
          'create',
          'pods',
          '--as=system:serviceaccount:kube-system:deployment-controller',
        ).catch((e: { stdout?: string }) => e.stdout ?? '')
      ).trim(),
      'no',
    );
  });

  it('rolls out a Deployment while the controller manager itself may not create one', async () => {
    await kubectl('create', 'deployment', 'web', '--image=nginx', '--replicas=2');
    await kubectl('rollout', 'status', 'deployment/web', '--timeout=60s');
    const accounts = await kubectl('get', 'serviceaccounts', '-n', 'kube-system', '-o', 'name');
    for (const name of ['deployment-controller', 'replicaset-controller', 'generic-garbage-collector']) {
      assert.match(accounts, new RegExp(`^serviceaccount/${name}$`, 'm'));
    }
    const manager = await kubectl(
      'auth',
      'can-i',
      'create',
      'deployments',
      '--as=system:kube-controller-manager',
    ).catch((e: { stdout?: string }) => e.stdout ?? '');
    assert.equal(manager.trim(), 'no');
  });
});

describe('wheelhouse controller-manager --use-service-account-credentials=true against an RBAC apiserver', () => {
  let cp: ControlPlane;
  let kcm: WheelhouseProcess;
  const audit: AuditEvent[] = [];
  before(async () => {
    cp = await startControlPlane({
      authorization: { modes: ['Node', 'RBAC'] },
      audit: {
        policy: { apiVersion: 'audit.k8s.io/v1', kind: 'Policy', rules: [{ level: 'Metadata' }] },
        sink: (event) => {
          if (event.stage === 'ResponseComplete') audit.push(event);
        },
      },
    });
    const pki = await ensurePki(join(cp.dataDir, 'pki'));
    const kubeconfig = join(cp.dataDir, 'controller-manager.kubeconfig');
    await writeKubeconfig(
      kubeconfig,
      buildKubeconfig({
        server: cp.url,
        caPem: pki.ca.certPem,
        certPem: pki.controllerManager.certPem,
        keyPem: pki.controllerManager.keyPem,
        userName: 'system:kube-controller-manager',
      }),
    );
    kcm = await startWheelhouse('controller-manager', [
      '--kubeconfig',
      kubeconfig,
      '--use-service-account-credentials=true',
      '--leader-elect=false',
      '--controllers',
      'replicaset',
    ]);
  });
  after(async () => {
    if (kcm) assert.equal(await kcm.stop(), 0);
    await cp?.stop();
  });

  it('creates a ReplicaSet’s pods as ServiceAccount kube-system/replicaset-controller', async () => {
    await cp.client.replicaSets('default').create({
      metadata: { name: 'web' },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
      },
    });
    await eventually(async () => {
      assert.equal((await cp.client.pods('default').list({ labelSelector: 'app=web' })).items.length, 2);
    });
    const creators = new Set(
      audit
        .filter((e) => e.verb === 'create' && e.objectRef?.resource === 'pods' && e.responseStatus?.code === 201)
        .map((e) => e.user.username),
    );
    assert.deepEqual([...creators], ['system:serviceaccount:kube-system:replicaset-controller']);
    assert.match(kcm.out(), /--use-service-account-credentials was specified without providing a --service-account/);
  });
});
