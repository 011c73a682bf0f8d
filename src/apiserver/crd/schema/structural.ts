/**
 * The checks apiextensions makes of a CRD version's openAPIV3Schema before it accepts the CRD (its
 * validateCustomResourceDefinitionValidation for a new v1 CRD): nullable not at the root, the schema structural (see
 * structural-invariants.ts), every `default` valid and pruned, then per node the OpenAPI features CRDs refuse
 * (`$ref`, `definitions`, `uniqueItems`…), properties and additionalProperties exclusive, the list-type and map-type
 * rules, the shape of x-kubernetes-validations, and their CEL rules compiled (`compilation failed: …`).
 */

import {
  deepCopy,
  isEmbeddedResource,
  isObject,
  jsonEqual,
  properties,
  type Schema,
  stringList,
  stringValue,
  typeOf,
} from '../../../api/crd-schema-node.js';
import {
  type FieldError,
  type FieldPath,
  forbidden,
  internalError,
  invalid,
  notSupported,
  required,
} from '../../../api/field-errors.js';
import { goStringSlice } from '../../../api/validation/go-format.js';
import {
  compiledRules,
  goValidationRule,
  SUPPORTED_REASONS,
  validateRules,
  validationRules,
  validFieldPath,
} from './cel-rules.js';
import { validateEmbeddedValue } from './embedded.js';
import { validateAgainstSchema } from './openapi-validate.js';
import { pruneValue } from './prune.js';
import { structuralErrors } from './structural-invariants.js';

const OPENAPI_V3_TYPES = ['array', 'boolean', 'integer', 'number', 'object', 'string'];
const META_FIELDS = new Set(['metadata', 'kind', 'apiVersion']);

/** What upstream's specStandardValidatorV3 carries down the schema. */
interface Context {
  allowDefaults: boolean;
  disallowDefaultsReason: string;
  insideResourceMeta: boolean;
  /** The highest path below which old and new values cannot be correlated (oldSelf is then refused). */
  uncorrelatable?: FieldPath;
  /** Whether CEL rules are compiled (only when the schema is structural and its defaults are valid). */
  cel: boolean;
}

interface Errors {
  schema: FieldError[];
  cel: FieldError[];
}

const forbidDefaults = (c: Context, reason: string): Context => ({
  ...c,
  allowDefaults: false,
  disallowDefaultsReason: reason,
});
const forbidOldSelf = (c: Context, p: FieldPath): Context => (c.uncorrelatable ? c : { ...c, uncorrelatable: p });

/** The per-node checks of the OpenAPI features CRDs do not support. */
function standardChecks(s: Schema, p: FieldPath, c: Context): FieldError[] {
  const errs: FieldError[] = [];
  const type = s.type;
  if (type !== undefined && type !== '' && (typeof type !== 'string' || !OPENAPI_V3_TYPES.includes(type))) {
    errs.push(notSupported(p.child('type'), type, OPENAPI_V3_TYPES));
  }
  if (s.default !== undefined && !c.allowDefaults) {
    const detail = c.disallowDefaultsReason ? `must not be set ${c.disallowDefaultsReason}` : 'must not be set';
    errs.push(forbidden(p.child('default'), detail));
  }
  if (typeof s.id === 'string' && s.id !== '') errs.push(forbidden(p.child('id'), 'id is not supported'));
  if (s.additionalItems !== undefined)
    errs.push(forbidden(p.child('additionalItems'), 'additionalItems is not supported'));
  if (isObject(s.patternProperties) && Object.keys(s.patternProperties).length > 0) {
    errs.push(forbidden(p.child('patternProperties'), 'patternProperties is not supported'));
  }
  if (isObject(s.definitions) && Object.keys(s.definitions).length > 0) {
    errs.push(forbidden(p.child('definitions'), 'definitions is not supported'));
  }
  if (s.dependencies !== undefined && s.dependencies !== null) {
    errs.push(forbidden(p.child('dependencies'), 'dependencies is not supported'));
  }
  if (s.$ref !== undefined && s.$ref !== null) errs.push(forbidden(p.child('$ref'), '$ref is not supported'));
  if (type === 'null')
    errs.push(forbidden(p.child('type'), 'type cannot be set to null, use nullable as an alternative'));
  if (Array.isArray(s.items) && s.items.length > 0) {
    errs.push(forbidden(p.child('items'), 'items must be a schema object and not an array'));
  }
  if (c.insideResourceMeta && isEmbeddedResource(s)) {
    errs.push(forbidden(p.child('x-kubernetes-embedded-resource'), 'must not be used inside of resource meta'));
  }
  return errs;
}

