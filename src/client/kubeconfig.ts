import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, realpath, rename, rm } from 'node:fs/promises';
import { homedir } from 'node:os';
import { delimiter, dirname, isAbsolute, join, resolve } from 'node:path';
import { Document, isMap, isSeq, parse, parseDocument, stringify } from 'yaml';

export const DEFAULT_CLUSTER_NAME = 'wheelhouse';
export const DEFAULT_USER_NAME = 'wheelhouse-admin';
export const DEFAULT_CONTEXT_NAME = 'wheelhouse';

/** The fields of a kubeconfig `cluster` that wheelhouse reads or writes (v1 names, as kubectl spells them). */
export interface KubeconfigCluster {
  server: string;
  'certificate-authority-data'?: string;
  'certificate-authority'?: string;
  'insecure-skip-tls-verify'?: boolean;
  'tls-server-name'?: string;
}

export interface KubeconfigUser {
  'client-certificate-data'?: string;
  'client-key-data'?: string;
  'client-certificate'?: string;
  'client-key'?: string;
  token?: string;
  tokenFile?: string;
}

export interface KubeconfigContext {
  cluster: string;
  user: string;
  namespace?: string;
}

/** A kubeconfig file (`kind: Config`, `apiVersion: v1`), in the shape and key order kubectl writes. */
export interface Kubeconfig {
  apiVersion: 'v1';
  clusters: { name: string; cluster: KubeconfigCluster }[];
  contexts: { name: string; context: KubeconfigContext }[];
  'current-context': string;
  kind: 'Config';
  preferences: Record<string, never>;
  users: { name: string; user: KubeconfigUser }[];
}

export interface BuildKubeconfigOptions {
  /** The apiserver's URL, e.g. https://127.0.0.1:6443. */
  server: string;
  /** The cluster CA certificate (PEM) the client trusts for the server. */
  caPem: string;
  /** A client certificate and key (PEM), or a bearer token, or neither. */
  certPem?: string;
  keyPem?: string;
  token?: string;
  namespace?: string;
  clusterName?: string;
  userName?: string;
  contextName?: string;
}

/** A kubeconfig with one cluster, one user and one context, the context current; files are embedded as base64. */
export function buildKubeconfig(options: BuildKubeconfigOptions): Kubeconfig {
  const clusterName = options.clusterName ?? DEFAULT_CLUSTER_NAME;
  const userName = options.userName ?? DEFAULT_USER_NAME;
  const contextName = options.contextName ?? DEFAULT_CONTEXT_NAME;
  const user: KubeconfigUser = {};
  if (options.certPem !== undefined) user['client-certificate-data'] = base64(options.certPem);
  if (options.keyPem !== undefined) user['client-key-data'] = base64(options.keyPem);
  if (options.token !== undefined) user.token = options.token;
  const context: KubeconfigContext = { cluster: clusterName, user: userName };
  if (options.namespace !== undefined) context.namespace = options.namespace;
  // Keys in alphabetical order, as kubectl writes them.
  return {
    apiVersion: 'v1',
    clusters: [
      { cluster: { 'certificate-authority-data': base64(options.caPem), server: options.server }, name: clusterName },
    ],
    contexts: [{ context, name: contextName }],
    'current-context': contextName,
    kind: 'Config',
    preferences: {},
    users: [{ name: userName, user }],
  };
}

/** The YAML text of a kubeconfig; strings YAML 1.1 would read as something else (`yes`, `on`) are quoted. */
export function kubeconfigToYaml(config: Kubeconfig): string {
  return stringify(config, YAML_OUT);
}

/** Writes a kubeconfig file, mode 0600, replacing any file there. */
export async function writeKubeconfig(path: string, config: Kubeconfig): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  await writePrivateFile(path, kubeconfigToYaml(config));
}

/**
 * Adds the clusters, users and contexts of `config` to the kubeconfig at `path` (e.g. ~/.kube/config), replacing
 * entries of the same name and leaving every other entry, field and comment as it was. Creates the file if it does
 * not exist. Makes `config`'s current context the file's current context, unless `setCurrentContext` is false and
 * the file already has one.
 * Holds `<path>.lock` while it works, as kubectl does when it edits a kubeconfig.
 */
