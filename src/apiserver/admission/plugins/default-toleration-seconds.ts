/**
 * DefaultTolerationSeconds (upstream's plugin/pkg/admission/defaulttolerationseconds): every pod that does not
 * already tolerate them gets `node.kubernetes.io/not-ready:NoExecute` and `node.kubernetes.io/unreachable:NoExecute`
 * tolerations (operator Exists) with --default-not-ready-toleration-seconds and
 * --default-unreachable-toleration-seconds (both 300), so that taint-based eviction moves its pods off a failed
 * node after five minutes rather than at once.
 */
import { TAINT_NODE_NOT_READY, TAINT_NODE_UNREACHABLE } from '../../../api/taints.js';
import { isObject } from '../../registry/object.js';
import { type AdmissionPlugin, isResource } from '../types.js';

export const DEFAULT_TOLERATION_SECONDS = 'DefaultTolerationSeconds';

export interface DefaultTolerationSecondsOptions {
  notReadySeconds?: number;
  unreachableSeconds?: number;
}

/** Whether a toleration covers key:NoExecute as upstream's plugin judges it (an empty key or effect is a wildcard). */
function covers(toleration: unknown, key: string): boolean {
  if (!isObject(toleration)) return false;
  const k = typeof toleration.key === 'string' ? toleration.key : '';
  const effect = typeof toleration.effect === 'string' ? toleration.effect : '';
  return (k === key || k === '') && (effect === 'NoExecute' || effect === '');
}

function toleration(key: string, seconds: number): Record<string, unknown> {
  return { key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: seconds };
}

export function defaultTolerationSeconds(opts: DefaultTolerationSecondsOptions = {}): AdmissionPlugin {
  const notReady = opts.notReadySeconds ?? 300;
  const unreachable = opts.unreachableSeconds ?? 300;
  return {
    name: DEFAULT_TOLERATION_SECONDS,
    handles: (op) => op === 'CREATE' || op === 'UPDATE',
    resources: ['/pods'],
    admit(attrs) {
      const pod = attrs.object;
      if (!pod || !isResource(attrs, '', 'pods')) return;
      if (!isObject(pod.spec)) pod.spec = {};
      const spec = pod.spec as Record<string, unknown>;
      const tolerations = Array.isArray(spec.tolerations) ? (spec.tolerations as unknown[]) : [];
      // Runs on every pod create: one pass over the pod's tolerations, and a new list only when one is added.
      let notReadyCovered = false;
      let unreachableCovered = false;
      for (const t of tolerations) {
        if (!notReadyCovered && covers(t, TAINT_NODE_NOT_READY)) notReadyCovered = true;
        if (!unreachableCovered && covers(t, TAINT_NODE_UNREACHABLE)) unreachableCovered = true;
      }
      if (notReadyCovered && unreachableCovered) return;
      const next = tolerations.slice();
      if (!notReadyCovered) next.push(toleration(TAINT_NODE_NOT_READY, notReady));
      if (!unreachableCovered) next.push(toleration(TAINT_NODE_UNREACHABLE, unreachable));
      spec.tolerations = next;
    },
  };
}
