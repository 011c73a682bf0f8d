/**
 * Structural schemas of CustomResourceDefinitions: checking a CRD's schema, and pruning, defaulting and validating
 * custom resources against it, as apiextensions-apiserver does.
 */

export type { Schema } from '../../../api/crd-schema-node.js';
export { schemaNodeOf } from '../../../api/crd-schema-node.js';
export { resolveFieldPath, validateRules } from './cel-rules.js';
export { applyDefaults, lacksDefaults } from './defaults.js';
export { validateAgainstSchema } from './openapi-validate.js';
export { pruneObject } from './prune.js';
export { structuralSchemaErrors } from './structural.js';
export { RULES_NOT_CHECKED, validateObject } from './validate.js';
