/**
 * The name-resolution files the kubelet gives every container: /etc/resolv.conf, from the pod's dnsPolicy and
 * dnsConfig and the kubelet's --cluster-dns and --cluster-domain (upstream's dns.Configurer.GetPodDNS, written out
 * as a container runtime writes it), and the kubelet-managed /etc/hosts with the pod's own name and its
 * hostAliases (upstream's managedHostsFileContent). A simulated node has no resolv.conf of its own, as a kubelet
 * run with `--resolv-conf=""`: pods that use the node's DNS (dnsPolicy Default) get 127.0.0.1 and the root domain.
 */
import type { KubeObject } from '../../client/types.js';

/** The cluster DNS the kubelet hands to pods. */
export interface PodDNSSettings {
  /** --cluster-dns: the DNS Service's addresses; none sends ClusterFirst pods to the node's DNS. */
  clusterDNS: readonly string[];
  /** --cluster-domain. */
  clusterDomain: string;
}

/** kubeadm's choices, which `wheelhouse up` makes too: the tenth address of 10.96.0.0/12, and cluster.local. */
export const DEFAULT_POD_DNS: PodDNSSettings = { clusterDNS: ['10.96.0.10'], clusterDomain: 'cluster.local' };

/** What a resolver may be given (glibc's limits, which the kubelet enforces). */
const MAX_NAMESERVERS = 3;
const MAX_SEARCHES = 32;
const MAX_SEARCH_CHARS = 2048;

// biome-ignore lint/suspicious/noExplicitAny: pod specs are read as plain JSON
type Json = any;

interface DNSConfig {
  servers: string[];
  searches: string[];
  options: string[];
}

const uniq = (list: string[]) => [...new Set(list)];

/** The options, then dnsConfig's: a name given again takes the later value, where it first stood. */
function mergeOptions(existing: string[], extra: Json[]): string[] {
  const merged = new Map<string, string>();
  for (const op of existing) {
    const colon = op.indexOf(':');
    if (colon < 0) merged.set(op, '');
    else merged.set(op.slice(0, colon), op.slice(colon + 1));
  }
  for (const op of extra) {
    if (typeof op?.name !== 'string') continue;
    merged.set(op.name, typeof op.value === 'string' ? op.value : '');
  }
  return [...merged].map(([name, value]) => (value === '' ? name : `${name}:${value}`));
}

/** The resolver configuration of the pod's containers (GetPodDNS, then the limits). */
export function podDNSConfig(pod: KubeObject, settings: PodDNSSettings): DNSConfig {
  const spec = pod.spec ?? {};
  const policy = spec.dnsPolicy ?? 'ClusterFirst';
  const hostNetwork = spec.hostNetwork === true;
  const useCluster =
    policy === 'ClusterFirstWithHostNet' || (policy !== 'Default' && policy !== 'None' && !hostNetwork);
  let config: DNSConfig;
  if (policy === 'None') config = { servers: [], searches: [], options: [] };
  else if (useCluster && settings.clusterDNS.length > 0) {
    const domain = settings.clusterDomain;
    const ns = pod.metadata.namespace ?? 'default';
    config = {
      servers: [...settings.clusterDNS],
      searches: domain === '' ? [] : [`${ns}.svc.${domain}`, `svc.${domain}`, domain],
      options: ['ndots:5'],
    };
  } else {
    // The node's DNS, which a simulated node does not have.
    config = { servers: ['127.0.0.1'], searches: ['.'], options: [] };
  }
  const extra = spec.dnsConfig;
  if (extra && typeof extra === 'object') {
    const strings = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
    config = {
      servers: uniq([...config.servers, ...strings(extra.nameservers)]),
      searches: uniq([...config.searches, ...strings(extra.searches)]),
      options: mergeOptions(config.options, Array.isArray(extra.options) ? extra.options : []),
    };
  }
  config.servers = config.servers.slice(0, MAX_NAMESERVERS);
  let searches = config.searches.slice(0, MAX_SEARCHES);
  while (searches.join(' ').length > MAX_SEARCH_CHARS) searches = searches.slice(0, -1);
  config.searches = searches;
  return config;
}

/** /etc/resolv.conf as a container runtime writes the configuration: search, nameservers, options. */
export function resolvConf(pod: KubeObject, settings: PodDNSSettings): string {
  const { servers, searches, options } = podDNSConfig(pod, settings);
  let out = '';
  if (searches.length > 0) out += `search ${searches.join(' ')}\n`;
  for (const server of servers) out += `nameserver ${server}\n`;
  if (options.length > 0) out += `options ${options.join(' ')}\n`;
  return out;
}

/** The pod's hostname and, with a subdomain, its domain (upstream's GeneratePodHostNameAndDomain). */
export function podHostNameAndDomain(pod: KubeObject, clusterDomain: string): { hostname: string; domain: string } {
  const spec = pod.spec ?? {};
  let hostname: string = typeof spec.hostname === 'string' && spec.hostname !== '' ? spec.hostname : '';
  if (hostname === '') hostname = pod.metadata.name ?? '';
  // At most 63 characters, not ending in '-' or '.' where cut.
  if (hostname.length > 63) hostname = hostname.slice(0, 63).replace(/[-.]+$/, '');
  const sub = typeof spec.subdomain === 'string' ? spec.subdomain : '';
  const domain = sub === '' ? '' : `${sub}.${pod.metadata.namespace ?? 'default'}.svc.${clusterDomain}`;
  return { hostname, domain };
}

/**
 * The name the pod's containers have (/etc/hostname, $HOSTNAME): the node's in the host network; else the pod's, with
 * its domain under setHostnameAsFQDN.
 */
export function podHostname(pod: KubeObject, clusterDomain: string): string {
  if (pod.spec?.hostNetwork === true && typeof pod.spec.nodeName === 'string') return pod.spec.nodeName;
  const { hostname, domain } = podHostNameAndDomain(pod, clusterDomain);
  return pod.spec?.setHostnameAsFQDN === true && domain !== '' ? `${hostname}.${domain}` : hostname;
}

/** The kubelet-managed /etc/hosts: localhost, the pod's addresses under its name, then its hostAliases. */
export function hostsFile(pod: KubeObject, clusterDomain: string): string {
  const { hostname, domain } = podHostNameAndDomain(pod, clusterDomain);
  let out = '# Kubernetes-managed hosts file.\n';
  out += '127.0.0.1\tlocalhost\n';
  out += '::1\tlocalhost ip6-localhost ip6-loopback\n';
  out += 'fe00::0\tip6-localnet\n';
  out += 'fe00::0\tip6-mcastprefix\n';
  out += 'fe00::1\tip6-allnodes\n';
  out += 'fe00::2\tip6-allrouters\n';
  const status = pod.status ?? {};
  const ips: string[] = Array.isArray(status.podIPs)
    ? status.podIPs.map((p: Json) => p?.ip).filter((ip: unknown): ip is string => typeof ip === 'string')
    : typeof status.podIP === 'string'
      ? [status.podIP]
      : [];
  for (const ip of ips) out += domain ? `${ip}\t${hostname}.${domain}\t${hostname}\n` : `${ip}\t${hostname}\n`;
  const aliases: Json[] = Array.isArray(pod.spec?.hostAliases) ? pod.spec.hostAliases : [];
  if (aliases.length > 0) {
    out += '\n# Entries added by HostAliases.\n';
    for (const alias of aliases) {
      const names = Array.isArray(alias?.hostnames) ? alias.hostnames : [];
      out += `${alias?.ip ?? ''}\t${names.join('\t')}\n`;
    }
  }
  return out;
}
