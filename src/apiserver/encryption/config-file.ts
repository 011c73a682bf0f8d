/**
 * Reading the --encryption-provider-config file the way kube-apiserver's loader does, with its error texts: the file
 * is read (a missing or empty file is refused), its YAML or JSON decoded by apimachinery's strict universal decoder
 * (apiVersion and kind first, then the fields into the v1 types — a value of the wrong JSON type is Go's
 * UnmarshalTypeError, unknown and duplicate fields are a strict decoding error), and the result must be an
 * EncryptionConfiguration. What comes back is the v1 object with the KMS defaults applied; validation is
 * config-validation.ts's.
 */
import { readFileSync } from 'node:fs';
import { isMap, isSeq, LineCounter, parseDocument, type Node as YamlNode } from 'yaml';
import { goQuote } from '../../api/validation/go-format.js';
import { parseDuration } from '../../util/duration.js';

/** apiserver.config.k8s.io/v1 KeyConfiguration and friends, as decoded from the file. */
export interface KeyConfig {
  name?: string;
  secret?: string;
}
export interface KeysConfig {
  keys?: KeyConfig[] | null;
}
export interface KmsConfig {
  apiVersion?: string;
  name?: string;
  cachesize?: number | null;
  endpoint?: string;
  /** timeout in milliseconds, decoded from its Go duration. */
  timeoutMs?: number | null;
}
export interface ProviderConfig {
  aesgcm?: KeysConfig | null;
  aescbc?: KeysConfig | null;
  secretbox?: KeysConfig | null;
  identity?: Record<string, never> | null;
  kms?: KmsConfig | null;
}
export interface ResourceConfig {
  resources?: string[] | null;
  providers?: ProviderConfig[] | null;
}
export interface EncryptionConfigurationDoc {
  apiVersion?: string;
  kind?: string;
  resources?: ResourceConfig[] | null;
}

/** The v1 Go types the decoder fills, enough to word its errors. */
type Shape =
  | { t: 'string' }
  | { t: 'int32' }
  | { t: 'duration' }
  | { t: 'struct'; go: string; fields: Record<string, Shape> }
  | { t: 'slice'; go: string; elem: Shape };

const STRING: Shape = { t: 'string' };
const KEYS: Shape = {
  t: 'struct',
  go: 'v1.AESConfiguration',
  fields: {
    keys: {
      t: 'slice',
      go: '[]v1.Key',
      elem: { t: 'struct', go: 'v1.Key', fields: { name: STRING, secret: STRING } },
    },
  },
};
const CONFIGURATION: Shape = {
  t: 'struct',
  go: 'v1.EncryptionConfiguration',
  fields: {
    apiVersion: STRING,
    kind: STRING,
    resources: {
      t: 'slice',
      go: '[]v1.ResourceConfiguration',
      elem: {
        t: 'struct',
        go: 'v1.ResourceConfiguration',
        fields: {
          resources: { t: 'slice', go: '[]string', elem: STRING },
          providers: {
            t: 'slice',
            go: '[]v1.ProviderConfiguration',
            elem: {
              t: 'struct',
              go: 'v1.ProviderConfiguration',
              fields: {
                aesgcm: KEYS,
                aescbc: KEYS,
                secretbox: { ...KEYS, go: 'v1.SecretboxConfiguration' },
                identity: { t: 'struct', go: 'v1.IdentityConfiguration', fields: {} },
                kms: {
                  t: 'struct',
                  go: 'v1.KMSConfiguration',
                  fields: {
                    apiVersion: STRING,
                    name: STRING,
                    cachesize: { t: 'int32' },
                    endpoint: STRING,
                    timeout: { t: 'duration' },
                  },
                },
              },
            },
          },
        },
      },
    },
  },
};

/** What Go's encoding/json calls a JSON value in an UnmarshalTypeError. */
function jsonKind(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') return 'number';
  if (typeof value === 'string') return 'string';
  return 'object';
}

/**
 * Walks a decoded value against its Go type: the first type error (Go's decoder keeps the first), and every field
 * the type does not have (the strict decoder's `unknown field "<path>"`). Durations are converted in place.
 */
