/**
 * What a CustomResourceDefinition serves: one ServedResource per served version, all over one storage prefix
 * (`/registry/<group>/<plural>`) and one watch cache, objects stored in the storage version and served in the
 * requested one (conversion None rewrites apiVersion). Names come from status.acceptedNames, as upstream serves
 * them.
 */
import type { ResourceInfo } from '../../api/catalog.js';
import { goStructEncoder } from '../../api/protobuf/go-struct-json.js';
import { schemaForDefinition } from '../../api/schema.js';
import type { ServedResource } from '../api-registry.js';
import type { Cacher } from '../cacher/cacher.js';
import { dropUnknownFields } from '../registry/field-validation.js';
import { isObject, type KubeObject } from '../registry/object.js';
import type { Conversion, ResourceDefinition } from '../registry/resource.js';
import type { GenericStore } from '../registry/store.js';
import { customResourceScale } from './cr-scale.js';
import { customResourceStrategies } from './cr-strategy.js';
import { customResourcePrinter } from './printer.js';
import { applyDefaults, lacksDefaults, pruneObject, schemaNodeOf } from './schema/index.js';
import { type CRDVersion, type CustomResourceDefinition, type JSONSchemaProps, storageVersion } from './types.js';
import { compareKubeAwareVersions } from './version-priority.js';

/** The verbs of every custom resource, in upstream's discovery order. */
const VERBS = ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'];
const SUBRESOURCE_VERBS = ['get', 'patch', 'update'];

export function storagePrefixOf(crd: CustomResourceDefinition): string {
  return `/registry/${crd.spec.group ?? ''}/${crd.status?.acceptedNames?.plural ?? crd.spec.names?.plural ?? ''}`;
}

/**
 * Drops what ObjectMeta does not have from a custom resource's metadata, and its nulls as ObjectMeta leaves them,
 * as upstream's coercion of a custom resource's metadata through ObjectMeta does.
 */
function pruneMetadata(obj: KubeObject): string[] {
  const meta = schemaForDefinition('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta');
  if (!meta || !isObject(obj.metadata)) return [];
  const dropped = dropUnknownFields(obj.metadata, meta).map((p) => `metadata.${p}`);
  goStructEncoder().dropNullsAs(obj.metadata, 'k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta');
  return dropped;
}

/** Upstream's default warning for a deprecated version, pointing to the newest served version that is not. */
function deprecationWarning(crd: CustomResourceDefinition, version: CRDVersion): string {
  if (typeof version.deprecationWarning === 'string') return version.deprecationWarning;
  const group = crd.spec.group ?? '';
  const kind = crd.spec.names?.kind ?? '';
  const name = version.name ?? '';
  const newer = (crd.spec.versions ?? [])
    .filter((v) => v.served && !v.deprecated && compareKubeAwareVersions(name, v.name ?? '') < 0)
    .map((v) => v.name ?? '')
    .sort((a, b) => compareKubeAwareVersions(b, a));
  const msg = `${group}/${name} ${kind} is deprecated`;
  return newer.length > 0 ? `${msg}; use ${group}/${newer[0]} ${kind}` : msg;
}

