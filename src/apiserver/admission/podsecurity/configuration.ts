/**
 * The PodSecurity plugin's configuration (PodSecurityConfiguration, pod-security.admission.config.k8s.io/v1 — also
 * v1beta1 and v1alpha1, which have the same fields), as it comes from the AdmissionConfiguration file: decoded
 * strictly (unknown fields refused), defaulted (every level privileged, every version latest), then checked as
 * upstream's ValidatePodSecurityConfiguration checks it. No configuration at all means the defaults: privileged
 * everywhere, nothing exempt.
 */
import { duplicate, type FieldError, fieldErrorsMessage, invalid, path } from '../../../api/field-errors.js';
import { isDNS1123Label, isDNS1123Subdomain } from '../../../api/validation/names.js';
import { isObj } from './checks/check.js';
import { LEVEL_ERROR, type LevelVersion, type Policy, parseLevel, parseVersion, VERSION_ERROR } from './levels.js';

export const PODSECURITY_CONFIG_GROUP = 'pod-security.admission.config.k8s.io';
const API_VERSIONS = ['v1', 'v1beta1', 'v1alpha1'].map((v) => `${PODSECURITY_CONFIG_GROUP}/${v}`);

export interface PodSecurityDefaults {
  enforce: string;
  'enforce-version': string;
  audit: string;
  'audit-version': string;
  warn: string;
  'warn-version': string;
}

export interface PodSecurityExemptions {
  usernames: string[];
  namespaces: string[];
  runtimeClasses: string[];
}

export interface PodSecurityConfiguration {
  defaults: PodSecurityDefaults;
  exemptions: PodSecurityExemptions;
}

/** What the configuration means: the default policy and the exempt names, ready for lookups. */
export interface PodSecuritySettings {
  defaults: Policy;
  exemptNamespaces: ReadonlySet<string>;
  exemptUsernames: ReadonlySet<string>;
  exemptRuntimeClasses: ReadonlySet<string>;
}

export class PodSecurityConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PodSecurityConfigError';
  }
}

const DEFAULT_KEYS = ['enforce', 'enforce-version', 'audit', 'audit-version', 'warn', 'warn-version'] as const;
const EXEMPTION_KEYS = ['usernames', 'namespaces', 'runtimeClasses'] as const;

function unknownFields(obj: Record<string, unknown>, allowed: readonly string[], prefix: string): string[] {
  return Object.keys(obj)
    .filter((k) => !allowed.includes(k))
    .map((k) => `unknown field "${prefix}${k}"`);
}

/**
 * Decodes and defaults a configuration object (undefined or null: the defaults). Throws PodSecurityConfigError
 * for a wrong apiVersion or kind, unknown fields, and fields of the wrong type.
 */
export function decodePodSecurityConfiguration(data: unknown): PodSecurityConfiguration {
  const config: PodSecurityConfiguration = {
    defaults: {
      enforce: '',
      'enforce-version': '',
      audit: '',
      'audit-version': '',
      warn: '',
      'warn-version': '',
    },
    exemptions: { usernames: [], namespaces: [], runtimeClasses: [] },
  };
  if (data !== undefined && data !== null) {
    if (!isObj(data)) throw new PodSecurityConfigError('PodSecurity configuration must be an object');
    const apiVersion = typeof data.apiVersion === 'string' ? data.apiVersion : '';
    const kind = typeof data.kind === 'string' ? data.kind : '';
    if (kind === '') throw new PodSecurityConfigError("Object 'Kind' is missing in PodSecurity configuration");
    if (!API_VERSIONS.includes(apiVersion) || kind !== 'PodSecurityConfiguration') {
      throw new PodSecurityConfigError(`no kind "${kind}" is registered for version "${apiVersion}"`);
    }
    const problems = unknownFields(data, ['apiVersion', 'kind', 'defaults', 'exemptions'], '');
    const defaults = data.defaults ?? {};
    const exemptions = data.exemptions ?? {};
    if (!isObj(defaults)) throw new PodSecurityConfigError('defaults: expected an object');
    if (!isObj(exemptions)) throw new PodSecurityConfigError('exemptions: expected an object');
    problems.push(...unknownFields(defaults, DEFAULT_KEYS, 'defaults.'));
    problems.push(...unknownFields(exemptions, EXEMPTION_KEYS, 'exemptions.'));
    if (problems.length > 0) throw new PodSecurityConfigError(`strict decoding error: ${problems.join(', ')}`);
    for (const key of DEFAULT_KEYS) {
      const v = defaults[key];
      if (v === undefined || v === null) continue;
      if (typeof v !== 'string') throw new PodSecurityConfigError(`defaults.${key}: expected a string`);
      config.defaults[key] = v;
    }
    for (const key of EXEMPTION_KEYS) {
      const v = exemptions[key];
      if (v === undefined || v === null) continue;
      if (!Array.isArray(v) || v.some((s) => typeof s !== 'string')) {
        throw new PodSecurityConfigError(`exemptions.${key}: expected a list of strings`);
      }
      config.exemptions[key] = v as string[];
    }
  }
  for (const level of ['enforce', 'audit', 'warn'] as const) {
    if (config.defaults[level] === '') config.defaults[level] = 'privileged';
    if (config.defaults[`${level}-version`] === '') config.defaults[`${level}-version`] = 'latest';
  }
  return config;
}

/** Upstream's ValidatePodSecurityConfiguration: the levels and versions, and the exempt names. */
export function validatePodSecurityConfiguration(config: PodSecurityConfiguration): FieldError[] {
  const errors: FieldError[] = [];
  for (const level of ['enforce', 'warn', 'audit'] as const) {
    const value = config.defaults[level];
    if (!parseLevel(value)) errors.push(invalid(path('defaults', level), value, LEVEL_ERROR));
    const version = config.defaults[`${level}-version`];
    if (!parseVersion(version)) errors.push(invalid(path('defaults', `${level}-version`), version, VERSION_ERROR));
  }
  const names = (key: keyof PodSecurityExemptions, check: (s: string) => string[]) => {
    const seen = new Set<string>();
    config.exemptions[key].forEach((name, i) => {
      const p = path('exemptions', key).index(i);
      const problems = check(name);
      if (problems.length > 0) errors.push(invalid(p, name, problems.join(', ')));
      else if (seen.has(name)) errors.push(duplicate(p, name));
      else seen.add(name);
    });
  };
  names('namespaces', isDNS1123Label);
  names('runtimeClasses', isDNS1123Subdomain);
  names('usernames', (name) => (name === '' ? ['username must not be empty'] : []));
  return errors;
}

/**
 * The settings a configuration object means; throws with upstream's start-up message (`PodSecurity invalid: …`)
 * when the configuration is not valid.
 */
export function podSecuritySettings(data: unknown): PodSecuritySettings {
  const config = decodePodSecurityConfiguration(data);
  const errors = validatePodSecurityConfiguration(config);
  if (errors.length > 0) throw new PodSecurityConfigError(`PodSecurity invalid: ${fieldErrorsMessage(errors)}`);
  const lv = (level: 'enforce' | 'audit' | 'warn'): LevelVersion => ({
    level: parseLevel(config.defaults[level]) as LevelVersion['level'],
    version: parseVersion(config.defaults[`${level}-version`]) as LevelVersion['version'],
  });
  return {
    defaults: { enforce: lv('enforce'), audit: lv('audit'), warn: lv('warn') },
    exemptNamespaces: new Set(config.exemptions.namespaces),
    exemptUsernames: new Set(config.exemptions.usernames),
    exemptRuntimeClasses: new Set(config.exemptions.runtimeClasses),
  };
}
