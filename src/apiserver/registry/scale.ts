import { LabelSelector, type LabelSelectorObject } from '../../api/labels.js';
import { isObject, type KubeObject } from './object.js';

/** The autoscaling/v1 Scale of an object with spec.replicas (deployments, replicasets, statefulsets, RCs). */
export interface Scale extends KubeObject {
  spec: { replicas?: number };
  status: { replicas: number; selector?: string };
}

/** A label selector in its query-string form, from a LabelSelector object or (for RCs) a plain label map. */
function selectorString(selector: unknown): string | undefined {
  if (!isObject(selector)) return undefined;
  if ('matchLabels' in selector || 'matchExpressions' in selector) {
    return LabelSelector.fromObject(selector as LabelSelectorObject).toString();
  }
  return LabelSelector.fromSet(selector as Record<string, string>).toString();
}

export function scaleOf(obj: KubeObject): Scale {
  const spec = isObject(obj.spec) ? obj.spec : {};
  const status = isObject(obj.status) ? obj.status : {};
  return scaleFor(obj, spec.replicas, status.replicas, selectorString(spec.selector));
}

/** The Scale of an object from its replica counts and selector (what is not a number counts as 0). */
export function scaleFor(obj: KubeObject, specReplicas: unknown, statusReplicas: unknown, selector?: string): Scale {
  const meta = obj.metadata;
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: {
      name: meta.name,
      namespace: meta.namespace,
      uid: meta.uid,
      resourceVersion: meta.resourceVersion,
      creationTimestamp: meta.creationTimestamp,
    },
    spec: { replicas: typeof specReplicas === 'number' ? specReplicas : 0 },
    status: { replicas: typeof statusReplicas === 'number' ? statusReplicas : 0, ...(selector ? { selector } : {}) },
  };
}

/** Writes a Scale's desired replicas back into the object. */
export function applyScale(obj: KubeObject, scale: Scale): KubeObject {
  const spec = isObject(obj.spec) ? obj.spec : {};
  spec.replicas = scale.spec?.replicas ?? 0;
  obj.spec = spec;
  return obj;
}
