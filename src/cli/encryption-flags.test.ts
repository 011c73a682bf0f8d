import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import assert from '../testing/assert.js';
import { WHEELHOUSE_BIN } from '../testing/wheelhouse-process.js';
import { encryptionOptionsOf } from './encryption-flags.js';

const KEY32 = Buffer.alloc(32, 7).toString('base64');
const KEY16 = Buffer.alloc(16, 7).toString('base64');

describe('--encryption-provider-config', () => {
  const dir = mkdtempSync(join(tmpdir(), 'encryption-flags-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  let files = 0;
  /** Writes the text to a fresh file and answers its path. */
  const file = (text: string) => {
    const p = join(dir, `config-${++files}.yaml`);
    writeFileSync(p, text);
    return p;
  };
  const load = (text: string) => encryptionOptionsOf({ 'encryption-provider-config': file(text) });
  /** The message loading the text fails with; {path} stands for the file's path. */
  const failure = (text: string) => {
    const p = file(text);
    try {
      encryptionOptionsOf({ 'encryption-provider-config': p });
    } catch (err) {
      return (err as Error).message.split(p).join('{path}');
    }
    assert.fail('the configuration was accepted');
  };
  const config = (resources: string) =>
    `apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n${resources}`;

  it('is off without the flag or with an empty value', () => {
    assert.deepEqual(encryptionOptionsOf({}), {});
    assert.deepEqual(encryptionOptionsOf({ 'encryption-provider-config': '' }), {});
  });

  it('reads a YAML EncryptionConfiguration into rules whose first provider writes', () => {
    const { encryptionProviderConfig: rules } = load(
      config(`- resources: [secrets, configmaps]
  providers:
  - aesgcm:
      keys:
      - {name: new, secret: ${KEY16}}
  - aescbc:
      keys:
      - {name: old, secret: ${KEY32}}
  - identity: {}
- resources: ['*.apps']
  providers:
  - secretbox:
      keys:
      - name: box
        secret: ${KEY32}
`),
    );
    assert.deepEqual(
      rules?.map((r) => r.resources),
      [['secrets'], ['configmaps'], ['*.apps']],
    );
    const written = rules?.[0]?.chain.toStorage(Buffer.from('{}'), '/registry/secrets/default/s');
    assert.equal(written?.subarray(0, 'k8s:enc:aesgcm:v1:new:'.length).toString(), 'k8s:enc:aesgcm:v1:new:');
    assert.equal(rules?.[0]?.chain.fromStorage(written as Buffer, '/registry/secrets/default/s').toString(), '{}');
    const boxed = rules?.[2]?.chain.toStorage(Buffer.from('{}'), '/registry/deployments/default/d');
    assert.equal(boxed?.subarray(0, 'k8s:enc:secretbox:v1:box:'.length).toString(), 'k8s:enc:secretbox:v1:box:');
  });

  it('reads JSON too, and the legacy kind EncryptionConfig of v1', () => {
    const json = load(
      JSON.stringify({
        apiVersion: 'apiserver.config.k8s.io/v1',
        kind: 'EncryptionConfiguration',
        resources: [{ resources: ['secrets'], providers: [{ identity: {} }] }],
      }),
    );
    assert.equal(json.encryptionProviderConfig?.length, 1);
    const legacy = load(
      'apiVersion: v1\nkind: EncryptionConfig\nresources:\n- resources: [secrets]\n  providers: [{identity: {}}]\n',
    );
    assert.deepEqual(
      legacy.encryptionProviderConfig?.map((r) => r.resources),
      [['secrets']],
    );
  });

  it('refuses a missing or empty file', () => {
    const missing = join(dir, 'nope.yaml');
    assert.throws(() => encryptionOptionsOf({ 'encryption-provider-config': missing }), {
      message: `error while parsing file: error while loading file: error reading encryption provider configuration file "${missing}": open ${missing}: no such file or directory`,
    });
    assert.equal(
      failure(''),
      'error while parsing file: error while loading file: encryption provider configuration file "{path}" is empty',
    );
    const directory = join(dir, 'a-directory');
    mkdirSync(directory);
    assert.throws(() => encryptionOptionsOf({ 'encryption-provider-config': directory }), {
      message: `error while parsing file: error while loading file: error reading encryption provider configuration file "${directory}": read ${directory}: is a directory`,
    });
  });

  it('refuses what is not an EncryptionConfiguration, as the decoder words it', () => {
    const noKind = 'apiVersion: apiserver.config.k8s.io/v1\nresources: []\n';
    assert.equal(
      failure(noKind),
      `error while parsing file: error decoding encryption provider configuration file "{path}": Object 'Kind' is missing in '${noKind}'`,
    );
    const noVersion = 'kind: EncryptionConfiguration\nresources: []\n';
    assert.equal(
      failure(noVersion),
      `error while parsing file: error decoding encryption provider configuration file "{path}": Object 'apiVersion' is missing in '${noVersion}'`,
    );
    assert.match(
      failure('apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: []\n'),
      /^error while parsing file: error decoding encryption provider configuration file "\{path\}": no kind "Policy" is registered for version "audit.k8s.io\/v1" in scheme "/,
    );
    assert.equal(
      failure('apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins: []\n'),
      'error while parsing file: got unexpected config type: apiserver.config.k8s.io/v1, Kind=AdmissionConfiguration',
    );
    assert.match(
      failure(
        'apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n- resources: [secrets\n',
      ),
      /^error while parsing file: error decoding encryption provider configuration file "\{path\}": error converting YAML to JSON: yaml: line \d+: /,
    );
  });

  it('refuses an unknown provider or field with the strict decoder’s message', () => {
    assert.equal(
      failure(
        config(`- resources: [secrets]
  providers:
  - aesctr:
      keys: [{name: k, secret: ${KEY32}}]
`),
      ),
      'error while parsing file: error decoding encryption provider configuration file "{path}": strict decoding error: unknown field "resources[0].providers[0].aesctr"',
    );
    assert.equal(
      failure(
        config(`- resources: [secrets]
  providers:
  - identity: {}
  - kms: {name: k, endpoint: 'unix:///kms.sock', pandas: 3}
metadata: {name: x}
`),
      ),
      'error while parsing file: error decoding encryption provider configuration file "{path}": strict decoding error: unknown field "resources[0].providers[1].kms.pandas", unknown field "metadata"',
    );
    assert.equal(
      failure(config('- resources: [secrets]\n  providers: [{identity: {}}]\n  resources: [configmaps]\n')),
      'error while parsing file: error decoding encryption provider configuration file "{path}": strict decoding error: yaml: unmarshal errors:\n  line 6: key "resources" already set in map',
    );
  });

  it('refuses values of the wrong type with Go’s decoding error', () => {
    assert.equal(
      failure(config('- resources: secrets\n  providers: [{identity: {}}]\n')),
      'error while parsing file: error decoding encryption provider configuration file "{path}": json: cannot unmarshal string into Go struct field ResourceConfiguration.resources.resources of type []string',
    );
    assert.equal(
      failure(config('- resources: [secrets]\n  providers: [{aescbc: {keys: [{name: k, secret: 12345}]}}]\n')),
      'error while parsing file: error decoding encryption provider configuration file "{path}": json: cannot unmarshal number into Go struct field Key.resources.providers.aescbc.keys.secret of type string',
    );
  });

  it('refuses bad keys with upstream’s validation messages, all of them', () => {
    assert.equal(
      failure(
        config(
          `- resources: [secrets]\n  providers: [{aescbc: {keys: [{name: k, secret: ${Buffer.alloc(8).toString('base64')}}]}}]\n`,
        ),
      ),
      'error while parsing file: resources[0].providers[0].aescbc.keys[0].secret: Invalid value: "REDACTED": secret is not of the expected length, got 8, expected one of [16 24 32]',
    );
    assert.equal(
      failure(
        config(`- resources: [secrets]
  providers:
  - secretbox: {keys: [{name: k, secret: ${KEY16}}]}
  - aesgcm: {keys: [{name: '', secret: 'not base64!'}, {name: k2}]}
  - aescbc: {keys: []}
`),
      ),
      'error while parsing file: [resources[0].providers[0].secretbox.keys[0].secret: Invalid value: "REDACTED": secret is not of the expected length, got 16, expected one of [32], ' +
        'resources[0].providers[1].aesgcm.keys[0].name: Required value: name is a mandatory field for a key, ' +
        'resources[0].providers[1].aesgcm.keys[0].secret: Invalid value: "REDACTED": secrets must be base64 encoded, ' +
        'resources[0].providers[1].aesgcm.keys[1].secret: Required value: secret is a mandatory field for a key, ' +
        'resources[0].providers[2].aescbc.keys: Required value: at least one keys is required]',
    );
  });

  it('refuses providers that are none or several, and empty lists', () => {
    assert.equal(
      failure(config('- resources: [secrets]\n  providers:\n  - {}\n')),
      'error while parsing file: resources[0].providers[0]: Invalid value: apiserver.ProviderConfiguration{AESGCM:(*apiserver.AESConfiguration)(nil), AESCBC:(*apiserver.AESConfiguration)(nil), Secretbox:(*apiserver.SecretboxConfiguration)(nil), Identity:(*apiserver.IdentityConfiguration)(nil), KMS:(*apiserver.KMSConfiguration)(nil)}: provider does not contain any of the expected providers: KMS, AESGCM, AESCBC, Secretbox, Identity',
    );
    assert.match(
      failure(
        config(
          `- resources: [secrets]\n  providers:\n  - {identity: {}, aescbc: {keys: [{name: k, secret: ${KEY32}}]}}\n`,
        ),
      ),
      /^error while parsing file: resources\[0\]\.providers\[0\]: Invalid value: apiserver\.ProviderConfiguration\{.*\}: more than one provider specified in a single element, should split into different list elements$/,
    );
    assert.equal(
      failure('apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources: []\n'),
      'error while parsing file: resources: Required value: at least one resources is required',
    );
    assert.equal(
      failure(config('- resources: []\n  providers: []\n')),
      'error while parsing file: [resources[0].resources: Required value: at least one resources[0].resources is required, resources[0].providers: Required value: at least one resources[0].providers is required]',
    );
  });

  it('refuses resource names that cannot be encrypted, overlaps and masking', () => {
    assert.equal(
      failure(
        config(
          "- resources: [Secrets, '*', serviceipallocations, events.events.k8s.io, deployments.extensions, 'pods.*']\n  providers: [{identity: {}}]\n",
        ),
      ),
      // '*' is the core group's every resource: it overlaps Secrets and serviceipallocations.
      'error while parsing file: [resources[0].resources: Invalid value: []string{"Secrets", "*", "serviceipallocations", "events.events.k8s.io", "deployments.extensions", "pods.*"}: ' +
        "using overlapping resources such as 'secrets' and '*.' in the same resource list is not allowed as they will be masked, " +
        'resources[0].resources[0]: Invalid value: "Secrets": resource name should not contain capital letters, ' +
        `resources[0].resources[1]: Invalid value: "*": use '*.' to encrypt all the resources from core API group or *.* to encrypt all resources, ` +
        'resources[0].resources[2]: Invalid value: "serviceipallocations": resources which do not have REST API/s cannot be encrypted, ' +
        `resources[0].resources[3]: Invalid value: "events.events.k8s.io": '*.events.k8s.io' objects are stored using the 'events' API group in etcd. Use 'events' instead in the config file, ` +
        `resources[0].resources[4]: Invalid value: "deployments.extensions": 'extensions' group has been removed and cannot be used for encryption, ` +
        'resources[0].resources[5]: Invalid value: "pods.*": encrypting the same resource across groups is not supported]',
    );
    assert.equal(
      failure(config("- resources: [secrets, '*.', secrets]\n  providers: [{identity: {}}]\n")),
      'error while parsing file: [resources[0].resources: Invalid value: []string{"secrets", "*.", "secrets"}: the same resource cannot be specified multiple times, ' +
        `resources[0].resources: Invalid value: []string{"secrets", "*.", "secrets"}: using overlapping resources such as 'secrets' and '*.' in the same resource list is not allowed as they will be masked]`,
    );
    assert.equal(
      failure(
        config(
          "- resources: ['*.']\n  providers: [{identity: {}}]\n- resources: [secrets]\n  providers: [{identity: {}}]\n",
        ),
      ),
      'error while building transformers: resource "secrets" is masked by earlier rule "*."',
    );
    assert.equal(
      failure(
        config(
          "- resources: ['*.*']\n  providers: [{identity: {}}]\n- resources: ['*.apps']\n  providers: [{identity: {}}]\n",
        ),
      ),
      'error while building transformers: resource "*.apps" is masked by earlier rule "*.*"',
    );
  });

  it('checks KMS providers as upstream, then refuses them: wheelhouse has no KMS', () => {
    assert.equal(
      failure(
        config(
          "- resources: [secrets]\n  providers:\n  - kms: {apiVersion: v2, name: 'a:b', endpoint: 'tcp://kms:1', cachesize: 10, timeout: 0s}\n",
        ),
      ),
      'error while parsing file: [resources[0].providers[0].kms.name: Invalid value: "a:b": invalid KMS provider name a:b, must not contain \':\', ' +
        'resources[0].providers[0].kms.timeout: Invalid value: 0s: timeout should be a positive value, ' +
        'resources[0].providers[0].kms.endpoint: Invalid value: "tcp://kms:1": unsupported scheme "tcp" for KMS provider, only unix is supported, ' +
        'resources[0].providers[0].kms.cachesize: Invalid value: 10: cachesize is not supported in v2]',
    );
    assert.equal(
      failure(
        config(
          "- resources: [secrets]\n  providers:\n  - kms: {apiVersion: v2, name: vault, endpoint: 'unix:///kms.sock'}\n",
        ),
      ),
      'error while building transformers: could not configure KMS plugin "vault": KMS providers are not supported by wheelhouse',
    );
  });

  it('wheelhouse apiserver stops before it starts, with the message and exit code 1', () => {
    const p = file(config('- resources: [secrets]\n  providers:\n  - {}\n'));
    const res = spawnSync(
      process.execPath,
      [
        WHEELHOUSE_BIN,
        'apiserver',
        '--storage',
        'memory',
        '--data-dir',
        join(dir, 'data'),
        '--secure-port',
        '0',
        '--encryption-provider-config',
        p,
      ],
      { encoding: 'utf8', timeout: 60_000 },
    );
    assert.equal(res.status, 1, res.stderr);
    assert.match(
      res.stderr,
      /^wheelhouse: error while parsing file: resources\[0\]\.providers\[0\]: Invalid value: apiserver\.ProviderConfiguration\{/,
    );
    assert.doesNotMatch(res.stdout, /ready at/);
  });
});
