import { after, before, describe, it } from 'node:test';
import { type ControlPlane, startControlPlane } from '../../src/index.js';
import { apiRequest, kubectl } from '../../src/testing/api-client.js';
import assert from '../../src/testing/assert.js';

/** What the real kubectl shows of the deprecated spec.serviceAccount, upstream's alias of serviceAccountName. */
describe('the real kubectl and spec.serviceAccount', () => {
  let cp: ControlPlane;
  const ok = async (args: string[]) => {
    const res = await kubectl(cp, args);
    assert.equal(res.code, 0, res.stderr);
    return res.stdout;
  };
  before(async () => {
    cp = await startControlPlane({ admission: { enablePlugins: ['ServiceAccount'] } });
    for (const name of ['default', 'builder']) {
      const res = await apiRequest(cp, 'POST', '/api/v1/namespaces/default/serviceaccounts', {
        body: { metadata: { name } },
      });
      assert.equal(res.status, 201, res.text);
    }
  });
  after(async () => {
    await cp?.stop();
  });

  it('shows both fields of a pod the ServiceAccount plugin gave the default account', async () => {
    const yaml = await ok(['run', 'web', '--image=nginx', '--dry-run=server', '-o', 'yaml']);
    assert.match(yaml, /^ {2}serviceAccount: default$/m);
    assert.match(yaml, /^ {2}serviceAccountName: default$/m);
  });

  it('takes the alias alone as the account of a pod', async () => {
    await ok(['run', 'legacy', '--image=nginx', '--overrides={"apiVersion":"v1","spec":{"serviceAccount":"builder"}}']);
    const got = await ok(['get', 'pod', 'legacy', '-o', 'jsonpath={.spec.serviceAccountName}/{.spec.serviceAccount}']);
    assert.equal(got, 'builder/builder');
  });

  it('moves the alias with kubectl set serviceaccount on a Deployment', async () => {
    await ok(['create', 'deployment', 'app', '--image=nginx']);
    const template = '{.spec.template.spec.serviceAccountName}/{.spec.template.spec.serviceAccount}';
    assert.equal(await ok(['get', 'deployment', 'app', '-o', `jsonpath=${template}`]), '/');
    await ok(['set', 'serviceaccount', 'deployment', 'app', 'builder']);
    assert.equal(await ok(['get', 'deployment', 'app', '-o', `jsonpath=${template}`]), 'builder/builder');
  });
});
