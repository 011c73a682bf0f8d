/**
 * The scale subresource of a custom resource: an autoscaling/v1 Scale read from and written to the paths the CRD
 * names (specReplicasPath, statusReplicasPath, labelSelectorPath), as upstream's ScaleREST for custom resources.
 */
import { isObject, type KubeObject } from '../registry/object.js';
import { scaleFor } from '../registry/scale.js';
import type { ScaleSubresource } from './types.js';

function fields(p: string): string[] {
  return p.replace(/^\./, '').split('.').filter(Boolean);
}

function read(obj: KubeObject, p: string | undefined): unknown {
  if (!p) return undefined;
  let v: unknown = obj;
  for (const f of fields(p)) {
    if (!isObject(v)) return undefined;
    v = v[f];
  }
  return v;
}

export function customResourceScale(scale: ScaleSubresource) {
  return {
    of(obj: KubeObject): KubeObject {
      const selector = read(obj, scale.labelSelectorPath);
      return scaleFor(
        obj,
        read(obj, scale.specReplicasPath),
        read(obj, scale.statusReplicasPath),
        typeof selector === 'string' ? selector : undefined,
      );
    },
    /** The specReplicasPath when the object has nothing there: upstream's ScaleREST cannot read its Scale then. */
    missingReplicas(obj: KubeObject): string | undefined {
      return read(obj, scale.specReplicasPath) === undefined ? (scale.specReplicasPath ?? '') : undefined;
    },
    apply(obj: KubeObject, replicas: number): KubeObject {
      const path = fields(scale.specReplicasPath ?? '.spec.replicas');
      let at: Record<string, unknown> = obj;
      for (const f of path.slice(0, -1)) {
        if (!isObject(at[f])) at[f] = {};
        at = at[f] as Record<string, unknown>;
      }
      at[path[path.length - 1] as string] = replicas;
      return obj;
    },
  };
}
