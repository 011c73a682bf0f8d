/**
 * The framework runtime (upstream's framework/runtime): one profile's plugins, built from the registry with
 * their args, placed at each extension point (the profile's own lists, then multiPoint expansion as upstream v1
 * does it), with their score weights; and the Run* functions the scheduling and binding cycles call.
 *
 * Upstream's volume plugins (VolumeRestrictions, NodeVolumeLimits, VolumeBinding, VolumeZone) are in the default
 * profile; when the registry has no factory for them they are left out and listed in `notEvaluated`.
 */

import type { SharedInformerFactory } from '../../client/cache/factory.js';
import type { EventRecorder } from '../../client/events/broadcaster.js';
import type { KubeClient } from '../../client/rest.js';
import type { Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import { VOLUME_PLUGINS } from '../config/defaults.js';
import { EXTENSION_POINTS, type ExtensionPoint, type KubeSchedulerProfile, type PluginRef } from '../config/types.js';
import { addPodInfo, cloneNodeInfo } from '../framework/node-info.js';
import {
  type BindPlugin,
  type ClusterEventWithHint,
  Code,
  CycleState,
  type EnqueueExtensions,
  type FilterPlugin,
  type Handle,
  MAX_NODE_SCORE,
  MIN_NODE_SCORE,
  type NodeInfo,
  type NodeScore,
  type NodeToStatus,
  type PermitPlugin,
  type Plugin,
  type PluginFactory,
  type Pod,
  type PodInfo,
  type PostBindPlugin,
  type PostFilterPlugin,
  type PreBindPlugin,
  type PreEnqueuePlugin,
  type PreFilterPlugin,
  type PreFilterResult,
  type PreScorePlugin,
  type QueuedPodInfo,
  type QueueSortPlugin,
  type ReservePlugin,
  type ScorePlugin,
  type SnapshotLister,
  Status,
} from '../framework/types.js';
import type { QueueingHintEntry } from '../queue/scheduling-queue.js';

/** Plugin name → factory (a Map or a plain object). */
export type PluginRegistry = ReadonlyMap<string, PluginFactory> | Readonly<Record<string, PluginFactory>>;

function factoryOf(registry: PluginRegistry, name: string): PluginFactory | undefined {
  if (registry instanceof Map) return registry.get(name);
  const r = registry as Readonly<Record<string, PluginFactory>>;
  return Object.hasOwn(r, name) ? r[name] : undefined;
}

/** Upstream's maxTimeout for Permit waits. */
export const MAX_PERMIT_TIMEOUT_MS = 15 * 60_000;

/** What the scheduler shares with every profile's Handle. */
export interface FrameworkDeps {
  client: KubeClient;
  clock: Clock;
  logger: Logger;
  recorder: EventRecorder;
  snapshot(): SnapshotLister;
  nominatedPodsForNode(nodeName: string): PodInfo[];
  /** Whether any pod is nominated anywhere (lets Filter skip the per-node lookup). */
  hasNominatedPods?(): boolean;
  informers?: SharedInformerFactory;
}

/** A node's weighted scores (upstream's NodePluginScores). */
export interface NodePluginScores {
  name: string;
  /** Per score plugin, in the profile's order: the normalized score times the weight. */
  scores: { name: string; score: number }[];
  totalScore: number;
}

/**
 * The weighted scores of nodes, compactly (upstream's []NodePluginScores): `values[p * nodes.length + i]` is
 * plugin p's normalized score of node i times the plugin's weight; `totals[i]` is node i's sum.
 */
export interface NodeScores {
  nodes: string[];
  plugins: string[];
  /** Plain arrays rather than typed ones: a cycle's typed arrays would each take an off-heap allocation. */
  values: number[];
  totals: number[];
}

/** The per-node form of NodeScores. */
export function nodePluginScores(s: NodeScores): NodePluginScores[] {
  return s.nodes.map((name, i) => ({
    name,
    scores: s.plugins.map((plugin, p) => ({ name: plugin, score: s.values[p * s.nodes.length + i] as number })),
    totalScore: s.totals[i] as number,
  }));
}

/** What PreFilter said: the node names it narrowed to, a rejection, and which plugins it skipped. */
export interface PreFilterOutcome {
  result: PreFilterResult | undefined;
  status: Status;
  /** The plugins whose result narrowed the nodes (upstream's "unscheduledPlugins"). */
  pluginsWithNodes: string[];
  skipped: string[];
}

const has = (p: Plugin, method: string) => typeof (p as unknown as Record<string, unknown>)[method] === 'function';

/** The method that makes a plugin fit each extension point. */
const POINT_METHOD: Record<ExtensionPoint, string> = {
  preEnqueue: 'preEnqueue',
  queueSort: 'less',
  preFilter: 'preFilter',
  filter: 'filter',
  postFilter: 'postFilter',
  preScore: 'preScore',
  score: 'score',
  reserve: 'reserve',
  permit: 'permit',
  preBind: 'preBind',
  bind: 'bind',
  postBind: 'postBind',
};

/** Go's %v of a string list: [a b c]. */
const goList = (names: string[]) => `[${names.join(' ')}]`;

function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}

