import { type FieldError, forbidden, invalid, path, required, tooLong } from '../../../api/field-errors.js';
import { goJsonObjectError } from '../../../api/go-json.js';
import { nameIsDNSLabel } from '../../../api/validation/name-validators.js';
import { age } from '../../printers/duration.js';
import { ageColumn, nameColumn } from '../../printers/table.js';
import { isObject, type KubeObject } from '../object.js';
import { type Builtin, builtin, countKeys } from './common.js';
import { configKeyErrors } from './core-container-env.js';
import { column } from './groups-columns.js';

export const namespaces: Builtin = builtin({
  group: '',
  version: 'v1',
  resource: 'namespaces',
  nameValidator: nameIsDNSLabel,
  hasStatus: true,
  hasFinalize: true,
  strategy: {
    tracksGeneration: false,
    default(obj) {
      const spec = isObject(obj.spec) ? obj.spec : {};
      if (!Array.isArray(spec.finalizers)) spec.finalizers = ['kubernetes'];
      obj.spec = spec;
    },
    prepareForCreate(obj) {
      obj.status = { phase: 'Active' };
      // Upstream labels every namespace with its own name.
      obj.metadata.labels = { ...obj.metadata.labels, 'kubernetes.io/metadata.name': obj.metadata.name ?? '' };
    },
    prepareForUpdate(obj, old) {
      obj.metadata.labels = { ...obj.metadata.labels, 'kubernetes.io/metadata.name': obj.metadata.name ?? '' };
      // spec.finalizers change only through the finalize subresource.
      obj.spec = {
        ...(isObject(obj.spec) ? obj.spec : {}),
        finalizers: (old.spec as { finalizers?: unknown })?.finalizers,
      };
    },
    // A namespace with spec.finalizers is emptied by the namespace controller before it goes: until then it is
    // Terminating, and nothing new may be created in it.
    prepareForDelete(obj) {
      if (namespaceFinalizers(obj).length === 0) return false;
      obj.status = { ...(isObject(obj.status) ? obj.status : {}), phase: 'Terminating' };
      return true;
    },
    mayFinishDeletion: (obj) => namespaceFinalizers(obj).length === 0,
  },
  printer: {
    columns: [nameColumn, column('Status', 'The phase of the namespace.'), ageColumn],
    cells: (o, now) => [
      o.metadata.name,
      (o.status as { phase?: string } | undefined)?.phase ?? '',
      age(o.metadata.creationTimestamp, now),
    ],
  },
});

function namespaceFinalizers(obj: KubeObject): unknown[] {
  const finalizers = (obj.spec as { finalizers?: unknown } | undefined)?.finalizers;
  return Array.isArray(finalizers) ? finalizers : [];
}

function validateDataKeys(obj: KubeObject, fields: string[]) {
  const errs = [];
  const seen = new Set<string>();
  for (const field of fields) {
    const data = obj[field];
    if (data === undefined || data === null) continue;
    if (!isObject(data)) continue;
    for (const key of Object.keys(data)) {
      for (const msg of configKeyErrors(key)) errs.push(invalid(path(field).key(key), key, msg));
      if (seen.has(key)) errs.push(invalid(path(field).key(key), key, 'duplicate of key present in binaryData'));
      seen.add(key);
    }
  }
  return errs;
}

export const configmaps: Builtin = builtin({
  group: '',
  version: 'v1',
  resource: 'configmaps',
  strategy: {
    tracksGeneration: false,
    validate: (obj) => validateDataKeys(obj, ['data', 'binaryData']),
    validateUpdate(obj, old) {
      return [...immutableErrors(obj, old, ['data', 'binaryData']), ...validateDataKeys(obj, ['data', 'binaryData'])];
    },
  },
  printer: {
    columns: [nameColumn, column('Data', 'How many keys the ConfigMap holds.', { type: 'integer' }), ageColumn],
    cells: (o, now) => [
      o.metadata.name,
      countKeys(o.data) + countKeys(o.binaryData),
      age(o.metadata.creationTimestamp, now),
    ],
  },
});

const IMMUTABLE_SET = 'field is immutable when `immutable` is set';

/**
 * Upstream's checks of an update to a ConfigMap or Secret made immutable: it stays immutable, and each of its data
 * fields stays as it was (stringData is data by then).
 */
function immutableErrors(obj: KubeObject, old: KubeObject, fields: string[]): FieldError[] {
  if (old.immutable !== true) return [];
  const errs: FieldError[] = [];
  if (obj.immutable !== true) errs.push(forbidden(path('immutable'), IMMUTABLE_SET));
  for (const field of fields) {
    if (!sameMap(obj[field], old[field])) errs.push(forbidden(path(field), IMMUTABLE_SET));
  }
  return errs;
}

/** Whether two data maps hold the same keys and values (an empty map counts as none). */
function sameMap(a: unknown, b: unknown): boolean {
  const x = isObject(a) ? a : {};
  const y = isObject(b) ? b : {};
  const keys = Object.keys(x);
  if (keys.length !== Object.keys(y).length) return false;
  return keys.every((k) => Object.hasOwn(y, k) && x[k] === y[k]);
}