function listAndMapChecks(s: Schema, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const type = typeOf(s);
  const mapType = stringValue(s, 'x-kubernetes-map-type');
  const listType = stringValue(s, 'x-kubernetes-list-type');
  const mapKeys = stringList(s, 'x-kubernetes-list-map-keys');
  const itemSchema = isObject(s.items) ? s.items : undefined;
  if (s['x-kubernetes-preserve-unknown-fields'] === false) {
    errs.push(invalid(p.child('x-kubernetes-preserve-unknown-fields'), false, 'must be true or undefined'));
  }
  if (mapType !== undefined && type !== 'object') {
    if (type === '') errs.push(required(p.child('type'), 'must be object if x-kubernetes-map-type is specified'));
    else errs.push(invalid(p.child('type'), type, 'must be object if x-kubernetes-map-type is specified'));
  }
  if (mapType !== undefined && mapType !== 'atomic' && mapType !== 'granular') {
    errs.push(notSupported(p.child('x-kubernetes-map-type'), mapType, ['atomic', 'granular']));
  }
  if (listType !== undefined && type !== 'array') {
    if (type === '') errs.push(required(p.child('type'), 'must be array if x-kubernetes-list-type is specified'));
    else errs.push(invalid(p.child('type'), type, 'must be array if x-kubernetes-list-type is specified'));
  } else if (listType === 'set' && itemSchema) {
    const itemListType = stringValue(itemSchema, 'x-kubernetes-list-type');
    if (typeOf(itemSchema) === 'array' && itemListType !== undefined && itemListType !== 'atomic') {
      errs.push(
        invalid(
          p.child('items').child('x-kubernetes-list-type'),
          itemListType,
          'must be atomic as item of a list with x-kubernetes-list-type=set',
        ),
      );
    }
    if (typeOf(itemSchema) === 'object' && stringValue(itemSchema, 'x-kubernetes-map-type') !== 'atomic') {
      // Upstream reports the item's list type here (nil for an object).
      errs.push(
        invalid(
          p.child('items').child('x-kubernetes-map-type'),
          itemListType ?? null,
          'must be atomic as item of a list with x-kubernetes-list-type=set',
        ),
      );
    }
  }
  if (listType !== undefined && listType !== 'atomic' && listType !== 'set' && listType !== 'map') {
    errs.push(notSupported(p.child('x-kubernetes-list-type'), listType, ['atomic', 'set', 'map']));
  }
  if (mapKeys.length > 0) {
    if (listType === undefined) {
      errs.push(required(p.child('x-kubernetes-list-type'), 'must be map if x-kubernetes-list-map-keys is non-empty'));
    } else if (listType !== 'map') {
      errs.push(
        invalid(p.child('x-kubernetes-list-type'), listType, 'must be map if x-kubernetes-list-map-keys is non-empty'),
      );
    }
  }
  if (listType === 'map') {
    if (mapKeys.length === 0) {
      errs.push(required(p.child('x-kubernetes-list-map-keys'), 'must not be empty if x-kubernetes-list-type is map'));
    }
    if (s.items === undefined || s.items === null) {
      errs.push(required(p.child('items'), 'must have a schema if x-kubernetes-list-type is map'));
    } else if (!itemSchema) {
      errs.push(invalid(p.child('items'), s.items, 'must only have a single schema if x-kubernetes-list-type is map'));
    } else if (typeOf(itemSchema) !== 'object') {
      errs.push(
        invalid(
          p.child('items').child('type'),
          typeOf(itemSchema),
          "must be object if parent array's x-kubernetes-list-type is map",
        ),
      );
    } else {
      const seen = new Set<string>();
      const itemProps = properties(itemSchema) ?? {};
      for (const k of mapKeys) {
        const keySchema = itemProps[k];
        if (isObject(keySchema)) {
          if (typeOf(keySchema) === 'array' || typeOf(keySchema) === 'object') {
            errs.push(
              invalid(
                p.child('items').child('properties').key(k).child('type'),
                typeOf(itemSchema),
                "must be a scalar type if parent array's x-kubernetes-list-type is map",
              ),
            );
          }
        } else {
          errs.push(
            invalid(
              p.child('x-kubernetes-list-map-keys'),
              goStringSlice(mapKeys),
              'entries must all be names of item properties',
            ),
          );
        }
        if (seen.has(k)) {
          errs.push(
            invalid(
              p.child('x-kubernetes-list-map-keys'),
              goStringSlice(mapKeys),
              'must not contain duplicate entries',
            ),
          );
        }
        seen.add(k);
      }
    }
  }
  // Set and map lists: items not nullable; map keys required or defaulted, and not nullable.
  if (itemSchema && (listType === 'set' || listType === 'map')) {
    if (itemSchema.nullable === true) {
      errs.push(
        forbidden(p.child('items').child('nullable'), `cannot be nullable when x-kubernetes-list-type is ${listType}`),
      );
    }
    if (listType === 'map') {
      const requiredKeys = new Set(stringList(itemSchema, 'required'));
      const itemProps = properties(itemSchema) ?? {};
      for (const k of mapKeys) {
        const keySchema = itemProps[k];
        if (!isObject(keySchema)) continue;
        const at = p.child('items').child('properties').key(k);
        if (!requiredKeys.has(k) && keySchema.default === undefined) {
          errs.push(
            required(
              at.child('default'),
              'this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property',
            ),
          );
        }
        if (keySchema.nullable === true) {
          errs.push(
            forbidden(at.child('nullable'), 'this property is in x-kubernetes-list-map-keys, so it cannot be nullable'),
          );
        }
      }
    }
  }
  return errs;
}

