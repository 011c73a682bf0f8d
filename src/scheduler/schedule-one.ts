/**
 * One pod's scheduling attempt (upstream's schedule_one.go). The scheduling cycle runs to completion for one pod
 * at a time: snapshot the cache → PreFilter → Filter the nodes from a rotating start index until enough feasible
 * ones are found (percentageOfNodesToScore) → if none: PostFilter (preemption) → PreScore/Score → pick the best
 * (random among ties) → assume it in the cache → Reserve → Permit. The binding cycle then runs in the background
 * (PreBind → Bind → PostBind), while the next pod is scheduled; a failure unreserves, forgets the assumed pod and
 * puts the pod back in the queue.
 *
 * On failure the pod gets upstream's FailedScheduling event and PodScheduled=False condition; on success the
 * Scheduled event. Each attempt's verdicts are kept (verdicts.ts).
 */
import { performance } from 'node:perf_hooks';
import type { EventRecorder } from '../client/events/broadcaster.js';
import type { KubeClient } from '../client/rest.js';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import type { SchedulerCache } from './cache/cache.js';
import type { Snapshot } from './cache/snapshot.js';
import { Diagnosis, FitError, NO_NODES_AVAILABLE_MESSAGE, NoNodesAvailableError } from './fit-error.js';
import { newPodInfo } from './framework/node-info.js';
import { Code, CycleState, type NodeInfo, type Pod, Status } from './framework/types.js';
import type { SchedulerMetrics } from './metrics.js';
import { truncateMessage, updatePodStatus } from './pod-status.js';
import { EVENT_ASSIGNED_POD_DELETE } from './queue/events.js';
import { CLEAR_NOMINATED_NODE, type NominatingInfo } from './queue/nominator.js';
import type { QueuedPod, SchedulingQueue } from './queue/scheduling-queue.js';
import type { Framework } from './runtime/framework.js';
import { groupRejections, type VerdictRecord, type VerdictStore } from './verdicts.js';

/** upstream's minFeasibleNodesToFind and minFeasibleNodesPercentageToFind. */
export const MIN_FEASIBLE_NODES_TO_FIND = 100;
export const MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5;

/**
 * How many feasible nodes Filter looks for before it stops (upstream's numFeasibleNodesToFind): every node below
 * 100; otherwise `percentage` of them (0 = adaptive: 50% minus 1% per 125 nodes, at least 5%), at least 100.
 */
export function numFeasibleNodesToFind(percentage: number, numAllNodes: number): number {
  if (numAllNodes < MIN_FEASIBLE_NODES_TO_FIND) return numAllNodes;
  let pct = percentage;
  if (pct === 0) {
    pct = 50 - Math.trunc(numAllNodes / 125);
    if (pct < MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND) pct = MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND;
  }
  const numNodes = Math.trunc((numAllNodes * pct) / 100);
  return Math.max(numNodes, MIN_FEASIBLE_NODES_TO_FIND);
}

export interface ScheduleOneDeps {
  cache: SchedulerCache;
  queue: SchedulingQueue;
  snapshot: Snapshot;
  profiles: Map<string, Framework>;
  recorders: Map<string, EventRecorder>;
  client: KubeClient;
  clock: Clock;
  logger: Logger;
  metrics: SchedulerMetrics;
  verdicts: VerdictStore;
  /** The global percentageOfNodesToScore (0: adaptive). */
  percentageOfNodesToScore: number;
  /** The pod as the informer has it now. */
  getPod(namespace: string, name: string): Pod | undefined;
  random?: () => number;
}

interface ScheduleResult {
  suggestedHost: string;
  evaluatedNodes: number;
  feasibleNodes: number;
}

/** The outcome of a scheduling cycle that did not reach binding. */
interface CycleFailure {
  status: Status;
  fitError?: FitError;
  nominating?: NominatingInfo;
}

const podName = (pod: Pod) => `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`;

