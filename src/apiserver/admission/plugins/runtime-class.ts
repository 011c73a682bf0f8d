/**
 * RuntimeClass (upstream's plugin/pkg/admission/runtimeclass), for pod creates that name a
 * `spec.runtimeClassName`: the class must exist (`pod rejected: RuntimeClass "x" not found`); its
 * `overhead.podFixed` becomes the pod's `spec.overhead` (a pod that sets a different one, or sets one without a
 * class that defines it, is refused); its `scheduling.nodeSelector` is merged into the pod's (a conflicting value is
 * refused) and its tolerations added to the pod's.
 */
import { compareQuantities, isQuantity, parseQuantity } from '../../../api/quantity.js';
import { isObject, type KubeObject } from '../../registry/object.js';
import { type AdmissionAttributes, type AdmissionPlugin, admissionForbidden, isResource } from '../types.js';
import type { ClusterReader } from './cluster-reader.js';

export const RUNTIME_CLASS = 'RuntimeClass';

const RUNTIME_CLASSES = { group: 'node.k8s.io', version: 'v1', resource: 'runtimeclasses' };

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec => (isObject(v) ? v : {});

/** Semantic equality of two resource lists (same names, equal quantities). */
function sameResources(a: Rec, b: Rec): boolean {
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((k) => {
    const x = a[k];
    const y = b[k];
    if (!isQuantity(x) || !isQuantity(y)) return x === y;
    return compareQuantities(parseQuantity(x as string), parseQuantity(y as string)) === 0;
  });
}

function jsonEqual(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

export function runtimeClass(reader: ClusterReader): AdmissionPlugin {
  async function classOf(attrs: AdmissionAttributes, pod: KubeObject): Promise<KubeObject | undefined> {
    const name = rec(pod.spec).runtimeClassName;
    if (typeof name !== 'string' || name === '') return undefined;
    const rc = await reader.get(RUNTIME_CLASSES, '', name);
    if (!rc) throw admissionForbidden(attrs, `pod rejected: RuntimeClass ${JSON.stringify(name)} not found`);
    return rc;
  }
  const applies = (attrs: AdmissionAttributes) =>
    attrs.operation === 'CREATE' && attrs.object !== undefined && isResource(attrs, '', 'pods');
  /** A pod that names no class and sets no overhead: nothing to add or check (nearly every pod). */
  const plainPod = (attrs: AdmissionAttributes) => {
    const spec = rec((attrs.object as KubeObject).spec);
    return (spec.runtimeClassName === undefined || spec.runtimeClassName === '') && spec.overhead === undefined;
  };
  const overheadMismatch = "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead";

  return {
    name: RUNTIME_CLASS,
    handles: (op) => op === 'CREATE',
    resources: ['/pods'],
    admit(attrs) {
      if (!applies(attrs) || plainPod(attrs)) return;
      return admitWith(attrs);
    },
    validate(attrs) {
      if (!applies(attrs) || plainPod(attrs)) return;
      return validateWith(attrs);
    },
  };

  async function admitWith(attrs: AdmissionAttributes): Promise<void> {
    const pod = attrs.object as KubeObject;
    const rc = await classOf(attrs, pod);
    if (!rc) return;
    if (!isObject(pod.spec)) pod.spec = {};
    const spec = pod.spec as Rec;
    const podFixed = rec(rc.overhead).podFixed;
    if (isObject(podFixed)) {
      const own = rec(spec.overhead);
      if (Object.keys(own).length > 0 && !sameResources(podFixed, own))
        throw admissionForbidden(attrs, overheadMismatch);
      spec.overhead = { ...podFixed };
    }
    const scheduling = rec(rc.scheduling);
    const selector = rec(scheduling.nodeSelector);
    if (Object.keys(selector).length > 0) {
      const own = rec(spec.nodeSelector);
      for (const [key, value] of Object.entries(selector)) {
        if (key in own && own[key] !== value) {
          throw admissionForbidden(
            attrs,
            `conflict: runtimeClass.scheduling.nodeSelector[${key}] = ${String(value)}; pod.spec.nodeSelector[${key}] = ${String(own[key])}`,
          );
        }
      }
      spec.nodeSelector = { ...own, ...selector };
    }
    const extra = Array.isArray(scheduling.tolerations) ? scheduling.tolerations : [];
    if (extra.length > 0) {
      const own = Array.isArray(spec.tolerations) ? spec.tolerations : [];
      spec.tolerations = [...own, ...extra.filter((t) => !own.some((o) => jsonEqual(o, t)))];
    }
  }

  async function validateWith(attrs: AdmissionAttributes): Promise<void> {
    const pod = attrs.object as KubeObject;
    const rc = await classOf(attrs, pod);
    const podFixed = rc ? rec(rc.overhead).podFixed : undefined;
    const own = rec(pod.spec).overhead;
    if (isObject(podFixed)) {
      if (!sameResources(podFixed, rec(own))) throw admissionForbidden(attrs, overheadMismatch);
    } else if (own !== undefined && own !== null) {
      throw admissionForbidden(
        attrs,
        'pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead',
      );
    }
  }
}
