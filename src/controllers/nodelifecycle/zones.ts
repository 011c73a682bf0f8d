/**
 * Zones as the node lifecycle controller sees them (upstream's zone states and handleDisruption): each zone (the
 * nodes' region and zone labels) has a state computed from its nodes' Ready conditions and a rate-limited queue of
 * nodes to taint NoExecute, whose rate follows the state:
 *
 * - Normal: --node-eviction-rate;
 * - PartialDisruption (more than 2 nodes not ready, at least --unhealthy-zone-threshold of them):
 *   --secondary-node-eviction-rate in a zone larger than --large-cluster-size-threshold, else no tainting;
 * - FullDisruption (no ready node): --node-eviction-rate again — unless every zone is fully disrupted, in which
 *   case all tainting stops (the control plane, not the nodes, is likelier at fault).
 */
import type { Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import type { NodeCondition } from './node-health.js';
import { RateLimitedTimedQueue } from './rate-limited-queue.js';

export type ZoneState = 'Initial' | 'Normal' | 'PartialDisruption' | 'FullDisruption';

export interface ZoneRates {
  nodeEvictionRate: number;
  secondaryNodeEvictionRate: number;
  largeClusterSizeThreshold: number;
  unhealthyZoneThreshold: number;
}

/**
 * A zone's state from its nodes' Ready conditions (missing counts as not ready): FullDisruption with no ready
 * node, PartialDisruption with more than 2 not ready making up at least the threshold, Normal otherwise.
 */
export function computeZoneState(
  conditions: readonly (NodeCondition | undefined)[],
  unhealthyZoneThreshold: number,
): { unhealthy: number; state: ZoneState } {
  let ready = 0;
  let notReady = 0;
  for (const c of conditions) {
    if (c?.status === 'True') ready++;
    else notReady++;
  }
  if (ready === 0 && notReady > 0) return { unhealthy: notReady, state: 'FullDisruption' };
  if (notReady > 2 && notReady / (notReady + ready) >= unhealthyZoneThreshold) {
    return { unhealthy: notReady, state: 'PartialDisruption' };
  }
  return { unhealthy: notReady, state: 'Normal' };
}

/** What a disruption check decided, for the controller to act on the nodes. */
export type DisruptionTransition = 'none' | 'enteredFullDisruption' | 'exitedFullDisruption' | 'zonesChanged';

export class Zones {
  readonly states = new Map<string, ZoneState>();
  readonly tainters = new Map<string, RateLimitedTimedQueue>();

  constructor(
    private readonly rates: ZoneRates,
    private readonly clock: Clock,
    private readonly log: Logger,
  ) {}

  /** The zone's tainting queue (made on first use). */
  tainterFor(zone: string): RateLimitedTimedQueue {
    let tainter = this.tainters.get(zone);
    if (!tainter) {
      tainter = new RateLimitedTimedQueue(this.rates.nodeEvictionRate, this.clock);
      this.tainters.set(zone, tainter);
    }
    return tainter;
  }

  /** Starts tracking a zone seen for the first time (upstream's addPodEvictorForNewZone). */
  addZone(zone: string): void {
    if (this.states.has(zone)) return;
    this.states.set(zone, 'Initial');
    this.tainters.set(zone, new RateLimitedTimedQueue(this.rates.nodeEvictionRate, this.clock));
    this.log.info('Initializing eviction metric for zone', { zone });
  }

  private setLimiter(zone: string, zoneSize: number, state: ZoneState): void {
    const tainter = this.tainterFor(zone);
    if (state === 'Normal' || state === 'FullDisruption') tainter.swapLimiter(this.rates.nodeEvictionRate);
    else if (state === 'PartialDisruption') {
      tainter.swapLimiter(zoneSize > this.rates.largeClusterSizeThreshold ? this.rates.secondaryNodeEvictionRate : 0);
    }
  }

  /**
   * Recomputes every zone's state from this pass's Ready conditions (zones without nodes are dropped) and sets the
   * tainting rates; answers the transition so the controller can untaint everything (entered full disruption)
   * or restart its health clocks (exited).
   */
  update(zoneConditions: ReadonlyMap<string, readonly (NodeCondition | undefined)[]>): DisruptionTransition {
    const next = new Map<string, ZoneState>();
    let allAreFullyDisrupted = true;
    for (const [zone, conditions] of zoneConditions) {
      const { state } = computeZoneState(conditions, this.rates.unhealthyZoneThreshold);
      if (state !== 'FullDisruption') allAreFullyDisrupted = false;
      next.set(zone, state);
      if (!this.states.has(zone)) {
        this.log.error('Setting initial state for unseen zone', { zone });
        this.states.set(zone, 'Initial');
      }
    }
    let allWasFullyDisrupted = true;
    for (const [zone, state] of [...this.states]) {
      if (!zoneConditions.has(zone)) {
        this.states.delete(zone);
        continue;
      }
      if (state !== 'FullDisruption') {
        allWasFullyDisrupted = false;
        break;
      }
    }
    if (allAreFullyDisrupted && allWasFullyDisrupted) return 'none';
    if (allAreFullyDisrupted) {
      this.log.info('Controller detected that all Nodes are not-Ready. Entering master disruption mode');
      for (const zone of this.states.keys()) {
        this.tainterFor(zone).swapLimiter(0);
        this.states.set(zone, 'FullDisruption');
      }
      return 'enteredFullDisruption';
    }
    if (allWasFullyDisrupted) {
      this.log.info('Controller detected that some Nodes are Ready. Exiting master disruption mode');
      for (const zone of this.states.keys()) {
        const state = next.get(zone) ?? 'Normal';
        this.setLimiter(zone, zoneConditions.get(zone)?.length ?? 0, state);
        this.states.set(zone, state);
      }
      return 'exitedFullDisruption';
    }
    let changed = false;
    for (const [zone, state] of this.states) {
      const to = next.get(zone);
      if (to === undefined || to === state) continue;
      this.log.info('Controller detected that zone is now in new state', { zone, newState: to });
      this.setLimiter(zone, zoneConditions.get(zone)?.length ?? 0, to);
      this.states.set(zone, to);
      changed = true;
    }
    return changed ? 'zonesChanged' : 'none';
  }
}