export class ScheduleOne {
  private nextStartNodeIndex = 0;
  private readonly random: () => number;
  private readonly bindings = new Set<Promise<void>>();
  /** Status writes in flight, by pod uid: a pod's writes go one after another, in the order they were made. */
  private readonly statusWrites = new Map<string, Promise<void>>();

  constructor(private readonly d: ScheduleOneDeps) {
    this.random = d.random ?? Math.random;
  }

  /** Resolves when every binding cycle and pod status write in flight has ended. */
  async drain(): Promise<void> {
    while (this.bindings.size > 0 || this.statusWrites.size > 0) {
      await Promise.allSettled([...this.bindings, ...this.statusWrites.values()]);
    }
  }

  /**
   * Runs the write after the pod's earlier ones, without the scheduling loop waiting for it (the next pod need not
   * wait for the apiserver's answer; the queue and the nominator already hold what the write says).
   */
  private writeStatusInBackground(uid: string, write: () => Promise<void>): void {
    const previous = this.statusWrites.get(uid);
    const next = (previous ? previous.then(write) : write()).finally(() => {
      if (this.statusWrites.get(uid) === next) this.statusWrites.delete(uid);
    });
    this.statusWrites.set(uid, next);
  }

  /**
   * Schedules one popped pod; the binding cycle continues in the background. Never throws. True when the pod went
   * on to binding (false: it failed, or was skipped).
   */
  async scheduleOne(qp: QueuedPod): Promise<boolean> {
    const pod = qp.podInfo.pod;
    const uid: string = pod.metadata?.uid ?? '';
    const fwk = this.d.profiles.get(pod.spec?.schedulerName ?? '');
    if (!fwk) {
      this.d.logger.error('Error occurred', {
        err: `profile not found for scheduler name "${pod.spec?.schedulerName}"`,
      });
      this.d.queue.done(uid);
      return false;
    }
    if (this.skipPodSchedule(fwk, pod)) {
      this.d.queue.done(uid);
      return false;
    }
    this.d.logger.v(3).info('Attempting to schedule pod', { pod: podName(pod) });
    const start = performance.now();
    const state = new CycleState();
    const record = this.newRecord(fwk, qp);
    let outcome:
      | { ok: true; result: ScheduleResult; assumed: QueuedPod }
      | ({ ok: false; qp: QueuedPod } & CycleFailure);
    try {
      outcome = await this.schedulingCycle(state, fwk, qp, record);
    } catch (err) {
      outcome = {
        ok: false,
        qp,
        status: Status.error(err instanceof Error ? err : new Error(String(err))),
        nominating: CLEAR_NOMINATED_NODE,
      };
    }
    if (!outcome.ok) {
      record.result = outcome.status.isRejected() ? 'Unschedulable' : 'SchedulerError';
      record.message = outcome.status.message();
      this.d.verdicts.put(record);
      await this.handleSchedulingFailure(fwk, outcome.qp, outcome, start);
      return false;
    }
    record.result = 'Binding';
    record.nodeName = outcome.result.suggestedHost;
    this.d.verdicts.put(record);
    const binding = this.runBindingCycle(state, fwk, outcome.result, outcome.assumed, start, record);
    this.bindings.add(binding);
    void binding.finally(() => this.bindings.delete(binding));
    return true;
  }

  private skipPodSchedule(fwk: Framework, pod: Pod): boolean {
    if (pod.metadata?.deletionTimestamp) {
      this.recorder(fwk).event(
        pod,
        'Warning',
        'FailedScheduling',
        `skip schedule deleting pod: ${pod.metadata.namespace}/${pod.metadata.name}`,
      );
      this.d.logger.v(3).info('Skip schedule deleting pod', { pod: podName(pod) });
      return true;
    }
    return this.d.cache.isAssumedPod(pod);
  }

  private recorder(fwk: Framework): EventRecorder {
    return this.d.recorders.get(fwk.profileName) ?? fwk.handle.recorder;
  }

