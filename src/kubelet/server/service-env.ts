/**
 * The environment variables the kubelet gives every container for Services (upstream's envvars.FromServices, as
 * getServiceEnvVarMap picks the Services): `kubernetes` in `default` always, and, when the pod has
 * enableServiceLinks, every Service of the pod's namespace — each with a cluster IP — as `<NAME>_SERVICE_HOST`,
 * `<NAME>_SERVICE_PORT` (its first port), `<NAME>_SERVICE_PORT_<PORT NAME>` for named ports, and Docker's link
 * variables (`<NAME>_PORT=tcp://ip:port`, `<NAME>_PORT_<port>_<PROTO>{,_PROTO,_PORT,_ADDR}`).
 */
import type { KubeObject } from '../../client/types.js';

/** The Services whose variables are always given, from the default namespace (upstream's masterServices). */
const MASTER_SERVICES = new Set(['kubernetes']);

interface ServicePort {
  name?: string;
  port?: number;
  protocol?: string;
}

/** Upstream's makeEnvVariableName: upper case, dashes as underscores. */
function envName(name: string): string {
  return name.replaceAll('-', '_').toUpperCase();
}

/** net.JoinHostPort: an IPv6 address in brackets. */
function hostPort(ip: string, port: number): string {
  return ip.includes(':') ? `[${ip}]:${port}` : `${ip}:${port}`;
}

function hasClusterIP(service: KubeObject): boolean {
  const ip = service.spec?.clusterIP;
  return typeof ip === 'string' && ip !== '' && ip !== 'None';
}

/** The variables of one Service, in upstream's order. */
function variablesOf(service: KubeObject): [string, string][] {
  const prefix = envName(service.metadata.name ?? '');
  const ip = String(service.spec?.clusterIP);
  const ports = (Array.isArray(service.spec?.ports) ? service.spec.ports : []) as ServicePort[];
  if (ports.length === 0) return [];
  const out: [string, string][] = [
    [`${prefix}_SERVICE_HOST`, ip],
    [`${prefix}_SERVICE_PORT`, String(ports[0]?.port ?? 0)],
  ];
  for (const p of ports) if (p.name) out.push([`${prefix}_SERVICE_PORT_${envName(p.name)}`, String(p.port ?? 0)]);
  ports.forEach((p, i) => {
    const protocol = p.protocol || 'TCP';
    const port = p.port ?? 0;
    const url = `${protocol.toLowerCase()}://${hostPort(ip, port)}`;
    if (i === 0) out.push([`${prefix}_PORT`, url]);
    const portPrefix = `${prefix}_PORT_${port}_${protocol.toUpperCase()}`;
    out.push(
      [portPrefix, url],
      [`${portPrefix}_PROTO`, protocol.toLowerCase()],
      [`${portPrefix}_PORT`, String(port)],
      [`${portPrefix}_ADDR`, ip],
    );
  });
  return out;
}

/**
 * The Service variables of a pod, from the Services of its namespace and the default namespace's (either list may
 * hold both). A Service of the pod's own namespace wins over a master Service of the same name.
 */
export function serviceEnvironment(pod: KubeObject, services: readonly KubeObject[]): Map<string, string> {
  const namespace = pod.metadata.namespace ?? 'default';
  const links = pod.spec?.enableServiceLinks !== false;
  const chosen = new Map<string, KubeObject>();
  for (const s of services) {
    if (!hasClusterIP(s)) continue;
    const name = s.metadata.name ?? '';
    if (s.metadata.namespace === 'default' && MASTER_SERVICES.has(name)) {
      if (!chosen.has(name)) chosen.set(name, s);
    } else if (s.metadata.namespace === namespace && links) chosen.set(name, s);
  }
  const env = new Map<string, string>();
  for (const s of chosen.values()) for (const [k, v] of variablesOf(s)) env.set(k, v);
  return env;
}
