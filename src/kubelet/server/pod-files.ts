/**
 * What a command run in a simulated container sees: its environment (the container's `env` and `envFrom`,
 * resolved as the kubelet resolves them, with ConfigMap, Secret and field references and `$(VAR)` expansion) and
 * a small read-only file tree made of the ConfigMap, Secret, downward API and projected volumes it mounts (service
 * account tokens included), plus /etc/hostname, /etc/hosts and /etc/resolv.conf.
 */
import type { KubeObject } from '../../client/types.js';
import { DEFAULT_POD_DNS, hostsFile, type PodDNSSettings, podHostname, resolvConf } from './pod-dns.js';
import { serviceEnvironment } from './service-env.js';
import type { ObjectSource, ServiceAccountTokenSource } from './types.js';

// biome-ignore lint/suspicious/noExplicitAny: pod specs are read as plain JSON
type Json = any;

const DEFAULT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

export function findContainer(pod: KubeObject, name: string): Json | undefined {
  const spec = pod.spec ?? {};
  for (const list of [spec.containers, spec.initContainers, spec.ephemeralContainers]) {
    if (!Array.isArray(list)) continue;
    const found = list.find((c: Json) => c?.name === name);
    if (found) return found;
  }
  return undefined;
}

/** Reads a pod's ConfigMaps and Secrets once per command, as the kubelet of the pod's node. */
class ObjectCache {
  private readonly cache = new Map<string, Promise<KubeObject | undefined>>();
  private readonly namespace: string;
  private readonly node: string | undefined;
  constructor(
    private readonly source: ObjectSource | undefined,
    private readonly pod: KubeObject,
  ) {
    this.namespace = pod.metadata.namespace ?? 'default';
    this.node = typeof pod.spec?.nodeName === 'string' && pod.spec.nodeName !== '' ? pod.spec.nodeName : undefined;
  }

  configMap(name: string): Promise<KubeObject | undefined> {
    return this.get('cm', name, (s) => s.configMap(this.namespace, name, this.node));
  }

  secret(name: string): Promise<KubeObject | undefined> {
    return this.get('secret', name, (s) => s.secret(this.namespace, name, this.node));
  }

  /** The Services of the pod's namespace and of the default namespace; none when they cannot be read. */
  async services(): Promise<KubeObject[]> {
    const list = async (namespace: string) => {
      try {
        return (await this.source?.services?.(namespace, this.node)) ?? [];
      } catch {
        return [];
      }
    };
    const own = await list(this.namespace);
    return this.namespace === 'default' ? own : [...own, ...(await list('default'))];
  }

  /** A token for a projected serviceAccountToken source (expirationSeconds defaults to an hour, as upstream). */
  async serviceAccountToken(source: Json): Promise<string | undefined> {
    const wanted: ServiceAccountTokenSource = {
      audience: typeof source.audience === 'string' ? source.audience : '',
      expirationSeconds: typeof source.expirationSeconds === 'number' ? source.expirationSeconds : 3600,
    };
    try {
      return await this.source?.serviceAccountToken?.(this.pod, wanted, this.node);
    } catch {
      return undefined;
    }
  }

  private get(kind: string, name: string, load: (s: ObjectSource) => Promise<KubeObject | undefined>) {
    const key = `${kind}/${name}`;
    let p = this.cache.get(key);
    if (!p) {
      const source = this.source;
      p = source ? load(source).catch(() => undefined) : Promise.resolve(undefined);
      this.cache.set(key, p);
    }
    return p;
  }
}

/** A ConfigMap's keys and values (data and binaryData). */
function configMapData(cm: KubeObject | undefined): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  if (!cm) return out;
  for (const [k, v] of Object.entries((cm.data ?? {}) as Record<string, string>)) out.set(k, Buffer.from(v, 'utf8'));
  for (const [k, v] of Object.entries((cm.binaryData ?? {}) as Record<string, string>)) {
    out.set(k, Buffer.from(v, 'base64'));
  }
  return out;
}

