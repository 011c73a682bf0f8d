import type { X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';
import { hostname as osHostname } from 'node:os';
import type { AltNames } from '../../util/certificates.js';
import { apiServerServiceIP } from './service-ip.js';

/** Subject alternative names of a certificate: DNS names (lower case) and IP addresses (canonical text). */
export type { AltNames };

export interface ApiserverAltNameOptions {
  /** The machine's name, added as a DNS name when it is a valid one. Default: os.hostname(). */
  hostname?: string;
  /** `--service-cluster-ip-range`; its first IP is the `kubernetes` Service's ClusterIP. Default 10.96.0.0/12. */
  serviceClusterIpRange?: string;
  /** The cluster's DNS domain. Default `cluster.local`. */
  clusterDomain?: string;
  /** More names and addresses, as kubeadm's `apiServer.certSANs`: each an IP address or a DNS name (`*.` allowed). */
  extraSans?: string[];
}

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** True for an RFC 1123 subdomain, or one with a leading `*.` label. */
export function isValidDnsSan(name: string): boolean {
  const bare = name.startsWith('*.') ? name.slice(2) : name;
  return bare.length > 0 && name.length <= 253 && DNS_SUBDOMAIN.test(bare);
}

/** An IP address in one spelling per address (IPv6 lower case and compressed), or undefined when it is not one. */
export function canonicalIP(text: string): string | undefined {
  const kind = isIP(text);
  if (kind === 4) return text;
  if (kind === 6) return new URL(`http://[${text}]`).hostname.slice(1, -1);
  return undefined;
}

/**
 * The names the apiserver's serving certificate must carry: loopback (127.0.0.1, localhost), the host name, the
 * in-cluster names of the `kubernetes` Service and its ClusterIP, and whatever the caller adds.
 */
export function apiserverAltNames(options: ApiserverAltNameOptions = {}): AltNames {
  const domain = options.clusterDomain ?? 'cluster.local';
  const dnsNames = ['localhost', 'kubernetes', 'kubernetes.default', 'kubernetes.default.svc'];
  dnsNames.push(`kubernetes.default.svc.${domain}`);
  const host = (options.hostname ?? osHostname()).toLowerCase();
  if (isValidDnsSan(host) && !host.startsWith('*.')) dnsNames.push(host);
  const ips = ['127.0.0.1', apiServerServiceIP(options.serviceClusterIpRange)];
  for (const san of options.extraSans ?? []) {
    const ip = canonicalIP(san);
    if (ip !== undefined) ips.push(ip);
    else if (isValidDnsSan(san.toLowerCase())) dnsNames.push(san.toLowerCase());
    else throw new Error(`${JSON.stringify(san)} is neither an IP address nor a valid DNS name for a certificate`);
  }
  return { dnsNames: [...new Set(dnsNames)], ips: [...new Set(ips.map((ip) => canonicalIP(ip) ?? ip))] };
}

/** Reads the SAN extension of a certificate parsed by node:crypto. */
export function altNamesOf(certificate: X509Certificate): AltNames {
  const names: AltNames = { dnsNames: [], ips: [] };
  // Node prints e.g. "DNS:localhost, IP Address:127.0.0.1"; names we issue hold no commas or quotes.
  for (const entry of (certificate.subjectAltName ?? '').split(', ')) {
    if (entry.startsWith('DNS:')) names.dnsNames.push(entry.slice(4).toLowerCase());
    else if (entry.startsWith('IP Address:')) {
      const ip = canonicalIP(entry.slice(11));
      if (ip !== undefined) names.ips.push(ip);
    }
  }
  return names;
}

/** True when every name and address in `wanted` is in `have`. */
export function coversAltNames(have: AltNames, wanted: AltNames): boolean {
  const dns = new Set(have.dnsNames);
  const ips = new Set(have.ips);
  return wanted.dnsNames.every((name) => dns.has(name)) && wanted.ips.every((ip) => ips.has(ip));
}
