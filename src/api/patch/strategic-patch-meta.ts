/**
 * What a strategic merge patch needs to know about a field: the schema below it, its patch strategy and its merge
 * key, read from the SchemaNode of the object that holds the field.
 *
 * A field the schema does not describe (no schema, no such property, a free-form value) has no metadata: its maps
 * merge and its lists are replaced, as upstream does for schema-less data. (For built-in types upstream looks the
 * field up in the Go struct and fails when a field unknown to the struct holds a map or list on both sides.)
 */
import type { SchemaNode } from '../schema-node.js';
import { unknown } from './strategic-errors.js';

export interface PatchMeta {
  /** The field's own node (for a list: the node of its elements). */
  readonly schema: SchemaNode | undefined;
  /** '' (none), 'merge' or 'replace'; retainKeys is taken out, as upstream does. */
  readonly strategy: string;
  readonly mergeKey: string;
}

/** The metadata of `key` when its value is a map. */
export function lookupMapField(parent: SchemaNode | undefined, key: string): PatchMeta {
  const field = fieldNode(parent, key);
  return { schema: field, strategy: strategyOf(field), mergeKey: field?.patchMergeKey ?? '' };
}

/** The metadata of `key` when its value is a list; `schema` is the node of the list's elements. */
export function lookupListField(parent: SchemaNode | undefined, key: string): PatchMeta {
  const field = fieldNode(parent, key);
  return { schema: field?.items, strategy: strategyOf(field), mergeKey: field?.patchMergeKey ?? '' };
}

function fieldNode(parent: SchemaNode | undefined, key: string): SchemaNode | undefined {
  if (parent === undefined || parent.type !== 'object') return undefined;
  return parent.property(key) ?? parent.additionalProperties;
}

/** Splits 'merge,retainKeys'-style strategies and returns the one that is not retainKeys. */
function strategyOf(field: SchemaNode | undefined): string {
  const strategies = field?.patchStrategy ? field.patchStrategy.split(',') : [];
  if (strategies.length <= 1) {
    const only = strategies[0] ?? '';
    return only === 'retainKeys' ? '' : only;
  }
  if (strategies.length === 2) {
    if (strategies[0] === 'retainKeys') return strategies[1] ?? '';
    if (strategies[1] === 'retainKeys') return strategies[0] ?? '';
  }
  throw unknown(`unexpected patch strategy: [${strategies.join(' ')}]`);
}