  private newRecord(fwk: Framework, qp: QueuedPod): VerdictRecord {
    const pod = qp.podInfo.pod;
    return {
      namespace: pod.metadata?.namespace ?? '',
      name: pod.metadata?.name ?? '',
      uid: pod.metadata?.uid ?? '',
      profile: fwk.profileName,
      attempt: qp.attempts,
      timeMs: this.d.clock.now(),
      result: 'SchedulerError',
      numAllNodes: 0,
      preFilterPlugins: fwk.preFilterPlugins.map((p) => p.name),
      skipped: [],
      filterPlugins: fwk.filterPlugins.map((p) => p.name),
      feasible: [],
      rejected: [],
      notEvaluatedNodes: 0,
      scorePlugins: fwk.scorePlugins.map((p) => ({ name: p.name, weight: fwk.scoreWeights.get(p.name) ?? 1 })),
      notEvaluatedPlugins: [...fwk.notEvaluated],
    };
  }

  // --- the scheduling cycle -----------------------------------------------------------------------------------

  private async schedulingCycle(
    state: CycleState,
    fwk: Framework,
    qp: QueuedPod,
    record: VerdictRecord,
  ): Promise<{ ok: true; result: ScheduleResult; assumed: QueuedPod } | ({ ok: false; qp: QueuedPod } & CycleFailure)> {
    const pod = qp.podInfo.pod;
    let result: ScheduleResult;
    try {
      result = this.schedulePod(fwk, state, pod, record);
    } catch (err) {
      if (err instanceof NoNodesAvailableError) {
        return {
          ok: false,
          qp,
          status: new Status(Code.UnschedulableAndUnresolvable, [NO_NODES_AVAILABLE_MESSAGE], '', err),
          nominating: CLEAR_NOMINATED_NODE,
        };
      }
      if (!(err instanceof FitError)) {
        this.d.logger.error('Error selecting node for pod', { pod: podName(pod), err: String(err) });
        return { ok: false, qp, status: Status.error(err as Error), nominating: CLEAR_NOMINATED_NODE };
      }
      const fitError = err;
      if (!fwk.hasPostFilterPlugins()) {
        this.d.logger.v(3).info('No PostFilter plugins are registered, so no preemption will be performed');
        return {
          ok: false,
          qp,
          status: new Status(Code.Unschedulable, [fitError.message()]),
          fitError,
          nominating: CLEAR_NOMINATED_NODE,
        };
      }
      const allNodes = this.d.snapshot.nodeInfoList.map((ni) => ni.node.metadata?.name ?? '');
      const post = await fwk.runPostFilterPlugins(state, pod, fitError.diagnosis.fullStatusMap(allNodes));
      fitError.diagnosis.postFilterMsg = post.status.message();
      if (post.status.code === Code.Error) {
        this.d.logger.error('Status after running PostFilter plugins for pod', {
          pod: podName(pod),
          status: post.status.message(),
        });
      }
      record.postFilter = {
        plugin: post.status.plugin,
        message: post.status.message(),
        ...(post.nominatedNodeName ? { nominatedNodeName: post.nominatedNodeName } : {}),
      };
      const nominating: NominatingInfo | undefined =
        post.nominatedNodeName !== undefined
          ? { mode: 'Override', nominatedNodeName: post.nominatedNodeName }
          : undefined;
      return {
        ok: false,
        qp,
        status: new Status(Code.Unschedulable, [fitError.message()]),
        fitError,
        ...(nominating ? { nominating } : {}),
      };
    }

    // Assume: the cache counts the pod on its node before the binding is confirmed.
    const host = result.suggestedHost;
    const assumedPod: Pod = { ...pod, spec: { ...pod.spec, nodeName: host } };
    // What the cycle worked out from the pod's spec (its requests, its affinity terms) holds for the assumed copy
    // too, which differs only in spec.nodeName: the cache's accounting need not work it out again.
    const assumed: QueuedPod = { ...qp, podInfo: { pod: assumedPod, cache: new Map(qp.podInfo.cache) } };
    try {
      this.d.cache.assumePod(assumedPod, assumed.podInfo);
    } catch (err) {
      this.d.logger.error('Scheduler cache AssumePod failed', { pod: podName(pod), err: String(err) });
      return { ok: false, qp: assumed, status: Status.error(err as Error), nominating: CLEAR_NOMINATED_NODE };
    }
    this.d.queue.deleteNominatedPodIfExists(assumedPod);

    const reserve = await fwk.runReservePluginsReserve(state, assumedPod, host);
    if (!reserve.isSuccess()) {
      await fwk.runReservePluginsUnreserve(state, assumedPod, host);
      this.forget(assumedPod);
      return {
        ok: false,
        qp: assumed,
        ...this.singleNodeFailure(reserve, host, record),
        nominating: CLEAR_NOMINATED_NODE,
      };
    }
    const permit = fwk.runPermitPlugins(state, assumedPod, host);
    if (!permit.isSuccess() && permit.code !== Code.Wait) {
      await fwk.runReservePluginsUnreserve(state, assumedPod, host);
      this.forget(assumedPod);
      return {
        ok: false,
        qp: assumed,
        ...this.singleNodeFailure(permit, host, record),
        nominating: CLEAR_NOMINATED_NODE,
      };
    }
    return { ok: true, result, assumed };
  }

