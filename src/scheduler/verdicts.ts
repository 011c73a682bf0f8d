/**
 * Verdicts (beyond upstream): for each pod, what its last scheduling attempt found — per node, the verdict of
 * every Filter plugin, and per feasible node the score of every Score plugin — so that "why is my pod Pending /
 * why did it land there" can be answered without logs (`wheelhouse explain pod`, GET /debug/verdicts/<ns>/<pod>).
 *
 * Filter stops at the first plugin that rejects a node (as upstream), so on a rejected node the plugins before it
 * say `ok`, it says its reason, and the ones after it were not run. A record keeps references to what the cycle
 * computed anyway (the statuses, the scores), and is expanded only when read; the store keeps the last
 * `capacity` pods.
 */
import type { NodeInfo, Status } from './framework/types.js';
import type { NodePluginScores, NodeScores } from './runtime/framework.js';

export const VOLUMES_NOT_EVALUATED = 'not evaluated until volumes exist';

/** A Filter plugin's verdict on a node: `ok`, the rejection reason, or one of these. */
export const NOT_RUN = '-';
export const SKIPPED = 'skip';

export type AttemptResult = 'Binding' | 'Scheduled' | 'Unschedulable' | 'SchedulerError';

/** Scores of the feasible nodes, compactly: values[p * nodes.length + i] is plugin p's weighted score of node i. */
export type CompactScores = NodeScores;

/** Rejected nodes grouped by the status they got (many nodes usually share one reason). */
export interface RejectionGroup {
  status: Status;
  nodes: string[];
}

/** What one attempt found, as the cycle leaves it (references and compact forms, expanded when read). */
export interface VerdictRecord {
  namespace: string;
  name: string;
  uid: string;
  profile: string;
  attempt: number;
  timeMs: number;
  result: AttemptResult;
  message?: string;
  nodeName?: string;
  numAllNodes: number;
  preFilterPlugins: string[];
  /** PreFilter plugins that returned Skip (their Filter did not run). */
  skipped: string[];
  preFilterStatus?: Status;
  /** Nodes PreFilter rejected or left out: every node of `nodes` not in `except`, all with `status`. */
  absent?: { status: Status; nodes: NodeInfo[]; except?: Set<string> };
  filterPlugins: string[];
  /** Nodes that passed every Filter plugin. */
  feasible: string[];
  /** Nodes rejected individually (by Filter; or Reserve/Permit on the chosen node). */
  rejected: RejectionGroup[];
  /** How many nodes Filter did not look at (enough feasible nodes were found first). */
  notEvaluatedNodes: number;
  scorePlugins: { name: string; weight: number }[];
  scores?: CompactScores;
  postFilter?: { plugin: string; message: string; nominatedNodeName?: string };
  notEvaluatedPlugins: string[];
}

/** Groups a node → status map by status (same plugin and reasons). */
export function groupRejections(statuses: Map<string, Status>): RejectionGroup[] {
  const groups = new Map<string, RejectionGroup>();
  for (const [node, status] of statuses) {
    const key = `${status.plugin}\u0000${status.code}\u0000${status.reasons.join('\u0000')}`;
    let g = groups.get(key);
    if (!g) {
      g = { status, nodes: [] };
      groups.set(key, g);
    }
    g.nodes.push(node);
  }
  return [...groups.values()];
}

/** The compact form of per-node plugin scores. */
export function compactScores(scores: NodePluginScores[]): CompactScores {
  const nodes = scores.map((s) => s.name);
  const plugins = scores[0]?.scores.map((x) => x.name) ?? [];
  const values = new Array<number>(nodes.length * plugins.length).fill(0);
  const totals = new Array<number>(nodes.length).fill(0);
  scores.forEach((s, i) => {
    totals[i] = s.totalScore;
    s.scores.forEach((x, p) => {
      values[p * nodes.length + i] = x.score;
    });
  });
  return { nodes, plugins, values, totals };
}

export interface NodeVerdict {
  node: string;
  feasible: boolean;
  /** Filter plugin → `ok`, its reason, `-` (not run: an earlier plugin rejected the node) or `skip`. */
  filters: Record<string, string>;
  /** A plugin outside Filter that rejected the node (PreFilter, Reserve, Permit), with its reason. */
  rejectedBy?: { plugin: string; reason: string };
  /** Score plugin → weighted score, for feasible nodes that were scored. */
  scores?: Record<string, number>;
  totalScore?: number;
}

