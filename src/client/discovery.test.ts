import { after, before, test } from 'node:test';
import { type ControlPlane, startControlPlane } from '../index.js';
import assert from '../testing/assert.js';
import { type DiscoveredResource, serverPreferredResources, serverResources } from './discovery.js';

let cp: ControlPlane;
before(async () => {
  cp = await startControlPlane({ storage: 'memory' });
});
after(() => cp?.stop());

const find = (list: DiscoveredResource[], group: string, version: string, resource: string) =>
  list.find((r) => r.group === group && r.version === version && r.resource === resource);

for (const aggregated of [true, false]) {
  test(`${aggregated ? 'aggregated' : 'plain'} discovery lists every served resource with its scope`, async () => {
    const resources = await serverResources(cp.client, { aggregated });
    const pods = find(resources, '', 'v1', 'pods');
    assert.equal(pods?.kind, 'Pod');
    assert.equal(pods?.namespaced, true);
    assert.equal(pods?.preferred, true);
    assert.ok(pods?.verbs.includes('watch'));
    assert.deepEqual(pods?.shortNames, ['po']);
    assert.ok(pods?.subresources?.some((s) => s.name === 'status'));
    assert.equal(find(resources, '', 'v1', 'pods/status'), undefined, 'subresources sit under their resource');

    const deployments = find(resources, 'apps', 'v1', 'deployments');
    assert.equal(deployments?.kind, 'Deployment');
    assert.equal(deployments?.namespaced, true);
    assert.deepEqual(
      deployments?.subresources?.find((s) => s.name === 'scale'),
      { name: 'scale', kind: 'Scale', verbs: ['get', 'patch', 'update'] },
    );
    assert.equal(find(resources, '', 'v1', 'nodes')?.namespaced, false);
    assert.equal(find(resources, '', 'v1', 'namespaces')?.namespaced, false);
    assert.equal(find(resources, 'rbac.authorization.k8s.io', 'v1', 'clusterroles')?.namespaced, false);
    assert.equal(resources[0]?.group, '', 'core comes first');
  });
}

test('aggregated and plain discovery agree; preferred resources keep one version per group', async () => {
  const key = (r: DiscoveredResource) => `${r.group}/${r.version}/${r.resource}:${r.namespaced}`;
  const aggregated = (await serverResources(cp.client)).map(key).sort();
  const plain = (await serverResources(cp.client, { aggregated: false })).map(key).sort();
  assert.deepEqual(aggregated, plain);
  const preferred = await serverPreferredResources(cp.client);
  const versionsByGroup = new Map<string, Set<string>>();
  for (const r of preferred) versionsByGroup.set(r.group, (versionsByGroup.get(r.group) ?? new Set()).add(r.version));
  for (const [group, versions] of versionsByGroup) assert.equal(versions.size, 1, `one version of ${group || 'core'}`);
});
