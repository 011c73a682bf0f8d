import { forbidden, invalid, path } from '../../../api/field-errors.js';
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
      const errs = validateDataKeys(obj, ['data', 'binaryData']);
      if (
        old.immutable === true &&
        (JSON.stringify(obj.data) !== JSON.stringify(old.data) ||
          JSON.stringify(obj.binaryData) !== JSON.stringify(old.binaryData))
      ) {
        errs.push(forbidden(path('data'), 'field is immutable when `immutable` is set'));
      }
      return errs;
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
    validate: (obj) => validateDataKeys(obj, ['data']),
    validateUpdate(obj, old) {
      const errs = validateDataKeys(obj, ['data']);
      if (obj.type !== old.type) errs.push(invalid(path('type'), obj.type, 'field is immutable'));
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
