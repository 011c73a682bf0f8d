/**
 * Validation of CustomResourceDefinitions (besides the metadata rules every built-in resource has) as upstream's apiextensions validation does it, for v1 objects: metadata
 * (the name must be `<plural>.<group>`), group, scope, names, versions (exactly one storage version, schemas,
 * subresources, printer columns, selectable fields, deprecation warnings), conversion, stored versions, the
 * approval annotation of protected groups, and on update the fields that may not change.
 */
import {
  duplicate,
  type FieldError,
  type FieldPath,
  forbidden,
  invalid,
  notSupported,
  path,
  required,
  tooMany,
} from '../../api/field-errors.js';
import { isDNS1035Label, isDNS1123Subdomain } from '../../api/validation/names.js';
import type { ObjectMetaInput } from '../../api/validation/object-meta-types.js';
import { validateImmutableField, validateObjectMetaUpdate } from '../../api/validation/object-meta-update.js';
import { isObject } from '../registry/object.js';
import { resolveFieldPath, type Schema, structuralSchemaErrors } from './schema/index.js';
import {
  type CRDNames,
  type CRDSpec,
  type CRDStatus,
  type CRDSubresources,
  type CRDVersion,
  type CustomResourceDefinition,
  isConditionTrue,
  type PrinterColumn,
} from './types.js';

const PRINTER_COLUMN_TYPES = ['boolean', 'date', 'integer', 'number', 'string'];
const PRINTER_COLUMN_FORMATS = ['byte', 'date', 'date-time', 'double', 'float', 'int32', 'int64', 'password'];
const MAX_SELECTABLE_FIELDS = 8;
const APPROVAL_ANNOTATION = 'api-approved.kubernetes.io';
/** What the root of a schema may hold when the status subresource is on (status is cut out as properties.status). */
const ALLOWED_AT_ROOT = [
  'description',
  'type',
  'format',
  'title',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  'maxLength',
  'minLength',
  'pattern',
  'maxItems',
  'minItems',
  'uniqueItems',
  'multipleOf',
  'required',
  'items',
  'properties',
  'externalDocs',
  'example',
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-validations',
];
/** The same list as upstream prints it: Go's field names. */
const ALLOWED_AT_ROOT_TEXT =
  '[Description Type Format Title Maximum ExclusiveMaximum Minimum ExclusiveMinimum MaxLength MinLength Pattern MaxItems MinItems UniqueItems MultipleOf Required Items Properties ExternalDocs Example XPreserveUnknownFields XValidations]';

function dns1035(value: string, p: FieldPath): FieldError[] {
  const errs = isDNS1035Label(value);
  return errs.length > 0 ? [invalid(p, value, errs.join(','))] : [];
}

/** Upstream's ValidateCustomResourceDefinitionNames, for spec.names and status.acceptedNames. */
export function validateNames(names: CRDNames, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (names.plural) errs.push(...dns1035(names.plural, p.child('plural')));
  if (names.singular) errs.push(...dns1035(names.singular, p.child('singular')));
  for (const [field, value] of [
    ['kind', names.kind],
    ['listKind', names.listKind],
  ] as const) {
    if (!value) continue;
    const e = isDNS1035Label(value.toLowerCase());
    if (e.length > 0) {
      errs.push(invalid(p.child(field), value, `may have mixed case, but should otherwise match: ${e.join(',')}`));
    }
  }
  (names.shortNames ?? []).forEach((s, i) => {
    errs.push(...dns1035(s, p.child('shortNames').index(i)));
  });
  if (names.kind && names.kind === names.listKind) {
    errs.push(invalid(p.child('listKind'), names.listKind, 'kind and listKind may not be the same'));
  }
  (names.categories ?? []).forEach((c, i) => {
    errs.push(...dns1035(c, p.child('categories').index(i)));
  });
  return errs;
}

/** A JSONPath as printer columns and scale paths take it: `.spec.replicas`. */
export function validateSimpleJSONPath(s: string, p: FieldPath): FieldError[] {
  if (s.length === 0) return [invalid(p, s, 'must not be empty')];
  if (s[0] !== '.') return [invalid(p, s, 'must be a simple json path starting with .')];
  return [];
}

