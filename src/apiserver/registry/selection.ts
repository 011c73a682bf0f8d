import { FieldSelector, supportedFieldLabels } from '../../api/fields.js';
import { LabelSelector } from '../../api/labels.js';
import { statusErrors } from '../../api/status-error.js';
import type { Selection } from './list.js';
import type { KubeObject } from './object.js';
import type { ResourceDefinition } from './resource.js';

/** The field values of an object that field selectors can match, as the resource declares them. */
export function fieldsOf(def: ResourceDefinition, obj: KubeObject): Record<string, string> {
  const fields: Record<string, string> = { 'metadata.name': obj.metadata.name ?? '' };
  if (def.namespaced) fields['metadata.namespace'] = obj.metadata.namespace ?? '';
  for (const [name, read] of Object.entries(def.strategy.selectableFields ?? {})) fields[name] = read(obj);
  return fields;
}

/**
 * How the watch cache reads the field it files watchers under (the strategy's watchIndexField), for a resource
 * whose stored form is the form it serves (the cache holds stored objects; selectors see served ones).
 */
export function watchIndexOf(def: ResourceDefinition): ((obj: KubeObject) => string) | undefined {
  const field = def.strategy.watchIndexField;
  if (field === undefined || def.conversion) return undefined;
  return def.strategy.selectableFields?.[field];
}

/**
 * The labelSelector and fieldSelector of a list of objects that are not stored (computed lists, which match any
 * field label they like); a selector that does not parse is a 400 BadRequest with upstream's message.
 */
export function plainSelectors(q: URLSearchParams): { labels: LabelSelector; fields: FieldSelector } {
  try {
    return {
      labels: LabelSelector.parse(q.get('labelSelector') ?? ''),
      fields: FieldSelector.parse(q.get('fieldSelector') ?? ''),
    };
  } catch (err) {
    throw statusErrors.badRequest((err as Error).message);
  }
}

/**
 * The selection a list or watch asked for with labelSelector and fieldSelector. A selector that does not parse,
 * or names a field the resource does not support, is a 400 BadRequest with upstream's message. A list or watch that
 * names one object (the old `/watch/…/<name>` path, or a request whose field selector requires a `metadata.name`)
 * selects that name, as upstream's list handler does; a field selector that requires another name is refused.
 */
export function selectionFromQuery(def: ResourceDefinition, q: URLSearchParams, name = ''): Selection {
  let labels: LabelSelector;
  let fields: FieldSelector;
  try {
    labels = LabelSelector.parse(q.get('labelSelector') ?? '');
    const supported = [
      'metadata.name',
      ...(def.namespaced ? ['metadata.namespace'] : []),
      ...Object.keys(def.strategy.selectableFields ?? {}),
    ];
    fields = FieldSelector.parse(q.get('fieldSelector') ?? '').transform(
      supportedFieldLabels(supported, def.strategy.fieldLabelRenames),
    );
    if (name && fields.isEmpty()) fields = FieldSelector.oneTermEqual('metadata.name', name);
    else if (name && fields.requiresExactMatch('metadata.name') !== name) {
      throw new Error("fieldSelector metadata.name doesn't match requested name");
    }
  } catch (err) {
    throw statusErrors.badRequest((err as Error).message);
  }
  const noLabels = labels.isEmpty();
  const noFields = fields.isEmpty();
  return {
    everything: noLabels && noFields,
    matches: (obj) =>
      (noLabels || labels.matches(obj.metadata.labels)) && (noFields || fields.matches(fieldsOf(def, obj))),
    requiredFieldValue: (field) => fields.requiresExactMatch(field),
    onlyFieldTest: (field) => {
      const [term, ...others] = fields.requirements;
      if (!noLabels || !term || others.length > 0 || term.field !== field) return undefined;
      const wanted = term.value;
      return term.operator === '=' ? (value) => value === wanted : (value) => value !== wanted;
    },
  };
}
