/**
 * A small framework for plugin unit tests (only tests import this): a Handle over fixed NodeInfos that runs the
 * given plugins' PreFilter, Filter, PreFilter extensions, PreScore and Score the way the scheduler does, records
 * events, and answers nominated pods from a map.
 */

import type { SharedInformerFactory } from '../../../client/cache/factory.js';
import type { EventRecorder } from '../../../client/events/broadcaster.js';
import type { KubeClient } from '../../../client/rest.js';
import type { KubeObject } from '../../../client/types.js';
import { FakeClock } from '../../../util/clock.js';
import { silentLogger } from '../../../util/logger.js';
import { cloneNodeInfo } from '../../framework/node-info.js';
import {
  Code,
  CycleState,
  type FilterPlugin,
  type Handle,
  type NodeInfo,
  type NodeScore,
  type NodeToStatus,
  type Plugin,
  type PluginFactory,
  type Pod,
  type PodInfo,
  type PreFilterPlugin,
  type PreScorePlugin,
  type ScorePlugin,
  Status,
} from '../../framework/types.js';
import { runFilterPluginsWithNominatedPods } from './victims.js';

export interface RecordedEvent {
  subject: KubeObject;
  type: string;
  reason: string;
  message: string;
}

export interface FakeFrameworkOptions {
  nodes: NodeInfo[];
  plugins: { factory: PluginFactory; args?: Record<string, unknown> }[];
  client?: KubeClient;
  informers?: SharedInformerFactory;
  nominated?: Map<string, PodInfo[]>;
  clock?: FakeClock;
}

const has = (p: Plugin, m: string) => typeof (p as unknown as Record<string, unknown>)[m] === 'function';

export class FakeFramework {
  readonly handle: Handle;
  readonly plugins: Plugin[];
  readonly events: RecordedEvent[] = [];
  nodes: NodeInfo[];
  readonly nominated: Map<string, PodInfo[]>;
  readonly clock: FakeClock;

  constructor(opts: FakeFrameworkOptions) {
    this.nodes = opts.nodes;
    this.nominated = opts.nominated ?? new Map();
    this.clock = opts.clock ?? new FakeClock(Date.parse('2025-01-01T00:00:00Z'));
    const events = this.events;
    const recorder: EventRecorder = {
      event: (subject, type, reason, message) => {
        events.push({ subject: subject as KubeObject, type, reason, message });
      },
      eventf: (subject, type, reason, fmt) => {
        events.push({ subject: subject as KubeObject, type, reason, message: fmt });
      },
      annotatedEventf: (subject, _a, type, reason, fmt) => {
        events.push({ subject: subject as KubeObject, type, reason, message: fmt });
      },
    };
    this.handle = {
      client: opts.client ?? ({} as KubeClient),
      clock: this.clock,
      logger: silentLogger,
      recorder,
      profileName: 'default-scheduler',
      snapshot: () => ({
        nodeInfos: () => ({
          list: () => this.nodes,
          havePodsWithAffinityList: () => this.nodes.filter((n) => n.podsWithAffinity.length > 0),
          havePodsWithRequiredAntiAffinityList: () =>
            this.nodes.filter((n) => n.podsWithRequiredAntiAffinity.length > 0),
          get: (name: string) => this.nodes.find((n) => n.node.metadata?.name === name),
        }),
      }),
      nominatedPodsForNode: (name) => [...(this.nominated.get(name) ?? [])],
      runFilterPlugins: (state, pod, ni) => this.runFilter(state, pod, ni),
      runPreFilterExtensionAddPod: (state, pod, pi, ni) => this.runExtension('addPod', state, pod, pi, ni),
      runPreFilterExtensionRemovePod: (state, pod, pi, ni) => this.runExtension('removePod', state, pod, pi, ni),
      ...(opts.informers ? { informers: opts.informers } : {}),
    };
    this.plugins = opts.plugins.map((p) => p.factory(p.args, this.handle));
  }

  plugin<T extends Plugin>(name: string): T {
    const p = this.plugins.find((pl) => pl.name === name);
    if (!p) throw new Error(`no plugin ${name}`);
    return p as T;
  }

  /** Every PreFilter; a Skip marks the plugin's Filter as skipped. The first rejection is returned. */
  runPreFilter(state: CycleState, pod: Pod): Status {
    for (const pl of this.plugins) {
      if (!has(pl, 'preFilter')) continue;
      const { status } = (pl as PreFilterPlugin).preFilter(state, pod, this.nodes);
      if (status.isSkip()) {
        state.skipFilterPlugins.add(pl.name);
        continue;
      }
      if (!status.isSuccess()) return status.withPlugin(pl.name);
    }
    return Status.success();
  }

  runFilter(state: CycleState, pod: Pod, ni: NodeInfo): Status {
    for (const pl of this.plugins) {
      if (!has(pl, 'filter') || state.skipFilterPlugins.has(pl.name)) continue;
      const s = (pl as FilterPlugin).filter(state, pod, ni);
      if (!s.isSuccess()) return s.withPlugin(pl.name);
    }
    return Status.success();
  }

