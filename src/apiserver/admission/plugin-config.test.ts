import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import assert from '../../testing/assert.js';
import { readAdmissionConfiguration } from './plugin-config.js';

describe('readAdmissionConfiguration (--admission-control-config-file)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'admission-config-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const write = (name: string, text: string) => {
    const file = join(dir, name);
    writeFileSync(file, text);
    return file;
  };

  it('finds inline configurations and files relative to the AdmissionConfiguration', () => {
    write('eventratelimit.yaml', 'kind: Configuration\nlimits: []\n');
    const file = write(
      'admission.yaml',
      [
        'apiVersion: apiserver.config.k8s.io/v1',
        'kind: AdmissionConfiguration',
        'plugins:',
        '- name: PodSecurity',
        '  configuration: {kind: PodSecurityConfiguration}',
        '- name: EventRateLimit',
        '  path: eventratelimit.yaml',
        '- name: Nothing',
      ].join('\n'),
    );
    const configs = readAdmissionConfiguration(file);
    assert.deepEqual(configs.configFor('PodSecurity'), { kind: 'PodSecurityConfiguration' });
    assert.deepEqual(configs.configFor('EventRateLimit'), { kind: 'Configuration', limits: [] });
    assert.equal(configs.configFor('Nothing'), undefined);
    assert.equal(configs.configFor('Other'), undefined);
    assert.equal(readAdmissionConfiguration(undefined).configFor('PodSecurity'), undefined);
  });

  it('accepts the older apiserver.k8s.io/v1alpha1 and refuses other kinds', () => {
    const old = write('old.yaml', 'apiVersion: apiserver.k8s.io/v1alpha1\nkind: AdmissionConfiguration\nplugins: []\n');
    assert.equal(readAdmissionConfiguration(old).configFor('PodSecurity'), undefined);
    const other = write('other.yaml', 'apiVersion: v1\nkind: ConfigMap\n');
    assert.throws(() => readAdmissionConfiguration(other), {
      message: /no kind "ConfigMap" is registered for version "v1"/,
    });
    const missing = join(dir, 'missing.yaml');
    assert.throws(() => readAdmissionConfiguration(missing), {
      message: `unable to read admission control configuration from "${missing}" [open ${missing}: no such file or directory]`,
    });
  });
});
