/**
 * The pods/binding subresource's rules (upstream's BindingREST), for the handler that serves POST
 * /api/v1/namespaces/{ns}/pods/{name}/binding: the Binding must name a node; the pod gets spec.nodeName, the
 * binding's annotations and a PodScheduled=True condition, unless it is being deleted, already bound or gated.
 * Refusals are 409 Conflicts on pods/binding, as the scheduler sees them upstream.
 */
import { fieldErrorsMessage, notSupported, path, required } from '../../../api/field-errors.js';
import { StatusError, statusErrors } from '../../../api/status-error.js';
import { isObject, type KubeObject, nowTimestamp } from '../object.js';
import { arr, child, rec, recs, str } from './core-json.js';

/** ValidatePodBinding; upstream returns these errors unconverted, so clients see a 500 with reason Unknown. */
export function validateBinding(binding: KubeObject): void {
  const target = rec(binding.target);
  const errs = [];
  const kind = str(target.kind);
  if (kind && kind !== 'Node') errs.push(notSupported(path('target', 'kind'), kind, ['Node', '<empty>']));
  if (!str(target.name)) errs.push(required(path('target', 'name')));
  if (errs.length > 0) throw new StatusError(500, 'Unknown', fieldErrorsMessage(errs));
}

/** Binds the pod to the binding's node in place; throws the Status upstream answers with when it may not. */
export function bindPod(pod: KubeObject, binding: KubeObject, now = Date.now()): KubeObject {
  const name = pod.metadata.name ?? '';
  const conflict = (why: string) => statusErrors.conflict({ group: '', resource: 'pods/binding' }, name, why);
  const spec = child(pod, 'spec');
  if (pod.metadata.deletionTimestamp) throw conflict(`pod ${name} is being deleted, cannot be assigned to a host`);
  if (str(spec.nodeName)) throw conflict(`pod ${name} is already assigned to node "${str(spec.nodeName)}"`);
  if (arr(spec.schedulingGates).length > 0) throw conflict(`pod ${name} has non-empty .spec.schedulingGates`);
  spec.nodeName = str(rec(binding.target).name);
  const annotations = binding.metadata.annotations;
  if (isObject(annotations)) pod.metadata.annotations = { ...pod.metadata.annotations, ...annotations };
  const status = child(pod, 'status');
  const conditions = recs(status.conditions);
  const scheduled = conditions.find((c) => c.type === 'PodScheduled');
  if (!scheduled) {
    conditions.push({
      type: 'PodScheduled',
      status: 'True',
      lastProbeTime: null,
      lastTransitionTime: nowTimestamp(now),
    });
  } else if (scheduled.status !== 'True') {
    scheduled.status = 'True';
    scheduled.lastTransitionTime = nowTimestamp(now);
    delete scheduled.reason;
    delete scheduled.message;
  }
  status.conditions = conditions;
  return pod;
}
