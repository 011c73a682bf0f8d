/**
 * NodeResourcesBalancedAllocation (Score): favours nodes whose cpu and memory (or the configured resources) would be
 * used in similar proportions with the pod on them: 100 × (1 − standard deviation of requested/allocatable).
 * Counts plain requests (no non-zero defaults), and skips pods that request none of the resources (best-effort
 * pods), as upstream v1.33 does, so they are not all packed on one node.
 *
 * Args (NodeResourcesBalancedAllocationArgs): `resources` (default cpu and memory).
 */

import type { CycleState, NodeInfo, PluginFactory, Pod, PreScorePlugin, ScorePlugin } from '../../framework/types.js';
import { Status } from '../../framework/types.js';
import {
  balancedResourceScorer,
  ResourceAllocationScorer,
  resourcesArg,
  validateResources,
} from './resource-allocation.js';

export const name = 'NodeResourcesBalancedAllocation';
const PRE_SCORE_STATE_KEY = `PreScore${name}`;

export interface NodeResourcesBalancedAllocationArgs {
  resources?: { name: string; weight?: number }[];
}

const isBestEffort = (requests: readonly number[]) => requests.every((r) => r === 0);

export class BalancedAllocation implements PreScorePlugin, ScorePlugin {
  readonly name = name;
  readonly scorer: ResourceAllocationScorer;

  constructor(args: NodeResourcesBalancedAllocationArgs = {}) {
    const resources = resourcesArg(args.resources);
    const errs = validateResources(resources, 'resources');
    if (errs.length > 0) throw new Error(errs.join(', '));
    this.scorer = new ResourceAllocationScorer(name, resources, balancedResourceScorer, true);
  }

  preScore(state: CycleState, pod: Pod): Status {
    const requests = this.scorer.podRequests(pod);
    if (isBestEffort(requests)) return Status.skip();
    state.write(PRE_SCORE_STATE_KEY, requests);
    return Status.success();
  }

  score(state: CycleState, pod: Pod, nodeInfo: NodeInfo): { score: number; status: Status } {
    let requests = state.read<number[]>(PRE_SCORE_STATE_KEY);
    if (!requests) {
      requests = this.scorer.podRequests(pod);
      if (isBestEffort(requests)) return { score: 0, status: Status.success() };
    }
    return this.scorer.score(nodeInfo, requests);
  }
}

export const factory: PluginFactory = (args) =>
  new BalancedAllocation((args ?? {}) as NodeResourcesBalancedAllocationArgs);
