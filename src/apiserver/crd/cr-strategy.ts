/**
 * The strategy of one served version of a custom resource, as upstream's customresource strategy: schema defaults,
 * metadata validation as for built-ins (a DNS subdomain name), validation against the version's schema (with the
 * old object on update, for transition rules), the spec/status split and generation rules when the status
 * subresource is on, and the selectable fields the version declares.
 */
import { type FieldError, path } from '../../api/field-errors.js';
import { nameIsDNSSubdomain } from '../../api/validation/name-validators.js';
import { validateObjectMeta } from '../../api/validation/object-meta.js';
import type { ObjectMetaInput } from '../../api/validation/object-meta-types.js';
import { validateObjectMetaUpdate } from '../../api/validation/object-meta-update.js';
import { jsonEqual, type KubeObject } from '../registry/object.js';
import type { StatusStrategy, Strategy } from '../registry/resource.js';
import { statusStrategy } from '../registry/resources/common.js';
import { specChanged } from '../registry/store.js';
import { findResults, parseJSONPath, printValue } from './jsonpath.js';
import { applyDefaults, validateObject } from './schema/index.js';
import type { CRDVersion, JSONSchemaProps } from './types.js';

export interface CustomResourceStrategies {
  strategy: Strategy;
  status?: StatusStrategy;
}

function selectableFields(version: CRDVersion): Record<string, (obj: KubeObject) => string> | undefined {
  const fields = version.selectableFields ?? [];
  if (fields.length === 0) return undefined;
  const out: Record<string, (obj: KubeObject) => string> = {};
  for (const f of fields) {
    const jsonPath = f.jsonPath ?? '';
    const steps = parseJSONPath(jsonPath);
    out[jsonPath.replace(/^\./, '')] = (obj) => {
      const found = findResults(steps, obj);
      return found.length > 0 && found[0] !== null ? printValue(found[0]) : '';
    };
  }
  return out;
}

function withoutMetadata(obj: KubeObject): Record<string, unknown> {
  const { metadata: _m, ...rest } = obj;
  return rest;
}

export function customResourceStrategies(
  version: CRDVersion,
  schema: JSONSchemaProps | undefined,
  namespaced: boolean,
): CustomResourceStrategies {
  const hasStatus = version.subresources?.status !== undefined && version.subresources?.status !== null;
  const meta = { namespaced, nameValidator: nameIsDNSSubdomain };
  const schemaErrors = (obj: KubeObject, old: KubeObject | undefined): FieldError[] =>
    schema ? validateObject(obj, schema, old) : [];
  const fields = selectableFields(version);
  const strategy: Strategy = {
    allowUnconditionalUpdate: false,
    default(obj) {
      if (schema) applyDefaults(obj, schema);
    },
    prepareForCreate(obj) {
      if (hasStatus) delete obj.status;
    },
    prepareForUpdate(obj, old) {
      if (!hasStatus) return;
      if (old.status === undefined) delete obj.status;
      else obj.status = old.status;
    },
    validate(obj) {
      return [...validateObjectMeta(obj.metadata as ObjectMetaInput, meta), ...schemaErrors(obj, undefined)];
    },
    validateUpdate(obj, old) {
      return [
        ...validateObjectMetaUpdate(obj.metadata as ObjectMetaInput, old.metadata as ObjectMetaInput, path('metadata')),
        ...validateObjectMeta(obj.metadata as ObjectMetaInput, meta),
        ...schemaErrors(obj, old),
      ];
    },
    // With a status subresource, status writes do not count; without one, everything but metadata does.
    generationChanged: (next, old) =>
      hasStatus ? specChanged(next, old) : !jsonEqual(withoutMetadata(next), withoutMetadata(old)),
    ...(fields ? { selectableFields: fields } : {}),
  };
  if (!hasStatus) return { strategy };
  return {
    strategy,
    status: statusStrategy((obj, old) => [
      ...validateObjectMetaUpdate(obj.metadata as ObjectMetaInput, old.metadata as ObjectMetaInput, path('metadata')),
      ...schemaErrors(obj, old),
    ]),
  };
}
