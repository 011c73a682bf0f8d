/**
 * --encryption-provider-config: an apiserver.config.k8s.io/v1 EncryptionConfiguration. Each entry of `resources`
 * names resources (`secrets`, `deployments.apps`, `*.apps`, `*.` for the core group, `*.*` for all) and the
 * providers for them, in order; the first entry naming a resource decides.
 */
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { aescbc, aesgcm, identity, secretbox, type Transformer, TransformerChain } from './transformers.js';

interface KeyConfig {
  name?: string;
  secret?: string;
}

interface ProviderConfig {
  aescbc?: { keys?: KeyConfig[] };
  aesgcm?: { keys?: KeyConfig[] };
  secretbox?: { keys?: KeyConfig[] };
  identity?: Record<string, never>;
  kms?: unknown;
}

export interface EncryptionRule {
  /** group/resource patterns as written: `secrets`, `deployments.apps`, `*.apps`, `*.`, `*.*`. */
  resources: string[];
  chain: TransformerChain;
}

function keysOf(kind: string, cfg: { keys?: KeyConfig[] } | undefined, sizes: number[], path: string): KeyConfig[] {
  const keys = cfg?.keys ?? [];
  if (keys.length === 0) throw new Error(`${path}.${kind}.keys: Required value: keys list cannot be empty`);
  keys.forEach((k, i) => {
    if (!k.name) throw new Error(`${path}.${kind}.keys[${i}].name: Required value: key name is required`);
    if (!k.secret) throw new Error(`${path}.${kind}.keys[${i}].secret: Required value: secret is required`);
    const len = Buffer.from(k.secret, 'base64').length;
    if (!sizes.includes(len))
      throw new Error(
        `${path}.${kind}.keys[${i}].secret: Invalid value: "REDACTED": secret is not of the expected length, got ${len}, expected one of ${JSON.stringify(sizes)}`,
      );
  });
  return keys;
}

function providersOf(list: ProviderConfig[], path: string): Transformer[] {
  if (list.length === 0) throw new Error(`${path}.providers: Required value: providers list cannot be empty`);
  const out: Transformer[] = [];
  list.forEach((p, i) => {
    const at = `${path}.providers[${i}]`;
    if (p.aescbc)
      for (const k of keysOf('aescbc', p.aescbc, [16, 24, 32], at))
        out.push(aescbc(k.name as string, Buffer.from(k.secret as string, 'base64')));
    else if (p.aesgcm)
      for (const k of keysOf('aesgcm', p.aesgcm, [16, 24, 32], at))
        out.push(aesgcm(k.name as string, Buffer.from(k.secret as string, 'base64')));
    else if (p.identity !== undefined) out.push(identity);
    else if (p.secretbox)
      for (const k of keysOf('secretbox', p.secretbox, [32], at))
        out.push(secretbox(k.name as string, Buffer.from(k.secret as string, 'base64')));
    else if (p.kms) throw new Error(`${at}: kms is not supported by wheelhouse`);
    else
      throw new Error(
        `${at}: Invalid value: "": provider does not contain any of the expected providers: KMS, secretbox, aesgcm, aescbc, identity`,
      );
  });
  return out;
}

export function parseEncryptionConfiguration(doc: unknown): EncryptionRule[] {
  const obj = (doc ?? {}) as { kind?: string; apiVersion?: string; resources?: unknown[] };
  if (obj.kind !== 'EncryptionConfiguration')
    throw new Error(`encryption provider config: kind ${JSON.stringify(obj.kind)} is not EncryptionConfiguration`);
  const entries = (obj.resources ?? []) as { resources?: string[]; providers?: ProviderConfig[] }[];
  if (entries.length === 0) throw new Error('resources: Required value: resources list cannot be empty');
  return entries.map((e, i) => {
    const path = `resources[${i}]`;
    const resources = e.resources ?? [];
    if (resources.length === 0) throw new Error(`${path}.resources: Required value: resources list cannot be empty`);
    return { resources, chain: new TransformerChain(providersOf(e.providers ?? [], path)) };
  });
}

export function loadEncryptionConfiguration(path: string): EncryptionRule[] {
  return parseEncryptionConfiguration(parseYaml(readFileSync(path, 'utf8')));
}

/** Whether pattern names group/resource (group '' for core). */
export function matchesResource(pattern: string, group: string, resource: string): boolean {
  if (pattern === '*.*') return true;
  const dot = pattern.indexOf('.');
  const pResource = dot < 0 ? pattern : pattern.slice(0, dot);
  const pGroup = dot < 0 ? '' : pattern.slice(dot + 1);
  return pGroup === group && (pResource === '*' || pResource === resource);
}
