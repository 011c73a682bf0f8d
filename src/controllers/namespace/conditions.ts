/**
 * The conditions the namespace controller keeps on a terminating namespace's status (upstream's
 * namespaceConditionUpdater): each of its five condition types is always present, True with a reason and message
 * saying what holds the deletion back, or False with the "all is well" reason and message.
 */
import { GroupDiscoveryFailedError } from '../../client/discovery.js';
import type { GroupVersionResource } from '../../client/types.js';

export interface NamespaceCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export const NAMESPACE_DELETION_DISCOVERY_FAILURE = 'NamespaceDeletionDiscoveryFailure';
export const NAMESPACE_DELETION_GV_PARSING_FAILURE = 'NamespaceDeletionGroupVersionParsingFailure';
export const NAMESPACE_DELETION_CONTENT_FAILURE = 'NamespaceDeletionContentFailure';
export const NAMESPACE_CONTENT_REMAINING = 'NamespaceContentRemaining';
export const NAMESPACE_FINALIZERS_REMAINING = 'NamespaceFinalizersRemaining';

/** The types this controller owns, in the order they are added to a namespace's status. */
export const CONDITION_TYPES: readonly string[] = [
  NAMESPACE_DELETION_DISCOVERY_FAILURE,
  NAMESPACE_DELETION_GV_PARSING_FAILURE,
  NAMESPACE_DELETION_CONTENT_FAILURE,
  NAMESPACE_CONTENT_REMAINING,
  NAMESPACE_FINALIZERS_REMAINING,
];

/** Reason and message of each type when nothing is wrong (status False). */
const OK: Readonly<Record<string, { reason: string; message: string }>> = {
  [NAMESPACE_DELETION_DISCOVERY_FAILURE]: {
    reason: 'ResourcesDiscovered',
    message: 'All resources successfully discovered',
  },
  [NAMESPACE_DELETION_GV_PARSING_FAILURE]: {
    reason: 'ParsedGroupVersions',
    message: 'All legacy kube types successfully parsed',
  },
  [NAMESPACE_DELETION_CONTENT_FAILURE]: {
    reason: 'ContentDeleted',
    message: 'All content successfully deleted, may be waiting on finalization',
  },
  [NAMESPACE_CONTENT_REMAINING]: { reason: 'ContentRemoved', message: 'All content successfully removed' },
  [NAMESPACE_FINALIZERS_REMAINING]: {
    reason: 'ContentHasNoFinalizers',
    message: 'All content-preserving finalizers finished',
  },
};

/** What is left in a namespace after a deletion pass. */
export interface ContentTotals {
  /** Resource → number of objects remaining (zero counts are ignored). */
  remainingByResource: Map<string, { gvr: GroupVersionResource; count: number }>;
  /** Finalizer → number of remaining objects that carry it. */
  remainingByFinalizer: Map<string, number>;
}

export function emptyTotals(): ContentTotals {
  return { remainingByResource: new Map(), remainingByFinalizer: new Map() };
}

/** RFC 3339 with whole seconds, as metav1.Time is written. */
export function rfc3339(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

const byCodeUnit = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Collects what went wrong during one deletion pass and turns it into conditions. Only the failures are recorded;
 * every type not reported gets its "ok" variant on update().
 */
export class NamespaceConditionUpdater {
  private readonly conditions: NamespaceCondition[] = [];
  private readonly contentErrors: unknown[] = [];

  constructor(private readonly now: () => number) {}

  processDiscoverResourcesErr(err: unknown): void {
    const text = messageOf(err);
    const message =
      err instanceof GroupDiscoveryFailedError
        ? `Discovery failed for some groups, ${err.groups.size} failing: ${text}`
        : text;
    this.add(NAMESPACE_DELETION_DISCOVERY_FAILURE, 'DiscoveryFailed', message);
  }

  processGroupVersionErr(err: unknown): void {
    this.add(NAMESPACE_DELETION_GV_PARSING_FAILURE, 'GroupVersionParsingFailed', messageOf(err));
  }

  processDeleteContentErr(err: unknown): void {
    this.contentErrors.push(err);
  }

  processContentTotals(totals: ContentTotals): void {
    if (totals.remainingByResource.size > 0) {
      const parts = [...totals.remainingByResource.values()]
        .filter((r) => r.count > 0)
        .map((r) => `${r.gvr.resource}.${r.gvr.group} has ${r.count} resource instances`)
        .sort(byCodeUnit);
      this.add(NAMESPACE_CONTENT_REMAINING, 'SomeResourcesRemain', `Some resources are remaining: ${parts.join(', ')}`);
    }
    if (totals.remainingByFinalizer.size > 0) {
      const parts = [...totals.remainingByFinalizer]
        .filter(([, count]) => count > 0)
        .map(([finalizer, count]) => `${finalizer} in ${count} resource instances`)
        .sort(byCodeUnit);
      this.add(
        NAMESPACE_FINALIZERS_REMAINING,
        'SomeFinalizersRemain',
        `Some content in the namespace has finalizers remaining: ${parts.join(', ')}`,
      );
    }
  }

  /**
   * Writes the collected conditions (and the ok variants of the others) into status.conditions, in place. Answers
   * whether anything changed; a condition's lastTransitionTime moves only when its status flips.
   */
  update(status: { conditions?: NamespaceCondition[] }): boolean {
    if (!this.conditions.some((c) => c.type === NAMESPACE_DELETION_CONTENT_FAILURE) && this.contentErrors.length) {
      const messages = this.contentErrors.map(messageOf).sort(byCodeUnit);
      this.add(
        NAMESPACE_DELETION_CONTENT_FAILURE,
        'ContentDeletionFailed',
        `Failed to delete all resource types, ${messages.length} remaining: ${messages.join(', ')}`,
      );
    }
    return updateConditions(status, this.conditions, this.now());
  }

  private add(type: string, reason: string, message: string): void {
    this.conditions.push({ type, status: 'True', lastTransitionTime: rfc3339(this.now()), reason, message });
  }
}

/** Merges wanted conditions (ok variants for the types missing from it) into status; true if it changed. */
export function updateConditions(
  status: { conditions?: NamespaceCondition[] },
  wanted: readonly NamespaceCondition[],
  now: number,
): boolean {
  let changed = false;
  status.conditions ??= [];
  for (const type of CONDITION_TYPES) {
    const ok = OK[type] as { reason: string; message: string };
    const next = wanted.find((c) => c.type === type) ?? {
      type,
      status: 'False' as const,
      lastTransitionTime: rfc3339(now),
      reason: ok.reason,
      message: ok.message,
    };
    const old = status.conditions.find((c) => c.type === type);
    if (!old) {
      status.conditions.push({ ...next });
      changed = true;
    } else if (old.status !== next.status || old.reason !== next.reason || old.message !== next.message) {
      if (old.status !== next.status) old.lastTransitionTime = rfc3339(now);
      old.status = next.status;
      old.reason = next.reason;
      old.message = next.message;
      changed = true;
    }
  }
  return changed;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
