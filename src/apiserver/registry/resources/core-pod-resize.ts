/**
 * pods/resize, in-place pod resize (InPlacePodVerticalScaling, beta and on in v1.33), as upstream's
 * podResizeStrategy and ValidatePodResize have it: a write takes only each container's resources and resizePolicy
 * (the rest of the pod, labels and annotations included, stays as stored), and may change only cpu and memory,
 * without changing the pod's QoS class, adding or removing requests or limits, or lowering a memory limit the
 * container would have to restart for. The kubelet then carries the change out and reports it in the status.
 */
import { type FieldError, type FieldPath, forbidden, invalid, path } from '../../../api/field-errors.js';
import { compareQuantities, parseQuantity } from '../../../api/quantity.js';
import { semanticEqual } from '../../../api/semantic-equal.js';
import type { ObjectMetaInput } from '../../../api/validation/object-meta-types.js';
import { validateObjectMetaUpdate } from '../../../api/validation/object-meta-update.js';
import type { KubeObject } from '../object.js';
import type { StatusStrategy } from '../resource.js';
import { keepStatusMetadata } from './common.js';
import { type Rec, rec, recs, str } from './core-json.js';
import { defaultPod } from './core-pod-defaults.js';
import { computePodQOS } from './core-pod-qos.js';
import { validatePodMetadataAndSpec } from './core-pod-validation.js';

const MIRROR = 'kubernetes.io/config.mirror';
const RESIZABLE = ['cpu', 'memory'];

const isSidecar = (c: Rec) => c.restartPolicy === 'Always';

/**
 * The stored containers with the resources and resizePolicy of the written ones; the written list as it is when a
 * container was added, removed, renamed or moved (validation refuses that).
 */
function withNewResources(next: unknown, old: unknown): unknown {
  const nextList = recs(next);
  const oldList = recs(old);
  if (nextList.length === 0) return next;
  if (nextList.some((c, i) => str(c.name) !== str(oldList[i]?.name))) return next;
  return oldList.map((c, i) => {
    const merged: Rec = { ...c };
    const written = nextList[i] as Rec;
    for (const key of ['resources', 'resizePolicy']) {
      if (written[key] === undefined) delete merged[key];
      else merged[key] = written[key];
    }
    return merged;
  });
}

function prepareForUpdate(pod: KubeObject, old: KubeObject): void {
  // The body is decoded with the pod defaults, as upstream's decoding applies them (requests from limits).
  defaultPod(pod);
  const spec = rec(pod.spec);
  const oldSpec = rec(old.spec);
  if (
    recs(spec.containers).length !== recs(oldSpec.containers).length ||
    recs(spec.initContainers).length !== recs(oldSpec.initContainers).length
  ) {
    return;
  }
  const containers = withNewResources(spec.containers, oldSpec.containers);
  const initContainers = withNewResources(spec.initContainers, oldSpec.initContainers);
  const kept: Rec = structuredClone(oldSpec);
  if (containers !== undefined) kept.containers = containers;
  if (initContainers !== undefined) kept.initContainers = initContainers;
  pod.spec = kept;
  if (old.status === undefined) delete pod.status;
  else pod.status = structuredClone(old.status);
  keepStatusMetadata(pod, old);
}

/** Whether a name of the old list is missing from the new one (upstream's resourcesRemoved). */
function removed(next: unknown, old: unknown): boolean {
  const now = rec(next);
  return Object.keys(rec(old)).some((name) => !Object.hasOwn(now, name));
}

/** validateContainerResize: requests and limits may not go, and a memory limit may not shrink or appear in place. */
function containerResize(next: Rec, old: Rec, at: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const resources = rec(next.resources);
  const oldResources = rec(old.resources);
  if (removed(resources.requests, oldResources.requests)) {
    errs.push(forbidden(at.child('requests'), 'resource requests cannot be removed'));
  }
  if (removed(resources.limits, oldResources.limits)) {
    errs.push(forbidden(at.child('limits'), 'resource limits cannot be removed'));
  }
  const memoryPolicy = str(recs(next.resizePolicy).find((p) => p.resourceName === 'memory')?.restartPolicy);
  if (memoryPolicy === '' || memoryPolicy === 'NotRequired') {
    const limit = rec(resources.limits).memory;
    const oldLimit = rec(oldResources.limits).memory;
    const at2 = at.child('limits').key('memory');
    if (limit !== undefined && oldLimit !== undefined) {
      if (compareQuantities(parseQuantity(limit as string), parseQuantity(oldLimit as string)) < 0) {
        errs.push(forbidden(at2, 'memory limits cannot be decreased unless resizePolicy is RestartContainer'));
      }
    } else if (limit !== undefined) {
      errs.push(forbidden(at2, 'memory limits cannot be added unless resizePolicy is RestartContainer'));
    }
  }
  return errs;
}

/** The resource list with cpu and memory as the old one has them (upstream's dropCPUMemoryUpdates). */
function oldCpuMemory(list: unknown, oldList: unknown): Rec | undefined {
  if (list === undefined || list === null) {
    if (oldList === undefined || oldList === null) return undefined;
  }
  const out: Rec = { ...rec(list) };
  const before = rec(oldList);
  for (const name of RESIZABLE) {
    if (Object.hasOwn(before, name)) out[name] = before[name];
    else delete out[name];
  }
  return out;
}

