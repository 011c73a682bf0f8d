/**
 * DefaultIngressClass (upstream's plugin/pkg/admission/network/defaultingressclass): a new Ingress that names no
 * class (neither `spec.ingressClassName` nor the old `kubernetes.io/ingress.class` annotation) gets the default
 * IngressClass — the one annotated `ingressclass.kubernetes.io/is-default-class: "true"`, the newest when several
 * are. Without a default class the Ingress is left as it is.
 */
import { isObject, type KubeObject } from '../../registry/object.js';
import { type AdmissionPlugin, isResource } from '../types.js';
import type { ClusterReader } from './cluster-reader.js';

export const DEFAULT_INGRESS_CLASS = 'DefaultIngressClass';
export const ANN_IS_DEFAULT_INGRESS_CLASS = 'ingressclass.kubernetes.io/is-default-class';
export const ANN_INGRESS_CLASS = 'kubernetes.io/ingress.class';

const INGRESS_CLASSES = { group: 'networking.k8s.io', version: 'v1', resource: 'ingressclasses' };

/** The default class: annotated default, newest first, then by name. */
export function defaultIngressClass(classes: readonly KubeObject[]): KubeObject | undefined {
  let found: KubeObject | undefined;
  for (const c of classes) {
    if (c.metadata.annotations?.[ANN_IS_DEFAULT_INGRESS_CLASS] !== 'true') continue;
    if (!found) {
      found = c;
      continue;
    }
    const a = Date.parse(found.metadata.creationTimestamp ?? '') || 0;
    const b = Date.parse(c.metadata.creationTimestamp ?? '') || 0;
    if (b > a || (b === a && (c.metadata.name ?? '') < (found.metadata.name ?? ''))) found = c;
  }
  return found;
}

export function defaultIngressClassPlugin(reader: ClusterReader): AdmissionPlugin {
  return {
    name: DEFAULT_INGRESS_CLASS,
    handles: (op) => op === 'CREATE',
    resources: ['networking.k8s.io/ingresses'],
    async admit(attrs) {
      const ingress = attrs.object;
      if (!ingress || !isResource(attrs, 'networking.k8s.io', 'ingresses')) return;
      const spec = isObject(ingress.spec) ? ingress.spec : {};
      if (typeof spec.ingressClassName === 'string') return;
      if (ingress.metadata.annotations?.[ANN_INGRESS_CLASS] !== undefined) return;
      const dc = defaultIngressClass(await reader.listShared(INGRESS_CLASSES));
      if (!dc?.metadata.name) return;
      ingress.spec = { ...spec, ingressClassName: dc.metadata.name };
    },
  };
}
