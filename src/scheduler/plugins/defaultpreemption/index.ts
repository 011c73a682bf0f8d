/**
 * The DefaultPreemption plugin (upstream's pkg/scheduler/framework/plugins/defaultpreemption with
 * pkg/scheduler/framework/preemption): when no node fits a pod, find nodes where evicting pods of lower priority
 * would make room, pick the best one, nominate the pod to it and evict the victims.
 *
 * Flow of PostFilter (upstream's Evaluator.Preempt):
 *  1. the pod must be eligible: not `preemptionPolicy: Never`, and not already nominated to a node where a
 *     lower-priority pod is still terminating because of an earlier preemption;
 *  2. candidates: nodes Filter found `Unschedulable` (not `UnschedulableAndUnresolvable`), each dry-run on copies
 *     (victims.ts, candidates.ts), respecting PodDisruptionBudgets where possible;
 *  3. the best candidate (candidates.ts); its victims get the `DisruptionTarget` condition (reason
 *     `PreemptionByScheduler`) and are deleted, each with a `Preempted` event; lower-priority pods nominated to
 *     that node lose their nomination. As upstream 1.33 (SchedulerAsyncPreemption), these API calls run in the
 *     background and the pod is held back by PreEnqueue until they are done;
 *  4. PostFilter answers the node; the scheduler sets the pod's `status.nominatedNodeName` to it when it requeues
 *     the pod (upstream's handleSchedulingFailure), so the room is kept for it.
 * On failure the message is `preemption: 0/N nodes are available: …` as upstream builds it.
 *
 * Args (DefaultPreemptionArgs): `minCandidateNodesPercentage` (0–100, default 10) and `minCandidateNodesAbsolute`
 * (≥ 0, default 100).
 */

import type { KubeObject } from '../../../client/types.js';
import { isNotFound } from '../../../client/types.js';
import { Diagnosis, fitErrorMessage } from '../../fit-error.js';
import {
  type ClusterEventWithHint,
  Code,
  type CycleState,
  type EnqueueExtensions,
  type Handle,
  type NodeToStatus,
  type PluginFactory,
  type Pod,
  type PostFilterPlugin,
  type PreEnqueuePlugin,
  QueueingHint,
  Status,
} from '../../framework/types.js';
import {
  type Candidate,
  calculateNumCandidates,
  type DefaultPreemptionArgs,
  dryRunPreemption,
  pickOneNodeForPreemption,
} from './candidates.js';
import { podPriority } from './victims.js';

export const name = 'DefaultPreemption';

export const DEFAULT_ARGS: DefaultPreemptionArgs = { minCandidateNodesPercentage: 10, minCandidateNodesAbsolute: 100 };

export const PDBS = { group: 'policy', version: 'v1', resource: 'poddisruptionbudgets' } as const;

export const MSG_PREEMPTION_POLICY_NEVER = 'not eligible due to preemptionPolicy=Never.';
export const MSG_TERMINATING_ON_NOMINATED = 'not eligible due to a terminating pod on the nominated node.';
export const MSG_NOT_HELPFUL = 'Preemption is not helpful for scheduling';
export const MSG_WAITING_FOR_PREEMPTION = 'waiting for the preemption for this pod to be finished';

/** The args with upstream's defaults; throws with upstream's validation messages. */
export function parseArgs(raw: Record<string, unknown> | undefined): DefaultPreemptionArgs {
  const pct = raw?.minCandidateNodesPercentage ?? DEFAULT_ARGS.minCandidateNodesPercentage;
  const abs = raw?.minCandidateNodesAbsolute ?? DEFAULT_ARGS.minCandidateNodesAbsolute;
  if (typeof pct !== 'number' || !Number.isInteger(pct) || pct < 0 || pct > 100) {
    throw new Error(`minCandidateNodesPercentage: Invalid value: ${String(pct)}: not in valid range [0, 100]`);
  }
  if (typeof abs !== 'number' || !Number.isInteger(abs) || abs < 0) {
    throw new Error(`minCandidateNodesAbsolute: Invalid value: ${String(abs)}: not in valid range [0, inf)`);
  }
  if (pct === 0 && abs === 0) {
    throw new Error(
      'minCandidateNodesPercentage: Invalid value: 0: cannot be zero at the same time as minCandidateNodesAbsolute',
    );
  }
  return { minCandidateNodesPercentage: pct, minCandidateNodesAbsolute: abs };
}

