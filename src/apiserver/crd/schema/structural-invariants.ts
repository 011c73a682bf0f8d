/**
 * Whether a CRD's schema is structural, as apiextensions' ValidateStructural decides: every specified node has a
 * type (except under x-kubernetes-int-or-string or x-kubernetes-preserve-unknown-fields), value validations under
 * allOf/anyOf/oneOf/not only restrict what the structural part already specifies, metadata at the root restricts
 * nothing but name and generateName, and the extensions fit together. Errors come sorted by their text, as upstream
 * sorts them.
 */

import {
  isEmbeddedResource,
  isIntOrString,
  isObject,
  preservesUnknownFields,
  type Schema,
  typeOf,
} from '../../../api/crd-schema-node.js';
import { type FieldError, type FieldPath, forbidden, invalid, required } from '../../../api/field-errors.js';
import { compilePattern } from './pattern.js';

type Level = 'root' | 'item' | 'field';

/** Whether a key holds a value Go would not see as its zero value. */
export function isSet(s: Schema, key: string): boolean {
  const v = s[key];
  if (v === undefined || v === null || v === false || v === '') return false;
  if (Array.isArray(v)) return v.length > 0;
  if (isObject(v) && (key === 'properties' || key === 'definitions' || key === 'patternProperties')) {
    return Object.keys(v).length > 0;
  }
  return true;
}

/** Keys that were set explicitly, even to false (Go pointers). */
const isPresent = (s: Schema, key: string) => s[key] !== undefined && s[key] !== null;

const isIntOrStringAnyOf = (list: unknown): boolean =>
  Array.isArray(list) &&
  list.length === 2 &&
  isObject(list[0]) &&
  isObject(list[1]) &&
  Object.keys(list[0]).length === 1 &&
  list[0].type === 'integer' &&
  Object.keys(list[1]).length === 1 &&
  list[1].type === 'string';

const isIntOrStringAllOf = (s: Schema): boolean =>
  Array.isArray(s.allOf) && s.allOf.length >= 1 && isObject(s.allOf[0]) && isIntOrStringAnyOf(s.allOf[0].anyOf);

function invariants(s: Schema | undefined, lvl: Level, p: FieldPath, errs: FieldError[]): void {
  if (!s) return;
  const type = typeOf(s);
  if (type === 'array' && !isObject(s.items)) errs.push(required(p.child('items'), 'must be specified'));
  if (isObject(s.items)) invariants(s.items, 'item', p.child('items'), errs);
  const props = isObject(s.properties) ? s.properties : {};
  for (const [k, v] of Object.entries(props))
    if (isObject(v)) invariants(v, 'field', p.child('properties').key(k), errs);
  const additional = s.additionalProperties;
  if (additional !== undefined && additional !== null) {
    if (lvl === 'root') errs.push(forbidden(p.child('additionalProperties'), 'must not be used at the root'));
    if (isObject(additional)) invariants(additional, 'field', p.child('additionalProperties'), errs);
  }
  // Extensions.
  if (isIntOrString(s) && preservesUnknownFields(s)) {
    errs.push(
      invalid(
        p.child('x-kubernetes-preserve-unknown-fields'),
        true,
        'must be false if x-kubernetes-int-or-string is true',
      ),
    );
  }
  if (isIntOrString(s) && isEmbeddedResource(s)) {
    errs.push(
      invalid(p.child('x-kubernetes-embedded-resource'), true, 'must be false if x-kubernetes-int-or-string is true'),
    );
  }
  valueValidation(s, isIntOrStringAnyOf(s.anyOf), isIntOrStringAllOf(s), p, errs);

  const embedded = isEmbeddedResource(s);
  const checkMetadata = lvl === 'root' || embedded;
  if (embedded && type !== 'object') {
    if (type === '') errs.push(required(p.child('type'), 'must be object if x-kubernetes-embedded-resource is true'));
    else errs.push(invalid(p.child('type'), type, 'must be object if x-kubernetes-embedded-resource is true'));
  } else if (type === '' && !isIntOrString(s) && !preservesUnknownFields(s)) {
    const detail = {
      root: 'must not be empty at the root',
      item: 'must not be empty for specified array items',
      field: 'must not be empty for specified object fields',
    }[lvl];
    errs.push(required(p.child('type'), detail));
  }
  if (embedded && additional !== undefined && additional !== null) {
    errs.push(forbidden(p.child('additionalProperties'), 'must not be used if x-kubernetes-embedded-resource is set'));
  }
  if (lvl === 'root' && type !== '' && type !== 'object') {
    errs.push(invalid(p.child('type'), type, 'must be object at the root'));
  }
  for (const name of ['kind', 'apiVersion']) {
    const sub = props[name];
    if (checkMetadata && isObject(sub) && typeOf(sub) !== 'string') {
      errs.push(invalid(p.child('properties').key(name).child('type'), typeOf(sub), 'must be string'));
    }
  }
  const metadata = props.metadata;
  if (isObject(metadata)) metadataInvariants(metadata, checkMetadata, lvl, p.child('properties').key('metadata'), errs);
  if (embedded && !preservesUnknownFields(s) && Object.keys(props).length === 0) {
    errs.push(
      required(
        p.child('properties'),
        'must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields',
      ),
    );
  }
}