const hasNewlines = (s: string) => /[\n\r]+/.test(s);

function ruleShapeChecks(s: Schema, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  validationRules(s).forEach((rule, i) => {
    const at = p.child('x-kubernetes-validations').index(i);
    const text = typeof rule.rule === 'string' ? rule.rule : '';
    const message = typeof rule.message === 'string' ? rule.message : '';
    const trimmedRule = text.trim();
    const trimmedMsg = message.trim();
    if (trimmedRule === '') errs.push(required(at.child('rule'), 'rule is not specified'));
    else if (message.length > 0 && trimmedMsg === '') {
      errs.push(invalid(at.child('message'), message, 'message must be non-empty if specified'));
    } else if (hasNewlines(trimmedMsg)) {
      errs.push(invalid(at.child('message'), message, 'message must not contain line breaks'));
    } else if (hasNewlines(trimmedRule) && trimmedMsg === '') {
      errs.push(required(at.child('message'), 'message must be specified if rule contains line breaks'));
    }
    const messageExpression = typeof rule.messageExpression === 'string' ? rule.messageExpression : '';
    if (messageExpression.length > 0 && messageExpression.trim() === '') {
      errs.push(required(at.child('messageExpression'), 'messageExpression must be non-empty if specified'));
    }
    if (rule.reason !== undefined && !SUPPORTED_REASONS.includes(rule.reason)) {
      errs.push(notSupported(at.child('reason'), rule.reason, SUPPORTED_REASONS));
    }
    const fieldPath = typeof rule.fieldPath === 'string' ? rule.fieldPath : '';
    if (fieldPath.length > 0 && fieldPath.trim() === '') {
      errs.push(invalid(at.child('fieldPath'), fieldPath, 'fieldPath must be non-empty if specified'));
    }
    if (/\n/.test(fieldPath))
      errs.push(invalid(at.child('fieldPath'), fieldPath, 'fieldPath must not contain line breaks'));
    if (fieldPath.length > 0 && !validFieldPath(fieldPath, s)) {
      errs.push(invalid(at.child('fieldPath'), fieldPath, 'fieldPath must be a valid path'));
    }
  });
  return errs;
}