  runExtension(which: 'addPod' | 'removePod', state: CycleState, pod: Pod, pi: PodInfo, ni: NodeInfo): Status {
    for (const pl of this.plugins) {
      if (!has(pl, 'preFilter') || state.skipFilterPlugins.has(pl.name)) continue;
      const ext = (pl as PreFilterPlugin).preFilterExtensions?.();
      if (!ext) continue;
      const s = ext[which](state, pod, pi, ni);
      if (!s.isSuccess()) return s;
    }
    return Status.success();
  }

  /** PreFilter, then Filter (with nominated pods, as scheduling does) on every node. */
  schedule(pod: Pod): { state: CycleState; statuses: NodeToStatus; feasible: string[] } {
    const state = new CycleState();
    const statuses: NodeToStatus = new Map();
    const feasible: string[] = [];
    const pre = this.runPreFilter(state, pod);
    for (const ni of this.nodes) {
      const name = ni.node.metadata?.name ?? '';
      const s = pre.isSuccess() ? runFilterPluginsWithNominatedPods(this.handle, state, pod, ni, cloneNodeInfo) : pre;
      if (s.isSuccess()) feasible.push(name);
      else statuses.set(name, s);
    }
    return { state, statuses, feasible };
  }

  /** PreScore, Score and NormalizeScore of one plugin over the given nodes (all by default). */
  scores(pluginName: string, pod: Pod, nodes: NodeInfo[] = this.nodes, state = new CycleState()): NodeScore[] {
    const pl = this.plugin<Plugin>(pluginName);
    if (has(pl, 'preScore')) {
      const s = (pl as PreScorePlugin).preScore(state, pod, nodes);
      if (s.isSkip()) return nodes.map((n) => ({ name: n.node.metadata?.name ?? '', score: 0 }));
      if (!s.isSuccess()) throw new Error(s.message());
    }
    const sp = pl as ScorePlugin;
    const out: NodeScore[] = nodes.map((n) => {
      const r = sp.score(state, pod, n);
      if (r.status.code !== Code.Success) throw new Error(r.status.message());
      return { name: n.node.metadata?.name ?? '', score: r.score };
    });
    const ns = sp.normalizeScore?.(state, pod, out);
    if (ns && !ns.isSuccess()) throw new Error(ns.message());
    return out;
  }
}

let uidCounter = 0;

export interface NodeSpec {
  labels?: Record<string, string>;
  cpu?: string;
  memory?: string;
  pods?: string;
  taints?: { key: string; value?: string; effect: string }[];
}

export function makeNode(name: string, spec: NodeSpec = {}): import('../../framework/types.js').Node {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, uid: `node-${name}`, labels: { 'kubernetes.io/hostname': name, ...(spec.labels ?? {}) } },
    spec: spec.taints ? { taints: spec.taints } : {},
    status: {
      allocatable: { cpu: spec.cpu ?? '4', memory: spec.memory ?? '16Gi', pods: spec.pods ?? '110' },
      capacity: { cpu: spec.cpu ?? '4', memory: spec.memory ?? '16Gi', pods: spec.pods ?? '110' },
    },
  };
}

export interface PodSpec {
  namespace?: string;
  labels?: Record<string, string>;
  nodeName?: string;
  priority?: number;
  cpu?: string;
  // biome-ignore lint/suspicious/noExplicitAny: test fixtures carry any pod field
  affinity?: any;
  // biome-ignore lint/suspicious/noExplicitAny: test fixtures carry any pod field
  topologySpreadConstraints?: any[];
  // biome-ignore lint/suspicious/noExplicitAny: test fixtures carry any pod field
  tolerations?: any[];
  nodeSelector?: Record<string, string>;
  startTime?: string;
  preemptionPolicy?: string;
  nominatedNodeName?: string;
  ownerReferences?: import('../../../client/types.js').OwnerReference[];
  deletionTimestamp?: string;
  // biome-ignore lint/suspicious/noExplicitAny: test fixtures carry any pod field
  conditions?: any[];
}

export function makePod(name: string, spec: PodSpec = {}): Pod {
  uidCounter++;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: spec.namespace ?? 'default',
      uid: `uid-${name}-${uidCounter}`,
      ...(spec.labels ? { labels: spec.labels } : {}),
      ...(spec.ownerReferences ? { ownerReferences: spec.ownerReferences } : {}),
      ...(spec.deletionTimestamp ? { deletionTimestamp: spec.deletionTimestamp } : {}),
    },
    spec: {
      schedulerName: 'default-scheduler',
      containers: [{ name: 'c', image: 'pause', resources: spec.cpu ? { requests: { cpu: spec.cpu } } : {} }],
      ...(spec.nodeName ? { nodeName: spec.nodeName } : {}),
      ...(spec.priority !== undefined ? { priority: spec.priority } : {}),
      ...(spec.affinity ? { affinity: spec.affinity } : {}),
      ...(spec.topologySpreadConstraints ? { topologySpreadConstraints: spec.topologySpreadConstraints } : {}),
      ...(spec.tolerations ? { tolerations: spec.tolerations } : {}),
      ...(spec.nodeSelector ? { nodeSelector: spec.nodeSelector } : {}),
      ...(spec.preemptionPolicy ? { preemptionPolicy: spec.preemptionPolicy } : {}),
    },
    status: {
      ...(spec.startTime ? { startTime: spec.startTime } : {}),
      ...(spec.nominatedNodeName ? { nominatedNodeName: spec.nominatedNodeName } : {}),
      ...(spec.conditions ? { conditions: spec.conditions } : {}),
    },
  };
}