/** A copy of a plugin's status naming the plugin (plugins may return shared Status objects). */
function attributed(s: Status, plugin: string): Status {
  return new Status(s.code, s.reasons, plugin, s.error);
}

/** A pod waiting at Permit (upstream's waitingPod): allowed by each waiting plugin, or rejected by one. */
export class WaitingPod {
  private readonly pending: Set<string>;
  private readonly timers: { cancel(): void }[] = [];
  private resolve!: (s: Status) => void;
  readonly done: Promise<Status>;

  constructor(
    readonly pod: Pod,
    waits: Map<string, number>,
    clock: Clock,
  ) {
    this.pending = new Set(waits.keys());
    this.done = new Promise<Status>((r) => {
      this.resolve = r;
    });
    for (const [plugin, ms] of waits) {
      this.timers.push(
        clock.after(ms, () =>
          this.reject(plugin, `rejected due to timeout after waiting ${formatGoDuration(ms)} at plugin ${plugin}`),
        ),
      );
    }
  }

  pendingPlugins(): string[] {
    return [...this.pending];
  }

  allow(plugin: string): void {
    this.pending.delete(plugin);
    if (this.pending.size === 0) this.finish(Status.success());
  }

  reject(plugin: string, message: string): void {
    this.finish(new Status(Code.Unschedulable, [message], plugin));
  }

  private finish(s: Status): void {
    for (const t of this.timers) t.cancel();
    this.resolve(s);
  }
}

function formatGoDuration(ms: number): string {
  if (ms % 60_000 === 0 && ms >= 60_000) return `${ms / 60_000}m0s`;
  return `${ms / 1000}s`;
}

export class Framework {
  readonly profileName: string;
  readonly percentageOfNodesToScore: number | undefined;
  readonly handle: Handle;
  readonly pluginsMap = new Map<string, Plugin>();
  /** Default-profile plugins this build does not evaluate (the volume plugins). */
  readonly notEvaluated: string[] = [];
  readonly preEnqueuePlugins: PreEnqueuePlugin[] = [];
  readonly queueSortPlugins: QueueSortPlugin[] = [];
  readonly preFilterPlugins: PreFilterPlugin[] = [];
  readonly filterPlugins: FilterPlugin[] = [];
  readonly postFilterPlugins: PostFilterPlugin[] = [];
  readonly preScorePlugins: PreScorePlugin[] = [];
  readonly scorePlugins: ScorePlugin[] = [];
  readonly reservePlugins: ReservePlugin[] = [];
  readonly permitPlugins: PermitPlugin[] = [];
  readonly preBindPlugins: PreBindPlugin[] = [];
  readonly bindPlugins: BindPlugin[] = [];
  readonly postBindPlugins: PostBindPlugin[] = [];
  readonly scoreWeights = new Map<string, number>();
  readonly waitingPods = new Map<string, WaitingPod>();
  private readonly deps: FrameworkDeps;
  /** NormalizeScore's node list and its entries, reused by runScorePlugins. */
  private readonly scoreList: NodeScore[] = [];
  private readonly scorePool: NodeScore[] = [];