/** A Secret's keys and decoded values. */
function secretData(secret: KubeObject | undefined): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  if (!secret) return out;
  for (const [k, v] of Object.entries((secret.data ?? {}) as Record<string, string>)) {
    out.set(k, Buffer.from(v, 'base64'));
  }
  for (const [k, v] of Object.entries((secret.stringData ?? {}) as Record<string, string>)) {
    out.set(k, Buffer.from(v, 'utf8'));
  }
  return out;
}

/** A downward API fieldRef's value, as the kubelet's podFieldSelectorRuntimeValue gives it. */
function fieldValue(pod: KubeObject, fieldPath: string): string | undefined {
  const meta = pod.metadata;
  const status = pod.status ?? {};
  const mapPath = /^metadata\.(labels|annotations)\['(.*)'\]$/.exec(fieldPath);
  if (mapPath) {
    const map = (mapPath[1] === 'labels' ? meta.labels : meta.annotations) ?? {};
    return map[mapPath[2] ?? ''] ?? '';
  }
  switch (fieldPath) {
    case 'metadata.name':
      return meta.name ?? '';
    case 'metadata.namespace':
      return meta.namespace ?? '';
    case 'metadata.uid':
      return meta.uid ?? '';
    case 'metadata.labels':
      return formatMap(meta.labels);
    case 'metadata.annotations':
      return formatMap(meta.annotations);
    case 'spec.nodeName':
      return pod.spec?.nodeName ?? '';
    case 'spec.serviceAccountName':
      return pod.spec?.serviceAccountName ?? '';
    case 'status.hostIP':
      return status.hostIP ?? '';
    case 'status.hostIPs':
      return (status.hostIPs ?? []).map((x: Json) => x.ip).join(',');
    case 'status.podIP':
      return status.podIP ?? '';
    case 'status.podIPs':
      return (status.podIPs ?? []).map((x: Json) => x.ip).join(',');
    default:
      return undefined;
  }
}

/** Labels or annotations as the downward API writes them: `key="value"` lines, sorted. */
function formatMap(map: Record<string, string> | undefined): string {
  return Object.keys(map ?? {})
    .sort()
    .map((k) => `${k}=${JSON.stringify(map?.[k] ?? '')}`)
    .join('\n');
}

/** A resourceFieldRef's value (requests/limits of the container), divided by its divisor. */
function resourceValue(pod: KubeObject, containerName: string, ref: Json): string {
  const container = findContainer(pod, ref.containerName || containerName);
  const [kind, resource] = String(ref.resource ?? '').split('.');
  const value = container?.resources?.[kind ?? '']?.[resource ?? ''];
  return value === undefined ? '0' : String(value);
}

/** Expands `$(VAR)` references to variables defined so far; `$$(VAR)` escapes, unknown ones stay as written. */
export function expandVars(value: string, env: Map<string, string>): string {
  return value.replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)/g, (match, name: string | undefined) => {
    if (match === '$$') return '$';
    const v = name === undefined ? undefined : env.get(name);
    return v === undefined ? match : v;
  });
}

/**
 * The environment of a command run in the container: PATH and HOSTNAME as a container image and the runtime set
 * them, then envFrom and env in order (later ones win; `$(VAR)` may name one of them or a Service variable), then
 * the Service variables the container does not set itself (see service-env.ts), then HOME.
 */
