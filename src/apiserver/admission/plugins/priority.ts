/**
 * Priority (upstream's plugin/pkg/admission/priority), as in 1.33:
 * - a new pod's `spec.priorityClassName` is resolved into `spec.priority` and `spec.preemptionPolicy`; an unknown
 *   class is refused; a pod without a class gets the global default class (the lowest-valued one if several claim
 *   to be default), else priority 0 and PreemptLowerPriority; a pod that sets either field itself must agree with
 *   what the class says. The system classes are allowed in every namespace (limiting them is ResourceQuota's job
 *   since 1.17).
 * - an update of a pod that omits priority or preemptionPolicy keeps the stored values.
 * - a PriorityClass may claim `globalDefault: true` only while no other class does.
 */
import { isObject, type KubeObject } from '../../registry/object.js';
import { type AdmissionAttributes, type AdmissionPlugin, admissionForbidden, isResource } from '../types.js';

export const PRIORITY = 'Priority';

/** Where the plugin reads PriorityClasses (upstream: an informer's lister): shared objects, only to be read. */
export interface PriorityClassSource {
  get(name: string): Promise<Readonly<KubeObject> | undefined>;
  list(): Promise<readonly Readonly<KubeObject>[]>;
}

const DEFAULT_PRIORITY_WHEN_NO_DEFAULT_CLASS = 0;

function classValue(pc: KubeObject): number {
  return typeof pc.value === 'number' ? pc.value : 0;
}

/** The global default class; the lowest-valued one when a race left several. */
async function defaultClass(source: PriorityClassSource): Promise<KubeObject | undefined> {
  let found: KubeObject | undefined;
  for (const pc of await source.list()) {
    if (pc.globalDefault !== true) continue;
    if (!found || classValue(found) > classValue(pc)) found = pc;
  }
  return found;
}

function specOf(obj: KubeObject): Record<string, unknown> {
  if (!isObject(obj.spec)) obj.spec = {};
  return obj.spec as Record<string, unknown>;
}

async function admitPodCreate(attrs: AdmissionAttributes, source: PriorityClassSource): Promise<void> {
  const pod = attrs.object as KubeObject;
  const spec = specOf(pod);
  const className = typeof spec.priorityClassName === 'string' ? spec.priorityClassName : '';
  let priority: number;
  let policy: string | undefined;
  if (className === '') {
    const pc = await defaultClass(source);
    if (pc) {
      spec.priorityClassName = pc.metadata.name;
      priority = classValue(pc);
      policy = typeof pc.preemptionPolicy === 'string' ? pc.preemptionPolicy : undefined;
    } else {
      priority = DEFAULT_PRIORITY_WHEN_NO_DEFAULT_CLASS;
      policy = 'PreemptLowerPriority';
    }
  } else {
    const pc = await source.get(className);
    if (!pc) throw admissionForbidden(attrs, `no PriorityClass with name ${className} was found`);
    priority = classValue(pc);
    policy = typeof pc.preemptionPolicy === 'string' ? pc.preemptionPolicy : undefined;
  }
  if (typeof spec.priority === 'number' && spec.priority !== priority) {
    throw admissionForbidden(
      attrs,
      `the integer value of priority (${spec.priority}) must not be provided in pod spec; priority admission controller computed ${priority} from the given PriorityClass name`,
    );
  }
  spec.priority = priority;
  if (policy !== undefined) {
    const own = spec.preemptionPolicy;
    if (typeof own === 'string' && own !== policy) {
      throw admissionForbidden(
        attrs,
        `the string value of PreemptionPolicy (${own}) must not be provided in pod spec; priority admission controller computed ${policy} from the given PriorityClass name`,
      );
    }
    spec.preemptionPolicy = policy;
  }
}

/** An update may omit what this plugin set on create: the stored values stay (validation refuses other changes). */
function admitPodUpdate(attrs: AdmissionAttributes): void {
  const pod = attrs.object as KubeObject;
  const old = attrs.oldObject;
  if (!old || !isObject(old.spec)) return;
  const spec = specOf(pod);
  for (const field of ['priority', 'preemptionPolicy']) {
    const kept = old.spec[field];
    if ((spec[field] === undefined || spec[field] === null) && kept !== undefined && kept !== null) {
      spec[field] = kept;
    }
  }
}

async function validatePriorityClass(attrs: AdmissionAttributes, source: PriorityClassSource): Promise<void> {
  const pc = attrs.object as KubeObject;
  if (pc.globalDefault !== true) return;
  const current = await defaultClass(source);
  if (!current) return;
  const name = current.metadata.name ?? '';
  if (attrs.operation === 'CREATE' || name !== pc.metadata.name) {
    throw admissionForbidden(attrs, `PriorityClass ${name} is already marked as default. Only one default can exist`);
  }
}

export function priority(source: PriorityClassSource): AdmissionPlugin {
  return {
    name: PRIORITY,
    handles: (op) => op === 'CREATE' || op === 'UPDATE' || op === 'DELETE',
    resources: ['/pods', 'scheduling.k8s.io/priorityclasses'],
    async admit(attrs) {
      if (!attrs.object || !isResource(attrs, '', 'pods')) return;
      if (attrs.operation === 'CREATE') await admitPodCreate(attrs, source);
      else if (attrs.operation === 'UPDATE') admitPodUpdate(attrs);
    },
    async validate(attrs) {
      if (!attrs.object || !isResource(attrs, 'scheduling.k8s.io', 'priorityclasses')) return;
      if (attrs.operation === 'CREATE' || attrs.operation === 'UPDATE') await validatePriorityClass(attrs, source);
    },
  };
}