function validateSubresources(sub: CRDSubresources | undefined, p: FieldPath): FieldError[] {
  const scale = sub?.scale;
  if (!scale) return [];
  const errs: FieldError[] = [];
  const under = (value: string | undefined, field: string, prefixes: string[], detail: string) => {
    const fp = p.child(`scale.${field}`);
    if (!value) {
      errs.push(required(fp));
      return;
    }
    const e = validateSimpleJSONPath(value, fp);
    if (e.length > 0) errs.push(...e);
    else if (!prefixes.some((x) => value.startsWith(x))) errs.push(invalid(fp, value, detail));
  };
  under(scale.specReplicasPath, 'specReplicasPath', ['.spec.'], 'should be a json path under .spec');
  under(scale.statusReplicasPath, 'statusReplicasPath', ['.status.'], 'should be a json path under .status');
  if (scale.labelSelectorPath) {
    under(
      scale.labelSelectorPath,
      'labelSelectorPath',
      ['.spec.', '.status.'],
      'should be a json path under either .spec or .status',
    );
  }
  return errs;
}

function validateColumn(col: PrinterColumn, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (!col.name) errs.push(required(p.child('name')));
  const types = `must be one of ${PRINTER_COLUMN_TYPES.join(',')}`;
  if (!col.type) errs.push(required(p.child('type'), types));
  else if (!PRINTER_COLUMN_TYPES.includes(col.type)) errs.push(invalid(p.child('type'), col.type, types));
  if (col.format && !PRINTER_COLUMN_FORMATS.includes(col.format)) {
    errs.push(invalid(p.child('format'), col.format, `must be one of ${PRINTER_COLUMN_FORMATS.join(',')}`));
  }
  if (!col.jsonPath) errs.push(required(p.child('JSONPath')));
  else errs.push(...validateSimpleJSONPath(col.jsonPath, p.child('JSONPath')));
  return errs;
}

function validateSelectableFields(version: CRDVersion, p: FieldPath): FieldError[] {
  const fields = version.selectableFields ?? [];
  if (fields.length === 0) return [];
  const schema = version.schema?.openAPIV3Schema;
  if (!isObject(schema)) {
    return [invalid(p, '', 'selectableFields may only be set when version.schema.openAPIV3Schema is not included')];
  }
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  fields.forEach((f, i) => {
    const fp = p.index(i).child('jsonPath');
    const jsonPath = f.jsonPath ?? '';
    if (jsonPath === '') {
      errs.push(required(fp));
      return;
    }
    const resolved = resolveFieldPath(jsonPath, schema as Schema, false);
    if (resolved.error !== undefined) {
      errs.push(invalid(fp, jsonPath, `is an invalid path: ${resolved.error}`));
      return;
    }
    const node = resolved.schema ?? {};
    if (jsonPath.startsWith('.metadata')) errs.push(invalid(fp, jsonPath, 'must not point to fields in metadata'));
    if (!['string', 'boolean', 'integer'].includes(String(node.type))) {
      errs.push(
        invalid(
          fp,
          jsonPath,
          'must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.',
        ),
      );
    }
    if (seen.has(jsonPath)) errs.push(duplicate(fp, jsonPath));
    seen.add(jsonPath);
  });
  if (seen.size > MAX_SELECTABLE_FIELDS) errs.push(tooMany(p, seen.size, MAX_SELECTABLE_FIELDS));
  return errs;
}

function validateDeprecationWarning(version: CRDVersion, p: FieldPath): FieldError[] {
  const warning = version.deprecationWarning;
  if (warning === undefined || warning === null) return [];
  const fp = p.child('deprecationWarning');
  if (!version.deprecated) return [invalid(fp, warning, 'can only be set for deprecated versions')];
  const errs: FieldError[] = [];
  if (warning.length > 256) errs.push(invalid(fp, warning, 'must be <= 256 characters long'));
  if (warning.length === 0) errs.push(invalid(fp, warning, 'must not be an empty string'));
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  const bad = /[\u0000-\u001f\u007f-\u009f]/.exec(warning);
  if (bad) {
    errs.push(
      invalid(
        fp,
        warning,
        `must only contain printable UTF-8 characters; non-printable character found at index ${bad.index}`,
      ),
    );
  }
  return errs;
}

function validateSchema(version: CRDVersion, p: FieldPath): FieldError[] {
  const schema = version.schema?.openAPIV3Schema;
  const fp = p.child('openAPIV3Schema');
  if (!isObject(schema)) return [required(fp, 'schemas are required')];
  const errs: FieldError[] = [];
  if (version.subresources?.status !== undefined) {
    for (const key of Object.keys(schema)) {
      if (key === 'type') {
        if (schema.type !== 'object') {
          errs.push(
            invalid(
              p.child('openAPIV3Schema.type'),
              schema.type,
              'only "object" is allowed as the type at the root of the schema if the status subresource is enabled',
            ),
          );
          break;
        }
        continue;
      }
      if (!ALLOWED_AT_ROOT.includes(key)) {
        errs.push(
          invalid(
            fp,
            schema,
            `only ${ALLOWED_AT_ROOT_TEXT} fields are allowed at the root of the schema if the status subresource is enabled`,
          ),
        );
        break;
      }
    }
  }
  errs.push(...structuralSchemaErrors(schema, fp));
  return errs;
}

