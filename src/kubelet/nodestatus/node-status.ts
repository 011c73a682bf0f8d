/**
 * The Node a simulated kubelet registers and the status it reports (upstream's nodestatus setters): addresses,
 * capacity and allocatable, the pressure and Ready conditions with upstream's reasons and messages, the daemon
 * endpoint, node info and the images it has pulled. The status is compared with the Node as the API has it, so the
 * kubelet reports only when something changed, or when the report interval has passed (nodeStatusReportFrequency).
 */
import { createHash, randomUUID } from 'node:crypto';
import { canonicalQuantity } from '../../api/quantity.js';
import type { KubeObject } from '../../client/types.js';
import { formatTime, imageIdOf, imageSizeOf, normalizeImage } from '../format.js';
import type { SimNodeSpec } from './node-config.js';

/** What the kubelet reports as its version (the apiserver reports the same base version). */
export const KUBELET_VERSION = 'v1.33.0-wheelhouse.0.1.0';
export const CONTAINER_RUNTIME_VERSION = 'sim://0.1.0';
/** All simulated nodes share loopback; nothing is ever sent to pod addresses. */
export const SIM_HOST_IP = '127.0.0.1';
/** Upstream reports at most this many images (--node-status-max-images). */
export const MAX_IMAGES = 50;
export const CONTROLLER_MANAGED_ATTACH_DETACH = 'volumes.kubernetes.io/controller-managed-attach-detach';

export interface NodeCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastHeartbeatTime: string;
  lastTransitionTime: string;
  reason: string;
  message: string;
}

const CONDITIONS: readonly Omit<NodeCondition, 'lastHeartbeatTime' | 'lastTransitionTime'>[] = [
  {
    type: 'MemoryPressure',
    status: 'False',
    reason: 'KubeletHasSufficientMemory',
    message: 'kubelet has sufficient memory available',
  },
  {
    type: 'DiskPressure',
    status: 'False',
    reason: 'KubeletHasNoDiskPressure',
    message: 'kubelet has no disk pressure',
  },
  {
    type: 'PIDPressure',
    status: 'False',
    reason: 'KubeletHasSufficientPID',
    message: 'kubelet has sufficient PID available',
  },
  { type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status' },
];

/** The events upstream's kubelet records when a condition changes to these values. */
export const CONDITION_EVENTS: Readonly<Record<string, string>> = {
  MemoryPressure: 'NodeHasSufficientMemory',
  DiskPressure: 'NodeHasNoDiskPressure',
  PIDPressure: 'NodeHasSufficientPID',
  Ready: 'NodeReady',
};

const hex = (text: string) => createHash('sha256').update(text).digest('hex');

function uuidOf(text: string): string {
  const h = hex(text);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

/** Per-process facts of a node that are not in its spec. */
export interface NodeRuntimeInfo {
  bootID: string;
  kubeletPort: number;
  /** Images pulled so far, newest last. */
  images: string[];
  /** status.nodeInfo, made once. */
  nodeInfo?: Record<string, string>;
}

export function newRuntimeInfo(kubeletPort: number): NodeRuntimeInfo {
  return { bootID: randomUUID(), kubeletPort, images: [] };
}

function nodeInfo(spec: SimNodeSpec, rt: NodeRuntimeInfo): Record<string, string> {
  rt.nodeInfo ??= {
    machineID: hex(`machine/${spec.name}`).slice(0, 32),
    systemUUID: uuidOf(`system/${spec.name}`),
    bootID: rt.bootID,
    kernelVersion: '6.8.0-wheelhouse-sim',
    osImage: 'Wheelhouse simulated node',
    containerRuntimeVersion: CONTAINER_RUNTIME_VERSION,
    kubeletVersion: KUBELET_VERSION,
    operatingSystem: 'linux',
    architecture: 'amd64',
  };
  return rt.nodeInfo;
}

function imageList(images: readonly string[]): Record<string, unknown>[] {
  return images
    .map((image) => ({ names: [imageIdOf(image), normalizeImage(image)], sizeBytes: imageSizeOf(image) }))
    .sort((a, b) => b.sizeBytes - a.sizeBytes)
    .slice(0, MAX_IMAGES);
}

/**
 * The status to report. Conditions keep their lastTransitionTime from `current` (the Node as the API has it) when
 * their status did not change; lastHeartbeatTime is now.
 */
export function desiredNodeStatus(
  spec: SimNodeSpec,
  rt: NodeRuntimeInfo,
  current: KubeObject | undefined,
  now: number,
): Record<string, unknown> {
  const stamp = formatTime(now);
  const existing: NodeCondition[] = current?.status?.conditions ?? [];
  const conditions = CONDITIONS.map((c): NodeCondition => {
    const before = existing.find((e) => e.type === c.type);
    return {
      type: c.type,
      status: c.status,
      lastHeartbeatTime: stamp,
      lastTransitionTime:
        before && before.status === c.status && before.lastTransitionTime ? before.lastTransitionTime : stamp,
      reason: c.reason,
      message: c.message,
    };
  });
  const status: Record<string, unknown> = {
    capacity: { ...spec.capacity },
    allocatable: { ...spec.allocatable },
    conditions,
    addresses: [
      { type: 'InternalIP', address: SIM_HOST_IP },
      { type: 'Hostname', address: spec.name },
    ],
    daemonEndpoints: { kubeletEndpoint: { Port: rt.kubeletPort } },
    nodeInfo: { ...nodeInfo(spec, rt) },
  };
  if (rt.images.length > 0) status.images = imageList(rt.images);
  return status;
}

/** The Node to register (POST), status included, as upstream's initialNode plus the status setters. */
export function registrationNode(spec: SimNodeSpec, rt: NodeRuntimeInfo, now: number): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: spec.name,
      labels: { ...spec.labels },
      annotations: { [CONTROLLER_MANAGED_ATTACH_DETACH]: 'true' },
    },
    spec: {
      podCIDR: spec.podCIDR,
      podCIDRs: [spec.podCIDR],
      ...(spec.taints.length > 0 ? { taints: spec.taints.map((t) => ({ ...t })) } : {}),
    },
    status: desiredNodeStatus(spec, rt, undefined, now),
  };
}

/** The comparable part of a status: conditions without their times, and the other fields the kubelet sets. */
function comparable(status: Record<string, unknown> | undefined): string {
  if (!status) return '';
  const conditions = ((status.conditions ?? []) as NodeCondition[])
    .filter((c) => CONDITIONS.some((k) => k.type === c.type))
    .map((c) => [c.type, c.status, c.reason, c.message])
    .sort();
  const canon = (v: unknown): unknown =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>)
            .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
            .map(([k, x]) => [k, canon(x)]),
        )
      : Array.isArray(v)
        ? v.map(canon)
        : v;
  const quantities = (list: unknown) =>
    Object.fromEntries(
      Object.entries((list ?? {}) as Record<string, string>).map(([k, v]) => {
        try {
          return [k, canonicalQuantity(v)];
        } catch {
          return [k, v];
        }
      }),
    );
  return JSON.stringify(
    canon({
      conditions,
      capacity: quantities(status.capacity),
      allocatable: quantities(status.allocatable),
      addresses: status.addresses,
      daemonEndpoints: status.daemonEndpoints,
      nodeInfo: status.nodeInfo,
      images: status.images ?? [],
    }),
  );
}

/** Whether the status to report differs from the Node's (heartbeat times aside): upstream's nodeStatusHasChanged. */
export function nodeStatusChanged(desired: Record<string, unknown>, current: KubeObject | undefined): boolean {
  return comparable(desired) !== comparable(current?.status as Record<string, unknown> | undefined);
}