  constructor(profile: KubeSchedulerProfile, registry: PluginRegistry, deps: FrameworkDeps) {
    this.deps = deps;
    this.profileName = profile.schedulerName;
    this.percentageOfNodesToScore = profile.percentageOfNodesToScore;
    this.handle = {
      client: deps.client,
      clock: deps.clock,
      logger: deps.logger,
      recorder: deps.recorder,
      profileName: profile.schedulerName,
      snapshot: () => deps.snapshot(),
      nominatedPodsForNode: (nodeName) => deps.nominatedPodsForNode(nodeName),
      runFilterPlugins: (state, pod, nodeInfo) => this.runFilterPlugins(state, pod, nodeInfo),
      runPreFilterExtensionAddPod: (state, pod, pi, ni) => this.runPreFilterExtensionAddPod(state, pod, pi, ni),
      runPreFilterExtensionRemovePod: (state, pod, pi, ni) => this.runPreFilterExtensionRemovePod(state, pod, pi, ni),
      ...(deps.informers ? { informers: deps.informers } : {}),
    };

    const args = new Map(profile.pluginConfig.map((pc) => [pc.name, pc.args]));
    const needed = new Set<string>();
    for (const e of ['multiPoint', ...EXTENSION_POINTS] as const) {
      for (const p of profile.plugins[e].enabled) needed.add(p.name);
    }
    for (const name of needed) {
      const factory = factoryOf(registry, name);
      if (!factory) {
        if ((VOLUME_PLUGINS as readonly string[]).includes(name)) {
          this.notEvaluated.push(name);
          continue;
        }
        throw new Error(`plugin "${name}" does not exist in the registry (profile "${this.profileName}")`);
      }
      const plugin = factory(args.get(name), this.handle);
      this.pluginsMap.set(name, plugin);
    }

    for (const e of EXTENSION_POINTS) this.fillExtensionPoint(e, profile);
    if (this.queueSortPlugins.length !== 1) {
      throw new Error(
        `only one queue sort plugin required for profile with scheduler name "${this.profileName}", but got ${this.queueSortPlugins.length}`,
      );
    }
    if (this.bindPlugins.length === 0) {
      throw new Error(`at least one bind plugin is needed for profile with scheduler name "${this.profileName}"`);
    }
    // Score weights: the Score point's own entries first, then multiPoint's; 0 means 1.
    for (const ref of [...profile.plugins.score.enabled, ...profile.plugins.multiPoint.enabled]) {
      const pl = this.pluginsMap.get(ref.name);
      if (!pl || !has(pl, 'score') || this.scoreWeights.has(ref.name)) continue;
      this.scoreWeights.set(ref.name, ref.weight ? ref.weight : 1);
    }
  }

  /** Upstream's updatePluginList + expandMultiPointPlugins for one extension point. */
  private fillExtensionPoint(e: ExtensionPoint, profile: KubeSchedulerProfile): void {
    const method = POINT_METHOD[e];
    const set = profile.plugins[e];
    const missing = (name: string) => {
      if (this.notEvaluated.includes(name)) return true;
      if (!this.pluginsMap.has(name)) throw new Error(`${e} plugin "${name}" does not exist`);
      return false;
    };
    const enabled: string[] = [];
    for (const ref of set.enabled) {
      if (missing(ref.name)) continue;
      const pl = this.pluginsMap.get(ref.name) as Plugin;
      if (!has(pl, method)) throw new Error(`plugin "${ref.name}" does not extend ${e} plugin`);
      if (enabled.includes(ref.name)) throw new Error(`plugin "${ref.name}" already registered as "${e}"`);
      enabled.push(ref.name);
    }
    let ordered = enabled;
    const disabled = new Set(set.disabled.map((d) => d.name));
    if (profile.plugins.multiPoint.enabled.length > 0 && !disabled.has('*')) {
      const overrides: string[] = [];
      const fromMultiPoint: string[] = [];
      for (const ref of profile.plugins.multiPoint.enabled) {
        if (missing(ref.name)) continue;
        const pl = this.pluginsMap.get(ref.name) as Plugin;
        if (!has(pl, method) || disabled.has(ref.name)) continue;
        if (enabled.includes(ref.name)) {
          if (!overrides.includes(ref.name)) overrides.push(ref.name);
          continue;
        }
        if (fromMultiPoint.includes(ref.name)) throw new Error(`plugin "${ref.name}" already registered as "${e}"`);
        fromMultiPoint.push(ref.name);
      }
      ordered = [...overrides, ...fromMultiPoint, ...enabled.filter((n) => !overrides.includes(n))];
    }
    const list = this.listOf(e) as Plugin[];
    for (const name of ordered) list.push(this.pluginsMap.get(name) as Plugin);
  }

