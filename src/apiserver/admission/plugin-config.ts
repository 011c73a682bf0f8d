/**
 * kube-apiserver's --admission-control-config-file: an AdmissionConfiguration (apiserver.config.k8s.io/v1, or the
 * older apiserver.k8s.io/v1alpha1) listing per plugin either an inline `configuration` object or a `path` to a
 * file of its own (relative paths are relative to the AdmissionConfiguration file). Each plugin decodes its own
 * configuration; this only finds it. Read once at start-up, synchronously, as the chain is built.
 */
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { parse } from 'yaml';

const API_VERSIONS = ['apiserver.config.k8s.io/v1', 'apiserver.k8s.io/v1alpha1'];

export class AdmissionConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AdmissionConfigError';
  }
}

interface PluginEntry {
  name: string;
  path?: string;
  configuration?: unknown;
}

/** The plugins' configurations from one AdmissionConfiguration file. */
export interface AdmissionPluginConfigs {
  /** The named plugin's configuration, parsed from YAML or JSON; undefined when the file has none for it. */
  configFor(plugin: string): unknown;
}

export const NO_PLUGIN_CONFIGS: AdmissionPluginConfigs = { configFor: () => undefined };

function readText(file: string, what: (err: string) => string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const why =
      e.code === 'ENOENT'
        ? `open ${file}: no such file or directory`
        : e.code === 'EACCES'
          ? `open ${file}: permission denied`
          : e.message;
    throw new AdmissionConfigError(what(why));
  }
}

function parseDocument(text: string, file: string): unknown {
  try {
    return parse(text);
  } catch (err) {
    throw new AdmissionConfigError(`error converting YAML to JSON in ${file}: ${(err as Error).message}`);
  }
}

/** Reads an AdmissionConfiguration file (no file: no plugin has a configuration). */
export function readAdmissionConfiguration(file: string | undefined): AdmissionPluginConfigs {
  if (!file) return NO_PLUGIN_CONFIGS;
  const text = readText(file, (why) => `unable to read admission control configuration from "${file}" [${why}]`);
  const doc = parseDocument(text, file);
  const obj = typeof doc === 'object' && doc !== null && !Array.isArray(doc) ? (doc as Record<string, unknown>) : {};
  const kind = typeof obj.kind === 'string' ? obj.kind : '';
  const apiVersion = typeof obj.apiVersion === 'string' ? obj.apiVersion : '';
  if (kind === '') throw new AdmissionConfigError(`Object 'Kind' is missing in ${file}`);
  if (kind !== 'AdmissionConfiguration' || !API_VERSIONS.includes(apiVersion)) {
    throw new AdmissionConfigError(`no kind "${kind}" is registered for version "${apiVersion}" (${file})`);
  }
  const plugins: PluginEntry[] = [];
  const list = obj.plugins ?? [];
  if (!Array.isArray(list)) throw new AdmissionConfigError(`${file}: plugins must be a list`);
  for (const [i, entry] of list.entries()) {
    if (typeof entry !== 'object' || entry === null || typeof (entry as PluginEntry).name !== 'string') {
      throw new AdmissionConfigError(`${file}: plugins[${i}] must have a name`);
    }
    const e = entry as PluginEntry;
    if (e.path !== undefined && typeof e.path !== 'string') {
      throw new AdmissionConfigError(`${file}: plugins[${i}].path must be a string`);
    }
    plugins.push({
      name: e.name,
      ...(e.path ? { path: isAbsolute(e.path) ? e.path : resolve(dirname(file), e.path) } : {}),
      ...(e.configuration !== undefined && e.configuration !== null ? { configuration: e.configuration } : {}),
    });
  }
  return {
    configFor(plugin) {
      const entry = plugins.find((p) => p.name === plugin);
      if (!entry) return undefined;
      if (entry.configuration !== undefined) return entry.configuration;
      if (entry.path) {
        const own = entry.path;
        return parseDocument(
          readText(own, (why) => `couldn't open admission plugin configuration ${own}: ${why}`),
          own,
        );
      }
      return undefined;
    },
  };
}