/** Upstream's core.MaxSecretSize: the most bytes a Secret's data may hold in all. */
const MAX_SECRET_BYTES = 1024 * 1024;

/** How many bytes a base64 data value holds, counted without decoding it (the value is checked elsewhere). */
function decodedLength(value: unknown): number {
  return typeof value === 'string' ? Buffer.byteLength(value, 'base64') : 0;
}

/** A data value's bytes, when present. */
function dataBytes(data: Record<string, unknown>, key: string): Buffer | undefined {
  const value = data[key];
  return typeof value === 'string' ? Buffer.from(value, 'base64') : undefined;
}

/**
 * Upstream's ValidateSecret beyond the keys: the total size, and what each well-known type must carry — a service
 * account token names its account, a dockercfg or dockerconfigjson holds a JSON object, basic-auth a username or a
 * password, ssh-auth a private key, tls a certificate and a key.
 */
function secretTypeErrors(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const data = isObject(obj.data) ? obj.data : {};
  let total = 0;
  for (const value of Object.values(data)) total += decodedLength(value);
  if (total > MAX_SECRET_BYTES) errs.push(tooLong(path('data'), MAX_SECRET_BYTES));
  const key = (k: string) => path('data').key(k);
  const has = (k: string) => Object.hasOwn(data, k);
  switch (obj.type) {
    case 'kubernetes.io/service-account-token':
      if (!obj.metadata.annotations?.['kubernetes.io/service-account.name']) {
        errs.push(required(path('metadata', 'annotations').key('kubernetes.io/service-account.name')));
      }
      break;
    case 'kubernetes.io/dockercfg':
    case 'kubernetes.io/dockerconfigjson': {
      const k = obj.type === 'kubernetes.io/dockercfg' ? '.dockercfg' : '.dockerconfigjson';
      const bytes = dataBytes(data, k);
      if (!has(k) || bytes === undefined) {
        errs.push(required(key(k)));
        break;
      }
      const problem = goJsonObjectError(bytes.toString('utf8'));
      if (problem) errs.push(invalid(key(k), '<secret contents redacted>', problem));
      break;
    }
    case 'kubernetes.io/basic-auth':
      if (!has('username') && !has('password')) errs.push(required(key('username')), required(key('password')));
      break;
    case 'kubernetes.io/ssh-auth':
      if (!dataBytes(data, 'ssh-privatekey')?.length) errs.push(required(key('ssh-privatekey')));
      break;
    case 'kubernetes.io/tls':
      if (!has('tls.crt')) errs.push(required(key('tls.crt')));
      if (!has('tls.key')) errs.push(required(key('tls.key')));
      break;
  }
  return errs;
}

/** Secrets take stringData on write and keep it as base64 data, as upstream's secret strategy does. */
function mergeStringData(obj: KubeObject): void {
  if (isObject(obj.stringData)) {
    const data = isObject(obj.data) ? { ...obj.data } : {};
    for (const [k, v] of Object.entries(obj.stringData)) data[k] = Buffer.from(String(v), 'utf8').toString('base64');
    obj.data = data;
  }
  delete obj.stringData;
}

export const secrets: Builtin = builtin({
  group: '',
  version: 'v1',
  resource: 'secrets',
  strategy: {
    tracksGeneration: false,
    default(obj) {
      if (!obj.type) obj.type = 'Opaque';
      mergeStringData(obj);
    },
    validate: (obj) => [...validateDataKeys(obj, ['data']), ...secretTypeErrors(obj)],
    validateUpdate(obj, old) {
      const errs: FieldError[] = [];
      if (obj.type !== old.type) errs.push(invalid(path('type'), obj.type, 'field is immutable'));
      errs.push(...immutableErrors(obj, old, ['data']), ...validateDataKeys(obj, ['data']), ...secretTypeErrors(obj));
      return errs;
    },
  },
  printer: {
    columns: [
      nameColumn,
      column('Type', 'The type of the secret.'),
      column('Data', 'How many keys the Secret holds.', { type: 'integer' }),
      ageColumn,
    ],
    cells: (o, now) => [o.metadata.name, o.type ?? '', countKeys(o.data), age(o.metadata.creationTimestamp, now)],
  },
});

export const serviceaccounts: Builtin = builtin({
  group: '',
  version: 'v1',
  resource: 'serviceaccounts',
  strategy: { tracksGeneration: false, returnDeletedObject: true },
  printer: {
    columns: [
      nameColumn,
      column('Secrets', 'How many secrets the service account references.', { type: 'integer' }),
      ageColumn,
    ],
    cells: (o, now) => [
      o.metadata.name,
      Array.isArray(o.secrets) ? o.secrets.length : 0,
      age(o.metadata.creationTimestamp, now),
    ],
  },
});