  private listOf(e: ExtensionPoint): unknown[] {
    switch (e) {
      case 'preEnqueue':
        return this.preEnqueuePlugins;
      case 'queueSort':
        return this.queueSortPlugins;
      case 'preFilter':
        return this.preFilterPlugins;
      case 'filter':
        return this.filterPlugins;
      case 'postFilter':
        return this.postFilterPlugins;
      case 'preScore':
        return this.preScorePlugins;
      case 'score':
        return this.scorePlugins;
      case 'reserve':
        return this.reservePlugins;
      case 'permit':
        return this.permitPlugins;
      case 'preBind':
        return this.preBindPlugins;
      case 'bind':
        return this.bindPlugins;
      case 'postBind':
        return this.postBindPlugins;
    }
  }

  /** The QueueSort plugin's order. */
  less(a: QueuedPodInfo, b: QueuedPodInfo): boolean {
    return (this.queueSortPlugins[0] as QueueSortPlugin).less(a, b);
  }

  /**
   * The events each plugin that can reject a pod registered (EnqueueExtensions); a plugin without
   * eventsToRegister is interested in every event (upstream's default).
   */
  queueingHints(): QueueingHintEntry[] {
    const out: QueueingHintEntry[] = [];
    for (const [name, pl] of this.pluginsMap) {
      const rejects = ['preEnqueue', 'preFilter', 'filter', 'reserve', 'permit'].some((m) => has(pl, m));
      if (!rejects) continue;
      const events: ClusterEventWithHint[] = has(pl, 'eventsToRegister')
        ? (pl as unknown as EnqueueExtensions).eventsToRegister()
        : [{ event: { resource: '*', actions: ['All'] } }];
      for (const e of events) out.push({ plugin: name, event: e.event, ...(e.hint ? { hint: e.hint } : {}) });
    }
    return out;
  }

  hasFilterPlugins(): boolean {
    return this.filterPlugins.length > 0;
  }
  hasPostFilterPlugins(): boolean {
    return this.postFilterPlugins.length > 0;
  }
  hasScorePlugins(): boolean {
    return this.scorePlugins.length > 0;
  }

  // --- PreFilter / Filter ---------------------------------------------------------------------------------

  runPreFilterPlugins(state: CycleState, pod: Pod, nodes: NodeInfo[]): PreFilterOutcome {
    let result: PreFilterResult | undefined;
    let returnStatus = Status.success();
    const pluginsWithNodes: string[] = [];
    const skipped: string[] = [];
    for (const pl of this.preFilterPlugins) {
      let out: ReturnType<PreFilterPlugin['preFilter']>;
      try {
        out = pl.preFilter(state, pod, nodes);
      } catch (err) {
        out = { status: Status.error(asError(err)) };
      }
      const s = out.status;
      if (s.isSkip()) {
        skipped.push(pl.name);
        continue;
      }
      if (!s.isSuccess()) {
        const st = attributed(s, pl.name);
        if (s.code === Code.UnschedulableAndUnresolvable)
          return { result: undefined, status: st, pluginsWithNodes: [], skipped };
        if (s.code === Code.Unschedulable) {
          returnStatus = st;
          continue;
        }
        return {
          result: undefined,
          status: new Status(Code.Error, [`running PreFilter plugin "${pl.name}": ${s.message()}`], pl.name, s.error),
          pluginsWithNodes: [],
          skipped,
        };
      }
      const r = out.result;
      if (r?.nodeNames) {
        pluginsWithNodes.push(pl.name);
        result = { nodeNames: result?.nodeNames ? intersect(result.nodeNames, r.nodeNames) : new Set(r.nodeNames) };
        if (result.nodeNames && result.nodeNames.size === 0) {
          const msg =
            pluginsWithNodes.length === 1
              ? `node(s) didn't satisfy plugin ${pluginsWithNodes[0]}`
              : `node(s) didn't satisfy plugin(s) ${goList(pluginsWithNodes)} simultaneously`;
          state.skipFilterPlugins.clear();
          for (const p of skipped) state.skipFilterPlugins.add(p);
          return { result, status: new Status(Code.UnschedulableAndUnresolvable, [msg]), pluginsWithNodes, skipped };
        }
      }
    }
    state.skipFilterPlugins.clear();
    for (const p of skipped) state.skipFilterPlugins.add(p);
    return { result, status: returnStatus, pluginsWithNodes, skipped };
  }