export interface DefaultPreemptionOptions {
  /** Run the victims' API calls in the background (upstream 1.33's default); false awaits them in PostFilter. */
  async?: boolean;
  /** For the random offset into the potential nodes (tests pin it). */
  random?: () => number;
}

/** Reported by PostFilter when the nodes' statuses do not say: upstream's default for nodes with no status. */
const ABSENT = new Status(Code.UnschedulableAndUnresolvable);

/** A victim evicted by the scheduler's preemption is marked with this condition before its deletion. */
function disruptionTargetCondition(schedulerName: string, now: number) {
  return {
    type: 'DisruptionTarget',
    status: 'True',
    reason: 'PreemptionByScheduler',
    message: `${schedulerName}: preempting to accommodate a higher priority pod`,
    lastTransitionTime: new Date(Math.floor(now / 1000) * 1000).toISOString().replace('.000Z', 'Z'),
  };
}

/** The pod is terminating because a scheduler preempted it. */
export function podTerminatingByPreemption(pod: Pod): boolean {
  if (!pod.metadata?.deletionTimestamp) return false;
  for (const c of pod.status?.conditions ?? []) {
    if (c?.type === 'DisruptionTarget') return c.status === 'True' && c.reason === 'PreemptionByScheduler';
  }
  return false;
}

export class DefaultPreemption implements PostFilterPlugin, PreEnqueuePlugin, EnqueueExtensions {
  readonly name = name;
  /** Uids of preemptors whose victims are still being evicted. */
  private readonly preempting = new Set<string>();
  /** Background evictions, so tests (and shutdown) can wait for them. */
  private readonly inFlight = new Set<Promise<void>>();
  private readonly pdbLister: { list(): KubeObject[] } | undefined;
  private readonly async: boolean;
  private readonly random: () => number;

  constructor(
    readonly args: DefaultPreemptionArgs,
    private readonly handle: Handle,
    opts: DefaultPreemptionOptions = {},
  ) {
    this.async = opts.async ?? true;
    this.random = opts.random ?? Math.random;
    const informer = handle.informers?.forGroupVersionResource(PDBS);
    this.pdbLister = informer ? informer.getIndexer() : undefined;
  }

  // --- PreEnqueue and queueing hints ------------------------------------------------------------------------

  isPodRunningPreemption(uid: string | undefined): boolean {
    return uid !== undefined && this.preempting.has(uid);
  }

  preEnqueue(pod: Pod): Status {
    if (this.isPodRunningPreemption(pod.metadata?.uid)) return Status.unresolvable(MSG_WAITING_FOR_PREEMPTION);
    return Status.success();
  }

  eventsToRegister(): ClusterEventWithHint[] {
    if (!this.async) return [];
    return [
      {
        event: { resource: 'Pod', actions: ['Delete'] },
        // Registered so that a preemptor held back by PreEnqueue is looked at again when pods go; whether it may
        // go is for the plugins that rejected it in the first place (their hints), as upstream decides.
        hint: () => QueueingHint.Skip,
      },
    ];
  }

  /** Resolves when the background evictions started so far are done. */
  async waitForPreemptions(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
  }

  // --- PostFilter -------------------------------------------------------------------------------------------

  async postFilter(
    state: CycleState,
    pod: Pod,
    statuses: NodeToStatus,
  ): Promise<{ nominatedNodeName?: string; status: Status }> {
    const out = await this.preempt(state, pod, statuses);
    const msg = out.status.message();
    if (!msg) return out;
    const status = new Status(out.status.code, [`preemption: ${msg}`], '', out.status.error);
    return out.nominatedNodeName === undefined ? { status } : { nominatedNodeName: out.nominatedNodeName, status };
  }

  private statusOf(statuses: NodeToStatus, nodeName: string): Status {
    return statuses.get(nodeName) ?? ABSENT;
  }

