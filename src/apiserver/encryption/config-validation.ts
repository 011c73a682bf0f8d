/**
 * Upstream's ValidateEncryptionConfiguration (apiserver's validation_encryption.go), field error for field error and
 * in its order: the resource lists (overlaps, duplicates, names that cannot be encrypted), one provider per list
 * element, the keys of aesgcm/aescbc/secretbox (base64, lengths) and the KMS settings. The configuration is accepted
 * when the list is empty.
 */
import { type FieldError, type FieldPath, invalid, path, required } from '../../api/field-errors.js';
import { formatGoDuration } from '../../api/protobuf/go-time.js';
import { GoValue, goStringSlice } from '../../api/validation/go-format.js';
import type { EncryptionConfigurationDoc, KeyConfig, KmsConfig, ProviderConfig } from './config-file.js';

const AES_KEY_SIZES = [16, 24, 32];
const SECRETBOX_KEY_SIZES = [32];

/** schema.ParseGroupResource: `resource.group`, split at the first dot. */
export function parseGroupResource(s: string): { group: string; resource: string } {
  const dot = s.indexOf('.');
  return dot < 0 ? { group: '', resource: s } : { group: s.slice(dot + 1), resource: s.slice(0, dot) };
}

const atLeastOne = (what: string) => `at least one ${what} is required`;

function validateResourceOverlap(resources: string[], at: FieldPath): FieldError[] {
  if (resources.length < 2) return [];
  const grs = resources.map(parseGroupResource);
  let overlap = false;
  let duplicate = false;
  grs.forEach((a, i) => {
    grs.forEach((b, j) => {
      if (i === j) return;
      if (a.group === b.group && a.resource === b.resource && !duplicate) {
        duplicate = true;
        return;
      }
      if (overlap) return;
      if (a.group === '*' && a.resource === '*') overlap = true;
      else if (a.group === b.group && (a.resource === '*' || b.resource === '*')) overlap = true;
    });
  });
  const errs: FieldError[] = [];
  if (duplicate)
    errs.push(invalid(at, goStringSlice(resources), 'the same resource cannot be specified multiple times'));
  if (overlap) {
    errs.push(
      invalid(
        at,
        goStringSlice(resources),
        "using overlapping resources such as 'secrets' and '*.' in the same resource list is not allowed as they will be masked",
      ),
    );
  }
  return errs;
}

function validateResourceName(res: string, at: FieldPath): FieldError | undefined {
  if (res.toLowerCase() !== res) return invalid(at, res, 'resource name should not contain capital letters');
  if (res === '*') {
    return invalid(
      at,
      res,
      "use '*.' to encrypt all the resources from core API group or *.* to encrypt all resources",
    );
  }
  if (res === 'apiserveripinfo' || res === 'serviceipallocations' || res === 'servicenodeportallocations') {
    return invalid(at, res, 'resources which do not have REST API/s cannot be encrypted');
  }
  const gr = parseGroupResource(res);
  if (gr.group === 'events.k8s.io') {
    return invalid(
      at,
      res,
      "'*.events.k8s.io' objects are stored using the 'events' API group in etcd. Use 'events' instead in the config file",
    );
  }
  if (gr.group === 'extensions') {
    return invalid(at, res, "'extensions' group has been removed and cannot be used for encryption");
  }
  if (gr.group === '*' && gr.resource !== '*') {
    return invalid(at, res, 'encrypting the same resource across groups is not supported');
  }
  return undefined;
}

/** `%#v` of the internal ProviderConfiguration; a set pointer prints its address upstream, elided here. */
function providerValue(p: ProviderConfig): GoValue {
  const field = (name: string, type: string, set: boolean) => `${name}:(*apiserver.${type})(${set ? '0x...' : 'nil'})`;
  return new GoValue(
    `apiserver.ProviderConfiguration{${[
      field('AESGCM', 'AESConfiguration', p.aesgcm != null),
      field('AESCBC', 'AESConfiguration', p.aescbc != null),
      field('Secretbox', 'SecretboxConfiguration', p.secretbox != null),
      field('Identity', 'IdentityConfiguration', p.identity != null),
      field('KMS', 'KMSConfiguration', p.kms != null),
    ].join(', ')}}`,
  );
}

function validateSingleProvider(p: ProviderConfig, at: FieldPath): FieldError[] {
  const found = [p.kms, p.aesgcm, p.aescbc, p.secretbox, p.identity].filter((x) => x != null).length;
  if (found === 0) {
    return [
      invalid(
        at,
        providerValue(p),
        'provider does not contain any of the expected providers: KMS, AESGCM, AESCBC, Secretbox, Identity',
      ),
    ];
  }
  if (found > 1) {
    return [
      invalid(
        at,
        providerValue(p),
        'more than one provider specified in a single element, should split into different list elements',
      ),
    ];
  }
  return [];
}

/** Go's base64.StdEncoding.DecodeString: padded standard alphabet (line breaks ignored), or undefined. */
export function decodeStdBase64(s: string): Buffer | undefined {
  const text = s.replace(/[\r\n]/g, '');
  if (text.length % 4 !== 0 || !/^[A-Za-z0-9+/]*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(text))
    return undefined;
  return Buffer.from(text, 'base64');
}