  runPreFilterExtensionAddPod(state: CycleState, pod: Pod, toAdd: PodInfo, nodeInfo: NodeInfo): Status {
    for (const pl of this.preFilterPlugins) {
      const ext = pl.preFilterExtensions?.();
      if (!ext || state.skipFilterPlugins.has(pl.name)) continue;
      const s = ext.addPod(state, pod, toAdd, nodeInfo);
      if (!s.isSuccess()) {
        return new Status(Code.Error, [`running AddPod on PreFilter plugin "${pl.name}": ${s.message()}`], pl.name);
      }
    }
    return Status.success();
  }

  runPreFilterExtensionRemovePod(state: CycleState, pod: Pod, toRemove: PodInfo, nodeInfo: NodeInfo): Status {
    for (const pl of this.preFilterPlugins) {
      const ext = pl.preFilterExtensions?.();
      if (!ext || state.skipFilterPlugins.has(pl.name)) continue;
      const s = ext.removePod(state, pod, toRemove, nodeInfo);
      if (!s.isSuccess()) {
        return new Status(Code.Error, [`running RemovePod on PreFilter plugin "${pl.name}": ${s.message()}`], pl.name);
      }
    }
    return Status.success();
  }

  /**
   * The Filter plugins PreFilter did not skip, in order: what runFilterPlugins runs on every node, worked out once
   * per cycle by callers that filter many nodes.
   */
  activeFilterPlugins(state: CycleState): FilterPlugin[] {
    const skip = state.skipFilterPlugins;
    if (skip.size === 0) return this.filterPlugins;
    return this.filterPlugins.filter((pl) => !skip.has(pl.name));
  }

  /**
   * Every Filter plugin in order, stopping at the first that rejects (its status names it). `plugins` (from
   * activeFilterPlugins(state)) saves working out the skipped plugins again for each node.
   */
  runFilterPlugins(state: CycleState, pod: Pod, nodeInfo: NodeInfo, plugins?: readonly FilterPlugin[]): Status {
    const list = plugins ?? this.filterPlugins;
    const skip = plugins ? undefined : state.skipFilterPlugins;
    for (let i = 0; i < list.length; i++) {
      const pl = list[i] as FilterPlugin;
      if (skip && skip.size > 0 && skip.has(pl.name)) continue;
      let s: Status;
      try {
        s = pl.filter(state, pod, nodeInfo);
      } catch (err) {
        s = Status.error(asError(err));
      }
      if (s.isSuccess()) continue;
      if (!s.isRejected()) {
        return new Status(Code.Error, [`running "${pl.name}" filter plugin: ${s.message()}`], pl.name, s.error);
      }
      return attributed(s, pl.name);
    }
    return Status.success();
  }

