/**
 * --encryption-provider-config: an apiserver.config.k8s.io/v1 EncryptionConfiguration. Each entry of `resources`
 * names resources (`secrets`, `deployments.apps`, `*.apps`, `*.` for the core group, `*.*` for all) and the
 * providers for them, in order. As kube-apiserver builds its transformers: a resource named in several entries gets
 * all their providers (the first entry's first one writes), and a resource an earlier wildcard already covers is
 * refused. Errors read as upstream's: `error while parsing file: …` for the file and its validation,
 * `error while building transformers: …` after.
 */
import { fieldErrorsMessage } from '../../api/field-errors.js';
import { goQuote } from '../../api/validation/go-format.js';
import { type EncryptionConfigurationDoc, type KeyConfig, readEncryptionConfigurationFile } from './config-file.js';
import { decodeStdBase64, parseGroupResource, validateEncryptionConfiguration } from './config-validation.js';
import {
  aescbc,
  aesgcm,
  identityProvider,
  keyedProvider,
  type Provider,
  secretbox,
  type Transformer,
  TransformerChain,
} from './transformers.js';

export interface EncryptionRule {
  /** group/resource patterns: `secrets`, `deployments.apps`, `*.apps`, `*.` (or `*`) for the core group, `*.*`. */
  resources: string[];
  chain: TransformerChain;
}

function keyed(keys: KeyConfig[] | null | undefined, make: (name: string, key: Buffer) => Transformer): Transformer[] {
  return (keys ?? []).map((k) => make(k.name as string, decodeStdBase64(k.secret as string) as Buffer));
}

/** grYAMLString: how upstream names a group/resource in its masking error. */
function grName(gr: { group: string; resource: string }): string {
  if (gr.group === '' && gr.resource === '*') return '*.';
  return gr.group === '' ? gr.resource : `${gr.resource}.${gr.group}`;
}

/** Builds the rules of a configuration that passed validation; throws upstream's build errors. */
function buildRules(doc: EncryptionConfigurationDoc): EncryptionRule[] {
  const byResource = new Map<string, { gr: { group: string; resource: string }; providers: Provider[] }>();
  const key = (gr: { group: string; resource: string }) => `${gr.resource}.${gr.group}`;
  for (const entry of doc.resources ?? []) {
    const providers: Provider[] = [];
    for (const p of entry.providers ?? []) {
      if (p.aesgcm) providers.push(keyedProvider('aesgcm', keyed(p.aesgcm.keys, aesgcm)));
      else if (p.aescbc) providers.push(keyedProvider('aescbc', keyed(p.aescbc.keys, aescbc)));
      else if (p.secretbox) providers.push(keyedProvider('secretbox', keyed(p.secretbox.keys, secretbox)));
      else if (p.kms)
        throw new Error(
          `could not configure KMS plugin ${goQuote(p.kms.name ?? '')}: KMS providers are not supported by wheelhouse`,
        );
      else providers.push(identityProvider);
    }
    for (const resource of entry.resources ?? []) {
      const gr = parseGroupResource(resource);
      for (const wider of [
        { group: gr.group, resource: '*' },
        { group: '*', resource: '*' },
      ]) {
        if (byResource.has(key(wider))) {
          throw new Error(`resource ${goQuote(grName(gr))} is masked by earlier rule ${goQuote(grName(wider))}`);
        }
      }
      const known = byResource.get(key(gr));
      if (known) known.providers.push(...providers);
      else byResource.set(key(gr), { gr, providers: [...providers] });
    }
  }
  // A wildcard never comes before a narrower pattern it covers (that is the masking error), so trying the rules in
  // the order their resources first appeared finds the most specific one, as upstream's lookup does.
  return [...byResource.values()].map(({ gr, providers }) => ({
    resources: [gr.group === '' ? gr.resource : `${gr.resource}.${gr.group}`],
    chain: new TransformerChain(providers),
  }));
}

/**
 * The rules of a decoded configuration: validated (an Error with upstream's field errors otherwise, behind
 * `error while parsing file: `), then built (`error while building transformers: …`).
 */
export function parseEncryptionConfiguration(doc: EncryptionConfigurationDoc): EncryptionRule[] {
  const errs = validateEncryptionConfiguration(doc);
  if (errs.length > 0) throw new Error(`error while parsing file: ${fieldErrorsMessage(errs)}`);
  try {
    return buildRules(doc);
  } catch (err) {
    throw new Error(`error while building transformers: ${(err as Error).message}`);
  }
}

/** Reads, decodes, validates and builds the configuration file, with kube-apiserver's error texts. */
export function loadEncryptionConfiguration(path: string): EncryptionRule[] {
  let doc: EncryptionConfigurationDoc;
  try {
    doc = readEncryptionConfigurationFile(path);
  } catch (err) {
    throw new Error(`error while parsing file: ${(err as Error).message}`);
  }
  return parseEncryptionConfiguration(doc);
}

/** Whether pattern names group/resource (group '' for core). */
export function matchesResource(pattern: string, group: string, resource: string): boolean {
  if (pattern === '*.*') return true;
  const dot = pattern.indexOf('.');
  const pResource = dot < 0 ? pattern : pattern.slice(0, dot);
  const pGroup = dot < 0 ? '' : pattern.slice(dot + 1);
  return pGroup === group && (pResource === '*' || pResource === resource);
}