function validateVersion(version: CRDVersion, p: FieldPath): FieldError[] {
  return [
    ...validateDeprecationWarning(version, p),
    ...validateSchema(version, p.child('schema')),
    ...validateSubresources(version.subresources, p.child('subresources')),
    ...(version.additionalPrinterColumns ?? []).flatMap((c, i) =>
      validateColumn(c, p.child('additionalPrinterColumns').index(i)),
    ),
    ...validateSelectableFields(version, p.child('selectableFields')),
  ];
}

function validateConversion(conversion: CRDSpec['conversion'], p: FieldPath): FieldError[] {
  if (!conversion) return [];
  const strategy = conversion.strategy ?? '';
  if (strategy === '') return [required(p.child('strategy'))];
  if (strategy !== 'None' && strategy !== 'Webhook')
    return [notSupported(p.child('strategy'), strategy, ['None', 'Webhook'])];
  if (strategy === 'Webhook') {
    // Conversion webhooks are not built: refusing the CRD is better than serving it without conversion.
    return [forbidden(p.child('strategy'), 'conversion webhooks are not supported by this server; use None')];
  }
  if (conversion.webhook !== undefined && conversion.webhook !== null) {
    return [forbidden(p.child('webhookClientConfig'), 'should not be set when strategy is not set to Webhook')];
  }
  return [];
}

function validateSpec(spec: CRDSpec, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const group = spec.group ?? '';
  if (group === '') errs.push(required(p.child('group')));
  else if (isDNS1123Subdomain(group).length > 0)
    errs.push(invalid(p.child('group'), group, isDNS1123Subdomain(group).join(',')));
  else if (group.split('.').length < 2)
    errs.push(invalid(p.child('group'), group, 'should be a domain with at least one dot'));
  const scope = spec.scope ?? '';
  if (scope === '') errs.push(required(p.child('scope')));
  else if (scope !== 'Cluster' && scope !== 'Namespaced')
    errs.push(notSupported(p.child('scope'), scope, ['Cluster', 'Namespaced']));
  const versions = spec.versions ?? [];
  const seen = new Set<string>();
  let unique = true;
  let storage = 0;
  versions.forEach((v, i) => {
    const vp = p.child('versions').index(i);
    if (v.storage === true) storage++;
    const name = v.name ?? '';
    if (seen.has(name)) unique = false;
    seen.add(name);
    errs.push(...dns1035(name, vp.child('name')));
    errs.push(...validateVersion(v, vp));
  });
  if (!unique) errs.push(invalid(p.child('versions'), versions, 'must contain unique version names'));
  if (storage !== 1) {
    errs.push(invalid(p.child('versions'), versions, 'must have exactly one version marked as storage version'));
  }
  const names = spec.names ?? {};
  for (const field of ['plural', 'singular', 'kind', 'listKind'] as const) {
    if (!names[field]) errs.push(required(p.child('names', field)));
  }
  errs.push(...validateNames(names, p.child('names')));
  errs.push(...validateConversion(spec.conversion, p.child('conversion')));
  return errs;
}

function validateStoredVersions(status: CRDStatus, versions: CRDVersion[], p: FieldPath): FieldError[] {
  const stored = status.storedVersions ?? [];
  if (stored.length === 0) return [invalid(p, stored, 'must have at least one stored version')];
  const errs: FieldError[] = [];
  const remaining = new Map(stored.map((v, i) => [v, i]));
  for (const v of versions) {
    const has = remaining.has(v.name ?? '');
    if (v.storage === true && !has) errs.push(invalid(p, stored, `must have the storage version ${v.name ?? ''}`));
    remaining.delete(v.name ?? '');
  }
  for (const [v, i] of remaining) {
    errs.push(
      invalid(
        p.index(i),
        v,
        `missing from spec.versions; ${v} was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in ${v} and removes ${v} from status.storedVersions`,
      ),
    );
  }
  return errs;
}

type ApprovalState = 'missing' | 'bypassed' | 'approved' | 'invalid';