function discoveryInfo(def: ResourceDefinition, crd: CustomResourceDefinition, version: CRDVersion): ResourceInfo {
  const names = crd.status?.acceptedNames ?? {};
  const subresources = [];
  if (def.status) {
    subresources.push({
      name: 'status',
      kind: def.kind,
      group: def.group,
      version: def.version,
      verbs: SUBRESOURCE_VERBS,
    });
  }
  if (version.subresources?.scale) {
    subresources.push({ name: 'scale', kind: 'Scale', group: 'autoscaling', version: 'v1', verbs: SUBRESOURCE_VERBS });
  }
  return {
    group: def.group,
    version: def.version,
    resource: def.resource,
    kind: def.kind,
    namespaced: def.namespaced,
    verbs: VERBS,
    singularName: names.singular ?? '',
    shortNames: names.shortNames ?? [],
    categories: names.categories ?? [],
    subresources,
    storagePrefix: def.storagePrefix.replace(/^\/registry\//, ''),
  };
}

/**
 * How a version's objects go to and come from storage, as upstream's custom resource codec does with conversion None:
 * the apiVersion is rewritten; an object converted to another version keeps only what that version's schema knows
 * (pruned, so a field only an older version had does not show through a newer one, nor get stored). An object read
 * from storage is taken in the version it was written in, which is not the storage version when that has changed
 * since: it is pruned by that version's schema as it is now (a field taken out of the schema after the object was
 * written no longer shows), gets that version's defaults it lacks (a default added to the CRD since) and, when served
 * in another version, is pruned by that version's schema. The first step is needed only once the CRD's spec has
 * changed (generation above 1): until then every object was written under the schema it has. Nothing is needed,
 * and the raw fast paths stay, for a lone version whose schema has no defaults and has not changed.
 */
function versionConversion(crd: CustomResourceDefinition, served: string, stored: string): { conversion?: Conversion } {
  const group = crd.spec.group ?? '';
  const versions = crd.spec.versions ?? [];
  const schemaOf = (name: string) => versions.find((v) => v.name === name)?.schema?.openAPIV3Schema;
  const hasDefaults = (s: JSONSchemaProps | undefined) => s !== undefined && JSON.stringify(s).includes('"default"');
  // Each version's schema when it has defaults, by version name.
  const defaultsOf = new Map<string, JSONSchemaProps>();
  for (const v of versions) {
    const s = v.schema?.openAPIV3Schema;
    if (hasDefaults(s) && s) defaultsOf.set(v.name ?? '', s);
  }
  const respecified = (crd.metadata?.generation ?? 1) > 1;
  if (versions.length <= 1 && defaultsOf.size === 0 && !respecified) return {};
  const servedSchema = schemaOf(served);
  const storedSchema = schemaOf(stored);
  const servedApiVersion = `${group}/${served}`;
  const storedApiVersion = `${group}/${stored}`;
  const prefix = `${group}/`;
  return {
    conversion: {
      toStorage: (obj: KubeObject) => {
        const out = { ...obj, apiVersion: storedApiVersion };
        // The written object is the store's own: pruning it in place prunes the answer too, as upstream's is.
        if (served !== stored && storedSchema) pruneObject(out, storedSchema);
        return out;
      },
      fromStorage: (obj: KubeObject) => {
        const apiVersion = typeof obj.apiVersion === 'string' ? obj.apiVersion : storedApiVersion;
        const own = apiVersion.startsWith(prefix) ? apiVersion.slice(prefix.length) : stored;
        // Objects read from the watch cache may be shared: anything that changes more than apiVersion works on a copy.
        const defaults = defaultsOf.get(own);
        const lacking = defaults !== undefined && lacksDefaults(obj, defaults);
        const convert = own !== served && servedSchema !== undefined;
        const ownSchema = respecified ? schemaOf(own) : undefined;
        if (!lacking && !convert && !ownSchema) return { ...obj, apiVersion: servedApiVersion };
        const out = structuredClone(obj);
        // As upstream's storage decoder: pruned in its own version first, then defaulted.
        if (ownSchema) pruneObject(out, ownSchema);
        if (lacking && defaults) applyDefaults(out, defaults);
        out.apiVersion = servedApiVersion;
        if (convert && servedSchema) pruneObject(out, servedSchema);
        return out;
      },
    },
  };
}

/**
 * The served versions of a CRD as registry entries over the given cache; `makeStore` builds each version's store
 * (the caller supplies the admission chain).
 */
export function servedVersions(
  crd: CustomResourceDefinition,
  cacher: Cacher,
  makeStore: (def: ResourceDefinition, cacher: Cacher) => GenericStore,
): ServedResource[] {
  const group = crd.spec.group ?? '';
  const names = crd.status?.acceptedNames ?? {};
  const kind = names.kind ?? '';
  const stored = storageVersion(crd) ?? '';
  const versions = crd.spec.versions ?? [];
  const out: ServedResource[] = [];
  for (const version of versions) {
    if (!version.served) continue;
    const v = version.name ?? '';
    const schema = version.schema?.openAPIV3Schema;
    const namespaced = crd.spec.scope === 'Namespaced';
    const { strategy, status } = customResourceStrategies(version, schema, namespaced);
    const scale = version.subresources?.scale;
    const def: ResourceDefinition = {
      group,
      version: v,
      resource: names.plural ?? '',
      kind,
      listKind: names.listKind ?? `${kind}List`,
      namespaced,
      storagePrefix: storagePrefixOf(crd),
      strategy,
      ...(status ? { status } : {}),
      ...(scale ? { scale: true } : {}),
      ...versionConversion(crd, v, stored),
      custom: {
        prune: (obj) => [...(schema ? pruneObject(obj, schema) : []), ...pruneMetadata(obj)],
        warnings: version.deprecated ? [deprecationWarning(crd, version)] : [],
        ...(schema ? { schema: schemaNodeOf(schema) } : {}),
        ...(scale ? { scale: customResourceScale(scale) } : {}),
      },
    };
    const served: ServedResource = {
      def,
      store: makeStore(def, cacher),
      printer: customResourcePrinter(version.additionalPrinterColumns),
    };
    served.discovery = discoveryInfo(def, crd, version);
    if (schema) served.openapi = { schema, signature: `${crd.metadata.uid ?? ''}/${crd.metadata.generation ?? 0}` };
    out.push(served);
  }
  return out;
}
