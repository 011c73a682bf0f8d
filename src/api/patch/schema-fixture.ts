/**
 * Test fixtures: SchemaNode objects built from a literal description, and a few Kubernetes-shaped schemas whose
 * patch metadata matches the v1.33 OpenAPI document (only the fields the patch tests use). Only tests import this.
 */
import type { SchemaNode, SchemaType } from '../schema-node.js';

export interface SchemaSpec {
  /** Defaults to 'object' with properties or additionalProperties, 'array' with items, else 'any'. */
  readonly type?: SchemaType;
  readonly definition?: string;
  readonly properties?: Readonly<Record<string, SchemaSpec | SchemaType>>;
  readonly additionalProperties?: SchemaSpec | SchemaType;
  readonly items?: SchemaSpec | SchemaType;
  readonly patchStrategy?: string;
  readonly patchMergeKey?: string;
  readonly listType?: 'atomic' | 'set' | 'map';
  readonly listMapKeys?: readonly string[];
  readonly preserveUnknownFields?: boolean;
}

export function buildSchema(spec: SchemaSpec | SchemaType): SchemaNode {
  if (typeof spec === 'string') return buildSchema({ type: spec });
  const properties = new Map(Object.entries(spec.properties ?? {}).map(([k, v]) => [k, buildSchema(v)]));
  const type = spec.type ?? (spec.properties || spec.additionalProperties ? 'object' : spec.items ? 'array' : 'any');
  return {
    ...spec,
    type,
    property: (name) => properties.get(name),
    propertyNames: [...properties.keys()],
    additionalProperties: spec.additionalProperties ? buildSchema(spec.additionalProperties) : undefined,
    items: spec.items ? buildSchema(spec.items) : undefined,
  };
}

const mergeBy = (patchMergeKey: string, items: SchemaSpec, patchStrategy = 'merge'): SchemaSpec => ({
  type: 'array',
  items,
  patchStrategy,
  patchMergeKey,
  listType: 'map',
  listMapKeys: [patchMergeKey],
});

const objectMeta: SchemaSpec = {
  definition: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
  properties: {
    name: 'string',
    labels: { additionalProperties: 'string' },
    annotations: { additionalProperties: 'string' },
    finalizers: { items: 'string', patchStrategy: 'merge', listType: 'set' },
    ownerReferences: mergeBy('uid', { properties: { uid: 'string', kind: 'string', name: 'string' } }),
  },
};

const container: SchemaSpec = {
  definition: 'io.k8s.api.core.v1.Container',
  properties: {
    name: 'string',
    image: 'string',
    args: { items: 'string', listType: 'atomic' },
    env: mergeBy('name', { properties: { name: 'string', value: 'string' } }),
    ports: mergeBy('containerPort', { properties: { containerPort: 'integer', protocol: 'string' } }),
    volumeMounts: mergeBy('mountPath', { properties: { mountPath: 'string', name: 'string' } }),
  },
};

const podSpec: SchemaSpec = {
  definition: 'io.k8s.api.core.v1.PodSpec',
  properties: {
    containers: mergeBy('name', container),
    volumes: mergeBy(
      'name',
      { properties: { name: 'string', configMap: { properties: { name: 'string' } }, emptyDir: { properties: {} } } },
      'merge,retainKeys',
    ),
    tolerations: { items: { properties: { key: 'string', operator: 'string' } }, listType: 'atomic' },
    nodeSelector: { additionalProperties: 'string' },
  },
};

export const podSchema = buildSchema({
  definition: 'io.k8s.api.core.v1.Pod',
  properties: { apiVersion: 'string', kind: 'string', metadata: objectMeta, spec: podSpec },
});

export const deploymentSchema = buildSchema({
  definition: 'io.k8s.api.apps.v1.Deployment',
  properties: {
    apiVersion: 'string',
    kind: 'string',
    metadata: objectMeta,
    spec: {
      properties: {
        replicas: 'integer',
        strategy: {
          definition: 'io.k8s.api.apps.v1.DeploymentStrategy',
          patchStrategy: 'retainKeys',
          properties: {
            type: 'string',
            rollingUpdate: { properties: { maxSurge: 'any', maxUnavailable: 'any' } },
          },
        },
        template: { properties: { metadata: objectMeta, spec: podSpec } },
      },
    },
  },
});