  /** A Reserve/Permit rejection on the chosen node is a FitError over that one node (as upstream). */
  private singleNodeFailure(s: Status, host: string, record: VerdictRecord): CycleFailure {
    if (!s.isRejected()) return { status: s };
    const d = new Diagnosis();
    d.nodeToStatus.set(host, s);
    d.addPluginStatus(s);
    record.rejected.push({ status: s, nodes: [host] });
    record.feasible = record.feasible.filter((n) => n !== host);
    const fitError = new FitError(1, d);
    return { status: new Status(s.code, [fitError.message()]), fitError };
  }

  private forget(pod: Pod): void {
    try {
      this.d.cache.forgetPod(pod);
    } catch (err) {
      this.d.logger.error('Scheduler cache ForgetPod failed', { pod: podName(pod), err: String(err) });
    }
  }

  /** Finds the node for the pod; throws NoNodesAvailableError or FitError. */
  private schedulePod(fwk: Framework, state: CycleState, pod: Pod, record: VerdictRecord): ScheduleResult {
    this.d.cache.updateSnapshot(this.d.snapshot);
    const numNodes = this.d.snapshot.numNodes();
    record.numAllNodes = numNodes;
    if (numNodes === 0) throw new NoNodesAvailableError();
    const { feasible, diagnosis } = this.findNodesThatFitPod(fwk, state, pod, record);
    if (feasible.length === 0) throw new FitError(numNodes, diagnosis);
    const evaluated = feasible.length + diagnosis.nodeToStatus.size;
    if (feasible.length === 1) {
      return { suggestedHost: feasible[0]?.node.metadata?.name ?? '', evaluatedNodes: evaluated, feasibleNodes: 1 };
    }
    const host = this.prioritizeAndSelect(fwk, state, pod, feasible, record);
    return { suggestedHost: host, evaluatedNodes: evaluated, feasibleNodes: feasible.length };
  }

