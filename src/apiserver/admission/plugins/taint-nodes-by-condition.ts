/**
 * TaintNodesByCondition (upstream's plugin/pkg/admission/nodetaint): a Node is created with the
 * `node.kubernetes.io/not-ready:NoSchedule` taint, so that nothing is scheduled onto it before it reports Ready;
 * the node lifecycle controller removes the taint once it does.
 */
import { TAINT_NODE_NOT_READY } from '../../../api/taints.js';
import { isObject } from '../../registry/object.js';
import { type AdmissionPlugin, isResource } from '../types.js';

export const TAINT_NODES_BY_CONDITION = 'TaintNodesByCondition';

export function taintNodesByCondition(): AdmissionPlugin {
  return {
    name: TAINT_NODES_BY_CONDITION,
    handles: (op) => op === 'CREATE',
    resources: ['/nodes'],
    admit(attrs) {
      const node = attrs.object;
      if (!node || !isResource(attrs, '', 'nodes')) return;
      if (!isObject(node.spec)) node.spec = {};
      const spec = node.spec as Record<string, unknown>;
      const taints = Array.isArray(spec.taints) ? (spec.taints as unknown[]) : [];
      // Upstream's MatchTaint: the same key and effect, whatever the value.
      const present = taints.some((t) => isObject(t) && t.key === TAINT_NODE_NOT_READY && t.effect === 'NoSchedule');
      if (!present) spec.taints = [...taints, { key: TAINT_NODE_NOT_READY, effect: 'NoSchedule' }];
    },
  };
}