function metadataInvariants(s: Schema, checkMetadata: boolean, lvl: Level, p: FieldPath, errs: FieldError[]): void {
  if (checkMetadata && typeOf(s) !== 'object') errs.push(invalid(p.child('type'), typeOf(s), 'must be object'));
  if (lvl !== 'root') return;
  // At the root, metadata may restrict name and generateName and nothing else.
  const props = isObject(s.properties) ? Object.keys(s.properties) : [];
  const onlyNames = props.length > 0 && props.every((k) => k === 'name' || k === 'generateName');
  const others = Object.keys(s).filter((k) => {
    if (k === 'type' || k === 'default') return false;
    if (k === 'properties') return props.length > 0 && !onlyNames;
    return (
      isSet(s, k) ||
      (k.startsWith('x-kubernetes-') &&
        isPresent(s, k) &&
        k !== 'x-kubernetes-embedded-resource' &&
        k !== 'x-kubernetes-int-or-string')
    );
  });
  if (others.length > 0) {
    errs.push(
      forbidden(p, 'must not specify anything other than name and generateName, but metadata is implicitly specified'),
    );
  }
}

function valueValidation(
  v: Schema,
  skipAnyOf: boolean,
  skipFirstAllOfAnyOf: boolean,
  p: FieldPath,
  errs: FieldError[],
): void {
  if (!skipAnyOf && Array.isArray(v.anyOf)) {
    v.anyOf.forEach((x, i) => {
      if (isObject(x)) nested(x, false, p.child('anyOf').index(i), errs);
    });
  }
  if (Array.isArray(v.allOf)) {
    v.allOf.forEach((x, i) => {
      if (isObject(x)) nested(x, skipFirstAllOfAnyOf && i === 0, p.child('allOf').index(i), errs);
    });
  }
  if (Array.isArray(v.oneOf)) {
    v.oneOf.forEach((x, i) => {
      if (isObject(x)) nested(x, false, p.child('oneOf').index(i), errs);
    });
  }
  if (isObject(v.not)) nested(v.not, false, p.child('not'), errs);
  const pattern = v.pattern;
  if (typeof pattern === 'string' && pattern.length > 0) {
    const re = compilePattern(pattern);
    if (re instanceof Error) {
      errs.push(invalid(p.child('pattern'), pattern, `must be a valid regular expression, but isn't: ${re.message}`));
    }
  }
}

