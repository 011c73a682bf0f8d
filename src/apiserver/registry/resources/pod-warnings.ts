/**
 * The warnings upstream answers a pod or pod template write with (pkg/api/pod/warnings.go) — deprecated node labels,
 * annotations and volume plugins, duplicates that are legal but surprising (env, ports, pull secrets, host
 * aliases), fractional byte quantities, a negative grace period — and the name warning of the objects whose name
 * becomes a pod name or hostname. Each text is `<field path>: <what>`, as upstream words it.
 */
import { type FieldPath, path } from '../../../api/field-errors.js';
import { parseQuantity } from '../../../api/quantity.js';
import { isDNS1123Label } from '../../../api/validation/names.js';
import type { KubeObject } from '../object.js';
import { type Rec, rec, recs, str } from './core-json.js';

const DEPRECATED_NODE_LABELS: Readonly<Record<string, string>> = {
  'beta.kubernetes.io/arch': 'deprecated since v1.14; use "kubernetes.io/arch" instead',
  'beta.kubernetes.io/os': 'deprecated since v1.14; use "kubernetes.io/os" instead',
  'failure-domain.beta.kubernetes.io/region': 'deprecated since v1.17; use "topology.kubernetes.io/region" instead',
  'failure-domain.beta.kubernetes.io/zone': 'deprecated since v1.17; use "topology.kubernetes.io/zone" instead',
  'beta.kubernetes.io/instance-type': 'deprecated since v1.17; use "node.kubernetes.io/instance-type" instead',
};

const DEPRECATED_ANNOTATIONS: Readonly<Record<string, string>> = {
  'scheduler.alpha.kubernetes.io/critical-pod': 'non-functional in v1.16+; use the "priorityClassName" field instead',
  'security.alpha.kubernetes.io/sysctls': 'non-functional in v1.11+; use the "sysctls" field instead',
  'security.alpha.kubernetes.io/unsafe-sysctls': 'non-functional in v1.11+; use the "sysctls" field instead',
};

const DEPRECATED_VOLUMES: ReadonlyArray<readonly [string, string]> = [
  ['photonPersistentDisk', 'deprecated in v1.11, non-functional in v1.16+'],
  ['gitRepo', 'deprecated in v1.11'],
  ['scaleIO', 'deprecated in v1.16, non-functional in v1.22+'],
  ['flocker', 'deprecated in v1.22, non-functional in v1.25+'],
  ['storageOS', 'deprecated in v1.22, non-functional in v1.25+'],
  ['quobyte', 'deprecated in v1.22, non-functional in v1.25+'],
  ['glusterfs', 'deprecated in v1.25, non-functional in v1.26+'],
  ['cephfs', 'deprecated in v1.28, non-functional in v1.31+'],
  ['rbd', 'deprecated in v1.28, non-functional in v1.31+'],
];

const has = (v: unknown) => v !== undefined && v !== null;
const SECCOMP_ANNOTATION = 'non-functional in v1.27+; use the "seccompProfile" field instead';

/** Whether a memory or ephemeral-storage quantity is a fraction of a byte (MilliValue() % 1000 != 0). */
function fractionalBytes(value: unknown): string | undefined {
  if (typeof value !== 'string' && typeof value !== 'number') return undefined;
  try {
    const q = parseQuantity(value);
    const milli = (q.nanos + 999_999n) / 1_000_000n;
    return milli % 1000n !== 0n ? String(value) : undefined;
  } catch {
    return undefined;
  }
}

/** A container port as Go's %+v prints the struct. */
function goPort(p: Rec): string {
  const n = (v: unknown) => (typeof v === 'number' ? v : 0);
  return `{Name:${str(p.name)} HostPort:${n(p.hostPort)} ContainerPort:${n(p.containerPort)} Protocol:${str(p.protocol)} HostIP:${str(p.hostIP)}}`;
}

/**
 * The warnings of a pod's spec and metadata; base is where they sit (null for a pod, `spec.template` for a
 * template).
 */
