/**
 * The query and path parameters kube-apiserver v1.33 lists for each kind of operation (names and types as in its
 * OpenAPI document; they come from the fields of ListOptions, CreateOptions, UpdateOptions, PatchOptions and
 * DeleteOptions). kubectl looks for `fieldValidation` among a PATCH operation's parameters to decide whether the
 * server validates fields itself.
 */

export interface Parameter {
  readonly name: string;
  readonly in: 'query' | 'path';
  readonly type: 'string' | 'integer' | 'boolean';
  readonly required?: true;
}

const query = (name: string, type: Parameter['type']): Parameter => ({ name, in: 'query', type });

export const pathParameter = (name: string): Parameter => ({ name, in: 'path', type: 'string', required: true });

/** On every path. */
export const PRETTY = query('pretty', 'string');

/** list and watch (ListOptions). */
export const LIST_PARAMETERS: readonly Parameter[] = [
  query('allowWatchBookmarks', 'boolean'),
  query('continue', 'string'),
  query('fieldSelector', 'string'),
  query('labelSelector', 'string'),
  query('limit', 'integer'),
  query('resourceVersion', 'string'),
  query('resourceVersionMatch', 'string'),
  query('sendInitialEvents', 'boolean'),
  query('timeoutSeconds', 'integer'),
  query('watch', 'boolean'),
];

/** create and replace (CreateOptions, UpdateOptions). */
export const WRITE_PARAMETERS: readonly Parameter[] = [
  query('dryRun', 'string'),
  query('fieldManager', 'string'),
  query('fieldValidation', 'string'),
];

/** patch (PatchOptions). */
export const PATCH_PARAMETERS: readonly Parameter[] = [...WRITE_PARAMETERS, query('force', 'boolean')];

/** delete (DeleteOptions in the query). */
export const DELETE_PARAMETERS: readonly Parameter[] = [
  query('dryRun', 'string'),
  query('gracePeriodSeconds', 'integer'),
  query('ignoreStoreReadErrorWithClusterBreakingPotential', 'boolean'),
  query('orphanDependents', 'boolean'),
  query('propagationPolicy', 'string'),
];

/** deletecollection: the delete options and the list options that select what to delete (no watch). */
export const DELETE_COLLECTION_PARAMETERS: readonly Parameter[] = [
  ...DELETE_PARAMETERS,
  ...LIST_PARAMETERS.filter((p) => p.name !== 'watch' && p.name !== 'allowWatchBookmarks'),
];

export function byName(a: Parameter, b: Parameter): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}