class Decoder {
  typeError: string | undefined;
  readonly unknown: string[] = [];

  decode(value: unknown, shape: Shape, struct: string, fields: string[], path: string): unknown {
    if (value === null || value === undefined) return value; // JSON null leaves Go's zero value
    const mismatch = (goType: string, what = jsonKind(value)) => {
      this.typeError ??= `json: cannot unmarshal ${what} into Go struct field ${struct}.${fields.join('.')} of type ${goType}`;
      return undefined;
    };
    switch (shape.t) {
      case 'string':
        return typeof value === 'string' ? value : mismatch('string');
      case 'int32':
        if (typeof value !== 'number') return mismatch('int32');
        if (!Number.isInteger(value) || value < -(2 ** 31) || value >= 2 ** 31)
          return mismatch('int32', `number ${value}`);
        return value;
      case 'duration': {
        // metav1.Duration reads a JSON string and parses it as Go's time.ParseDuration.
        if (typeof value !== 'string') {
          this.typeError ??= `json: cannot unmarshal ${jsonKind(value)} into Go value of type string`;
          return undefined;
        }
        try {
          return parseDuration(value);
        } catch {
          this.typeError ??= `time: invalid duration ${goQuote(value)}`;
          return undefined;
        }
      }
      case 'slice':
        if (!Array.isArray(value)) return mismatch(shape.go);
        return value.map((v, i) => this.decode(v, shape.elem, struct, fields, `${path}[${i}]`));
      case 'struct': {
        if (typeof value !== 'object' || Array.isArray(value)) return mismatch(shape.go);
        const out: Record<string, unknown> = {};
        const name = shape.go.slice(shape.go.indexOf('.') + 1);
        for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
          const field = shape.fields[key];
          const at = path ? `${path}.${key}` : key;
          if (!field) {
            this.unknown.push(`unknown field ${goQuote(at)}`);
            continue;
          }
          const decoded = this.decode(v, field, name, [...fields, key], at);
          if (key === 'timeout') out.timeoutMs = decoded;
          else out[key] = decoded;
        }
        return out;
      }
    }
  }
}

/** yaml.v2's strict duplicate-key error for the document, or undefined when every mapping's keys are unique. */
function duplicateKeys(node: YamlNode | null | undefined, lines: LineCounter, out: string[] = []): string[] {
  if (isMap(node)) {
    const seen = new Set<string>();
    for (const item of node.items) {
      const key = item.key as YamlNode | null;
      const text = key && 'value' in key ? String((key as { value: unknown }).value) : String(key);
      if (seen.has(text))
        out.push(`  line ${lines.linePos(key?.range?.[0] ?? 0).line}: key ${goQuote(text)} already set in map`);
      seen.add(text);
      duplicateKeys(item.value as YamlNode, lines, out);
    }
  } else if (isSeq(node)) {
    for (const item of node.items) duplicateKeys(item as YamlNode, lines, out);
  }
  return out;
}

/** The kinds apiserver.config.k8s.io/v1 registers besides EncryptionConfiguration: decoded, then refused. */
const OTHER_KINDS = new Set(['AdmissionConfiguration', 'TracingConfiguration']);

/**
 * The decoder's answer for the file's bytes: the decoded configuration, or the error text (as upstream's
 * UniversalDecoder words it) in `error`, and `unexpected` when the file holds another of the group's kinds.
 */
