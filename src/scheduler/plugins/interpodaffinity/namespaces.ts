/**
 * The namespaces the plugin reads (upstream's namespace lister): names matching a namespace selector, and the
 * labels of the incoming pod's namespace, from the scheduler's shared informer of namespaces.
 */

import type { LabelSelector, LabelSet } from '../../../api/labels.js';
import type { Handle } from '../../framework/types.js';
import type { NamespaceSource } from './terms.js';

export const NAMESPACES = { group: '', version: 'v1', resource: 'namespaces' } as const;

/** A NamespaceSource over the handle's informer of namespaces; undefined when the handle has no informers. */
export function namespaceSourceFrom(handle: Handle): NamespaceSource | undefined {
  const informer = handle.informers?.forGroupVersionResource(NAMESPACES);
  if (!informer) return undefined;
  const indexer = informer.getIndexer();
  return {
    namesMatching(selector: LabelSelector): string[] {
      const out: string[] = [];
      for (const ns of indexer.list()) {
        if (selector.matches(ns.metadata.labels)) out.push(ns.metadata.name ?? '');
      }
      return out;
    },
    labelsOf(name: string): LabelSet | undefined {
      const ns = indexer.getByKey(name);
      return ns ? { ...(ns.metadata.labels ?? {}) } : undefined;
    },
  };
}
