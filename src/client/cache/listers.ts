/**
 * Listers (client-go's GenericLister): read objects from an informer's cache, filtered by a label selector, for
 * the whole cluster or one namespace (through the namespace index). They never call the server.
 *
 * Upstream's Get answers a NotFound error for a missing object; ours answers undefined.
 */
import { LabelSelector } from '../../api/labels.js';
import type { KubeObject } from '../types.js';
import { type Indexer, NAMESPACE_INDEX } from './store.js';

/** A selector, or its text in the `labelSelector` syntax; none or '' selects everything. */
export type SelectorInput = LabelSelector | string | undefined;

function toSelector(selector: SelectorInput): LabelSelector {
  if (selector === undefined || selector === '') return LabelSelector.everything();
  return typeof selector === 'string' ? LabelSelector.parse(selector) : selector;
}

function filter<T extends KubeObject>(objects: T[], selector: LabelSelector): T[] {
  if (!selector.selectable) return [];
  if (selector.isEmpty()) return objects;
  return objects.filter((obj) => selector.matches(obj.metadata?.labels));
}

export class Lister<T extends KubeObject = KubeObject> {
  constructor(readonly indexer: Indexer<T>) {}

  /** Every cached object (in all namespaces) that the selector matches. */
  list(selector?: SelectorInput): T[] {
    return filter(this.indexer.list(), toSelector(selector));
  }

  /** A cluster-scoped object by name. */
  get(name: string): T | undefined {
    return this.indexer.getByKey(name);
  }

  /** The objects of one namespace; '' means all namespaces. */
  namespaced(namespace: string): NamespaceLister<T> {
    return new NamespaceLister(this.indexer, namespace);
  }
}

export class NamespaceLister<T extends KubeObject = KubeObject> {
  constructor(
    readonly indexer: Indexer<T>,
    readonly namespace: string,
  ) {}

  list(selector?: SelectorInput): T[] {
    const sel = toSelector(selector);
    if (this.namespace === '') return filter(this.indexer.list(), sel);
    return filter(this.indexer.byIndex(NAMESPACE_INDEX, this.namespace), sel);
  }

  get(name: string): T | undefined {
    return this.indexer.getByKey(`${this.namespace}/${name}`);
  }
}