function validateKeys(keys: KeyConfig[] | null | undefined, at: FieldPath, sizes: number[]): FieldError[] {
  if (!keys || keys.length === 0) return [required(at, atLeastOne('keys'))];
  const errs: FieldError[] = [];
  keys.forEach((key, i) => {
    const k = at.index(i);
    if (!key?.name) errs.push(required(k.child('name'), 'name is a mandatory field for a key'));
    if (!key?.secret) {
      errs.push(required(k.child('secret'), 'secret is a mandatory field for a key'));
      return;
    }
    const secret = decodeStdBase64(key.secret);
    if (!secret) {
      errs.push(invalid(k.child('secret'), 'REDACTED', 'secrets must be base64 encoded'));
      return;
    }
    if (!sizes.includes(secret.length)) {
      errs.push(
        invalid(
          k.child('secret'),
          'REDACTED',
          `secret is not of the expected length, got ${secret.length}, expected one of [${sizes.join(' ')}]`,
        ),
      );
    }
  });
  return errs;
}

function validateKms(c: KmsConfig, at: FieldPath, names: Set<string>): FieldError[] {
  const errs: FieldError[] = [];
  const name = c.name ?? '';
  const v1 = c.apiVersion === 'v1';
  if (name === '') errs.push(required(at.child('name'), 'name is a mandatory field for a provider'));
  if (!v1 && name.includes(':')) {
    errs.push(invalid(at.child('name'), name, `invalid KMS provider name ${name}, must not contain ':'`));
  }
  if (!v1 && names.has(name)) {
    errs.push(invalid(at.child('name'), name, `duplicate KMS provider name ${name}, names must be unique`));
  }
  const timeoutMs = c.timeoutMs ?? 0;
  if (timeoutMs <= 0) {
    // metav1.Duration prints as Go's time.Duration.
    const text = formatGoDuration(BigInt(Math.round(timeoutMs * 1e6)));
    errs.push(invalid(at.child('timeout'), new GoValue(text), 'timeout should be a positive value'));
  }
  const endpoint = c.endpoint ?? '';
  if (endpoint === '') {
    errs.push(invalid(at.child('endpoint'), '', 'endpoint is a mandatory field for a kms'));
  } else {
    const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(endpoint)?.[1]?.toLowerCase() ?? '';
    if (scheme !== 'unix') {
      errs.push(
        invalid(
          at.child('endpoint'),
          endpoint,
          `unsupported scheme "${scheme}" for KMS provider, only unix is supported`,
        ),
      );
    }
  }
  if (!v1 && c.cachesize != null) {
    errs.push(invalid(at.child('cachesize'), c.cachesize, 'cachesize is not supported in v2'));
  }
  if (v1 && c.cachesize === 0) {
    errs.push(invalid(at.child('cachesize'), 0, 'cachesize should be a positive value, or negative to disable'));
  }
  if (c.apiVersion !== 'v1' && c.apiVersion !== 'v2') {
    errs.push(
      invalid(
        at.child('apiVersion'),
        c.apiVersion ?? '',
        'unsupported apiVersion apiVersion for KMS provider, only v1 and v2 are supported',
      ),
    );
  }
  return errs;
}

/** The configuration's field errors, in upstream's order; none when it is valid. */
export function validateEncryptionConfiguration(c: EncryptionConfigurationDoc): FieldError[] {
  const root = path('resources');
  const entries = c.resources ?? [];
  if (entries.length === 0) return [required(root, atLeastOne(root.toString()))];
  const errs: FieldError[] = [];
  const kmsNames = new Set<string>();
  entries.forEach((conf, i) => {
    const r = root.index(i).child('resources');
    const p = root.index(i).child('providers');
    const resources = conf?.resources ?? [];
    if (resources.length === 0) errs.push(required(r, atLeastOne(r.toString())));
    errs.push(...validateResourceOverlap(resources, r));
    resources.forEach((res, j) => {
      const err = validateResourceName(res, r.index(j));
      if (err) errs.push(err);
    });
    const providers = conf?.providers ?? [];
    if (providers.length === 0) errs.push(required(p, atLeastOne(p.toString())));
    providers.forEach((provider, j) => {
      const at = p.index(j);
      const pc = provider ?? {};
      errs.push(...validateSingleProvider(pc, at));
      if (pc.kms != null) {
        errs.push(...validateKms(pc.kms, at.child('kms'), kmsNames));
        kmsNames.add(pc.kms.name ?? '');
      } else if (pc.aesgcm != null)
        errs.push(...validateKeys(pc.aesgcm.keys, at.child('aesgcm', 'keys'), AES_KEY_SIZES));
      else if (pc.aescbc != null) errs.push(...validateKeys(pc.aescbc.keys, at.child('aescbc', 'keys'), AES_KEY_SIZES));
      else if (pc.secretbox != null) {
        errs.push(...validateKeys(pc.secretbox.keys, at.child('secretbox', 'keys'), SECRETBOX_KEY_SIZES));
      }
    });
  });
  return errs;
}