  /** Upstream's PodEligibleToPreemptOthers. */
  podEligibleToPreemptOthers(pod: Pod, nominatedNodeStatus: Status): { ok: boolean; msg: string } {
    if (pod.spec?.preemptionPolicy === 'Never') return { ok: false, msg: MSG_PREEMPTION_POLICY_NEVER };
    const nominated: string = pod.status?.nominatedNodeName ?? '';
    if (nominated) {
      // Filters now reject the nominated node for good: try again elsewhere.
      if (nominatedNodeStatus.code === Code.UnschedulableAndUnresolvable) return { ok: true, msg: '' };
      const ni = this.handle.snapshot().nodeInfos().get(nominated);
      if (ni) {
        const priority = podPriority(pod);
        for (const pi of ni.pods) {
          if (podPriority(pi.pod) < priority && podTerminatingByPreemption(pi.pod)) {
            return { ok: false, msg: MSG_TERMINATING_ON_NOMINATED };
          }
        }
      }
    }
    return { ok: true, msg: '' };
  }

  private async preempt(
    state: CycleState,
    pod: Pod,
    statuses: NodeToStatus,
  ): Promise<{ nominatedNodeName?: string; status: Status }> {
    const eligible = this.podEligibleToPreemptOthers(pod, this.statusOf(statuses, pod.status?.nominatedNodeName ?? ''));
    if (!eligible.ok) return { status: Status.unschedulable(eligible.msg) };

    const allNodes = this.handle.snapshot().nodeInfos().list();
    if (allNodes.length === 0) return { status: Status.error('no nodes available') };
    const potential = allNodes.filter(
      (ni) => this.statusOf(statuses, ni.node.metadata?.name ?? '').code === Code.Unschedulable,
    );

    let candidates: Candidate[] = [];
    let nodeStatuses = new Map<string, Status>();
    if (potential.length === 0) {
      // Preemption cannot help anywhere: drop a nomination the pod may have.
      await this.clearNominatedNodeName([pod]);
    } else {
      const now = this.handle.clock.now();
      const offset = Math.floor(this.random() * potential.length) % potential.length;
      const numCandidates = calculateNumCandidates(this.args, potential.length);
      const pdbs = this.pdbLister?.list() ?? [];
      const dry = dryRunPreemption(this.handle, state, pod, potential, pdbs, offset, numCandidates, now);
      if (dry.errors.length > 0 && dry.candidates.length === 0) {
        return { status: Status.error(dry.errors.length === 1 ? (dry.errors[0] ?? '') : `[${dry.errors.join(', ')}]`) };
      }
      candidates = dry.candidates;
      nodeStatuses = dry.nodeStatuses;
    }

    if (candidates.length === 0) {
      const d = new Diagnosis();
      for (const [node, s] of nodeStatuses) d.nodeToStatus.set(node, s);
      d.absentNodesStatus = Status.unresolvable(MSG_NOT_HELPFUL);
      // Clearing the pod's nominated node, if any.
      return { nominatedNodeName: '', status: Status.unschedulable(fitErrorMessage(allNodes.length, d)) };
    }

    const best = pickOneNodeForPreemption(candidates, this.handle.clock.now());
    if (!best?.nodeName) return { status: Status.unschedulable('no candidate node for preemption') };
    this.handle.logger.v(2).info('the target node for the preemption is determined', {
      node: best.nodeName,
      pod: `${pod.metadata?.namespace}/${pod.metadata?.name}`,
    });

    if (this.async) {
      this.prepareCandidateAsync(best, pod);
    } else {
      const err = await this.prepareCandidate(best, pod);
      if (err) return { status: Status.error(err) };
    }
    // The scheduler records the nomination (status.nominatedNodeName) when it requeues the pod, as upstream does.
    return { nominatedNodeName: best.nodeName, status: Status.success() };
  }

  // --- acting on the chosen candidate -------------------------------------------------------------------------

