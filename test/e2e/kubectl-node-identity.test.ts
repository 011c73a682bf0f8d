/**
 * The real kubectl as a kubelet's identity (client certificate CN=system:node:node-1, O=system:nodes, minted by
 * `wheelhouse kubeconfig`) against --authorization-mode=Node,RBAC with NodeRestriction: it gets its own Node, may
 * not patch node-2, may not read a secret none of its pods uses, and may once a pod bound to it mounts the secret.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { kubeconfigCommand } from '../../src/cli/kubeconfig.js';
import { type ControlPlane, startControlPlane } from '../../src/index.js';
import { apiRequest } from '../../src/testing/api-client.js';
import assert from '../../src/testing/assert.js';
import { eventually } from '../../src/testing/controllers.js';

const run = promisify(execFile);

describe('kubectl as a node identity (Node,RBAC)', () => {
  const root = mkdtempSync(join(tmpdir(), 'wheelhouse-node-e2e-'));
  const nodeConfig = join(root, 'node-1.kubeconfig');
  let cp: ControlPlane;
  const kubectl = async (...args: string[]) =>
    (
      await run('kubectl', ['--kubeconfig', nodeConfig, '--cache-dir', join(root, 'kcache'), ...args], {
        timeout: 60_000,
      })
    ).stdout;
  const kubectlFails = async (...args: string[]) => {
    try {
      await kubectl(...args);
    } catch (err) {
      return (err as { stderr: string }).stderr.trim();
    }
    throw new Error(`kubectl ${args.join(' ')} succeeded`);
  };

  before(async () => {
    cp = await startControlPlane({ dataDir: join(root, 'data'), authorization: { modes: ['Node', 'RBAC'] } });
    const lines: string[] = [];
    const code = await kubeconfigCommand(
      ['--data-dir', cp.dataDir, '--user', 'system:node:node-1', '--group', 'system:nodes'],
      (l) => lines.push(l),
    );
    assert.equal(code, 0);
    writeFileSync(nodeConfig, `${lines.join('\n')}\n`);
    for (const name of ['node-1', 'node-2']) {
      assert.equal((await apiRequest(cp, 'POST', '/api/v1/nodes', { body: { metadata: { name } } })).status, 201);
    }
    const secret = { metadata: { name: 'app-token' }, stringData: { token: 's3cret' } };
    assert.equal((await apiRequest(cp, 'POST', '/api/v1/namespaces/default/secrets', { body: secret })).status, 201);
  });
  after(async () => {
    await cp?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it('gets its own Node and may not patch another', async () => {
    const whoami = await kubectl('auth', 'whoami');
    assert.match(whoami, /Username\s+system:node:node-1/);
    assert.match(await kubectl('get', 'node', 'node-1', '-o', 'name'), /^node\/node-1$/m);
    assert.equal(
      await kubectlFails('label', 'node', 'node-2', 'team=a'),
      'Error from server (Forbidden): nodes "node-2" is forbidden: User "system:node:node-1" cannot get resource "nodes" in API group "" at the cluster scope: node \'node-1\' cannot read \'node-2\', only its own Node object',
    );
    // kubectl patch reads the object first: the Node authorizer refuses that read.
    assert.match(
      await kubectlFails('patch', 'node', 'node-2', '--type=merge', '-p', '{"metadata":{"labels":{"team":"a"}}}'),
      /nodes "node-2" is forbidden: .*node 'node-1' cannot read 'node-2', only its own Node object$/,
    );
    // Its own Node: NodeRestriction keeps its taints as they are.
    assert.equal(
      await kubectlFails('taint', 'node', 'node-1', 'k=v:NoSchedule'),
      'Error from server (Forbidden): nodes "node-1" is forbidden: node "node-1" is not allowed to modify taints',
    );
    await kubectl(
      'patch',
      'node',
      'node-1',
      '--type=merge',
      '-p',
      '{"metadata":{"labels":{"kubernetes.io/arch":"arm64"}}}',
    );
  });

  it('reads a secret only once a pod bound to it mounts the secret', async () => {
    assert.equal(
      await kubectlFails('get', 'secret', 'app-token'),
      'Error from server (Forbidden): secrets "app-token" is forbidden: User "system:node:node-1" cannot get resource "secrets" in API group "" in the namespace "default": no relationship found between node \'node-1\' and this object',
    );
    const pod = {
      metadata: { name: 'app' },
      spec: {
        nodeName: 'node-1',
        containers: [{ name: 'c', image: 'nginx' }],
        volumes: [{ name: 'token', secret: { secretName: 'app-token' } }],
      },
    };
    assert.equal((await apiRequest(cp, 'POST', '/api/v1/namespaces/default/pods', { body: pod })).status, 201);
    await eventually(async () => {
      assert.match(await kubectl('get', 'secret', 'app-token', '-o', 'jsonpath={.data.token}'), /^czNjcmV0$/);
    });
    assert.match(await kubectlFails('get', 'secrets'), /cannot list resource "secrets"/);
  });
});