export async function mergeKubeconfig(
  path: string,
  config: Kubeconfig,
  options: { setCurrentContext?: boolean } = {},
): Promise<void> {
  const target = await realpath(path).catch(() => path);
  await mkdir(dirname(target), { recursive: true, mode: 0o700 });
  const lock = `${target}.lock`;
  await (await openExclusive(lock, `${target} is being edited by another program (${lock} exists)`)).close();
  try {
    const text = await readOptional(target);
    let doc: Document = parseDocument(text ?? '', { version: '1.1' });
    if (doc.errors.length > 0) throw new Error(`cannot parse ${target}: ${doc.errors[0]?.message}`);
    if (doc.contents === null) doc = new Document({ apiVersion: 'v1', kind: 'Config' }, { version: '1.1' });
    if (!isMap(doc.contents)) throw new Error(`${target} is not a kubeconfig: the document is not a mapping`);
    if (!doc.has('apiVersion')) doc.set('apiVersion', 'v1');
    if (!doc.has('kind')) doc.set('kind', 'Config');
    upsertNamed(doc, 'clusters', config.clusters);
    upsertNamed(doc, 'users', config.users);
    upsertNamed(doc, 'contexts', config.contexts);
    const current = doc.get('current-context');
    if (options.setCurrentContext !== false || current === undefined || current === null || current === '') {
      doc.set('current-context', config['current-context']);
    }
    await writePrivateFile(target, doc.toString(YAML_OUT));
  } finally {
    await rm(lock, { force: true });
  }
}

/**
 * Where kubectl looks: the files in $KUBECONFIG (separated by ':', ';' on Windows), else ~/.kube/config ($HOME
 * taken from `env`).
 */
export function kubeconfigPaths(env: NodeJS.ProcessEnv = process.env): string[] {
  const list = env.KUBECONFIG;
  if (list !== undefined && list !== '') return list.split(delimiter);
  return [join(env.HOME || homedir(), '.kube', 'config')];
}

/** How to reach an apiserver and who to be there: what the REST client needs. */
export interface ConnectionConfig {
  /** The apiserver's URL, e.g. https://127.0.0.1:6443. */
  server: string;
  /** PEM of the CA to trust for the server; the system's CAs when absent. */
  caPem?: string;
  /** Client certificate and key (PEM). */
  certPem?: string;
  keyPem?: string;
  /** Bearer token. */
  token?: string;
  insecureSkipTlsVerify?: boolean;
  /** The name to check the server's certificate against, when it is not the host of `server`. */
  tlsServerName?: string;
  /** The namespace of the context ('default' when the context names none). */
  namespace?: string;
}

/** What a client needs to reach the cluster of one context. PEM texts are read from files or decoded from base64. */
export interface ClusterConnection extends ConnectionConfig {
  contextName: string;
  clusterName: string;
  userName: string;
  namespace: string;
}

/** kubectl's choice of kubeconfig: --kubeconfig, else $KUBECONFIG, else ~/.kube/config; --context. */
export interface LoadKubeconfigOptions {
  /** One file, which must exist (kubectl's --kubeconfig). */
  kubeconfigPath?: string;
  /** The context to use instead of current-context (kubectl's --context). */
  context?: string;
  /** Where to read KUBECONFIG and HOME; process.env by default. */
  env?: NodeJS.ProcessEnv;
}

/**
 * Reads kubeconfig files the way kubectl does and returns the connection of the current context, or of
 * `context`. Called with options (or nothing), it looks where kubectl looks: `kubeconfigPath` alone, else the
 * files of $KUBECONFIG, else ~/.kube/config. Called with `paths` (one path, a list in $KUBECONFIG form, or an
 * array), it reads those. Files of a list that do not exist are skipped (at least one must exist); the first file to
 * define a cluster, user or context name owns it whole, and the first file that sets `current-context` sets it.
 * Relative file paths in a file are resolved against that file's directory. Embedded data wins over a file path, as
 * in client-go; a readable `tokenFile` wins over `token`. The namespace is the context's, else `default`.
 */
export async function loadKubeconfig(options?: LoadKubeconfigOptions): Promise<ClusterConnection>;
export async function loadKubeconfig(
  paths: string | string[],
  options?: { context?: string },
): Promise<ClusterConnection>;
export async function loadKubeconfig(
  pathsOrOptions: string | string[] | LoadKubeconfigOptions = {},
  contextOption: { context?: string } = {},
): Promise<ClusterConnection> {
  if (typeof pathsOrOptions === 'string' || Array.isArray(pathsOrOptions)) {
    const list = typeof pathsOrOptions === 'string' ? pathsOrOptions.split(delimiter) : pathsOrOptions;
    const files = [...new Set(list)].filter((f) => f !== '');
    return connectionOf(await loadMerged(files), contextOption.context, files);
  }
  const explicit = pathsOrOptions.kubeconfigPath;
  if (explicit !== undefined && explicit !== '') {
    if ((await readOptional(explicit)) === undefined) throw new Error(`kubeconfig file ${explicit} does not exist`);
    return connectionOf(await loadMerged([explicit]), pathsOrOptions.context, [explicit]);
  }
  const files = [...new Set(kubeconfigPaths(pathsOrOptions.env ?? process.env))].filter((f) => f !== '');
  return connectionOf(await loadMerged(files), pathsOrOptions.context, files);
}