  /**
   * Filter as upstream runs it for scheduling: with the node's nominated pods of equal or higher priority added
   * (so room made for a preemptor is kept), and, if that passes, again without them.
   */
  runFilterPluginsWithNominatedPods(
    state: CycleState,
    pod: Pod,
    nodeInfo: NodeInfo,
    plugins?: readonly FilterPlugin[],
  ): Status {
    if (this.deps.hasNominatedPods && !this.deps.hasNominatedPods())
      return this.runFilterPlugins(state, pod, nodeInfo, plugins);
    const nominated = this.deps.nominatedPodsForNode(nodeInfo.node.metadata?.name ?? '');
    if (nominated.length === 0) return this.runFilterPlugins(state, pod, nodeInfo, plugins);
    const priority = podPriority(pod);
    const uid = pod.metadata?.uid;
    const toAdd = nominated.filter((pi) => podPriority(pi.pod) >= priority && pi.pod.metadata?.uid !== uid);
    if (toAdd.length === 0) return this.runFilterPlugins(state, pod, nodeInfo, plugins);
    const ni = cloneNodeInfo(nodeInfo);
    const st = state.clone();
    for (const pi of toAdd) {
      addPodInfo(ni, pi);
      const s = this.runPreFilterExtensionAddPod(st, pod, pi, ni);
      if (!s.isSuccess()) return s;
    }
    const first = this.runFilterPlugins(st, pod, ni, plugins);
    if (!first.isSuccess()) return first;
    return this.runFilterPlugins(state, pod, nodeInfo, plugins);
  }

  // --- PostFilter -------------------------------------------------------------------------------------------

  async runPostFilterPlugins(
    state: CycleState,
    pod: Pod,
    statuses: NodeToStatus,
  ): Promise<{ nominatedNodeName?: string; status: Status }> {
    let nominated: string | undefined;
    const reasons: string[] = [];
    let rejector = '';
    for (const pl of this.postFilterPlugins) {
      let out: { nominatedNodeName?: string; status: Status };
      try {
        out = await pl.postFilter(state, pod, statuses);
      } catch (err) {
        out = { status: Status.error(asError(err)) };
      }
      const s = out.status;
      if (s.isSuccess()) return out;
      if (s.code === Code.UnschedulableAndUnresolvable) return { ...out, status: attributed(s, pl.name) };
      if (!s.isRejected()) return { status: new Status(Code.Error, s.reasons, pl.name, s.error) };
      if (out.nominatedNodeName !== undefined) nominated = out.nominatedNodeName;
      reasons.push(...s.reasons);
      if (!rejector) rejector = pl.name;
    }
    const status = new Status(Code.Unschedulable, reasons, rejector);
    return nominated === undefined ? { status } : { nominatedNodeName: nominated, status };
  }

  // --- PreScore / Score -------------------------------------------------------------------------------------

  runPreScorePlugins(state: CycleState, pod: Pod, nodes: NodeInfo[]): Status {
    state.skipScorePlugins.clear();
    for (const pl of this.preScorePlugins) {
      let s: Status;
      try {
        s = pl.preScore(state, pod, nodes);
      } catch (err) {
        s = Status.error(asError(err));
      }
      if (s.isSkip()) {
        state.skipScorePlugins.add(pl.name);
        continue;
      }
      if (!s.isSuccess()) {
        return new Status(Code.Error, [`running PreScore plugin "${pl.name}": ${s.message()}`], pl.name, s.error);
      }
    }
    return Status.success();
  }