function decode(data: string): { doc: EncryptionConfigurationDoc } | { error: string } | { unexpected: string } {
  const lines = new LineCounter();
  const parsed = parseDocument(data, { uniqueKeys: false, lineCounter: lines });
  const syntax = parsed.errors[0];
  if (syntax) {
    const line = syntax.linePos?.[0]?.line;
    const message = syntax.message.split('\n')[0]?.replace(/ at line \d+, column \d+:?$/, '');
    return { error: `error converting YAML to JSON: yaml: ${line ? `line ${line}: ` : ''}${message}` };
  }
  const value: unknown = parsed.toJS();
  if (value !== null && (typeof value !== 'object' || Array.isArray(value))) {
    return {
      error: `json: cannot unmarshal ${jsonKind(value)} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`,
    };
  }
  const head = (value ?? {}) as Record<string, unknown>;
  for (const field of ['apiVersion', 'kind']) {
    const v = head[field];
    if (v !== undefined && v !== null && typeof v !== 'string') {
      return { error: `json: cannot unmarshal ${jsonKind(v)} into Go struct field .${field} of type string` };
    }
  }
  const kind = typeof head.kind === 'string' ? head.kind : '';
  const apiVersion = typeof head.apiVersion === 'string' ? head.apiVersion : '';
  if (kind === '') return { error: `Object 'Kind' is missing in '${data}'` };
  if (apiVersion === '') return { error: `Object 'apiVersion' is missing in '${data}'` };
  const wanted =
    (apiVersion === 'apiserver.config.k8s.io/v1' && kind === 'EncryptionConfiguration') ||
    // Registered under the core v1 too, as EncryptionConfig (an old documentation mistake upstream still honours).
    (apiVersion === 'v1' && kind === 'EncryptionConfig');
  if (!wanted) {
    if (apiVersion === 'apiserver.config.k8s.io/v1' && OTHER_KINDS.has(kind)) {
      return { unexpected: `got unexpected config type: apiserver.config.k8s.io/v1, Kind=${kind}` };
    }
    // Upstream names the scheme by the Go file and line that made it; the line is not reproduced here.
    return {
      error: `no kind ${goQuote(kind)} is registered for version ${goQuote(apiVersion)} in scheme "k8s.io/apiserver/pkg/server/options/encryptionconfig/config.go"`,
    };
  }
  const decoder = new Decoder();
  const doc = decoder.decode(value, CONFIGURATION, 'EncryptionConfiguration', [], '') as EncryptionConfigurationDoc;
  if (decoder.typeError) return { error: decoder.typeError };
  const strict = [...decoder.unknown];
  const duplicates = duplicateKeys(parsed.contents as YamlNode, lines);
  if (duplicates.length > 0) strict.push(`yaml: unmarshal errors:\n${duplicates.join('\n')}`);
  if (strict.length > 0) return { error: `strict decoding error: ${strict.join(', ')}` };
  return { doc };
}

/** v1's defaulting of KMS providers: apiVersion v1, a 3s timeout, and for v1 a cache of 1000. */
function defaultKms(doc: EncryptionConfigurationDoc): void {
  for (const r of doc.resources ?? []) {
    for (const p of r?.providers ?? []) {
      const kms = p?.kms;
      if (!kms) continue;
      kms.timeoutMs ??= 3000;
      if (!kms.apiVersion) kms.apiVersion = 'v1';
      if (kms.cachesize == null && kms.apiVersion === 'v1') kms.cachesize = 1000;
    }
  }
}

/** Go's *PathError text for a failed read of path. */
function pathError(path: string, err: NodeJS.ErrnoException): string {
  switch (err.code) {
    case 'ENOENT':
      return `open ${path}: no such file or directory`;
    case 'EACCES':
      return `open ${path}: permission denied`;
    case 'EISDIR':
      return `read ${path}: is a directory`;
    default:
      return `open ${path}: ${err.message}`;
  }
}

/**
 * Upstream's loadConfig: the file's configuration with defaults applied, or an Error worded as kube-apiserver's
 * (without the `error while parsing file: ` its caller puts in front).
 */
export function readEncryptionConfigurationFile(path: string): EncryptionConfigurationDoc {
  let data: string;
  try {
    data = readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(
      `error while loading file: error reading encryption provider configuration file ${goQuote(path)}: ${pathError(path, err as NodeJS.ErrnoException)}`,
    );
  }
  if (data.length === 0) {
    throw new Error(`error while loading file: encryption provider configuration file ${goQuote(path)} is empty`);
  }
  const decoded = decode(data);
  if ('unexpected' in decoded) throw new Error(decoded.unexpected);
  if ('error' in decoded) {
    throw new Error(`error decoding encryption provider configuration file ${goQuote(path)}: ${decoded.error}`);
  }
  defaultKms(decoded.doc);
  return decoded.doc;
}