/** The JSON served at /debug/verdicts/<namespace>/<pod>. */
export interface PodVerdicts {
  pod: { namespace: string; name: string; uid: string };
  profile: string;
  attempt: number;
  time: string;
  result: AttemptResult;
  message?: string;
  nodeName?: string;
  numAllNodes: number;
  preFilter: { plugins: string[]; skipped: string[]; rejectedBy?: string; message?: string };
  filterPlugins: string[];
  scorePlugins: { name: string; weight: number }[];
  nodes: NodeVerdict[];
  notEvaluatedNodes: number;
  postFilter?: { plugin: string; message: string; nominatedNodeName?: string };
  notEvaluatedPlugins: { name: string; reason: string }[];
}

/** The readable form of a record. */
export function expandVerdicts(r: VerdictRecord): PodVerdicts {
  const skipped = new Set(r.skipped);
  const nodes: NodeVerdict[] = [];
  const scoreIndex = new Map((r.scores?.nodes ?? []).map((n, i) => [n, i]));
  for (const name of r.feasible) {
    const filters: Record<string, string> = {};
    for (const p of r.filterPlugins) filters[p] = skipped.has(p) ? SKIPPED : 'ok';
    const v: NodeVerdict = { node: name, feasible: true, filters };
    const i = scoreIndex.get(name);
    if (r.scores && i !== undefined) {
      const sc = r.scores;
      v.scores = Object.fromEntries(sc.plugins.map((p, j) => [p, sc.values[j * sc.nodes.length + i] as number]));
      v.totalScore = sc.totals[i] as number;
    }
    nodes.push(v);
  }
  for (const { status, nodes: names } of r.rejected) {
    const at = r.filterPlugins.indexOf(status.plugin);
    const filters: Record<string, string> = {};
    r.filterPlugins.forEach((p, i) => {
      if (skipped.has(p)) filters[p] = SKIPPED;
      else if (at < 0 || i < at) filters[p] = 'ok';
      else if (i === at) filters[p] = status.message();
      else filters[p] = NOT_RUN;
    });
    for (const name of names) {
      const v: NodeVerdict = { node: name, feasible: false, filters: { ...filters } };
      if (at < 0) v.rejectedBy = { plugin: status.plugin, reason: status.message() };
      nodes.push(v);
    }
  }
  if (r.absent) {
    const { status, except } = r.absent;
    for (const ni of r.absent.nodes) {
      const name = ni.node.metadata?.name ?? '';
      if (except?.has(name)) continue;
      const filters: Record<string, string> = {};
      for (const p of r.filterPlugins) filters[p] = NOT_RUN;
      nodes.push({
        node: name,
        feasible: false,
        filters,
        rejectedBy: { plugin: status.plugin || 'PreFilter', reason: status.message() },
      });
    }
  }
  nodes.sort((a, b) => (a.node < b.node ? -1 : a.node > b.node ? 1 : 0));
  const out: PodVerdicts = {
    pod: { namespace: r.namespace, name: r.name, uid: r.uid },
    profile: r.profile,
    attempt: r.attempt,
    time: new Date(r.timeMs).toISOString(),
    result: r.result,
    numAllNodes: r.numAllNodes,
    preFilter: { plugins: r.preFilterPlugins, skipped: r.skipped },
    filterPlugins: r.filterPlugins,
    scorePlugins: r.scorePlugins,
    nodes,
    notEvaluatedNodes: r.notEvaluatedNodes,
    notEvaluatedPlugins: r.notEvaluatedPlugins.map((name) => ({ name, reason: VOLUMES_NOT_EVALUATED })),
  };
  if (r.message) out.message = r.message;
  if (r.nodeName) out.nodeName = r.nodeName;
  if (r.preFilterStatus && !r.preFilterStatus.isSuccess()) {
    out.preFilter.rejectedBy = r.preFilterStatus.plugin;
    out.preFilter.message = r.preFilterStatus.message();
  }
  if (r.postFilter) out.postFilter = r.postFilter;
  return out;
}

/** The last attempt of the most recently attempted pods (least recently attempted ones are dropped). */
export class VerdictStore {
  private readonly records = new Map<string, VerdictRecord>();

  constructor(readonly capacity = 500) {}

  put(r: VerdictRecord): void {
    const key = `${r.namespace}/${r.name}`;
    this.records.delete(key);
    this.records.set(key, r);
    while (this.records.size > this.capacity) {
      const oldest = this.records.keys().next().value as string;
      this.records.delete(oldest);
    }
  }

  get(namespace: string, name: string): PodVerdicts | undefined {
    const r = this.records.get(`${namespace}/${name}`);
    return r ? expandVerdicts(r) : undefined;
  }

  get size(): number {
    return this.records.size;
  }
}
