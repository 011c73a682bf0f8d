/**
 * What a kubelet checks before it runs a pod's containers: the ConfigMaps and Secrets its volumes mount (a missing
 * one keeps the pod from starting: `FailedMount`) and those its containers' environment reads (a missing object or
 * key keeps that container from being created: `CreateContainerConfigError`). Messages are upstream's kubelet's.
 * Optional references never block.
 */
import { type Rec, rec, recs, str } from '../api/json-readers.js';
import type { KubeObject } from '../client/types.js';

/** Reads a ConfigMap or Secret of the pod's namespace; undefined when it does not exist. */
export type ObjectReader = (kind: 'configmap' | 'secret', name: string) => Promise<KubeObject | undefined>;

export interface PreflightResult {
  /** The FailedMount event's message, when a volume cannot be mounted. */
  mount?: string;
  /** Why each regular container cannot be created, by name. */
  config: Map<string, string>;
}

/** Whether the pod refers to anything preflight reads (most pods do not: they start at once). */
export function needsPreflight(pod: KubeObject): boolean {
  const spec = rec(pod.spec);
  const required = (r: unknown) => str(rec(r).name) !== '' && rec(r).optional !== true;
  if (
    recs(spec.volumes).some(
      (v) => required(v.configMap) || (str(rec(v.secret).secretName) && rec(v.secret).optional !== true),
    )
  ) {
    return true;
  }
  return recs(spec.containers).some(
    (c) =>
      recs(c.envFrom).some((e) => required(e.configMapRef) || required(e.secretRef)) ||
      recs(c.env).some((e) => required(rec(e.valueFrom).configMapKeyRef) || required(rec(e.valueFrom).secretKeyRef)),
  );
}

/** Looks each object up once per preflight. */
function memo(read: ObjectReader): ObjectReader {
  const seen = new Map<string, Promise<KubeObject | undefined>>();
  return (kind, name) => {
    const key = `${kind}/${name}`;
    let found = seen.get(key);
    if (!found) {
      found = read(kind, name);
      seen.set(key, found);
    }
    return found;
  };
}

/** `configmap "x" not found`, as the kubelet's managers report a missing object. */
const notFound = (kind: 'configmap' | 'secret', name: string) => `${kind} "${name}" not found`;

/** The first reason the container cannot be made, in the kubelet's order: envFrom, then env. */
async function containerError(c: Rec, namespace: string, read: ObjectReader): Promise<string | undefined> {
  for (const from of recs(c.envFrom)) {
    for (const [field, kind] of [
      ['configMapRef', 'configmap'],
      ['secretRef', 'secret'],
    ] as const) {
      const ref = rec(from[field]);
      const name = str(ref.name);
      if (!name || ref.optional === true) continue;
      if (!(await read(kind, name))) return notFound(kind, name);
    }
  }
  for (const e of recs(c.env)) {
    const valueFrom = rec(e.valueFrom);
    for (const [field, kind, label] of [
      ['configMapKeyRef', 'configmap', 'ConfigMap'],
      ['secretKeyRef', 'secret', 'Secret'],
    ] as const) {
      const ref = rec(valueFrom[field]);
      const name = str(ref.name);
      if (!name) continue;
      const optional = ref.optional === true;
      const object = await read(kind, name);
      if (!object) {
        if (optional) continue;
        return notFound(kind, name);
      }
      const key = str(ref.key);
      const data = {
        ...rec((object as Rec).data),
        ...rec((object as Rec).binaryData),
        ...rec((object as Rec).stringData),
      };
      if (!Object.hasOwn(data, key) && !optional) return `couldn't find key ${key} in ${label} ${namespace}/${name}`;
    }
  }
  return undefined;
}

/** Checks the pod's volumes, then (when they mount) each regular container's environment. */
export async function preflight(pod: KubeObject, reader: ObjectReader): Promise<PreflightResult> {
  const read = memo(reader);
  const spec = rec(pod.spec);
  const namespace = pod.metadata.namespace ?? 'default';
  for (const v of recs(spec.volumes)) {
    const cm = rec(v.configMap);
    const secret = rec(v.secret);
    let missing: string | undefined;
    if (str(cm.name) && cm.optional !== true && !(await read('configmap', str(cm.name)))) {
      missing = notFound('configmap', str(cm.name));
    } else if (str(secret.secretName) && secret.optional !== true && !(await read('secret', str(secret.secretName)))) {
      missing = notFound('secret', str(secret.secretName));
    }
    if (missing)
      return { mount: `MountVolume.SetUp failed for volume "${str(v.name)}" : ${missing}`, config: new Map() };
  }
  const config = new Map<string, string>();
  for (const c of recs(spec.containers)) {
    const error = await containerError(c, namespace, read);
    if (error !== undefined) config.set(str(c.name), error);
  }
  return { config };
}