  /**
   * Scores every node with every (not skipped) Score plugin, normalized and weighted. `names` (the nodes' names,
   * in order) may be passed when the caller has them already.
   */
  runScorePlugins(
    state: CycleState,
    pod: Pod,
    nodes: NodeInfo[],
    names?: string[],
  ): { scores: NodeScores; status: Status } {
    const n = nodes.length;
    const plugins = this.scorePlugins.filter((pl) => !state.skipScorePlugins.has(pl.name));
    const nodeNames = names ?? nodes.map((ni) => ni.node.metadata?.name ?? '');
    const scores: NodeScores = {
      nodes: nodeNames,
      plugins: plugins.map((pl) => pl.name),
      values: new Array<number>(n * plugins.length).fill(0),
      totals: new Array<number>(n).fill(0),
    };
    const fail = (plugin: string, message: string) => ({ scores, status: new Status(Code.Error, [message], plugin) });
    const invalid = (plugin: string, score: number) =>
      fail(
        plugin,
        `applying score defaultWeights on Score plugins: plugin "${plugin}" returns an invalid score ${score}, it should in the range of [${MIN_NODE_SCORE}, ${MAX_NODE_SCORE}] after normalizing`,
      );
    const values = scores.values;
    const totals = scores.totals;
    const np = plugins.length;
    // As upstream: every plugin scores each node in turn (one node's data is read while it is at hand), then each
    // plugin normalizes its scores, then the weights apply and the ranges are checked.
    for (let i = 0; i < n; i++) {
      const ni = nodes[i] as NodeInfo;
      for (let p = 0; p < np; p++) {
        const pl = plugins[p] as ScorePlugin;
        let out: { score: number; status: Status };
        try {
          out = pl.score(state, pod, ni);
        } catch (err) {
          out = { score: 0, status: Status.error(asError(err)) };
        }
        if (!out.status.isSuccess()) return fail(pl.name, `running Score plugins: ${out.status.message()}`);
        values[p * n + i] = out.score;
      }
    }
    for (let p = 0; p < np; p++) {
      const pl = plugins[p] as ScorePlugin;
      if (!pl.normalizeScore) continue;
      // The list handed to NormalizeScore is reused from cycle to cycle (it lives only during this call).
      const list = this.scoreList;
      const pool = this.scorePool;
      list.length = n;
      const base = p * n;
      for (let i = 0; i < n; i++) {
        let entry = pool[i];
        if (!entry) {
          entry = { name: '', score: 0 };
          pool[i] = entry;
        }
        entry.name = nodeNames[i] as string;
        entry.score = values[base + i] as number;
        list[i] = entry;
      }
      const s = pl.normalizeScore(state, pod, list);
      if (!s.isSuccess()) return fail(pl.name, `running Normalize on Score plugins: ${s.message()}`);
      for (let i = 0; i < n; i++) values[base + i] = (list[i] as NodeScore).score;
    }
    for (let p = 0; p < np; p++) {
      const pl = plugins[p] as ScorePlugin;
      const weight = this.scoreWeights.get(pl.name) ?? 1;
      const base = p * n;
      for (let i = 0; i < n; i++) {
        const score = values[base + i] as number;
        if (score > MAX_NODE_SCORE || score < MIN_NODE_SCORE) return invalid(pl.name, score);
        values[base + i] = score * weight;
        totals[i] = (totals[i] as number) + score * weight;
      }
    }
    return { scores, status: Status.success() };
  }

  // --- Reserve / Permit -------------------------------------------------------------------------------------

  async runReservePluginsReserve(state: CycleState, pod: Pod, nodeName: string): Promise<Status> {
    for (const pl of this.reservePlugins) {
      let s: Status;
      try {
        s = await pl.reserve(state, pod, nodeName);
      } catch (err) {
        s = Status.error(asError(err));
      }
      if (s.isSuccess()) continue;
      if (s.isRejected()) return attributed(s, pl.name);
      return new Status(Code.Error, [`running Reserve plugin "${pl.name}": ${s.message()}`], pl.name, s.error);
    }
    return Status.success();
  }

  /** Unreserve in reverse order; errors are logged, never returned (as upstream). */
  async runReservePluginsUnreserve(state: CycleState, pod: Pod, nodeName: string): Promise<void> {
    for (let i = this.reservePlugins.length - 1; i >= 0; i--) {
      const pl = this.reservePlugins[i] as ReservePlugin;
      try {
        await pl.unreserve(state, pod, nodeName);
      } catch (err) {
        this.deps.logger.error('Unreserve failed', { plugin: pl.name, err: String(err) });
      }
    }
  }

