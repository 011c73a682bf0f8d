/**
 * What a simulated node looks like: its name, zone, pod CIDR, capacity, labels and taints, from the defaults and
 * the node groups of a NodeConfig. Nodes are handed to the groups in order (`count` each); the rest take the
 * defaults. Zones go round-robin over `zones`.
 */
import type { KubeObject } from '../../client/types.js';
import { imageReferenceError } from '../image-reference.js';

export interface Taint {
  key: string;
  value?: string;
  effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
}

export interface NodeGroup {
  /** How many nodes of the group (for groups; ignored on the defaults). */
  count?: number;
  /** Merged over the defaults: cpu, memory, ephemeral-storage, pods, or any extended resource. */
  capacity?: Record<string, string>;
  /** Allocatable; capacity when not set. */
  allocatable?: Record<string, string>;
  labels?: Record<string, string>;
  /** Taints the node registers with (upstream's --register-with-taints). */
  taints?: Taint[];
  /**
   * Images on the node from the start (as `kind load docker-image` puts them there): pods use them without a pull,
   * and may use them under imagePullPolicy Never. The defaults' and the group's together.
   */
  images?: string[];
}

export interface NodeConfig extends NodeGroup {
  /** Zones the nodes are spread over (topology.kubernetes.io/zone), round-robin; default zone-a, zone-b, zone-c. */
  zones?: string[];
  /** topology.kubernetes.io/region (default region-1). */
  region?: string;
  groups?: NodeGroup[];
}

export const DEFAULT_CAPACITY: Readonly<Record<string, string>> = {
  cpu: '8',
  'ephemeral-storage': '100Gi',
  'hugepages-1Gi': '0',
  'hugepages-2Mi': '0',
  memory: '32Gi',
  pods: '110',
};

export const DEFAULT_ZONES = ['zone-a', 'zone-b', 'zone-c'];
export const DEFAULT_REGION = 'region-1';

/** Everything the kubelet of one simulated node needs to know about it. */
export interface SimNodeSpec {
  name: string;
  /** 1-based position among the nodes (decides the zone and the pod CIDR). */
  index: number;
  zone: string;
  region: string;
  podCIDR: string;
  capacity: Record<string, string>;
  allocatable: Record<string, string>;
  labels: Record<string, string>;
  taints: Taint[];
  images: string[];
}

/**
 * The i-th (1-based) /24 pod CIDR: 10.244.<i>.0/24 for the first 255 nodes, then on through 10.245.0.0/24 … up to
 * 10.255.255.0/24, then 172.16.0.0/12 and 100.64.0.0/10 (values only: no traffic is ever sent there).
 */
export function podCIDRFor(index: number): string {
  const ranges: [number, number][] = [
    [(10 << 24) | (244 << 16), 12 * 256],
    [(172 << 24) | (16 << 16), 16 * 256],
    [(100 << 24) | (64 << 16), 64 * 256],
  ];
  let i = index;
  for (const [base, count] of ranges) {
    if (i < count) {
      const addr = (base + i * 256) >>> 0;
      return `${addr >>> 24}.${(addr >>> 16) & 255}.${(addr >>> 8) & 255}.0/24`;
    }
    i -= count;
  }
  throw new Error(`no pod CIDR left for node ${index}`);
}

/** The spec of the node called `name`, the index-th (1-based) of the simulated nodes. */
export function nodeSpecFor(name: string, index: number, config: NodeConfig = {}): SimNodeSpec {
  let group: NodeGroup = {};
  let first = 1;
  for (const g of config.groups ?? []) {
    const count = g.count ?? 0;
    if (index >= first && index < first + count) {
      group = g;
      break;
    }
    first += count;
  }
  const zones = config.zones && config.zones.length > 0 ? config.zones : DEFAULT_ZONES;
  const zone = zones[(index - 1) % zones.length] as string;
  const region = config.region ?? DEFAULT_REGION;
  const capacity = { ...DEFAULT_CAPACITY, ...config.capacity, ...group.capacity };
  const allocatable = { ...capacity, ...config.allocatable, ...group.allocatable };
  const labels: Record<string, string> = {
    'beta.kubernetes.io/arch': 'amd64',
    'beta.kubernetes.io/os': 'linux',
    'kubernetes.io/arch': 'amd64',
    'kubernetes.io/hostname': name,
    'kubernetes.io/os': 'linux',
    'topology.kubernetes.io/region': region,
    'topology.kubernetes.io/zone': zone,
    ...config.labels,
    ...group.labels,
  };
  return {
    name,
    index,
    zone,
    region,
    podCIDR: podCIDRFor(index),
    capacity,
    allocatable,
    labels,
    taints: [...(config.taints ?? []), ...(group.taints ?? [])],
    images: [...new Set([...(config.images ?? []), ...(group.images ?? [])])],
  };
}

/** The labels the kubelet keeps in step on an existing node (upstream's updateDefaultLabels). */
export const DEFAULT_LABEL_KEYS = [
  'kubernetes.io/hostname',
  'kubernetes.io/os',
  'kubernetes.io/arch',
  'beta.kubernetes.io/os',
  'beta.kubernetes.io/arch',
  'topology.kubernetes.io/zone',
  'topology.kubernetes.io/region',
];

/** Parses a node config file's value (from YAML or JSON), checking its shape. */
export function checkNodeConfig(value: unknown): NodeConfig {
  if (value === null || value === undefined) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw new Error('a node config is a map');
  const v = value as KubeObject | Record<string, unknown>;
  const allowed = [
    'capacity',
    'allocatable',
    'labels',
    'taints',
    'images',
    'zones',
    'region',
    'groups',
    'apiVersion',
    'kind',
  ];
  for (const key of Object.keys(v)) {
    if (!allowed.includes(key)) throw new Error(`node config: unknown field ${JSON.stringify(key)}`);
  }
  const groups = (v as NodeConfig).groups;
  if (groups !== undefined && !Array.isArray(groups)) throw new Error('node config: groups must be a list');
  checkImages((v as NodeConfig).images, 'images');
  for (const [i, g] of (groups ?? []).entries()) {
    if (typeof g.count !== 'number' || !Number.isInteger(g.count) || g.count < 0) {
      throw new Error(`node config: groups[${i}].count must be a whole number`);
    }
    checkImages(g.images, `groups[${i}].images`);
  }
  return v as NodeConfig;
}

function checkImages(images: unknown, at: string): void {
  if (images === undefined) return;
  if (!Array.isArray(images) || images.some((i) => typeof i !== 'string' || i.trim() === '')) {
    throw new Error(`node config: ${at} must be a list of image names`);
  }
  for (const image of images as string[]) {
    const invalid = imageReferenceError(image);
    if (invalid) throw new Error(`node config: ${at}: ${JSON.stringify(image)}: ${invalid}`);
  }
}
