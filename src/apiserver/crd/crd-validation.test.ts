import { describe, it } from 'node:test';
import assert from '../../testing/assert.js';
import { validateCRD } from './crd-validation.js';
import type { CustomResourceDefinition } from './types.js';

function crdWithSelectableFields(...jsonPaths: string[]): CustomResourceDefinition {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          selectableFields: jsonPaths.map((jsonPath) => ({ jsonPath })),
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: {
                  type: 'object',
                  properties: {
                    color: { type: 'string' },
                    labels: { type: 'object', additionalProperties: { type: 'string' } },
                    size: { type: 'object', properties: {} },
                  },
                },
              },
            },
          },
        },
      ],
    },
    status: { storedVersions: ['v1'] },
  } as unknown as CustomResourceDefinition;
}

describe('validateCRD: selectableFields', () => {
  it("names why a path is invalid in cel.ValidFieldPath's words", () => {
    const messages = validateCRD(
      crdWithSelectableFields(
        '.spec.color',
        '.spec.nope',
        "spec['color']",
        ".spec['color']",
        '.spec.',
        '.spec.labels.a',
        '.spec.size',
      ),
    ).map((e) => e.message);
    const at = (i: number) => `spec.versions[0].selectableFields[${i}].jsonPath`;
    assert.deepEqual(messages, [
      `${at(1)}: Invalid value: ".spec.nope": is an invalid path: does not refer to a valid field`,
      `${at(2)}: Invalid value: "spec['color']": is an invalid path: expected [ or . but got: spec`,
      `${at(3)}: Invalid value: ".spec['color']": is an invalid path: array notation is not allowed`,
      `${at(4)}: Invalid value: ".spec.": is an invalid path: unexpected end of JSON path`,
      `${at(6)}: Invalid value: ".spec.size": must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.`,
    ]);
  });
});