  /** Runs Permit; a Wait from any plugin parks the pod in waitingPods (see waitOnPermit). */
  runPermitPlugins(state: CycleState, pod: Pod, nodeName: string): Status {
    const waits = new Map<string, number>();
    for (const pl of this.permitPlugins) {
      let out: { status: Status; timeoutMs: number };
      try {
        out = pl.permit(state, pod, nodeName);
      } catch (err) {
        out = { status: Status.error(asError(err)), timeoutMs: 0 };
      }
      const s = out.status;
      if (s.isSuccess()) continue;
      if (s.code === Code.Wait) {
        waits.set(pl.name, Math.min(out.timeoutMs, MAX_PERMIT_TIMEOUT_MS));
        continue;
      }
      if (s.isRejected()) return attributed(s, pl.name);
      return new Status(Code.Error, [`running Permit plugin "${pl.name}": ${s.message()}`], pl.name, s.error);
    }
    if (waits.size > 0) {
      this.waitingPods.set(pod.metadata?.uid ?? '', new WaitingPod(pod, waits, this.deps.clock));
      return new Status(Code.Wait, [
        `one or more plugins asked to wait and no plugin rejected pod "${pod.metadata?.name ?? ''}"`,
      ]);
    }
    return Status.success();
  }

  /** Waits until every waiting Permit plugin allowed the pod (or one rejected it, or a wait timed out). */
  async waitOnPermit(pod: Pod): Promise<Status> {
    const uid = pod.metadata?.uid ?? '';
    const wp = this.waitingPods.get(uid);
    if (!wp) return Status.success();
    try {
      return await wp.done;
    } finally {
      this.waitingPods.delete(uid);
    }
  }

  /** Rejects a pod waiting at Permit (e.g. it was deleted); false when it was not waiting. */
  rejectWaitingPod(uid: string): boolean {
    const wp = this.waitingPods.get(uid);
    if (!wp) return false;
    for (const plugin of wp.pendingPlugins()) wp.reject(plugin, 'removed');
    return true;
  }

  // --- binding ----------------------------------------------------------------------------------------------

  async runPreBindPlugins(state: CycleState, pod: Pod, nodeName: string): Promise<Status> {
    for (const pl of this.preBindPlugins) {
      let s: Status;
      try {
        s = await pl.preBind(state, pod, nodeName);
      } catch (err) {
        s = Status.error(asError(err));
      }
      if (s.isSuccess()) continue;
      if (s.isRejected()) return attributed(s, pl.name);
      return new Status(Code.Error, [`running PreBind plugin "${pl.name}": ${s.message()}`], pl.name, s.error);
    }
    return Status.success();
  }

  async runBindPlugins(state: CycleState, pod: Pod, nodeName: string): Promise<Status> {
    let status = Status.skip();
    for (const pl of this.bindPlugins) {
      try {
        status = await pl.bind(state, pod, nodeName);
      } catch (err) {
        status = Status.error(asError(err));
      }
      if (status.isSkip()) continue;
      if (status.isSuccess()) return status;
      if (status.isRejected()) return attributed(status, pl.name);
      return new Status(Code.Error, [`running Bind plugin "${pl.name}": ${status.message()}`], pl.name, status.error);
    }
    return status;
  }

  runPostBindPlugins(state: CycleState, pod: Pod, nodeName: string): void {
    for (const pl of this.postBindPlugins) {
      try {
        pl.postBind(state, pod, nodeName);
      } catch (err) {
        this.deps.logger.error('PostBind failed', { plugin: pl.name, err: String(err) });
      }
    }
  }

  /** The plugins at each extension point (for `wheelhouse explain` and debugging). */
  describe(): Record<ExtensionPoint, string[]> & { notEvaluated: string[]; weights: Record<string, number> } {
    const out = {} as Record<ExtensionPoint, string[]>;
    for (const e of EXTENSION_POINTS) out[e] = (this.listOf(e) as Plugin[]).map((p) => p.name);
    const weights = Object.fromEntries(this.scorePlugins.map((p) => [p.name, this.scoreWeights.get(p.name) ?? 1]));
    return { ...out, notEvaluated: [...this.notEvaluated], weights };
  }
}

function intersect(a: Set<string>, b: Set<string>): Set<string> {
  const out = new Set<string>();
  for (const x of a) if (b.has(x)) out.add(x);
  return out;
}

export function podPriority(pod: Pod): number {
  const p = pod.spec?.priority;
  return typeof p === 'number' ? p : 0;
}

export type { PluginRef };
export { CycleState };