function celChecks(s: Schema, p: FieldPath, c: Context, resourceRoot: boolean): FieldError[] {
  const errs: FieldError[] = [];
  compiledRules(s, resourceRoot).forEach((cr, i) => {
    const at = p.child('x-kubernetes-validations').index(i);
    if (cr.error !== undefined) errs.push(invalid(at.child('rule'), goValidationRule(cr.rule), cr.error));
    if (cr.messageExpressionError !== undefined) {
      errs.push(invalid(at.child('messageExpression'), goValidationRule(cr.rule), cr.messageExpressionError));
    }
    if (cr.usesOldSelf) {
      if (c.uncorrelatable) {
        errs.push(
          invalid(
            at.child('rule'),
            cr.rule.rule ?? '',
            `oldSelf cannot be used on the uncorrelatable portion of the schema within ${c.uncorrelatable.toString()}`,
          ),
        );
      }
    } else if (cr.rule.optionalOldSelf !== undefined) {
      errs.push(
        invalid(at.child('optionalOldSelf'), cr.rule.optionalOldSelf, 'may not be set if oldSelf is not used in rule'),
      );
    }
  });
  return errs;
}

function mapIsCorrelatable(s: Schema): boolean {
  const t = stringValue(s, 'x-kubernetes-map-type');
  return t === undefined || t === 'granular' || t === 'atomic';
}

function openAPISchemaChecks(
  s: Schema | undefined,
  p: FieldPath,
  c: Context,
  isRoot: boolean,
  celHere: boolean,
): Errors {
  const out: Errors = { schema: [], cel: [] };
  if (!s) return out;
  const add = (e: Errors) => {
    out.schema.push(...e.schema);
    out.cel.push(...e.cel);
  };
  out.schema.push(...standardChecks(s, p, c));
  if (s.uniqueItems === true) {
    out.schema.push(
      forbidden(
        p.child('uniqueItems'),
        'uniqueItems cannot be set to true since the runtime complexity becomes quadratic',
      ),
    );
  }
  const props = properties(s) ?? {};
  const additional = s.additionalProperties;
  if (additional !== undefined && additional !== null) {
    if (Object.keys(props).length > 0 && (additional === false || isObject(additional))) {
      out.schema.push(
        forbidden(p.child('additionalProperties'), 'additionalProperties and properties are mutual exclusive'),
      );
    }
    const sub = c.insideResourceMeta ? forbidDefaults(c, 'inside additionalProperties applying to object metadata') : c;
    if (isObject(additional))
      add(openAPISchemaChecks(additional, p.child('additionalProperties'), sub, false, celHere));
  }
  for (const [name, prop] of Object.entries(props)) {
    if (!isObject(prop)) continue;
    let sub = c;
    if (!mapIsCorrelatable(s)) sub = forbidOldSelf(sub, p);
    if ((isRoot || isEmbeddedResource(s)) && META_FIELDS.has(name)) {
      sub = { ...sub, insideResourceMeta: true };
      if (isRoot) sub = forbidDefaults(sub, `in top-level ${name}`);
    }
    add(openAPISchemaChecks(prop, p.child('properties').key(name), sub, false, celHere));
  }
  if (isObject(s.not)) add(openAPISchemaChecks(s.not, p.child('not'), c, false, false));
  for (const key of ['allOf', 'oneOf', 'anyOf'] as const) {
    const list = s[key];
    if (Array.isArray(list)) {
      list.forEach((x, i) => {
        if (isObject(x)) add(openAPISchemaChecks(x, p.child(key).index(i), c, false, false));
      });
    }
  }
  if (s.items !== undefined && s.items !== null) {
    const sub = stringValue(s, 'x-kubernetes-list-type') !== 'map' ? forbidOldSelf(c, p) : c;
    if (isObject(s.items)) add(openAPISchemaChecks(s.items, p.child('items'), sub, false, celHere));
    else if (Array.isArray(s.items)) {
      s.items.forEach((x, i) => {
        if (isObject(x)) add(openAPISchemaChecks(x, p.child('items').index(i), sub, false, celHere));
      });
    }
  }
  out.schema.push(...listAndMapChecks(s, p));
  if (validationRules(s).length > 0) {
    out.schema.push(...ruleShapeChecks(s, p));
    // CEL rules are compiled only when nothing is wrong with the schema at or below this node.
    if (out.schema.length === 0 && c.cel && celHere) out.cel.push(...celChecks(s, p, c, isRoot));
  }
  return out;
}