  private findNodesThatFitPod(
    fwk: Framework,
    state: CycleState,
    pod: Pod,
    record: VerdictRecord,
  ): { feasible: NodeInfo[]; diagnosis: Diagnosis } {
    const diagnosis = new Diagnosis();
    const allNodes = this.d.snapshot.nodeInfoList;
    const pre = fwk.runPreFilterPlugins(state, pod, allNodes);
    record.skipped = pre.skipped;
    for (const p of pre.pluginsWithNodes) diagnosis.unschedulablePlugins.add(p);
    if (!pre.status.isSuccess()) {
      record.preFilterStatus = pre.status;
      if (!pre.status.isRejected()) throw new Error(pre.status.message());
      diagnosis.absentNodesStatus = pre.status;
      diagnosis.preFilterMsg = pre.status.message();
      diagnosis.addPluginStatus(pre.status);
      record.absent = { status: pre.status, nodes: allNodes };
      return { feasible: [], diagnosis };
    }

    // A nominated node (from an earlier preemption) is tried first: it is likely the only one that fits.
    const nominated: string = pod.status?.nominatedNodeName ?? '';
    if (nominated) {
      const ni = this.d.snapshot.nodeInfoMap.get(nominated);
      if (ni) {
        const feasible = this.findNodesThatPassFilters(fwk, state, pod, diagnosis, [ni], 1);
        if (feasible.length > 0) {
          record.feasible = [nominated];
          record.notEvaluatedNodes = allNodes.length - 1;
          record.rejected = groupRejections(diagnosis.nodeToStatus);
          return { feasible, diagnosis };
        }
      }
    }

    let nodes = allNodes;
    if (pre.result?.nodeNames) {
      const names = pre.result.nodeNames;
      nodes = [];
      for (const name of names) {
        const ni = this.d.snapshot.nodeInfoMap.get(name);
        if (ni) nodes.push(ni);
      }
      diagnosis.absentNodesStatus = new Status(Code.UnschedulableAndUnresolvable, [
        `node(s) didn't satisfy plugin(s) [${[...diagnosis.unschedulablePlugins].sort().join(' ')}]`,
      ]);
      record.absent = { status: diagnosis.absentNodesStatus, nodes: allNodes, except: names };
    }
    const toFind = !fwk.hasScorePlugins()
      ? 1
      : numFeasibleNodesToFind(fwk.percentageOfNodesToScore ?? this.d.percentageOfNodesToScore, nodes.length);
    const feasible = this.findNodesThatPassFilters(fwk, state, pod, diagnosis, nodes, toFind);
    const processed = feasible.length + diagnosis.nodeToStatus.size;
    if (allNodes.length > 0) this.nextStartNodeIndex = (this.nextStartNodeIndex + processed) % allNodes.length;
    record.feasible = feasible.map((ni) => ni.node.metadata?.name ?? '');
    record.rejected = groupRejections(diagnosis.nodeToStatus);
    record.notEvaluatedNodes = Math.max(0, nodes.length - processed);
    return { feasible, diagnosis };
  }

  /** Runs Filter on nodes from the rotating start index until `toFind` fit; throws on a plugin error. */
  private findNodesThatPassFilters(
    fwk: Framework,
    state: CycleState,
    pod: Pod,
    diagnosis: Diagnosis,
    nodes: NodeInfo[],
    toFind: number,
  ): NodeInfo[] {
    const n = nodes.length;
    const feasible: NodeInfo[] = [];
    if (n === 0) return feasible;
    if (!fwk.hasFilterPlugins()) {
      for (let i = 0; i < Math.min(toFind, n); i++) feasible.push(nodes[(this.nextStartNodeIndex + i) % n] as NodeInfo);
      return feasible;
    }
    const plugins = fwk.activeFilterPlugins(state);
    for (let i = 0; i < n && feasible.length < toFind; i++) {
      const ni = nodes[(this.nextStartNodeIndex + i) % n] as NodeInfo;
      const status = fwk.runFilterPluginsWithNominatedPods(state, pod, ni, plugins);
      if (status.code === Code.Error) throw new Error(status.message());
      if (status.isSuccess()) {
        feasible.push(ni);
      } else {
        diagnosis.nodeToStatus.set(ni.node.metadata?.name ?? '', status);
        diagnosis.addPluginStatus(status);
      }
    }
    return feasible;
  }