export async function containerEnvironment(
  pod: KubeObject,
  containerName: string,
  source: ObjectSource | undefined,
  dns: PodDNSSettings = DEFAULT_POD_DNS,
): Promise<Map<string, string>> {
  const container = findContainer(pod, containerName) ?? {};
  const objects = new ObjectCache(source, pod);
  const env = new Map<string, string>();
  env.set('PATH', DEFAULT_PATH);
  env.set('HOSTNAME', podHostname(pod, dns.clusterDomain));
  const services = serviceEnvironment(pod, await objects.services());
  const own = new Map<string, string>();
  // What `$(VAR)` may name: the container's variables so far, else a Service variable.
  const known = new Map(services);
  const define = (name: string, value: string) => {
    own.set(name, value);
    known.set(name, value);
  };
  for (const from of (container.envFrom ?? []) as Json[]) {
    const prefix = String(from.prefix ?? '');
    if (from.configMapRef?.name) {
      for (const [k, v] of configMapData(await objects.configMap(from.configMapRef.name))) {
        define(prefix + k, v.toString('utf8'));
      }
    } else if (from.secretRef?.name) {
      for (const [k, v] of secretData(await objects.secret(from.secretRef.name)))
        define(prefix + k, v.toString('utf8'));
    }
  }
  for (const e of (container.env ?? []) as Json[]) {
    if (typeof e?.name !== 'string') continue;
    if (e.valueFrom === undefined) {
      define(e.name, expandVars(String(e.value ?? ''), known));
      continue;
    }
    const from = e.valueFrom;
    let value: string | undefined;
    if (from.fieldRef?.fieldPath) value = fieldValue(pod, from.fieldRef.fieldPath);
    else if (from.resourceFieldRef) value = resourceValue(pod, containerName, from.resourceFieldRef);
    else if (from.configMapKeyRef?.name) {
      value = configMapData(await objects.configMap(from.configMapKeyRef.name))
        .get(from.configMapKeyRef.key)
        ?.toString('utf8');
    } else if (from.secretKeyRef?.name) {
      value = secretData(await objects.secret(from.secretKeyRef.name))
        .get(from.secretKeyRef.key)
        ?.toString('utf8');
    }
    if (value !== undefined) define(e.name, value);
  }
  for (const [k, v] of own) env.set(k, v);
  for (const [k, v] of services) if (!own.has(k)) env.set(k, v);
  if (!env.has('HOME')) env.set('HOME', '/root');
  return env;
}

/** A read-only file tree: absolute paths of files and their contents. */
export class PodFiles {
  private readonly files = new Map<string, Buffer>();
  private readonly dirs = new Set<string>(['/']);

  constructor(standardDirs: string[] = []) {
    for (const d of standardDirs) this.addDir(d);
  }

  addFile(path: string, content: Buffer): void {
    const p = normalizePath(path);
    this.files.set(p, content);
    this.addDir(parentOf(p));
  }

  addDir(path: string): void {
    let p = normalizePath(path);
    while (!this.dirs.has(p)) {
      this.dirs.add(p);
      p = parentOf(p);
    }
  }

  read(path: string): Buffer | undefined {
    return this.files.get(normalizePath(path));
  }

  isDir(path: string): boolean {
    return this.dirs.has(normalizePath(path));
  }

  /** The names directly inside a directory, sorted; undefined when it is not one. */
  list(path: string): string[] | undefined {
    const dir = normalizePath(path);
    if (!this.dirs.has(dir)) return undefined;
    const prefix = dir === '/' ? '/' : `${dir}/`;
    const names = new Set<string>();
    for (const p of [...this.files.keys(), ...this.dirs]) {
      if (p === dir || !p.startsWith(prefix)) continue;
      const rest = p.slice(prefix.length);
      const name = rest.split('/')[0];
      if (name) names.add(name);
    }
    return [...names].sort();
  }
}

export function normalizePath(path: string, cwd = '/'): string {
  const parts: string[] = [];
  const full = path.startsWith('/') ? path : `${cwd}/${path}`;
  for (const part of full.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') parts.pop();
    else parts.push(part);
  }
  return `/${parts.join('/')}`;
}

function parentOf(path: string): string {
  const i = path.lastIndexOf('/');
  return i <= 0 ? '/' : path.slice(0, i);
}

const ROOT_DIRS = ['/bin', '/dev', '/etc', '/home', '/proc', '/root', '/sys', '/tmp', '/usr', '/var'];

/** Items of a volume source: all keys, or the listed ones under their paths. */
function selectItems(data: Map<string, Buffer>, items: Json[] | undefined): [string, Buffer][] {
  if (!Array.isArray(items) || items.length === 0) return [...data];
  const out: [string, Buffer][] = [];
  for (const item of items) {
    const v = data.get(item?.key);
    if (v !== undefined) out.push([String(item.path ?? item.key), v]);
  }
  return out;
}