/** The container with its cpu and memory set back to the old container's. */
function withOldCpuMemory(c: Rec, old: Rec): Rec {
  const resources = rec(c.resources);
  const oldResources = rec(old.resources);
  const out: Rec = { ...resources };
  const limits = oldCpuMemory(resources.limits, oldResources.limits);
  const requests = oldCpuMemory(resources.requests, oldResources.requests);
  if (limits === undefined) delete out.limits;
  else out.limits = limits;
  if (requests === undefined) delete out.requests;
  else out.requests = requests;
  return { ...c, resources: out };
}

/** validatePodResizeContainerOrdering: no container added, removed, renamed or moved. */
function containerOrdering(spec: Rec, oldSpec: Rec): FieldError[] {
  const errs: FieldError[] = [];
  for (const key of ['containers', 'initContainers']) {
    const list = recs(spec[key]);
    const oldList = recs(oldSpec[key]);
    const at = path('spec', key);
    if (list.length !== oldList.length) {
      errs.push(forbidden(at, `${key} may not be added or removed on resize`));
      continue;
    }
    oldList.forEach((c, i) => {
      if (str(list[i]?.name) !== str(c.name)) {
        errs.push(forbidden(at.index(i).child('name'), `${key} may not be renamed or reordered on resize`));
      }
    });
  }
  return errs;
}

/**
 * The kubelet of the node reports what it applied (status.containerStatuses[*].resources) when it can resize: a
 * running container without them is on a node that cannot (upstream's isPodResizeRequestSupported).
 */
function nodeSupportsResize(old: KubeObject): boolean {
  const running = recs(rec(old.status).containerStatuses).find((s) => rec(s.state).running !== undefined);
  return running === undefined || running.resources !== undefined;
}

/** Whether a pod sets pod-level resources (spec.resources). */
const podLevelResources = (pod: KubeObject) => {
  const resources = rec(rec(pod.spec).resources);
  return Object.keys(rec(resources.requests)).length + Object.keys(rec(resources.limits)).length > 0;
};

/** Upstream's ValidatePodResize. */
export function validatePodResize(pod: KubeObject, old: KubeObject): FieldError[] {
  const errs = [
    ...validateObjectMetaUpdate(pod.metadata as ObjectMetaInput, old.metadata as ObjectMetaInput, path('metadata')),
    ...validatePodMetadataAndSpec(pod),
  ];
  if (podLevelResources(old) || podLevelResources(pod)) {
    return [forbidden(path(''), 'pods with pod-level resources cannot be resized')];
  }
  if (old.metadata.annotations?.[MIRROR] !== undefined) return [forbidden(path(''), 'static pods cannot be resized')];
  const oldSpec = rec(old.spec);
  if (str(rec(oldSpec.os).name) === 'windows') return [forbidden(path(''), 'windows pods cannot be resized')];
  const spec = rec(pod.spec);
  const specPath = path('spec');
  const oldQos = str(rec(old.status).qosClass) || computePodQOS(old);
  if (oldQos !== computePodQOS(pod)) {
    errs.push(invalid(specPath, str(rec(pod.status).qosClass), 'Pod QOS Class may not change as a result of resizing'));
  }
  if (!nodeSupportsResize(old)) errs.push(forbidden(specPath, 'Pod running on node without support for resize'));
  const ordering = containerOrdering(spec, oldSpec);
  if (ordering.length > 0) return [...errs, ...ordering];
  const containers = recs(spec.containers);
  const initContainers = recs(spec.initContainers);
  const oldContainers = recs(oldSpec.containers);
  const oldInit = recs(oldSpec.initContainers);
  oldInit.forEach((c, i) => {
    if (!isSidecar(c)) return;
    errs.push(
      ...containerResize(initContainers[i] as Rec, c, specPath.child('initContainers').index(i).child('resources')),
    );
  });
  oldContainers.forEach((c, i) => {
    errs.push(...containerResize(containers[i] as Rec, c, specPath.child('containers').index(i).child('resources')));
  });
  const masked: Rec = { ...spec };
  masked.containers = containers.map((c, i) => {
    const back = withOldCpuMemory(c, oldContainers[i] as Rec);
    if (!semanticEqual(back, oldContainers[i])) {
      errs.push(forbidden(specPath, 'only cpu and memory resources are mutable'));
    }
    return back;
  });
  if (initContainers.length > 0) {
    masked.initContainers = initContainers.map((c, i) => {
      const before = oldInit[i] as Rec;
      if (!isSidecar(c)) {
        if (!semanticEqual(c, before)) {
          errs.push(forbidden(specPath, 'resources for non-sidecar init containers are immutable'));
        }
        return c;
      }
      const back = withOldCpuMemory(c, before);
      if (!semanticEqual(back, before)) {
        errs.push(forbidden(specPath, 'only cpu and memory resources for sidecar containers are mutable'));
      }
      return back;
    });
  }
  if (errs.length > 0) return errs;
  if (!semanticEqual(masked, oldSpec)) errs.push(forbidden(specPath, 'only cpu and memory resources are mutable'));
  return errs;
}

export const podResizeStrategy: StatusStrategy = { prepareForUpdate, validateUpdate: validatePodResize };
