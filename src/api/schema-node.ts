/**
 * One node of the API schema, as the code that walks objects (strategic merge patch, field validation, defaulting,
 * OpenAPI publishing) sees it. A property's node carries the patch metadata that the v1.33 OpenAPI document puts
 * on that property (x-kubernetes-patch-strategy, -patch-merge-key, -list-type, -list-map-keys, -map-type).
 */
export type SchemaType = 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean' | 'any';

export interface SchemaNode {
  readonly type: SchemaType;
  /** The definition this node stands for, e.g. io.k8s.api.core.v1.PodSpec (absent for inline schemas). */
  readonly definition?: string;
  /** OpenAPI format: int32, int64, date-time, byte, int-or-string, … */
  readonly format?: string;
  readonly enum?: readonly string[];
  /** For objects with named fields. */
  property(name: string): SchemaNode | undefined;
  readonly propertyNames?: readonly string[];
  readonly required?: readonly string[];
  /** For maps (objects with additionalProperties): the schema of every value. */
  readonly additionalProperties?: SchemaNode;
  /** For arrays: the schema of every element. */
  readonly items?: SchemaNode;
  /** 'merge', 'replace', 'retainKeys' or 'merge,retainKeys'. */
  readonly patchStrategy?: string;
  readonly patchMergeKey?: string;
  readonly listType?: 'atomic' | 'set' | 'map';
  readonly listMapKeys?: readonly string[];
  readonly mapType?: 'atomic' | 'granular';
  /** x-kubernetes-preserve-unknown-fields: any field is allowed below this node. */
  readonly preserveUnknownFields?: boolean;
}