  /** Marks the victim with DisruptionTarget, deletes it and records `Preempted` (upstream's PreemptPod). */
  async preemptPod(candidate: Candidate, preemptor: Pod, victim: Pod): Promise<void> {
    const ns = victim.metadata?.namespace ?? '';
    const victimName = victim.metadata?.name ?? '';
    const pods = this.handle.client.pods(ns);
    const condition = disruptionTargetCondition(
      preemptor.spec?.schedulerName ?? this.handle.profileName,
      this.handle.clock.now(),
    );
    const existing = (victim.status?.conditions ?? []).find((c: { type?: string }) => c?.type === 'DisruptionTarget');
    const unchanged =
      existing?.status === condition.status &&
      existing?.reason === condition.reason &&
      existing?.message === condition.message;
    if (!unchanged) {
      await pods.patch(victimName, 'strategic', { status: { conditions: [condition] } }, { subresource: 'status' });
    }
    try {
      await pods.delete(victimName);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      this.handle.logger.v(2).info('Victim Pod is already deleted', { victim: `${ns}/${victimName}` });
      return;
    }
    this.handle.recorder.event(
      victim,
      'Normal',
      'Preempted',
      `Preempted by pod ${preemptor.metadata?.uid ?? ''} on node ${candidate.nodeName}`,
    );
  }

  /** Pods nominated to the node with a lower priority than the preemptor: they may no longer fit there. */
  private lowerPriorityNominatedPods(pod: Pod, nodeName: string): Pod[] {
    const priority = podPriority(pod);
    return this.handle
      .nominatedPodsForNode(nodeName)
      .map((pi) => pi.pod)
      .filter((p) => podPriority(p) < priority);
  }

  private async clearNominatedNodeName(pods: Pod[]): Promise<string[]> {
    const errors: string[] = [];
    for (const p of pods) {
      if (!p.status?.nominatedNodeName) continue;
      try {
        await this.handle.client
          .pods(p.metadata?.namespace ?? '')
          .patch(
            p.metadata?.name ?? '',
            'strategic',
            { status: { nominatedNodeName: null } },
            { subresource: 'status' },
          );
      } catch (err) {
        errors.push((err as Error).message);
      }
    }
    if (errors.length > 0) {
      this.handle.logger.error('Cannot clear the nominatedNodeName field of pods', { errors });
    }
    return errors;
  }

  /** Upstream's prepareCandidate: evict every victim, then clear lower-priority nominations; the error if any. */
  async prepareCandidate(c: Candidate, pod: Pod): Promise<string | undefined> {
    const results = await Promise.allSettled(c.victims.map((v) => this.preemptPod(c, pod, v)));
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) return String((failed.reason as Error)?.message ?? failed.reason);
    await this.clearNominatedNodeName(this.lowerPriorityNominatedPods(pod, c.nodeName));
    return undefined;
  }

  /**
   * Upstream's prepareCandidateAsync: the pod is marked as preempting (PreEnqueue holds it back), lower-priority
   * nominations on the node are cleared, all victims but the last are evicted, the mark is dropped, then the last
   * victim is evicted — so its deletion event finds the pod free to go back to the active queue.
   */
  prepareCandidateAsync(c: Candidate, pod: Pod): void {
    const uid = pod.metadata?.uid ?? '';
    this.preempting.add(uid);
    const run = async () => {
      try {
        await this.clearNominatedNodeName(this.lowerPriorityNominatedPods(pod, c.nodeName));
        if (c.victims.length === 0) return;
        const allButLast = c.victims.slice(0, -1);
        const results = await Promise.allSettled(allButLast.map((v) => this.preemptPod(c, pod, v)));
        for (const r of results) {
          if (r.status === 'rejected') {
            this.handle.logger.error('Error occurred during async preemption', { err: String(r.reason) });
          }
        }
        this.preempting.delete(uid);
        await this.preemptPod(c, pod, c.victims[c.victims.length - 1] as Pod);
      } catch (err) {
        this.handle.logger.error('Error occurred during async preemption', { err: String(err) });
      } finally {
        this.preempting.delete(uid);
      }
    };
    const p = run();
    this.inFlight.add(p);
    void p.finally(() => this.inFlight.delete(p));
  }
}

export const factory: PluginFactory = (args, handle) => new DefaultPreemption(parseArgs(args), handle);

export type { Candidate, DefaultPreemptionArgs } from './candidates.js';