export function podSpecWarnings(base: FieldPath | null, specValue: unknown, metaValue: unknown): string[] {
  const spec = rec(specValue);
  const meta = rec(metaValue);
  const at = (name: string, ...more: string[]) => (base ? base.child(name, ...more) : path(name, ...more));
  const out: string[] = [];
  for (const key of Object.keys(rec(spec.nodeSelector))) {
    const msg = DEPRECATED_NODE_LABELS[key];
    if (msg) out.push(`${at('spec', 'nodeSelector').key(key)}: ${msg}`);
  }
  const nodeAffinity = rec(rec(spec.affinity).nodeAffinity);
  const termWarnings = (term: unknown, termPath: FieldPath) =>
    recs(rec(term).matchExpressions).forEach((e, i) => {
      const msg = DEPRECATED_NODE_LABELS[str(e.key)];
      if (msg) out.push(`${termPath.child('matchExpressions').index(i).child('key')}: ${str(e.key)} is ${msg}`);
    });
  const required = at('spec', 'affinity', 'nodeAffinity', 'requiredDuringSchedulingIgnoredDuringExecution');
  recs(rec(nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution).nodeSelectorTerms).forEach((t, i) => {
    termWarnings(t, required.child('nodeSelectorTerms').index(i));
  });
  const preferred = at('spec', 'affinity', 'nodeAffinity', 'preferredDuringSchedulingIgnoredDuringExecution');
  recs(nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution).forEach((t, i) => {
    termWarnings(t.preference, preferred.index(i).child('preference'));
  });
  recs(spec.topologySpreadConstraints).forEach((t, i) => {
    const c = at('spec', 'topologySpreadConstraints').index(i);
    const msg = DEPRECATED_NODE_LABELS[str(t.topologyKey)];
    if (msg) out.push(`${c.child('topologyKey')}: ${str(t.topologyKey)} is ${msg}`);
    if (!has(t.labelSelector)) out.push(`${c.child('labelSelector')}: a null labelSelector results in matching no pod`);
  });
  const annotations = rec(meta.annotations);
  for (const [key, msg] of Object.entries(DEPRECATED_ANNOTATIONS)) {
    if (Object.hasOwn(annotations, key)) out.push(`${at('metadata', 'annotations').key(key)}: ${msg}`);
  }
  recs(spec.volumes).forEach((v, i) => {
    for (const [plugin, msg] of DEPRECATED_VOLUMES) {
      if (has(v[plugin])) out.push(`${at('spec', 'volumes').index(i).child(plugin)}: ${msg}`);
    }
  });
  const ips = new Set<string>();
  recs(spec.hostAliases).forEach((a, i) => {
    const ip = str(a.ip);
    if (ips.has(ip)) out.push(`${at('spec', 'hostAliases').index(i).child('ip')}: duplicate ip ${JSON.stringify(ip)}`);
    ips.add(ip);
  });
  const secrets = new Set<string>();
  const pullSecrets = recs(spec.imagePullSecrets);
  pullSecrets.forEach((s, i) => {
    const name = str(s.name);
    if (pullSecrets.length > 1 && secrets.has(name)) {
      out.push(`${at('spec', 'imagePullSecrets').index(i).child('name')}: duplicate name ${JSON.stringify(name)}`);
    }
    secrets.add(name);
  });
  pullSecrets.forEach((s, i) => {
    if (!str(s.name)) out.push(`${at('spec', 'imagePullSecrets').index(i).child('name')}: invalid empty name ""`);
  });
  for (const resource of ['memory', 'ephemeral-storage']) {
    const value = fractionalBytes(rec(spec.overhead)[resource]);
    if (value)
      out.push(
        `${at('spec', 'overhead').key(resource)}: fractional byte value "${value}" is invalid, must be an integer`,
      );
  }
  const containers = (each: (c: Rec, p: FieldPath) => void) => {
    for (const list of ['initContainers', 'containers', 'ephemeralContainers']) {
      recs(spec[list]).forEach((c, i) => {
        each(c, at('spec', list).index(i));
      });
    }
  };
  const podSecurity = rec(spec.securityContext);
  const seccompAnnotation = 'seccomp.security.alpha.kubernetes.io/pod';
  if (!has(podSecurity.seccompProfile) && Object.hasOwn(annotations, seccompAnnotation)) {
    out.push(`${at('metadata', 'annotations').key(seccompAnnotation)}: ${SECCOMP_ANNOTATION}`);
  }
  containers((c, p) => {
    const security = rec(c.securityContext);
    const seccomp = `container.seccomp.security.alpha.kubernetes.io/${str(c.name)}`;
    if (!has(security.seccompProfile) && Object.hasOwn(annotations, seccomp)) {
      out.push(`${at('metadata', 'annotations').key(seccomp)}: ${SECCOMP_ANNOTATION}`);
    }
    // Templates only: a pod's AppArmor annotations are turned into the fields instead.
    const appArmor = `container.apparmor.security.beta.kubernetes.io/${str(c.name)}`;
    const hasAppArmorField = has(podSecurity.appArmorProfile) || has(security.appArmorProfile);
    if (base && !hasAppArmorField && Object.hasOwn(annotations, appArmor)) {
      out.push(
        `${at('metadata', 'annotations').key(appArmor)}: deprecated since v1.30; use the "appArmorProfile" field instead`,
      );
    }
    const resources = rec(c.resources);
    for (const kind of ['limits', 'requests']) {
      for (const resource of ['memory', 'ephemeral-storage']) {
        const value = fractionalBytes(rec(resources[kind])[resource]);
        if (value) {
          out.push(
            `${p.child('resources', kind).key(resource)}: fractional byte value "${value}" is invalid, must be an integer`,
          );
        }
      }
    }
    const names = new Set<string>();
    recs(c.env).forEach((e, i) => {
      const name = str(e.name);
      if (!names.has(name)) {
        names.add(name);
        return;
      }
      const ref = `$(${name})`;
      const value = str(e.value);
      if (has(e.valueFrom) || value === ref || !value.includes(ref)) {
        out.push(
          `${p.child('env').index(i)}: hides previous definition of ${JSON.stringify(name)}, which may be dropped when using apply`,
        );
      }
    });
  });
  const ports = new Map<string, { at: FieldPath; port: Rec }[]>();
  containers((c, p) => {
    recs(c.ports).forEach((port, i) => {
      const here = p.child('ports').index(i);
      const hostPort = typeof port.hostPort === 'number' ? port.hostPort : 0;
      if (str(port.hostIP) && hostPort === 0) out.push(`${here}: hostIP set without hostPort: ${goPort(port)}`);
      const key = `${String(port.containerPort)}/${str(port.protocol)}`;
      const others = ports.get(key) ?? [];
      for (const other of others) {
        const otherHostPort = typeof other.port.hostPort === 'number' ? other.port.hostPort : 0;
        const ip = str(port.hostIP);
        const otherIp = str(other.port.hostIP);
        if (ip === otherIp && hostPort === otherHostPort)
          out.push(`${here}: duplicate port definition with ${other.at}`);
        else if (hostPort === 0 || otherHostPort === 0)
          out.push(`${here}: overlapping port definition with ${other.at}`);
        else if (hostPort === otherHostPort && (ip === '') !== (otherIp === '')) {
          out.push(`${here}: dangerously ambiguous port definition with ${other.at}`);
        }
      }
      others.push({ at: here, port });
      ports.set(key, others);
    });
  });
  const grace = spec.terminationGracePeriodSeconds;
  if (typeof grace === 'number' && grace < 0) {
    out.push(
      `${at('spec', 'terminationGracePeriodSeconds')}: must be >= 0; negative values are invalid and will be treated as 1`,
    );
  }
  return out;
}