/** The files of one volume, relative to its mount point. */
async function volumeFiles(
  pod: KubeObject,
  containerName: string,
  volume: Json,
  objects: ObjectCache,
): Promise<[string, Buffer][]> {
  if (volume.configMap?.name) {
    return selectItems(configMapData(await objects.configMap(volume.configMap.name)), volume.configMap.items);
  }
  if (volume.secret?.secretName) {
    return selectItems(secretData(await objects.secret(volume.secret.secretName)), volume.secret.items);
  }
  if (volume.downwardAPI) return downwardFiles(pod, containerName, volume.downwardAPI.items);
  if (volume.projected) {
    const out: [string, Buffer][] = [];
    for (const source of (volume.projected.sources ?? []) as Json[]) {
      if (source.configMap?.name) {
        out.push(...selectItems(configMapData(await objects.configMap(source.configMap.name)), source.configMap.items));
      } else if (source.secret?.name) {
        out.push(...selectItems(secretData(await objects.secret(source.secret.name)), source.secret.items));
      } else if (source.downwardAPI) {
        out.push(...downwardFiles(pod, containerName, source.downwardAPI.items));
      } else if (source.serviceAccountToken?.path) {
        const token = await objects.serviceAccountToken(source.serviceAccountToken);
        if (token !== undefined) out.push([String(source.serviceAccountToken.path), Buffer.from(token, 'utf8')]);
      }
    }
    return out;
  }
  return [];
}

function downwardFiles(pod: KubeObject, containerName: string, items: Json[] | undefined): [string, Buffer][] {
  const out: [string, Buffer][] = [];
  for (const item of items ?? []) {
    let value: string | undefined;
    if (item?.fieldRef?.fieldPath) value = fieldValue(pod, item.fieldRef.fieldPath);
    else if (item?.resourceFieldRef) value = resourceValue(pod, containerName, item.resourceFieldRef);
    if (value !== undefined && item.path) out.push([String(item.path), Buffer.from(value, 'utf8')]);
  }
  return out;
}

/**
 * The file tree a container sees: standard directories, /etc/hostname, /etc/hosts and /etc/resolv.conf as the
 * kubelet writes them (see pod-dns.ts), and its mounted volumes.
 */
export async function containerFiles(
  pod: KubeObject,
  containerName: string,
  source: ObjectSource | undefined,
  dns: PodDNSSettings = DEFAULT_POD_DNS,
): Promise<PodFiles> {
  const files = new PodFiles(ROOT_DIRS);
  files.addFile('/etc/hostname', Buffer.from(`${podHostname(pod, dns.clusterDomain)}\n`, 'utf8'));
  files.addFile('/etc/hosts', Buffer.from(hostsFile(pod, dns.clusterDomain), 'utf8'));
  files.addFile('/etc/resolv.conf', Buffer.from(resolvConf(pod, dns), 'utf8'));
  const container = findContainer(pod, containerName) ?? {};
  const volumes = new Map<string, Json>();
  for (const v of (pod.spec?.volumes ?? []) as Json[]) if (v?.name) volumes.set(v.name, v);
  const objects = new ObjectCache(source, pod);
  for (const mount of (container.volumeMounts ?? []) as Json[]) {
    const volume = volumes.get(mount?.name);
    if (!volume || typeof mount.mountPath !== 'string') continue;
    const mountPath = normalizePath(mount.mountPath);
    const entries = await volumeFiles(pod, containerName, volume, objects);
    if (mount.subPath) {
      const sub = normalizePath(mount.subPath);
      for (const [rel, content] of entries) {
        const p = normalizePath(rel);
        if (p === sub) files.addFile(mountPath, content);
        else if (p.startsWith(`${sub}/`)) files.addFile(`${mountPath}${p.slice(sub.length)}`, content);
      }
      continue;
    }
    files.addDir(mountPath);
    for (const [rel, content] of entries) files.addFile(`${mountPath}/${rel}`, content);
  }
  return files;
}
