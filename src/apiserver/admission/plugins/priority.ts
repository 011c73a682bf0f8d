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
  /** get() without waiting, when the answer is at hand (undefined otherwise: ask get()). */
  getNow?(name: string): Readonly<KubeObject> | undefined;
  /** list() without waiting, when the answer is at hand (undefined otherwise: ask list()). */
  listNow?(): readonly Readonly<KubeObject>[] | undefined;
}

const DEFAULT_PRIORITY_WHEN_NO_DEFAULT_CLASS = 0;

function classValue(pc: KubeObject): number {
  return typeof pc.value === 'number' ? pc.value : 0;
}

/** The global default class among classes; the lowest-valued one when a race left several. */
function defaultOf(classes: readonly Readonly<KubeObject>[]): KubeObject | undefined {
  let found: KubeObject | undefined;
  for (const pc of classes) {
    if (pc.globalDefault !== true) continue;
    if (!found || classValue(found) > classValue(pc)) found = pc;
  }
  return found;
}

async function defaultClass(source: PriorityClassSource): Promise<KubeObject | undefined> {
  return defaultOf(await source.list());
}

function specOf(obj: KubeObject): Record<string, unknown> {
  if (!isObject(obj.spec)) obj.spec = {};
  return obj.spec as Record<string, unknown>;
}

/**
 * A new pod's priority from its class, or from the default class when it names none. Without waiting when the
 * classes are at hand, as they are on nearly every request.
 */
function admitPodCreate(attrs: AdmissionAttributes, source: PriorityClassSource): void | Promise<void> {
  const spec = specOf(attrs.object as KubeObject);
  const className = typeof spec.priorityClassName === 'string' ? spec.priorityClassName : '';
  if (className === '') {
    const known = source.listNow?.();
    if (known) return setPriority(attrs, spec, defaultOf(known), true);
    return defaultClass(source).then((pc) => setPriority(attrs, spec, pc, true));
  }
  const known = source.getNow?.(className);
  if (known) return setPriority(attrs, spec, known, false);
  return source.get(className).then((pc) => {
    if (!pc) throw admissionForbidden(attrs, `no PriorityClass with name ${className} was found`);
    setPriority(attrs, spec, pc, false);
  });
}

/** Sets priority and preemptionPolicy from the class (byDefault: the default class, or none). */
function setPriority(
  attrs: AdmissionAttributes,
  spec: Record<string, unknown>,
  pc: KubeObject | undefined,
  byDefault: boolean,
): void {
  let priority: number;
  let policy: string | undefined;
  if (pc) {
    if (byDefault) spec.priorityClassName = pc.metadata.name;
    priority = classValue(pc);
    policy = typeof pc.preemptionPolicy === 'string' ? pc.preemptionPolicy : undefined;
  } else {
    priority = DEFAULT_PRIORITY_WHEN_NO_DEFAULT_CLASS;
    policy = 'PreemptLowerPriority';
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
    admit(attrs) {
      if (!attrs.object || !isResource(attrs, '', 'pods')) return;
      if (attrs.operation === 'CREATE') return admitPodCreate(attrs, source);
      if (attrs.operation === 'UPDATE') admitPodUpdate(attrs);
    },
    validate(attrs) {
      if (!attrs.object || !isResource(attrs, 'scheduling.k8s.io', 'priorityclasses')) return;
      if (attrs.operation === 'CREATE' || attrs.operation === 'UPDATE') return validatePriorityClass(attrs, source);
    },
  };
}