/** A schema under allOf/anyOf/oneOf/not: value validations only. */
function nested(v: Schema, skipAnyOf: boolean, p: FieldPath, errs: FieldError[]): void {
  valueValidation(v, skipAnyOf, false, p, errs);
  if (isObject(v.items)) nested(v.items, false, p.child('items'), errs);
  const props = isObject(v.properties) ? v.properties : {};
  for (const [k, x] of Object.entries(props)) if (isObject(x)) nested(x, false, p.child('properties').key(k), errs);
  if (typeOf(v) !== '') errs.push(forbidden(p.child('type'), 'must be empty to be structural'));
  if (v.additionalProperties !== undefined && v.additionalProperties !== null) {
    errs.push(forbidden(p.child('additionalProperties'), 'must be undefined to be structural'));
  }
  if (v.default !== undefined && v.default !== null)
    errs.push(forbidden(p.child('default'), 'must be undefined to be structural'));
  if (isSet(v, 'title')) errs.push(forbidden(p.child('title'), 'must be empty to be structural'));
  if (isSet(v, 'description')) errs.push(forbidden(p.child('description'), 'must be empty to be structural'));
  if (v.nullable === true) errs.push(forbidden(p.child('nullable'), 'must be false to be structural'));
  if (preservesUnknownFields(v)) {
    errs.push(forbidden(p.child('x-kubernetes-preserve-unknown-fields'), 'must be false to be structural'));
  }
  if (isEmbeddedResource(v))
    errs.push(forbidden(p.child('x-kubernetes-embedded-resource'), 'must be false to be structural'));
  if (isIntOrString(v)) errs.push(forbidden(p.child('x-kubernetes-int-or-string'), 'must be false to be structural'));
  if (isSet(v, 'x-kubernetes-list-map-keys')) {
    errs.push(forbidden(p.child('x-kubernetes-list-map-keys'), 'must be empty to be structural'));
  }
  if (isPresent(v, 'x-kubernetes-list-type')) {
    errs.push(forbidden(p.child('x-kubernetes-list-type'), 'must be undefined to be structural'));
  }
  if (isPresent(v, 'x-kubernetes-map-type')) {
    errs.push(forbidden(p.child('x-kubernetes-map-type'), 'must be undefined to be structural'));
  }
  if (isSet(v, 'x-kubernetes-validations')) {
    errs.push(forbidden(p.child('x-kubernetes-validations'), 'must be empty to be structural'));
  }
  if (Object.hasOwn(props, 'metadata')) {
    errs.push(forbidden(p.child('properties').key('metadata'), 'must not be specified in a nested context'));
  }
}

/** Every field or array a value validation names must be specified by the structural part too. */
function completeness(v: Schema, s: Schema | undefined, sPath: FieldPath, vPath: FieldPath, errs: FieldError[]): void {
  if (!s) {
    errs.push(required(sPath, `because it is defined in ${vPath.toString()}`));
    return;
  }
  const visit = (x: unknown, at: FieldPath) => {
    if (isObject(x)) nestedCompleteness(x, s, sPath, at, errs);
  };
  visit(v.not, vPath.child('not'));
  for (const [key, list] of [
    ['allOf', v.allOf],
    ['anyOf', v.anyOf],
    ['oneOf', v.oneOf],
  ] as const) {
    if (Array.isArray(list)) for (const [i, x] of list.entries()) visit(x, vPath.child(key).index(i));
  }
}

function nestedCompleteness(v: Schema, s: Schema, sPath: FieldPath, vPath: FieldPath, errs: FieldError[]): void {
  completeness(v, s, sPath, vPath, errs);
  if (isObject(v.items)) {
    const sItems = isObject(s.items) ? s.items : undefined;
    if (!sItems)
      errs.push(required(sPath.child('items'), `because it is defined in ${vPath.child('items').toString()}`));
    else nestedCompleteness(v.items, sItems, sPath.child('items'), vPath.child('items'), errs);
  }
  const sProps = isObject(s.properties) ? s.properties : {};
  const vProps = isObject(v.properties) ? v.properties : {};
  for (const [k, x] of Object.entries(vProps)) {
    const sField = sProps[k];
    const vp = vPath.child('properties').key(k);
    if (!isObject(sField)) {
      errs.push(required(sPath.child('properties').key(k), `because it is defined in ${vp.toString()}`));
    } else if (isObject(x)) {
      nestedCompleteness(x, sField, sPath.child('properties').key(k), vp, errs);
    }
  }
}

/** ValidateStructural: invariants and completeness, sorted by message. */
export function structuralErrors(schema: Schema, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  invariants(schema, 'root', p, errs);
  completeness(schema, schema, p, p, errs);
  return errs.sort((a, b) => (a.message < b.message ? -1 : a.message > b.message ? 1 : 0));
}
