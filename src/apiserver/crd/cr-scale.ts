/**
 * The scale subresource of a custom resource: an autoscaling/v1 Scale read from and written to the paths the CRD
 * names (specReplicasPath, statusReplicasPath, labelSelectorPath), as upstream's ScaleREST for custom resources.
 */
import { isObject, type KubeObject } from '../registry/object.js';
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
      const spec = read(obj, scale.specReplicasPath);
      const status = read(obj, scale.statusReplicasPath);
      const selector = read(obj, scale.labelSelectorPath);
      const meta = obj.metadata;
      return {
        kind: 'Scale',
        apiVersion: 'autoscaling/v1',
        metadata: {
          name: meta.name,
          ...(meta.namespace ? { namespace: meta.namespace } : {}),
          uid: meta.uid,
          resourceVersion: meta.resourceVersion,
          creationTimestamp: meta.creationTimestamp,
        },
        spec: { replicas: typeof spec === 'number' ? spec : 0 },
        status: {
          replicas: typeof status === 'number' ? status : 0,
          ...(typeof selector === 'string' && selector !== '' ? { selector } : {}),
        },
      };
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