  /** PreScore → Score → the node with the highest total (a random one among ties). */
  private prioritizeAndSelect(
    fwk: Framework,
    state: CycleState,
    pod: Pod,
    nodes: NodeInfo[],
    record: VerdictRecord,
  ): string {
    if (!fwk.hasScorePlugins()) return nodes[0]?.node.metadata?.name ?? '';
    const pre = fwk.runPreScorePlugins(state, pod, nodes);
    if (!pre.isSuccess()) throw new Error(pre.message());
    // record.feasible already holds the names of these nodes, in this order.
    const names = record.feasible.length === nodes.length ? record.feasible : undefined;
    const { scores, status } = fwk.runScorePlugins(state, pod, nodes, names);
    if (!status.isSuccess()) throw new Error(status.message());
    record.scores = scores;
    const totals = scores.totals;
    let selected = 0;
    let max = totals[0] ?? 0;
    let count = 1;
    for (let i = 1; i < totals.length; i++) {
      const total = totals[i] as number;
      if (total > max) {
        max = total;
        selected = i;
        count = 1;
      } else if (total === max) {
        count++;
        if (Math.floor(this.random() * count) === 0) selected = i;
      }
    }
    return scores.nodes[selected] ?? '';
  }

  // --- the binding cycle --------------------------------------------------------------------------------------

  private async runBindingCycle(
    state: CycleState,
    fwk: Framework,
    result: ScheduleResult,
    assumed: QueuedPod,
    start: number,
    record: VerdictRecord,
  ): Promise<void> {
    try {
      const status = await this.bindingCycle(state, fwk, result, assumed, start);
      if (status.ok) {
        record.result = 'Scheduled';
        return;
      }
      record.result = status.status.isRejected() ? 'Unschedulable' : 'SchedulerError';
      record.message = status.status.message();
      await this.handleBindingCycleError(state, fwk, assumed, start, result.suggestedHost, status);
    } catch (err) {
      this.d.logger.error('binding cycle failed', { pod: podName(assumed.podInfo.pod), err: String(err) });
    }
  }

  private async bindingCycle(
    state: CycleState,
    fwk: Framework,
    result: ScheduleResult,
    assumed: QueuedPod,
    start: number,
  ): Promise<{ ok: true } | ({ ok: false } & CycleFailure)> {
    const pod = assumed.podInfo.pod;
    const host = result.suggestedHost;
    const permit = await fwk.waitOnPermit(pod);
    if (!permit.isSuccess()) {
      if (permit.isRejected()) {
        const d = new Diagnosis();
        d.nodeToStatus.set(host, permit);
        if (permit.plugin) d.unschedulablePlugins.add(permit.plugin);
        const fitError = new FitError(1, d);
        return { ok: false, status: new Status(permit.code, [fitError.message()]), fitError };
      }
      return { ok: false, status: permit };
    }
    // From here a failure means backoff, never "unschedulable".
    this.d.queue.done(pod.metadata?.uid ?? '');
    const preBind = await fwk.runPreBindPlugins(state, pod, host);
    if (!preBind.isSuccess()) return { ok: false, status: preBind };
    let bind: Status;
    try {
      bind = await fwk.runBindPlugins(state, pod, host);
    } finally {
      this.d.cache.finishBinding(pod);
    }
    if (!bind.isSuccess()) {
      this.d.logger.v(1).info('Failed to bind pod', { pod: podName(pod) });
      return { ok: false, status: bind };
    }
    this.recorder(fwk).event(
      pod,
      'Normal',
      'Scheduled',
      `Successfully assigned ${pod.metadata?.namespace}/${pod.metadata?.name} to ${host}`,
    );
    this.d.logger.v(2).info('Successfully bound pod to node', {
      pod: podName(pod),
      node: host,
      evaluatedNodes: result.evaluatedNodes,
      feasibleNodes: result.feasibleNodes,
    });
    this.d.metrics.observeAttempt('scheduled', fwk.profileName, (performance.now() - start) / 1000);
    fwk.runPostBindPlugins(state, pod, host);
    return { ok: true };
  }

