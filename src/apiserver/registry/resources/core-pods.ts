/**
 * core/v1 Pods: defaulting, status Pending with the QoS class on create, validation, upstream's field selectors,
 * graceful deletion (pods on a node wait for their grace period), the pod status subresource and the printer.
 */
import { type FieldError, forbidden, invalid, path } from '../../../api/field-errors.js';
import { nameIsDNSSubdomain } from '../../../api/validation/name-validators.js';
import { jsonEqual, type KubeObject, nowTimestamp } from '../object.js';
import type { DeleteOptions, StatusStrategy } from '../resource.js';
import { defaultContainer } from './apps-pod-template-defaults.js';
import { type Builtin, builtin } from './common.js';
import { FIELD_IMMUTABLE, qualifiedName } from './core-field-checks.js';
import { type Rec, rec, recs, str } from './core-json.js';
import { defaultPod } from './core-pod-defaults.js';
import { podPrinter } from './core-pod-printer.js';
import { computePodQOS } from './core-pod-qos.js';
import { podResizeStrategy } from './core-pod-resize.js';
import { syncPodIPs, validateStatusIPs } from './core-pod-status-ips.js';
import { validatePodCreate, validatePodMetadataAndSpec, validatePodUpdate } from './core-pod-validation.js';
import { keepAllButStatus } from './core-status.js';
import { nameWarnings, podSpecWarnings } from './pod-warnings.js';

const podIPOf = (pod: KubeObject) => {
  const status = rec(pod.status);
  return str(recs(status.podIPs)[0]?.ip) || str(status.podIP);
};

/**
 * Upstream's CheckGracefulDelete and BeforeDelete for pods: true keeps the pod, marked, for its grace period; 'now'
 * marks it with a zero grace period (not on a node, finished, or --grace-period=0) to be deleted once the mark is
 * written; false deletes it as it is (already marked with no grace left).
 */
export function preparePodForDelete(pod: KubeObject, opts: DeleteOptions, now: number): boolean | 'now' {
  const meta = pod.metadata;
  if (meta.deletionTimestamp) {
    const current = meta.deletionGracePeriodSeconds;
    if (current === undefined || current === 0) return false;
    if (opts.gracePeriodSeconds === undefined || opts.gracePeriodSeconds >= current) return true;
    const shortened = Date.parse(meta.deletionTimestamp) - current * 1000 + opts.gracePeriodSeconds * 1000;
    meta.deletionTimestamp = nowTimestamp(shortened);
    meta.deletionGracePeriodSeconds = opts.gracePeriodSeconds;
    return opts.gracePeriodSeconds > 0 ? true : 'now';
  }
  const spec = rec(pod.spec);
  const phase = str(rec(pod.status).phase);
  let period =
    opts.gracePeriodSeconds ??
    (typeof spec.terminationGracePeriodSeconds === 'number' ? spec.terminationGracePeriodSeconds : 0);
  if (!str(spec.nodeName) || phase === 'Failed' || phase === 'Succeeded') period = 0;
  if (period < 0) period = 1;
  meta.deletionTimestamp = nowTimestamp(now + period * 1000);
  meta.deletionGracePeriodSeconds = period;
  return period > 0 ? true : 'now';
}

const SYSTEM_CONDITIONS = new Set(['PodScheduled', 'Ready', 'Initialized']);

function validatePodStatusUpdate(pod: KubeObject, old: KubeObject): FieldError[] {
  const status = rec(pod.status);
  const oldStatus = rec(old.status);
  const errs: FieldError[] = [];
  recs(status.conditions).forEach((c, i) => {
    if (!SYSTEM_CONDITIONS.has(str(c.type))) {
      errs.push(...qualifiedName(str(c.type), path('metadata', 'conditions').index(i).child('Type')));
    }
  });
  if (str(rec(pod.spec).nodeName) !== str(rec(old.spec).nodeName)) {
    errs.push(forbidden(path('status', 'nodeName'), 'may not be changed directly'));
  }
  const nominated = str(status.nominatedNodeName);
  if (nominated && nominated !== str(oldStatus.nominatedNodeName)) {
    for (const msg of nameIsDNSSubdomain(nominated, false)) {
      errs.push(invalid(path('status', 'nominatedNodeName'), nominated, msg));
    }
  }
  if (!jsonEqual(status.qosClass ?? '', oldStatus.qosClass ?? '')) {
    errs.push(invalid(path('status', 'qosClass'), status.qosClass ?? '', FIELD_IMMUTABLE));
  }
  errs.push(...validateStatusIPs(status, oldStatus));
  return errs;
}

/**
 * A write to pods/ephemeralcontainers (what `kubectl debug` patches): only spec.ephemeralContainers is taken, the
 * rest of the pod stays as it was (upstream's podEphemeralContainersStrategy); the new containers get the container
 * defaults.
 */
