/**
 * The CEL types upstream's admission compiler declares `request` and `namespaceObject` with (its AdmissionRequest
 * and Namespace types; request.options free-form, the namespace's times as strings here, as values are given),
 * shared by the ValidatingAdmissionPolicy compiler and the webhooks' matchConditions.
 */
import { openAPISchemaForCel } from '../../api/cel/index.js';

const STRING = { type: 'string' };
const GVK = { type: 'object', properties: { group: STRING, version: STRING, kind: STRING } };
const GVR = { type: 'object', properties: { group: STRING, version: STRING, resource: STRING } };
const STRINGS = { type: 'array', items: STRING };
const STRING_MAP = { type: 'object', additionalProperties: STRING };

/** The type upstream declares `request` with (its AdmissionRequest type; options free-form). */
export const REQUEST_SCHEMA = openAPISchemaForCel({
  type: 'object',
  properties: {
    kind: GVK,
    resource: GVR,
    subResource: STRING,
    requestKind: GVK,
    requestResource: GVR,
    requestSubResource: STRING,
    name: STRING,
    namespace: STRING,
    operation: STRING,
    userInfo: {
      type: 'object',
      properties: {
        username: STRING,
        uid: STRING,
        groups: STRINGS,
        extra: { type: 'object', additionalProperties: STRINGS },
      },
    },
    dryRun: { type: 'boolean' },
    options: {},
  },
});

/** The type upstream declares `namespaceObject` with (its times as strings here, as values are given). */
export const NAMESPACE_SCHEMA = openAPISchemaForCel({
  type: 'object',
  properties: {
    metadata: {
      type: 'object',
      properties: {
        name: STRING,
        generateName: STRING,
        namespace: STRING,
        labels: STRING_MAP,
        annotations: STRING_MAP,
        UID: STRING,
        creationTimestamp: STRING,
        deletionGracePeriodSeconds: { type: 'integer' },
        deletionTimestamp: STRING,
        generation: { type: 'integer' },
        resourceVersion: STRING,
        finalizers: STRINGS,
      },
    },
    spec: { type: 'object', properties: { finalizers: STRINGS } },
    status: {
      type: 'object',
      properties: {
        conditions: {
          type: 'array',
          items: {
            type: 'object',
            properties: { status: STRING, type: STRING, lastTransitionTime: STRING, message: STRING, reason: STRING },
          },
        },
        phase: STRING,
      },
    },
  },
});