/**
 * The connection of a kubeconfig held in memory (e.g. one built by buildKubeconfig), for its current context or
 * `options.context`; relative file paths in it are resolved against `options.baseDir` (the working directory by
 * default).
 */
export async function resolveKubeconfig(
  config: Kubeconfig | Record<string, unknown>,
  options: { context?: string; baseDir?: string } = {},
): Promise<ClusterConnection> {
  const merged: MergedKubeconfig = { clusters: new Map(), users: new Map(), contexts: new Map() };
  mergeDocument(merged, config, resolve(options.baseDir ?? '.'), '(kubeconfig in memory)');
  return connectionOf(merged, options.context, ['(kubeconfig in memory)']);
}

async function connectionOf(
  merged: MergedKubeconfig,
  context: string | undefined,
  files: string[],
): Promise<ClusterConnection> {
  const contextName = context ?? merged.currentContext;
  if (contextName === undefined || contextName === '') {
    throw new Error(`no context chosen: current-context is not set in ${files.join(delimiter)}`);
  }
  const contextEntry = merged.contexts.get(contextName);
  if (contextEntry === undefined) {
    throw new Error(`invalid configuration: context was not found for specified context: ${contextName}`);
  }
  // Every problem of the chosen context at once, in client-go's words (clientcmd.ConfirmUsable).
  const problems: string[] = [];
  const userName = stringField(contextEntry, 'user') ?? '';
  const user = merged.users.get(userName);
  if (userName === '') problems.push(`user was not specified for context "${contextName}"`);
  else if (user === undefined) problems.push(`user "${userName}" was not found for context "${contextName}"`);
  const clusterName = stringField(contextEntry, 'cluster') ?? '';
  const cluster = merged.clusters.get(clusterName);
  if (clusterName === '') problems.push(`cluster was not specified for context "${contextName}"`);
  else if (cluster === undefined) problems.push(`cluster "${clusterName}" was not found for context "${contextName}"`);
  const server = cluster === undefined ? undefined : stringField(cluster, 'server');
  if (cluster !== undefined && (server === undefined || server === '')) {
    problems.push(`no server found for cluster "${clusterName}"`);
  }
  if (problems.length > 0 || cluster === undefined || server === undefined || user === undefined) {
    const list = problems.length === 1 ? problems[0] : `[${problems.join(', ')}]`;
    throw new Error(`invalid configuration: ${list}`);
  }
  const namespace = stringField(contextEntry, 'namespace');
  const connection: ClusterConnection = {
    contextName,
    clusterName,
    userName,
    server,
    namespace: namespace === undefined || namespace === '' ? 'default' : namespace,
  };
  setIfDefined(connection, 'caPem', await pem(cluster, 'certificate-authority'));
  setIfDefined(connection, 'certPem', await pem(user, 'client-certificate'));
  setIfDefined(connection, 'keyPem', await pem(user, 'client-key'));
  setIfDefined(connection, 'token', await bearerToken(user));
  if (cluster['insecure-skip-tls-verify'] === true) connection.insecureSkipTlsVerify = true;
  setIfDefined(connection, 'tlsServerName', stringField(cluster, 'tls-server-name'));
  return connection;
}

type Entry = Record<string, unknown>;

interface MergedKubeconfig {
  clusters: Map<string, Entry>;
  users: Map<string, Entry>;
  contexts: Map<string, Entry>;
  currentContext?: string;
}

async function loadMerged(files: string[]): Promise<MergedKubeconfig> {
  const merged: MergedKubeconfig = { clusters: new Map(), users: new Map(), contexts: new Map() };
  let found = 0;
  for (const file of files) {
    const text = await readOptional(file);
    if (text === undefined) continue;
    found++;
    mergeDocument(merged, parse(text, { version: '1.1' }) ?? {}, dirname(resolve(file)), file);
  }
  if (found === 0) throw new Error(`no kubeconfig file found at ${files.join(delimiter) || '(no path given)'}`);
  return merged;
}