const podEphemeralContainersStrategy: StatusStrategy = {
  prepareForUpdate(pod, old) {
    const ephemeral = rec(pod.spec).ephemeralContainers;
    for (const key of Object.keys(pod)) delete pod[key];
    Object.assign(pod, structuredClone(old));
    const spec = rec(pod.spec);
    if (ephemeral === undefined || ephemeral === null) delete spec.ephemeralContainers;
    else spec.ephemeralContainers = ephemeral;
    for (const c of recs(spec.ephemeralContainers)) defaultContainer(c);
    pod.spec = spec;
  },
  validateUpdate(pod, old) {
    const errs = validatePodMetadataAndSpec(pod);
    // Existing ephemeral containers may be neither removed nor changed (matched by name: a patch may reorder them).
    const next = new Map(recs(rec(pod.spec).ephemeralContainers).map((c) => [str(c.name), c]));
    const at = path('spec', 'ephemeralContainers');
    for (const c of recs(rec(old.spec).ephemeralContainers)) {
      const now = next.get(str(c.name));
      if (!now)
        errs.push(forbidden(at, `existing ephemeral containers ${JSON.stringify(str(c.name))} may not be removed\n`));
      else if (!jsonEqual(now, c)) {
        // Upstream appends Go's cmp.Diff of the two containers, which this server does not reproduce.
        errs.push(forbidden(at, `existing ephemeral containers ${JSON.stringify(str(c.name))} may not be changed\n`));
      }
    }
    return errs;
  },
};

/** A write to pods/status changes status (and the metadata a kubelet may touch); spec stays as it was. */
const podStatusStrategy: StatusStrategy = {
  prepareForUpdate(pod, old) {
    keepAllButStatus(pod, old);
    if (old.metadata.ownerReferences === undefined) delete pod.metadata.ownerReferences;
    else pod.metadata.ownerReferences = old.metadata.ownerReferences;
    const status = rec(pod.status);
    const oldStatus = rec(old.status);
    if (!status.qosClass && oldStatus.qosClass) status.qosClass = oldStatus.qosClass;
    syncPodIPs(status);
    zeroConditionTimes(status);
    pod.status = status;
  },
  validateUpdate: validatePodStatusUpdate,
};

/**
 * A PodCondition's times are metav1.Time structs, not pointers: decoding a condition that leaves one out (a patch
 * from the scheduler, whose null a strategic merge patch reads as a deletion) gives the zero time, which encodes as
 * null. So every stored condition has both, as upstream shows them (`lastProbeTime: null`).
 */
function zeroConditionTimes(status: Rec): void {
  if (!Array.isArray(status.conditions)) return;
  for (const c of status.conditions) {
    if (c === null || typeof c !== 'object') continue;
    if (!Object.hasOwn(c, 'lastProbeTime')) c.lastProbeTime = null;
    if (!Object.hasOwn(c, 'lastTransitionTime')) c.lastTransitionTime = null;
  }
}

function prepareForCreate(pod: KubeObject): void {
  const status: Rec = { phase: 'Pending', qosClass: computePodQOS(pod) };
  if (recs(rec(pod.spec).schedulingGates).length > 0) {
    status.conditions = [
      {
        type: 'PodScheduled',
        status: 'False',
        lastProbeTime: null,
        lastTransitionTime: null,
        reason: 'SchedulingGated',
        message: 'Scheduling is blocked due to non-empty scheduling gates',
      },
    ];
  }
  pod.status = status;
}

export function pods(): Builtin {
  const served = builtin({
    group: '',
    version: 'v1',
    resource: 'pods',
    hasStatus: true,
    printer: podPrinter,
    strategy: {
      warningsOnCreate: (pod) => [
        ...nameWarnings(pod.metadata.name, "the Pod's hostname"),
        ...podSpecWarnings(null, pod.spec, pod.metadata),
      ],
      warningsOnUpdate: (pod) => podSpecWarnings(null, pod.spec, pod.metadata),
      returnDeletedObject: true,
      default: defaultPod,
      prepareForCreate,
      validate: validatePodCreate,
      validateUpdate: validatePodUpdate,
      prepareForDelete: preparePodForDelete,
      watchIndexField: 'spec.nodeName',
      selectableFields: {
        'spec.nodeName': (p) => str(rec(p.spec).nodeName),
        'spec.restartPolicy': (p) => str(rec(p.spec).restartPolicy),
        'spec.schedulerName': (p) => str(rec(p.spec).schedulerName),
        'spec.serviceAccountName': (p) => str(rec(p.spec).serviceAccountName),
        'spec.hostNetwork': (p) => String(rec(p.spec).hostNetwork === true),
        'status.phase': (p) => str(rec(p.status).phase),
        'status.podIP': podIPOf,
        // Accepted by upstream's field-label conversion but never set in the pod's field set.
        'status.podIPs': () => '',
        'status.nominatedNodeName': (p) => str(rec(p.status).nominatedNodeName),
      },
      // Old v1 clients select by spec.host, which upstream's field label conversion reads as spec.nodeName.
      fieldLabelRenames: { 'spec.host': 'spec.nodeName' },
    },
  });
  served.def.status = podStatusStrategy;
  served.def.ephemeralContainers = podEphemeralContainersStrategy;
  served.def.resize = podResizeStrategy;
  // pods/eviction: served by the REST handler with core-pods-eviction.ts.
  served.def.eviction = true;
  return served;
}
