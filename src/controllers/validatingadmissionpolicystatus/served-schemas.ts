/**
 * The kinds and schemas of what is not built in (custom resources), as upstream's type checker finds them: the kind
 * a resource is served as from discovery (its REST mapper), the kind's schema from the server's OpenAPI v3 document
 * of the group version (its ClientDiscoveryResolver). References in that document are written out in place (the
 * CRD's own schema refers to ObjectMeta, which refers to Time, OwnerReference…), so the typed variables see
 * `object.metadata.name` as a string. Read afresh for each check: a check is rare (a policy's generation moved).
 */
import { createHash } from 'node:crypto';
import type { CelValueSchema } from '../../api/cel/index.js';
import { schemaNodeOf } from '../../api/crd-schema-node.js';
import { type DiscoveredResource, GroupDiscoveryFailedError, serverResources } from '../../client/discovery.js';
import type { KubeClient } from '../../client/rest.js';

export interface GVK {
  group: string;
  version: string;
  kind: string;
}

export interface ServedSchemas {
  /** The kind served at group/version/resource, when the server serves it. */
  kindOf(group: string, version: string, resource: string): Promise<string | undefined>;
  /** The kind's schema and a key that changes whenever the schema does (typed environments are cached by it). */
  schemaOf(gvk: GVK): Promise<{ schema: CelValueSchema; key: string } | undefined>;
}

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : {});
const REF_PREFIX = '#/components/schemas/';
/** How deep references are written out: far past any schema's real depth, short of a recursive one's end. */
const MAX_REF_DEPTH = 16;

/**
 * The schema with every `$ref` (and the `allOf: [{$ref}]` form used beside a description) replaced by the schema
 * it names; a reference deeper than MAX_REF_DEPTH, or to nothing, becomes a free-form node (`dyn`).
 */
export function inlineRefs(schema: unknown, components: Rec, depth = 0): unknown {
  if (Array.isArray(schema)) return schema.map((s) => inlineRefs(s, components, depth));
  if (schema === null || typeof schema !== 'object') return schema;
  const s = schema as Rec;
  const allOf = Array.isArray(s.allOf) && s.allOf.length === 1 ? rec(s.allOf[0]) : undefined;
  const ref = typeof s.$ref === 'string' ? s.$ref : typeof allOf?.$ref === 'string' ? allOf.$ref : undefined;
  if (ref !== undefined) {
    const target = ref.startsWith(REF_PREFIX) ? components[ref.slice(REF_PREFIX.length)] : undefined;
    if (target === undefined || depth >= MAX_REF_DEPTH) return {};
    return inlineRefs(target, components, depth + 1);
  }
  const out: Rec = {};
  for (const [k, v] of Object.entries(s)) out[k] = inlineRefs(v, components, depth);
  return out;
}

const namesKind = (schema: Rec, gvk: GVK) =>
  Array.isArray(schema['x-kubernetes-group-version-kind']) &&
  schema['x-kubernetes-group-version-kind'].some((g) => {
    const r = rec(g);
    return r.group === gvk.group && r.version === gvk.version && r.kind === gvk.kind;
  });

export function servedSchemas(client: KubeClient): ServedSchemas {
  let resources: Promise<DiscoveredResource[]> | undefined;
  const documents = new Map<string, Promise<Rec>>();
  const documentOf = (group: string, version: string): Promise<Rec> => {
    const path = group === '' ? `/openapi/v3/api/${version}` : `/openapi/v3/apis/${group}/${version}`;
    let doc = documents.get(path);
    if (!doc) {
      doc = client.request<Rec>({ method: 'GET', path }).then(rec, () => ({}));
      documents.set(path, doc);
    }
    return doc;
  };
  return {
    async kindOf(group, version, resource) {
      // As upstream's REST mapper: what discovery could read counts, a group that failed is skipped.
      resources ??= serverResources(client).catch((err) =>
        err instanceof GroupDiscoveryFailedError ? err.resources : [],
      );
      return (await resources).find((r) => r.group === group && r.version === version && r.resource === resource)?.kind;
    },
    async schemaOf(gvk) {
      const components = rec(rec((await documentOf(gvk.group, gvk.version)).components).schemas);
      const found = Object.entries(components).find(([, s]) => namesKind(rec(s), gvk));
      if (!found) return undefined;
      const inlined = rec(inlineRefs(found[1], components));
      const key = createHash('sha256').update(JSON.stringify(inlined)).digest('base64');
      return { schema: schemaNodeOf(inlined, false), key };
    },
  };
}