/** The name warning of objects whose name goes into pod names and hostnames (`Pod's hostname` for a pod). */
/**
 * GetWarningsForPersistentVolumeClaimSpec: a storage request or limit that is not a whole number of bytes. at is the
 * claim spec's path, or a claim template's (whose warnings upstream writes without `.spec`).
 */
export function claimSpecWarnings(at: FieldPath, spec: unknown): string[] {
  const resources = rec(rec(spec).resources);
  const out: string[] = [];
  for (const kind of ['requests', 'limits']) {
    const value = fractionalBytes(rec(resources[kind]).storage);
    if (value)
      out.push(
        `${at.child('resources', kind).key('storage')}: fractional byte value "${value}" is invalid, must be an integer`,
      );
  }
  return out;
}

/** GetWarningsForPersistentVolumeClaim: the beta storage-class annotation, then the spec's warnings. */
export function claimWarnings(pvc: KubeObject): string[] {
  const out: string[] = [];
  if (pvc.metadata.annotations && Object.hasOwn(pvc.metadata.annotations, 'volume.beta.kubernetes.io/storage-class')) {
    out.push(
      `${path('metadata', 'annotations').key('volume.beta.kubernetes.io/storage-class')}: deprecated since v1.8; use "storageClassName" attribute instead`,
    );
  }
  return [...out, ...claimSpecWarnings(path('spec'), pvc.spec)];
}

export function nameWarnings(name: unknown, usedIn = 'Pod names and hostnames'): string[] {
  const msgs = isDNS1123Label(str(name));
  return msgs.length > 0
    ? [
        `metadata.name: this is used in ${usedIn}, which can result in surprising behavior; a DNS label is recommended: [${msgs.join(' ')}]`,
      ]
    : [];
}

/** The warnings of a workload's pod template at spec.template (or at the given path). */
export function templateWarnings(template: unknown, at: FieldPath = path('spec', 'template')): string[] {
  const t = rec(template);
  return podSpecWarnings(at, t.spec, t.metadata);
}

/** The warnings of the pod template at an object's spec.template. */
export function specTemplateWarnings(obj: unknown): string[] {
  return templateWarnings(rec(rec(obj).spec).template);
}