/** Validates every `default` as upstream's ValidateDefaults: valid for its node, pruned, and passing its CEL rules. */
function defaultErrors(
  s: Schema | undefined,
  p: FieldPath,
  rootSchema: Schema,
  insideMeta: boolean,
  errs: FieldError[],
): void {
  if (!s) return;
  let root = rootSchema;
  let meta = insideMeta;
  if (isEmbeddedResource(s)) {
    root = s;
    meta = false;
  }
  if (s.default !== undefined) {
    const at = p.child('default');
    const value = s.default;
    const pruned = deepCopy(value);
    pruneValue(pruned, s, isEmbeddedResource(s));
    const found: FieldError[] = [];
    if (!meta && !jsonEqual(pruned, value)) found.push(invalid(at, value, 'must not have unknown fields'));
    const embedded = meta ? [] : validateEmbeddedValue(at, value, s);
    const schemaErrs = embedded.length > 0 ? [] : validateAgainstSchema(at, value, s);
    if (embedded.length > 0) found.push(...embedded);
    else if (schemaErrs.length > 0) found.push(...schemaErrs);
    else {
      // CEL rules must hold for the default both as a new value and as an unchanged one (transition rules).
      const withOld = validateRules(at, value, s, value);
      found.push(...(withOld.length > 0 ? withOld : validateRules(at, value, s)));
    }
    errs.push(...found);
  }
  if (isObject(s.items)) defaultErrors(s.items, p.child('items'), root, meta, errs);
  for (const [k, sub] of Object.entries(properties(s) ?? {})) {
    if (!isObject(sub)) continue;
    const subMeta = meta || (isEmbeddedResource(s) && META_FIELDS.has(k)) || (s === rootSchema && META_FIELDS.has(k));
    defaultErrors(sub, p.child('properties').key(k), root, subMeta, errs);
  }
}

/**
 * The errors of a CRD version's openAPIV3Schema (at `fldPath`, e.g. `spec.versions[0].schema.openAPIV3Schema`), as
 * apiextensions reports them for a new v1 CRD: nullable at the root, structural errors (or, when structural, default
 * errors), then the per-node schema errors and the CEL rules' compile errors.
 */
export function structuralSchemaErrors(schema: Schema, fldPath: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (!isObject(schema)) return [required(fldPath, 'must not be empty')];
  if (schema.nullable === true) errs.push(forbidden(fldPath.child('nullable'), 'nullable cannot be true at the root'));
  let cel = false;
  const structural = structuralErrors(schema, fldPath);
  if (structural.length > 0) {
    errs.push(...structural);
  } else {
    const defaults: FieldError[] = [];
    try {
      defaultErrors(schema, fldPath, schema, false, defaults);
    } catch (err) {
      defaults.push(internalError(fldPath, err as Error));
    }
    if (defaults.length > 0) errs.push(...defaults);
    else cel = true;
  }
  const context: Context = { allowDefaults: true, disallowDefaultsReason: '', insideResourceMeta: false, cel };
  const checked = openAPISchemaChecks(schema, fldPath, context, true, true);
  errs.push(...checked.schema, ...checked.cel);
  return errs;
}
