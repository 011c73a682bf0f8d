import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { DEFAULT_CONTROLLER_MANAGER_OPTIONS } from '../controllers/options.js';
import assert from '../testing/assert.js';
import { applyCertificatesFlags } from './certificates-flags.js';

describe('certificate flags of the controller manager', () => {
  const dir = mkdtempSync(join(tmpdir(), 'wheelhouse-cert-flags-'));
  writeFileSync(join(dir, 'ca.crt'), 'CERT');
  writeFileSync(join(dir, 'ca.key'), 'KEY');
  after(() => rmSync(dir, { recursive: true, force: true }));
  const files = { 'cluster-signing-cert-file': join(dir, 'ca.crt'), 'cluster-signing-key-file': join(dir, 'ca.key') };

  it('gives every signer the --cluster-signing-cert-file pair, and reads the duration', async () => {
    const options = { ...DEFAULT_CONTROLLER_MANAGER_OPTIONS };
    await applyCertificatesFlags({ ...files, 'cluster-signing-duration': '24h' }, options);
    assert.equal(options.clusterSigningDurationMs, 24 * 3600_000);
    assert.deepEqual(options.clusterSigning?.kubeletServing, { certPem: 'CERT', keyPem: 'KEY' });
    assert.deepEqual(options.clusterSigning?.legacyUnknown, { certPem: 'CERT', keyPem: 'KEY' });
  });

  it('uses only the per-signer pairs when they are given, and refuses mixing them with the general pair', async () => {
    const options = { ...DEFAULT_CONTROLLER_MANAGER_OPTIONS };
    const kubelet = {
      'cluster-signing-kubelet-client-cert-file': join(dir, 'ca.crt'),
      'cluster-signing-kubelet-client-key-file': join(dir, 'ca.key'),
    };
    await applyCertificatesFlags(kubelet, options);
    assert.deepEqual(Object.keys(options.clusterSigning ?? {}), ['kubeletClient']);
    await assert.rejects(
      applyCertificatesFlags({ ...files, ...kubelet }, { ...DEFAULT_CONTROLLER_MANAGER_OPTIONS }),
      /cannot specify --cluster-signing-\{cert,key\}-file and other --cluster-signing-\*-file flags at the same time/,
    );
    await assert.rejects(
      applyCertificatesFlags({ 'cluster-signing-duration': 'forever' }, { ...DEFAULT_CONTROLLER_MANAGER_OPTIONS }),
      /invalid argument "forever" for "--cluster-signing-duration" flag/,
    );
  });
});
