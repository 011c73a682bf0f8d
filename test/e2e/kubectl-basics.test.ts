import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type ControlPlane, startControlPlane } from '../../src/index.js';
import { apiRequest, kubectl } from '../../src/testing/api-client.js';
import assert from '../../src/testing/assert.js';

/** Creates an object through the JSON API. */
async function create(cp: ControlPlane, path: string, body: unknown): Promise<void> {
  const res = await apiRequest(cp, 'POST', path, { body });
  assert.equal(res.status, 201, res.text);
}

describe('the real kubectl against wheelhouse', () => {
  let cp: ControlPlane;
  before(async () => {
    cp = await startControlPlane();
    await create(cp, '/api/v1/namespaces', { metadata: { name: 'shop' } });
    await create(cp, '/api/v1/namespaces/shop/configmaps', {
      metadata: { name: 'web-config', labels: { app: 'web', tier: 'front' } },
      data: { color: 'blue', size: 'L' },
    });
    await create(cp, '/api/v1/namespaces/shop/configmaps', {
      metadata: { name: 'db-config', labels: { app: 'db' } },
      data: {},
    });
    await create(cp, '/api/v1/namespaces/default/configmaps', {
      metadata: { name: 'elsewhere', labels: { app: 'web' } },
    });
  });
  after(async () => {
    await cp?.stop();
  });

  it('reports the server version kubectl picks its own version by', async () => {
    const res = await kubectl(cp, ['version', '-o', 'json']);
    assert.equal(res.code, 0, res.stderr);
    const v = JSON.parse(res.stdout);
    assert.equal(v.serverVersion.minor, '33');
    assert.match(v.clientVersion.gitVersion, /^v1\.33\./, 'the /usr/bin/kubectl dispatcher chose kubectl 1.33');
  });

  it('gets in the output formats users use', async () => {
    const table = await kubectl(cp, ['get', 'configmaps', '-n', 'shop']);
    assert.equal(table.code, 0, table.stderr);
    const lines = table.stdout.trim().split('\n');
    assert.match(lines[0] ?? '', /^NAME\s+DATA\s+AGE$/);
    assert.match(lines[1] ?? '', /^db-config\s+0\s+\d+s$/);
    assert.match(lines[2] ?? '', /^web-config\s+2\s+\d+s$/);
    const wide = await kubectl(cp, ['get', 'namespaces', '-o', 'wide']);
    assert.match(wide.stdout, /^NAME\s+STATUS\s+AGE$/m);
    assert.match(wide.stdout, /^shop\s+Active\s+/m);
    const json = JSON.parse((await kubectl(cp, ['get', 'cm', 'web-config', '-n', 'shop', '-o', 'json'])).stdout);
    assert.deepEqual(json.data, { color: 'blue', size: 'L' });
    const yaml = (await kubectl(cp, ['get', 'cm', 'web-config', '-n', 'shop', '-o', 'yaml'])).stdout;
    assert.match(yaml, /^kind: ConfigMap$/m);
    assert.match(yaml, /^ {2}color: blue$/m);
    assert.equal(
      (await kubectl(cp, ['get', 'cm', '-n', 'shop', '-o', 'name'])).stdout,
      'configmap/db-config\nconfigmap/web-config\n',
    );
    const jp = await kubectl(cp, ['get', 'cm', 'web-config', '-n', 'shop', '-o', 'jsonpath={.data.color}']);
    assert.equal(jp.stdout, 'blue');
    const cc = await kubectl(cp, [
      'get',
      'cm',
      '-n',
      'shop',
      '-o',
      'custom-columns=NAME:.metadata.name,APP:.metadata.labels.app',
    ]);
    assert.equal(cc.stdout, 'NAME         APP\ndb-config    db\nweb-config   web\n');
  });

  it('selects with -l, --field-selector and -A', async () => {
    const byLabel = await kubectl(cp, ['get', 'cm', '-A', '-l', 'app=web', '-o', 'name']);
    assert.equal(byLabel.stdout, 'configmap/elsewhere\nconfigmap/web-config\n');
    const all = await kubectl(cp, ['get', 'cm', '-A', '-l', 'app in (web,db)']);
    assert.match(all.stdout, /^NAMESPACE\s+NAME\s+DATA\s+AGE$/m);
    assert.match(all.stdout, /^default\s+elsewhere\s+0\s+/m);
    assert.match(all.stdout, /^shop\s+db-config\s+0\s+/m);
    const byField = await kubectl(cp, [
      'get',
      'cm',
      '-A',
      '--field-selector',
      'metadata.namespace=shop,metadata.name!=db-config',
      '-o',
      'name',
    ]);
    assert.equal(byField.stdout, 'configmap/web-config\n');
    const none = await kubectl(cp, ['get', 'cm', '-n', 'shop', '-l', 'app=nothing']);
    assert.equal(none.code, 0);
    assert.match(none.stderr, /^No resources found in shop namespace\.$/m);
  });

  it('labels, annotates and patches in every patch type', async () => {
    assert.equal(
      (await kubectl(cp, ['label', 'cm', 'web-config', '-n', 'shop', 'env=prod'])).stdout,
      'configmap/web-config labeled\n',
    );
    const clash = await kubectl(cp, ['label', 'cm', 'web-config', '-n', 'shop', 'env=dev']);
    assert.notEqual(clash.code, 0);
    assert.match(clash.stderr, /'env' already has a value \(prod\), and --overwrite is false/);
    assert.equal((await kubectl(cp, ['label', 'cm', 'web-config', '-n', 'shop', 'env=dev', '--overwrite'])).code, 0);
    assert.equal((await kubectl(cp, ['label', 'cm', 'web-config', '-n', 'shop', 'tier-'])).code, 0);
    assert.equal(
      (await kubectl(cp, ['annotate', 'cm', 'web-config', '-n', 'shop', 'owner=team-a'])).stdout,
      'configmap/web-config annotated\n',
    );
    const p1 = await kubectl(cp, [
      'patch',
      'cm',
      'web-config',
      '-n',
      'shop',
      '--type',
      'merge',
      '-p',
      '{"data":{"size":"XL"}}',
    ]);
    assert.equal(p1.stdout, 'configmap/web-config patched\n');
    const p2 = await kubectl(cp, [
      'patch',
      'cm',
      'web-config',
      '-n',
      'shop',
      '--type',
      'json',
      '-p',
      '[{"op":"add","path":"/data/shape","value":"round"}]',
    ]);
    assert.equal(p2.code, 0, p2.stderr);
    const p3 = await kubectl(cp, ['patch', 'cm', 'web-config', '-n', 'shop', '-p', '{"data":{"color":"green"}}']);
    assert.equal(p3.code, 0, p3.stderr);
    const got = JSON.parse((await kubectl(cp, ['get', 'cm', 'web-config', '-n', 'shop', '-o', 'json'])).stdout);
    assert.deepEqual(got.data, { color: 'green', size: 'XL', shape: 'round' });
    assert.deepEqual(got.metadata.labels, { app: 'web', env: 'dev' });
    assert.equal(got.metadata.annotations.owner, 'team-a');
  });

  it('creates with the generators, whose bodies kubectl sends as protobuf', async () => {
    const run = async (args: string[], want: string) => {
      const res = await kubectl(cp, args);
      assert.equal(res.code, 0, res.stderr);
      assert.equal(res.stdout, want);
    };
    await run(['create', 'namespace', 'gen'], 'namespace/gen created\n');
    await run(
      ['create', 'configmap', 'settings', '-n', 'gen', '--from-literal=mode=fast', '--from-literal=level=3'],
      'configmap/settings created\n',
    );
    await run(
      ['create', 'secret', 'generic', 'creds', '-n', 'gen', '--from-literal=password=s3cret'],
      'secret/creds created\n',
    );
    await run(['create', 'serviceaccount', 'robot', '-n', 'gen'], 'serviceaccount/robot created\n');
    const cm = JSON.parse((await kubectl(cp, ['get', 'cm', 'settings', '-n', 'gen', '-o', 'json'])).stdout);
    assert.deepEqual(cm.data, { mode: 'fast', level: '3' });
    const secret = JSON.parse((await kubectl(cp, ['get', 'secret', 'creds', '-n', 'gen', '-o', 'json'])).stdout);
    assert.equal(Buffer.from(secret.data.password, 'base64').toString(), 's3cret');
    assert.equal(secret.type, 'Opaque');
    const dup = await kubectl(cp, ['create', 'configmap', 'settings', '-n', 'gen']);
    assert.equal(dup.code, 1);
    assert.equal(dup.stderr.trim(), 'error: failed to create configmap: configmaps "settings" already exists');
  });

  it('describes an object', async () => {
    const res = await kubectl(cp, ['describe', 'cm', 'web-config', '-n', 'shop']);
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stdout, /^Name:\s+web-config$/m);
    assert.match(res.stdout, /^Namespace:\s+shop$/m);
    assert.match(res.stdout, /^Labels:\s+app=web$/m);
    assert.match(res.stdout, /^Events:\s+<none>$/m);
  });

  it('sees an update with get -w', async () => {
    const child = spawn(
      'kubectl',
      [
        '--kubeconfig',
        cp.kubeconfig.path,
        '--cache-dir',
        join(cp.dataDir, 'kubectl-cache'),
        'get',
        'cm',
        'db-config',
        '-n',
        'shop',
        '-w',
      ],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    const deadline = Date.now() + 15_000;
    while (!out.includes('db-config') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await apiRequest(cp, 'PATCH', '/api/v1/namespaces/shop/configmaps/db-config', {
      body: { data: { added: 'yes' } },
      contentType: 'application/merge-patch+json',
    });
    while (!/db-config\s+1\s+/.test(out) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    child.kill();
    assert.match(out, /NAME\s+DATA\s+AGE\ndb-config\s+0\s+\S+\ndb-config\s+1\s+\S+/);
  });

  it('shows the server errors users meet with upstream wording', async () => {
    const missing = await kubectl(cp, ['get', 'cm', 'nope', '-n', 'shop']);
    assert.equal(missing.code, 1);
    assert.equal(missing.stderr.trim(), 'Error from server (NotFound): configmaps "nope" not found');
    const badNs = await kubectl(cp, ['get', 'cm', 'x', '-n', 'nowhere']);
    assert.equal(badNs.stderr.trim(), 'Error from server (NotFound): namespaces "nowhere" not found');
    const file = join(cp.dataDir, 'bad.json');
    writeFileSync(
      file,
      JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'Not_Valid', namespace: 'shop' } }),
    );
    const invalid = await kubectl(cp, ['create', '-f', file, '--validate=false']);
    assert.equal(invalid.code, 1);
    assert.match(
      invalid.stderr,
      /^The ConfigMap "Not_Valid" is invalid: metadata.name: Invalid value: "Not_Valid": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '\.', and must start and end with an alphanumeric character \(e\.g\. 'example\.com', regex used for validation is/m,
    );
    const cm = JSON.parse((await kubectl(cp, ['get', 'cm', 'db-config', '-n', 'shop', '-o', 'json'])).stdout);
    cm.metadata.resourceVersion = '1';
    const stale = join(cp.dataDir, 'stale.json');
    writeFileSync(stale, JSON.stringify(cm));
    const conflict = await kubectl(cp, ['replace', '-f', stale, '--validate=false']);
    assert.equal(conflict.code, 1);
    assert.match(
      conflict.stderr,
      /Error from server \(Conflict\): error when replacing ".*stale\.json": Operation cannot be fulfilled on configmaps "db-config": the object has been modified; please apply your changes to the latest version and try again/,
    );
  });

  it('lists API resources and versions, and reads raw health', async () => {
    const res = await kubectl(cp, ['api-resources']);
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stdout, /^NAME\s+SHORTNAMES\s+APIVERSION\s+NAMESPACED\s+KIND$/m);
    assert.match(res.stdout, /^configmaps\s+cm\s+v1\s+true\s+ConfigMap$/m);
    assert.match(res.stdout, /^namespaces\s+ns\s+v1\s+false\s+Namespace$/m);
    assert.match((await kubectl(cp, ['api-versions'])).stdout, /^v1$/m);
    const raw = await kubectl(cp, ['get', '--raw', '/readyz?verbose']);
    assert.match(raw.stdout, /\[\+\]ping ok/);
    assert.match(raw.stdout, /readyz check passed/);
  });

  it('deletes, with --wait=false and --grace-period', async () => {
    const res = await kubectl(cp, ['delete', 'cm', 'elsewhere', '--wait=false']);
    assert.equal(res.stdout, 'configmap "elsewhere" deleted\n');
    const again = await kubectl(cp, ['delete', 'cm', 'db-config', '-n', 'shop', '--grace-period=0']);
    assert.equal(again.code, 0, again.stderr);
    assert.equal((await kubectl(cp, ['get', 'cm', '-n', 'shop', '-o', 'name'])).stdout, 'configmap/web-config\n');
    assert.equal((await kubectl(cp, ['get', 'cm', '-n', 'default', '-o', 'name'])).stdout, '');
  });
});