/** Adds one file's entries to `merged`; names already there keep their first definition. */
function mergeDocument(merged: MergedKubeconfig, parsed: unknown, base: string, file: string): void {
  if (!isRecord(parsed)) throw new Error(`${file} is not a kubeconfig: the document is not a mapping`);
  for (const [list, key, map] of [
    ['clusters', 'cluster', merged.clusters],
    ['users', 'user', merged.users],
    ['contexts', 'context', merged.contexts],
  ] as const) {
    for (const [name, entry] of namedEntries(parsed[list], key, file)) {
      if (!map.has(name)) map.set(name, resolvePaths(entry, base));
    }
  }
  const current = parsed['current-context'];
  if (merged.currentContext === undefined && typeof current === 'string' && current !== '') {
    merged.currentContext = current;
  }
}

/** The `name` → body pairs of one list in one file; a name used twice in a file is an error, as in client-go. */
function namedEntries(list: unknown, key: string, file: string): Map<string, Entry> {
  const entries = new Map<string, Entry>();
  if (list === undefined || list === null) return entries;
  if (!Array.isArray(list)) throw new Error(`${file}: ${key}s must be a list`);
  for (const item of list) {
    if (!isRecord(item) || typeof item.name !== 'string') throw new Error(`${file}: every ${key} needs a name`);
    if (entries.has(item.name)) throw new Error(`${file}: duplicate name "${item.name}" in ${key}s`);
    const body = item[key];
    entries.set(item.name, isRecord(body) ? body : {});
  }
  return entries;
}

const PATH_FIELDS = ['certificate-authority', 'client-certificate', 'client-key', 'tokenFile'];

function resolvePaths(entry: Entry, base: string): Entry {
  const resolved: Entry = { ...entry };
  for (const field of PATH_FIELDS) {
    const value = resolved[field];
    if (typeof value === 'string' && value !== '' && !isAbsolute(value)) resolved[field] = join(base, value);
  }
  return resolved;
}

/** `<field>-data` (base64) if set, else the file named by `<field>`, else undefined. */
async function pem(entry: Entry, field: string): Promise<string | undefined> {
  const data = stringField(entry, `${field}-data`);
  if (data !== undefined && data !== '') return Buffer.from(data, 'base64').toString('utf8');
  const file = stringField(entry, field);
  if (file !== undefined && file !== '') return readFile(file, 'utf8');
  return undefined;
}

async function bearerToken(user: Entry): Promise<string | undefined> {
  const token = stringField(user, 'token');
  const tokenFile = stringField(user, 'tokenFile');
  if (tokenFile !== undefined && tokenFile !== '') {
    try {
      return (await readFile(tokenFile, 'utf8')).trim();
    } catch (error) {
      if (token === undefined || token === '') throw error;
    }
  }
  return token === '' ? undefined : token;
}

function upsertNamed(doc: Document, key: string, entries: { name: string }[]): void {
  let list = doc.get(key);
  if (!isSeq(list)) {
    list = doc.createNode([]);
    doc.set(key, list);
  }
  if (!isSeq(list)) return;
  for (const entry of entries) {
    const node = doc.createNode(entry);
    const index = list.items.findIndex((item) => isMap(item) && item.get('name') === entry.name);
    if (index >= 0) list.items[index] = node;
    else list.items.push(node);
  }
}

const YAML_OUT = { version: '1.1', lineWidth: 0, indentSeq: false } as const;

function base64(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64');
}

function isRecord(value: unknown): value is Entry {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function stringField(entry: Entry, field: string): string | undefined {
  const value = entry[field];
  return typeof value === 'string' ? value : undefined;
}

function setIfDefined<K extends keyof ClusterConnection>(
  target: ClusterConnection,
  key: K,
  value: ClusterConnection[K],
) {
  if (value !== undefined) target[key] = value;
}

async function readOptional(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

async function openExclusive(file: string, busyMessage: string) {
  try {
    return await open(file, 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw new Error(busyMessage);
    throw error;
  }
}

/** Writes the whole file under a temporary name with mode 0600, syncs it and renames it into place. */
async function writePrivateFile(file: string, text: string): Promise<void> {
  const temporary = `${file}.${randomBytes(4).toString('hex')}.tmp`;
  const handle = await open(temporary, 'wx', 0o600);
  try {
    await handle.writeFile(text);
    await handle.sync();
  } catch (error) {
    await handle.close();
    await rm(temporary, { force: true });
    throw error;
  }
  await handle.close();
  await rename(temporary, file);
}