function approvalState(annotations: Record<string, string> | undefined): { state: ApprovalState; reason: string } {
  const value = annotations?.[APPROVAL_ANNOTATION] ?? '';
  const see = 'see https://github.com/kubernetes/enhancements/pull/1111';
  if (value === '') {
    return {
      state: 'missing',
      reason: `protected groups must have approval annotation "${APPROVAL_ANNOTATION}", ${see}`,
    };
  }
  if (value.startsWith('unapproved')) return { state: 'bypassed', reason: `not approved: "${value}"` };
  try {
    const url = new URL(value);
    if (url.host && url.protocol) return { state: 'approved', reason: `approved in ${value}` };
  } catch {
    // not a URL: invalid below
  }
  return {
    state: 'invalid',
    reason: `protected groups must have approval annotation "${APPROVAL_ANNOTATION}" with either a URL or a reason starting with "unapproved", ${see}`,
  };
}

function isProtectedGroup(group: string): boolean {
  return (
    group === 'k8s.io' || group.endsWith('.k8s.io') || group === 'kubernetes.io' || group.endsWith('.kubernetes.io')
  );
}

function validateAPIApproval(crd: CustomResourceDefinition, old: CustomResourceDefinition | undefined): FieldError[] {
  if (!isProtectedGroup(crd.spec.group ?? '')) return [];
  const next = approvalState(crd.metadata.annotations);
  if (old && approvalState(old.metadata.annotations).state === next.state) return [];
  const fp = path('metadata', 'annotations').key(APPROVAL_ANNOTATION);
  if (next.state === 'missing') return [required(fp, next.reason)];
  if (next.state === 'invalid') return [invalid(fp, crd.metadata.annotations?.[APPROVAL_ANNOTATION], next.reason)];
  return [];
}

function validatePreserveUnknownFields(
  crd: CustomResourceDefinition,
  old: CustomResourceDefinition | undefined,
): FieldError[] {
  if (old?.spec.preserveUnknownFields === true || crd.spec.preserveUnknownFields !== true) return [];
  return [
    invalid(
      path('spec', 'preserveUnknownFields'),
      true,
      'cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead',
    ),
  ];
}

/** Beyond a built-in's metadata rules: a CRD's name is its plural and group. */
function nameErrors(crd: CustomResourceDefinition): FieldError[] {
  const name = crd.metadata.name ?? '';
  const wanted = `${crd.spec.names?.plural ?? ''}.${crd.spec.group ?? ''}`;
  return name !== '' && name !== wanted
    ? [invalid(path('metadata', 'name'), name, 'must be spec.names.plural+"."+spec.group')]
    : [];
}

function statusErrors(crd: CustomResourceDefinition): FieldError[] {
  const status = crd.status ?? {};
  return [
    ...validateNames(status.acceptedNames ?? {}, path('status', 'acceptedNames')),
    ...validateStoredVersions(status, crd.spec.versions ?? [], path('status', 'storedVersions')),
  ];
}

export function validateCRD(crd: CustomResourceDefinition): FieldError[] {
  return [
    ...nameErrors(crd),
    ...validateSpec(crd.spec, path('spec')),
    ...statusErrors(crd),
    ...validateAPIApproval(crd, undefined),
    ...validatePreserveUnknownFields(crd, undefined),
  ];
}

export function validateCRDUpdate(crd: CustomResourceDefinition, old: CustomResourceDefinition): FieldError[] {
  const errs = validateSpec(crd.spec, path('spec'));
  if (isConditionTrue(old, 'Established')) {
    errs.push(...validateImmutableField(crd.spec.scope, old.spec.scope, path('spec', 'scope')));
    errs.push(...validateImmutableField(crd.spec.names?.kind, old.spec.names?.kind, path('spec', 'names', 'kind')));
  }
  errs.push(...validateImmutableField(crd.spec.group, old.spec.group, path('spec', 'group')));
  errs.push(...validateImmutableField(crd.spec.names?.plural, old.spec.names?.plural, path('spec', 'names', 'plural')));
  errs.push(...statusErrors(crd));
  errs.push(...validateAPIApproval(crd, old));
  errs.push(...validatePreserveUnknownFields(crd, old));
  return errs;
}

/** Upstream's status update validation: metadata may not change, the accepted names must be valid. */
export function validateCRDStatusUpdate(crd: CustomResourceDefinition, old: CustomResourceDefinition): FieldError[] {
  return [
    ...validateObjectMetaUpdate(crd.metadata as ObjectMetaInput, old.metadata as ObjectMetaInput, path('metadata')),
    ...validateNames(crd.status?.acceptedNames ?? {}, path('status', 'acceptedNames')),
  ];
}
