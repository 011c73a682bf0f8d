/** CustomResourceDefinition manifests for tests: namespaced, objects of any shape unless versions say otherwise. */

/** A version's schema that takes any object. */
export const ANY_OBJECT_SCHEMA = { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } };

/** Versions by name, all served, the first stored, each with ANY_OBJECT_SCHEMA. */
export function servedVersions(...names: string[]) {
  return names.map((name, i) => ({ name, served: true, storage: i === 0, schema: ANY_OBJECT_SCHEMA }));
}

/** A CRD `<plural>.<group>` of kind; one served and stored v1 unless versions are given; extra goes into spec. */
export function crdManifest(plural: string, kind: string, group = 'example.org', versions?: unknown[], extra = {}) {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural, kind },
      versions: versions ?? servedVersions('v1'),
      ...extra,
    },
  };
}
