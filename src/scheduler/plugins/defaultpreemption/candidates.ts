/**
 * Finding and ranking preemption candidates (upstream's preemption.Evaluator DryRunPreemption and
 * pickOneNodeForPreemption, in our words). Nodes that Filter found merely Unschedulable are tried in turn from a
 * random offset, each on a copy of its NodeInfo and of the cycle state, until enough candidates are found
 * (`minCandidateNodesPercentage` of them, at least `minCandidateNodesAbsolute`) with at least one that breaks no
 * PodDisruptionBudget. The chosen node is the one with, in order: fewest PDB violations, the lowest highest-victim
 * priority, the smallest sum of victim priorities, fewest victims, the latest start among its most important
 * victims; remaining ties go to the first candidate.
 */

import type { KubeObject } from '../../../client/types.js';
import { cloneNodeInfo } from '../../framework/node-info.js';
import { Code, type CycleState, type Handle, type NodeInfo, type Pod, Status } from '../../framework/types.js';
import { podPriority, podStartTime, selectVictimsOnNode } from './victims.js';

export interface Candidate {
  nodeName: string;
  /** Most important first. */
  victims: Pod[];
  numPDBViolations: number;
}

export interface DefaultPreemptionArgs {
  minCandidateNodesPercentage: number;
  minCandidateNodesAbsolute: number;
}

/** How many candidates to look for among numNodes potential nodes. */
export function calculateNumCandidates(args: DefaultPreemptionArgs, numNodes: number): number {
  let n = Math.trunc((numNodes * args.minCandidateNodesPercentage) / 100);
  if (n < args.minCandidateNodesAbsolute) n = args.minCandidateNodesAbsolute;
  if (n > numNodes) n = numNodes;
  return n;
}

export interface DryRunResult {
  candidates: Candidate[];
  /** The status of each node tried that did not become a candidate. */
  nodeStatuses: Map<string, Status>;
  errors: string[];
}

/** Upstream's DryRunPreemption, walking the potential nodes from offset. */
export function dryRunPreemption(
  handle: Handle,
  state: CycleState,
  pod: Pod,
  potentialNodes: readonly NodeInfo[],
  pdbs: readonly KubeObject[],
  offset: number,
  numCandidates: number,
  now: number,
): DryRunResult {
  const nonViolating: Candidate[] = [];
  const violating: Candidate[] = [];
  const nodeStatuses = new Map<string, Status>();
  const errors: string[] = [];
  for (let i = 0; i < potentialNodes.length; i++) {
    const nodeInfo = potentialNodes[(offset + i) % potentialNodes.length] as NodeInfo;
    const nodeName = nodeInfo.node.metadata?.name ?? '';
    // selectVictimsOnNode works on copies of the node and of the state.
    const { victims, numPDBViolations, status } = selectVictimsOnNode(
      handle,
      state,
      pod,
      nodeInfo,
      pdbs,
      now,
      cloneNodeInfo,
    );
    if (status.isSuccess() && victims.length > 0) {
      const list = numPDBViolations === 0 ? nonViolating : violating;
      if (list.length < numCandidates) list.push({ nodeName, victims, numPDBViolations });
      if (nonViolating.length > 0 && nonViolating.length + violating.length >= numCandidates) break;
      continue;
    }
    const s = status.isSuccess() ? Status.error(`expected at least one victim pod on node "${nodeName}"`) : status;
    if (s.code === Code.Error) errors.push(s.message());
    nodeStatuses.set(nodeName, s);
  }
  return { candidates: [...nonViolating, ...violating], nodeStatuses, errors };
}

/** The start time of the earliest-started pod among the highest-priority victims (upstream's GetEarliestPodStartTime). */
export function earliestPodStartTime(victims: readonly Pod[], now: number): number | undefined {
  const [first] = victims;
  if (!first) return undefined;
  let earliest = podStartTime(first, now);
  let maxPriority = podPriority(first);
  for (const pod of victims) {
    const p = podPriority(pod);
    if (p === maxPriority) {
      const t = podStartTime(pod, now);
      if (t < earliest) earliest = t;
    } else if (p > maxPriority) {
      maxPriority = p;
      earliest = podStartTime(pod, now);
    }
  }
  return earliest;
}

const TWO_POW_31 = 2 ** 31;

/** Upstream's pickOneNodeForPreemption over the candidates (in their order). */
export function pickOneNodeForPreemption(candidates: readonly Candidate[], now: number): Candidate | undefined {
  if (candidates.length <= 1) return candidates[0];
  const scoreFuncs: ((c: Candidate) => number)[] = [
    (c) => -c.numPDBViolations,
    (c) => -podPriority(c.victims[0] as Pod),
    // Shifting every priority to ≥ 0 keeps a node with a few negative-priority pods from beating one with fewer.
    (c) => -c.victims.reduce((sum, p) => sum + podPriority(p) + TWO_POW_31, 0),
    (c) => -c.victims.length,
    (c) => earliestPodStartTime(c.victims, now) ?? Number.MIN_SAFE_INTEGER,
  ];
  let remaining = [...candidates];
  for (const f of scoreFuncs) {
    let best = Number.NEGATIVE_INFINITY;
    let selected: Candidate[] = [];
    for (const c of remaining) {
      const score = f(c);
      if (score > best) {
        best = score;
        selected = [];
      }
      if (score === best) selected.push(c);
    }
    if (selected.length === 1) return selected[0];
    remaining = selected;
  }
  return remaining[0];
}
