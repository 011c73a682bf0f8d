import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import type { EncryptingStore } from '../../src/apiserver/encryption/store.js';
import { type ControlPlane, startControlPlane } from '../../src/index.js';
import assert from '../../src/testing/assert.js';

const run = promisify(execFile);

describe('kubectl: secrets encrypted at rest (aescbc)', () => {
  const root = mkdtempSync(join(tmpdir(), 'wheelhouse-encryption-e2e-'));
  let cp: ControlPlane;
  const kubectl = async (...args: string[]) =>
    (
      await run('kubectl', ['--kubeconfig', cp.kubeconfig.path, '--cache-dir', join(root, 'kcache'), ...args], {
        timeout: 60_000,
      })
    ).stdout;

  const dataDir = join(root, 'data');
  /** An EncryptionConfiguration for secrets with these aescbc keys, the first one writing. */
  const config = (file: string, keys: [string, number][]) => {
    const path = join(root, file);
    writeFileSync(
      path,
      [
        'apiVersion: apiserver.config.k8s.io/v1',
        'kind: EncryptionConfiguration',
        'resources:',
        '- resources: [secrets]',
        '  providers:',
        '  - aescbc:',
        '      keys:',
        ...keys.flatMap(([name, fill]) => [
          `      - name: ${name}`,
          `        secret: ${Buffer.alloc(32, fill).toString('base64')}`,
        ]),
        '  - identity: {}',
      ].join('\n'),
    );
    return path;
  };

  before(async () => {
    cp = await startControlPlane({
      storage: 'sqlite',
      dataDir,
      encryptionProviderConfig: config('encryption.yaml', [['key1', 7]]),
    });
  });
  after(async () => {
    await cp?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it('kubectl create secret generic stores no plain text; kubectl get secret decrypts', async () => {
    await kubectl('create', 'secret', 'generic', 'db', '--from-literal=password=hunter2-plaintext');
    const raw = await (cp.storage as EncryptingStore).raw.get('/registry/secrets/default/db');
    assert.ok(raw);
    assert.equal(raw.value.subarray(0, 23).toString(), 'k8s:enc:aescbc:v1:key1:');
    assert.equal(raw.value.includes('hunter2-plaintext'), false);
    assert.equal(raw.value.includes(Buffer.from('hunter2-plaintext').toString('base64')), false);
    const password = await kubectl('get', 'secret', 'db', '-o', 'jsonpath={.data.password}');
    assert.equal(Buffer.from(password, 'base64').toString(), 'hunter2-plaintext');
    const names = await kubectl('get', 'secrets', '-o', 'name');
    assert.match(names, /secret\/db/);
  });

  it("rotates a key as upstream's documentation says: new key first, restart, `get -o json | replace -f -`", async () => {
    await cp.stop();
    cp = await startControlPlane({
      storage: 'sqlite',
      dataDir,
      encryptionProviderConfig: config('rotated.yaml', [
        ['key2', 9],
        ['key1', 7],
      ]),
    });
    const prefix = async () =>
      (await (cp.storage as EncryptingStore).raw.get('/registry/secrets/default/db'))?.value.subarray(0, 23).toString();
    assert.equal(await prefix(), 'k8s:enc:aescbc:v1:key1:', 'read with the second key until rewritten');
    // The command as written in the docs: kubectl checks the List against /openapi/v2 (in protobuf) on its way.
    const k = `kubectl --kubeconfig ${cp.kubeconfig.path} --cache-dir ${join(root, 'kcache')}`;
    const { stdout } = await run('sh', ['-c', `${k} get secrets -A -o json | ${k} replace -f -`], { timeout: 60_000 });
    assert.match(stdout, /^secret\/db replaced$/m);
    assert.equal(await prefix(), 'k8s:enc:aescbc:v1:key2:');
    const password = await kubectl('get', 'secret', 'db', '-o', 'jsonpath={.data.password}');
    assert.equal(Buffer.from(password, 'base64').toString(), 'hunter2-plaintext');
  });

  it('restarted with only identity: kubectl get secrets fails as upstream’s does, and a create says AlreadyExists', async () => {
    await cp.stop();
    const identityOnly = join(root, 'identity.yaml');
    writeFileSync(
      identityOnly,
      [
        'apiVersion: apiserver.config.k8s.io/v1',
        'kind: EncryptionConfiguration',
        'resources:',
        '- resources: [secrets]',
        '  providers:',
        '  - identity: {}',
      ].join('\n'),
    );
    cp = await startControlPlane({ storage: 'sqlite', dataDir, encryptionProviderConfig: identityOnly });
    const failure = (args: string[]) =>
      kubectl(...args).then(
        (out) => `succeeded: ${out}`,
        (err: { stderr: string }) => err.stderr.trim(),
      );
    // Not "No resources found": the list fails whole, naming the key it could not read.
    assert.equal(
      await failure(['get', 'secrets']),
      'Error from server (InternalError): Internal error occurred: unable to transform key "/registry/secrets/default/db": no matching prefix found',
    );
    assert.equal(
      await failure(['get', 'secret', 'db']),
      'Error from server (InternalError): Internal error occurred: no matching prefix found',
    );
    assert.equal(
      await failure(['create', 'secret', 'generic', 'db', '--from-literal=password=again']),
      // kubectl create secret's own wrapping of the AlreadyExists Status.
      'error: failed to create secret secrets "db" already exists',
    );
    // Still there, still encrypted with key2.
    const raw = await (cp.storage as EncryptingStore).raw.get('/registry/secrets/default/db');
    assert.equal(raw?.value.subarray(0, 23).toString(), 'k8s:enc:aescbc:v1:key2:');
  });
});