  private async handleBindingCycleError(
    state: CycleState,
    fwk: Framework,
    assumed: QueuedPod,
    start: number,
    host: string,
    failure: CycleFailure,
  ): Promise<void> {
    const pod = assumed.podInfo.pod;
    await fwk.runReservePluginsUnreserve(state, pod, host);
    let forgotten = false;
    try {
      this.d.cache.forgetPod(pod);
      forgotten = true;
    } catch (err) {
      this.d.logger.error('scheduler cache ForgetPod failed', { pod: podName(pod), err: String(err) });
    }
    // Forgetting the assumed pod frees what it held: like a bound pod deleted, for the others waiting.
    const uid = pod.metadata?.uid;
    if (forgotten && !failure.status.isRejected()) {
      this.d.queue.moveAllToActiveOrBackoffQueue(EVENT_ASSIGNED_POD_DELETE, pod, undefined);
    }
    await this.handleSchedulingFailure(fwk, assumed, { ...failure, nominating: CLEAR_NOMINATED_NODE }, start);
    if (forgotten && failure.status.isRejected()) {
      this.d.queue.moveAllToActiveOrBackoffQueue(
        EVENT_ASSIGNED_POD_DELETE,
        pod,
        undefined,
        (p) => p.metadata?.uid !== uid,
      );
    }
  }

  // --- failures -----------------------------------------------------------------------------------------------

  /**
   * Upstream's handleSchedulingFailure: puts the pod back in the queue (unless the informer says it is gone or
   * already bound), records the nomination, and reports: the FailedScheduling event and PodScheduled=False with
   * reason Unschedulable (or SchedulerError).
   */
  private async handleSchedulingFailure(
    fwk: Framework,
    qp: QueuedPod,
    failure: CycleFailure,
    start: number,
  ): Promise<void> {
    const pod = qp.podInfo.pod;
    const uid: string = pod.metadata?.uid ?? '';
    const status = failure.status;
    const rejected = status.isRejected();
    const reason = rejected ? 'Unschedulable' : 'SchedulerError';
    this.d.metrics.observeAttempt(
      rejected ? 'unschedulable' : 'error',
      fwk.profileName,
      (performance.now() - start) / 1000,
    );
    const errMsg = status.message();
    if (errMsg === NO_NODES_AVAILABLE_MESSAGE) {
      this.d.logger
        .v(2)
        .info('Unable to schedule pod; no nodes are registered to the cluster; waiting', { pod: podName(pod) });
    } else if (failure.fitError) {
      qp.unschedulablePlugins = new Set(failure.fitError.diagnosis.unschedulablePlugins);
      qp.pendingPlugins = new Set(failure.fitError.diagnosis.pendingPlugins);
      this.d.logger.v(2).info('Unable to schedule pod; no fit; waiting', { pod: podName(pod), err: errMsg });
    } else {
      this.d.logger.error('Error scheduling pod; retrying', { pod: podName(pod), err: errMsg });
    }

    const current = this.d.getPod(pod.metadata?.namespace ?? '', pod.metadata?.name ?? '');
    let requeued = false;
    if (!current || current.metadata?.uid !== uid) {
      this.d.logger.info("Pod doesn't exist in informer cache", { pod: podName(pod) });
    } else if (current.spec?.nodeName) {
      this.d.logger.info('Pod has been assigned to node. Abort adding it back to queue.', {
        pod: podName(pod),
        node: current.spec.nodeName,
      });
    } else {
      qp.podInfo = newPodInfo(current);
      this.d.queue.addUnschedulableIfNotPresent(qp);
      requeued = true;
    }
    if (!requeued) this.d.queue.done(uid);
    this.d.queue.addNominatedPod(qp.podInfo, failure.nominating);

    const latest = current ?? pod;
    this.recorder(fwk).event(latest, 'Warning', 'FailedScheduling', truncateMessage(errMsg));
    const nominating = failure.nominating;
    const now = this.d.clock.now();
    this.writeStatusInBackground(uid, async () => {
      try {
        await updatePodStatus(
          this.d.client,
          latest,
          { type: 'PodScheduled', status: 'False', reason, message: errMsg, lastProbeTime: null },
          nominating,
          now,
        );
      } catch (err) {
        this.d.logger.error('Error updating pod', { pod: podName(pod), err: String(err) });
      }
    });
  }
}
