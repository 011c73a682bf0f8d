/** Validation of a container's env and envFrom, with upstream's messages (relaxed env-var names, as v1.33). */
import { type FieldError, type FieldPath, invalid, notSupported, required } from '../../../api/field-errors.js';
import { nameIsDNSSubdomain } from '../../../api/validation/name-validators.js';
import { maxLenError, regexError } from '../../../api/validation/names.js';
import { qualifiedName } from './core-field-checks.js';
import { type Rec, rec, recs, str } from './core-json.js';

const ENV_NAME_MSG = "a valid environment variable name must consist only of printable ASCII characters other than '='";

/** IsRelaxedEnvVarName. */
export function envVarNameErrors(name: string): string[] {
  if (name.length === 0) return ['environment variable name must be non-empty'];
  for (const ch of name) {
    const cp = ch.codePointAt(0) ?? 0;
    if (cp < 0x20 || cp > 0x7e || ch === '=') return [ENV_NAME_MSG];
  }
  return [];
}

/** IsConfigMapKey: the key of a ConfigMap or Secret. */
export function configKeyErrors(key: string): string[] {
  const errs: string[] = [];
  if (key.length > 253) errs.push(maxLenError(253));
  if (!/^[-._a-zA-Z0-9]+$/.test(key)) {
    errs.push(
      regexError(
        "a valid config key must consist of alphanumeric characters, '-', '_' or '.'",
        '[-._a-zA-Z0-9]+',
        'key.name',
        'KEY_NAME',
        'key-name',
      ),
    );
  }
  if (key === '.') errs.push("must not be '.'");
  else if (key === '..') errs.push("must not be '..'");
  else if (key.startsWith('..')) errs.push("must not start with '..'");
  return errs;
}

const ENV_FIELD_PATHS = [
  'metadata.name',
  'metadata.namespace',
  'metadata.uid',
  'spec.nodeName',
  'spec.serviceAccountName',
  'status.hostIP',
  'status.hostIPs',
  'status.podIP',
  'status.podIPs',
];
/** Field paths the downward API converts at all; others are refused by the conversion. */
const CONVERTIBLE = new Set([
  ...ENV_FIELD_PATHS,
  'metadata.annotations',
  'metadata.labels',
  'spec.restartPolicy',
  'spec.schedulerName',
  'status.phase',
]);

/** A downward-API field reference; `allowed` lists the paths the place accepts. */
export function validateFieldRef(ref: Rec, allowed: readonly string[], at: FieldPath): FieldError[] {
  if (!str(ref.apiVersion)) return [required(at.child('apiVersion'))];
  const fieldPath = str(ref.fieldPath);
  if (!fieldPath) return [required(at.child('fieldPath'))];
  const subscripted = /^(metadata\.(?:annotations|labels))\['(.*)'\]$/.exec(fieldPath);
  if (subscripted) {
    const key = subscripted[2] ?? '';
    return qualifiedName(subscripted[1] === 'metadata.annotations' ? key.toLowerCase() : key, at);
  }
  if (!CONVERTIBLE.has(fieldPath)) {
    return [
      invalid(at.child('fieldPath'), fieldPath, `error converting fieldPath: field label not supported: ${fieldPath}`),
    ];
  }
  if (!allowed.includes(fieldPath)) return [notSupported(at.child('fieldPath'), fieldPath, allowed)];
  return [];
}

function keySelector(s: Rec, at: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const name = str(s.name);
  for (const msg of nameIsDNSSubdomain(name, false)) errs.push(invalid(at.child('name'), name, msg));
  const key = str(s.key);
  if (!key) errs.push(required(at.child('key')));
  else for (const msg of configKeyErrors(key)) errs.push(invalid(at.child('key'), key, msg));
  return errs;
}

function valueFrom(env: Rec, at: FieldPath): FieldError[] {
  if (env.valueFrom === undefined || env.valueFrom === null) return [];
  const from = rec(env.valueFrom);
  const errs: FieldError[] = [];
  let sources = 0;
  if (from.fieldRef) {
    sources++;
    errs.push(...validateFieldRef(rec(from.fieldRef), ENV_FIELD_PATHS, at.child('fieldRef')));
  }
  if (from.resourceFieldRef) {
    sources++;
    if (!str(rec(from.resourceFieldRef).resource)) errs.push(required(at.child('resourceFieldRef').child('resource')));
  }
  if (from.configMapKeyRef) {
    sources++;
    errs.push(...keySelector(rec(from.configMapKeyRef), at.child('configMapKeyRef')));
  }
  if (from.secretKeyRef) {
    sources++;
    errs.push(...keySelector(rec(from.secretKeyRef), at.child('secretKeyRef')));
  }
  if (sources === 0) {
    errs.push(
      invalid(at, '', 'must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`'),
    );
  } else if (str(env.value).length > 0) {
    errs.push(invalid(at, '', 'may not be specified when `value` is not empty'));
  } else if (sources > 1) {
    errs.push(invalid(at, '', 'may not have more than one field specified at a time'));
  }
  return errs;
}

export function validateEnv(env: unknown, at: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  recs(env).forEach((e, i) => {
    const idx = at.index(i);
    const name = str(e.name);
    if (!name) errs.push(required(idx.child('name')));
    else for (const msg of envVarNameErrors(name)) errs.push(invalid(idx.child('name'), name, msg));
    errs.push(...valueFrom(e, idx.child('valueFrom')));
  });
  return errs;
}

function envSource(source: Rec, at: FieldPath): FieldError[] {
  const name = str(source.name);
  if (!name) return [required(at.child('name'))];
  return nameIsDNSSubdomain(name, true).map((msg) => invalid(at.child('name'), name, msg));
}

export function validateEnvFrom(envFrom: unknown, at: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  recs(envFrom).forEach((e, i) => {
    const idx = at.index(i);
    const prefix = str(e.prefix);
    if (prefix) for (const msg of envVarNameErrors(prefix)) errs.push(invalid(idx.child('prefix'), prefix, msg));
    let sources = 0;
    if (e.configMapRef) {
      sources++;
      errs.push(...envSource(rec(e.configMapRef), idx.child('configMapRef')));
    }
    if (e.secretRef) {
      sources++;
      errs.push(...envSource(rec(e.secretRef), idx.child('secretRef')));
    }
    if (sources === 0) errs.push(invalid(at, '', 'must specify one of: `configMapRef` or `secretRef`'));
    else if (sources > 1) errs.push(invalid(at, '', 'may not have more than one field specified at a time'));
  });
  return errs;
}
